#!/usr/bin/env python3
"""Module dependency graph of the server crate (src/), from its paths, and its circles.

For every module, the script collects the paths its non-test code names: `use` trees
(`use crate::arena::{house, play::Effects};`, `use super::sets;`) and paths written inline
(`crate::arena::views::set_json(..)`, `super::house::pool::Pool`). A path is resolved
to the module it reaches, and the graph is read between *siblings*: `arena::house` depends
on `arena::play` when code anywhere under `arena::house` names something under
`arena::play`. A module naming its own ancestors or descendants is no edge (a parent
declares its children; a child may use its parent's items).

Usage: scripts/mod_graph.py [--edges] [--root src]
Prints every circle between siblings (one strongly connected component a line) and exits
1 when there is one; `--edges` also prints the graph, one `from -> to` a line.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def module_of(path, root):
    """The module path (a tuple) of a source file: src/arena/house/pool.rs -> (arena, house, pool)."""
    rel = os.path.relpath(path, root)[: -len(".rs")].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_code(text):
    """Drops comments, string literals and `#[cfg(test)]` items, keeping line structure."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    # A `\` may end a line inside a string (a continued literal): it escapes the newline.
    text = re.sub(r'"(?:\\[\s\S]|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        j = m.end()
        # The item it guards: up to its `;` or its balanced `{ ... }`.
        depth = 0
        while j < len(text):
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif c == ";" and depth == 0:
                j += 1
                break
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand_use(tree):
    """Flattens a use tree `a::{b, c::{d, e}}` into its paths [[a, b], [a, c, d], [a, c, e]]."""
    tree = re.sub(r"\s+", "", tree)

    def parse(s, i):
        prefix, paths = [], []
        while i < len(s):
            m = re.match(IDENT + r"|\*", s[i:])
            if m:
                prefix.append(m.group(0))
                i += m.end()
                if s.startswith("::", i):
                    i += 2
                    continue
                if s.startswith("as", i):
                    m2 = re.match(r"as" + IDENT, s[i:])
                    i += m2.end() if m2 else 0
                return [prefix], i
            if s[i] == "{":
                i += 1
                while i < len(s) and s[i] != "}":
                    sub, i = parse(s, i)
                    paths += [prefix + p for p in sub]
                    if i < len(s) and s[i] == ",":
                        i += 1
                return paths, i + 1
            i += 1
        return [prefix], i

    paths, _ = parse(tree, 0)
    return paths


def resolve(module, path, modules):
    """The module a path names, or None for a path outside the crate."""
    if not path:
        return None
    if path[0] == "crate":
        base, rest = (), path[1:]
    elif path[0] in ("super", "self"):
        base = module
        rest = list(path)
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        # A relative path: a child of this module (`use clock::X` in arena/mod.rs).
        if module + (path[0],) in modules:
            base, rest = module, list(path)
        else:
            return None
    target = tuple(base)
    for part in rest:
        if target + (part,) in modules:
            target = target + (part,)
        else:
            break
    return target


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="src")
    ap.add_argument("--edges", action="store_true")
    args = ap.parse_args()

    files = {}
    for d, _, names in os.walk(args.root):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(d, n)
                files[module_of(p, args.root)] = p
    modules = set(files)
    # Directory modules declared without a mod.rs still count.
    for m in list(modules):
        for k in range(len(m)):
            modules.add(m[:k])

    refs = defaultdict(set)  # module -> modules it names
    for mod, path in files.items():
        with open(path, encoding="utf-8") as f:
            code = strip_code(f.read())
        globbed = []  # modules whose names a `use M::*` brings into scope
        for m in re.finditer(r"\buse\s+([^;]+);", code):
            for p in expand_use(m.group(1)):
                t = resolve(mod, p, modules)
                if t is not None:
                    refs[mod].add(t)
                    if p[-1] == "*":
                        globbed.append(t)
        # Through a glob, `sets::open(..)` names the glob module's child `sets`.
        for g in globbed:
            for m in re.finditer(r"(?<![A-Za-z0-9_:])(" + IDENT + r")::", code):
                if g + (m.group(1),) in modules:
                    refs[mod].add(g + (m.group(1),))
        for m in re.finditer(r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:::" + IDENT + r")+)", code):
            t = resolve(mod, m.group(1).split("::"), modules)
            if t is not None:
                refs[mod].add(t)

    # Edges between siblings: from the child of their common parent on each side.
    edges = defaultdict(set)
    for src, targets in refs.items():
        for dst in targets:
            k = 0
            while k < min(len(src), len(dst)) and src[k] == dst[k]:
                k += 1
            if k == len(src) or k == len(dst):
                continue  # ancestor or descendant
            a, b = src[: k + 1], dst[: k + 1]
            edges[a].add(b)

    if args.edges:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print("::".join(a), "->", "::".join(b))

    # Strongly connected components (Tarjan).
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
        if v not in index:
            visit(v)
    for comp in sorted(comps):
        print("circle:", " <-> ".join("::".join(m) for m in comp))
    return 1 if comps else 0


if __name__ == "__main__":
    sys.exit(main())
