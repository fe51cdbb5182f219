#!/usr/bin/env python3
"""The house ladder's Elo table (issue 11) from the referee's RESULT lines (standard library only).

Reads files (or stdin) holding the `RESULT a=... b=... games=... a_wins=... b_wins=... draws=...`
lines that `cargo run --release --example gtp_referee` prints, one per pair of rungs, and fits a
Bradley-Terry model by maximum likelihood (Newton's method) with the first name given by
--anchor fixed at 0 Elo. A prior of one virtual draw per pair of players that met keeps the fit
finite when one side won every game (house-random usually does not win one). The 95% intervals
are +-1.96 standard errors from the inverse of the observed information (the negative Hessian of
the log-likelihood, the anchor held fixed); an interval is relative to the anchor.

  python3 scripts/ladder_elo.py --anchor house-random results/*.txt
"""
import argparse, math, re, sys

ELO = 400.0 / math.log(10.0)


def parse(lines):
    games = {}
    for line in lines:
        if not line.startswith("RESULT "):
            continue
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        a, b = kv["a"], kv["b"]
        aw = int(kv["a_wins"]) + int(kv["draws"]) / 2.0
        bw = int(kv["b_wins"]) + int(kv["draws"]) / 2.0
        for x, y, w in ((a, b, aw), (b, a, bw)):
            games[(x, y)] = games.get((x, y), 0.0) + w
    return games


def solve(m, v):
    """Solves m x = v (Gauss-Jordan with partial pivoting); also returns m's inverse."""
    n = len(m)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        d = a[c][c]
        a[c] = [x / d for x in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0.0:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [row[-1] for row in a], [row[n:2 * n] for row in a]


def fit(names, wins, anchor):
    free = [p for p in names if p != anchor]
    idx = {p: i for i, p in enumerate(free)}
    r = {p: 0.0 for p in names}
    pairs = {tuple(sorted(k)) for k in wins}
    w = dict(wins)
    for x, y in pairs:  # the prior: one virtual draw per pair that met
        w[(x, y)] = w.get((x, y), 0.0) + 0.5
        w[(y, x)] = w.get((y, x), 0.0) + 0.5
    for _ in range(100):
        g = [0.0] * len(free)
        h = [[0.0] * len(free) for _ in free]
        for x, y in pairs:
            n = w[(x, y)] + w[(y, x)]
            e = 1.0 / (1.0 + math.exp(r[y] - r[x]))  # P(x beats y)
            grad = w[(x, y)] - n * e
            info = n * e * (1.0 - e)
            if x in idx:
                g[idx[x]] += grad
                h[idx[x]][idx[x]] += info
            if y in idx:
                g[idx[y]] -= grad
                h[idx[y]][idx[y]] += info
            if x in idx and y in idx:
                h[idx[x]][idx[y]] -= info
                h[idx[y]][idx[x]] -= info
        step, inv = solve(h, g)
        for p in free:
            r[p] += step[idx[p]]
        if max(abs(s) for s in step) < 1e-10:
            break
    se = {anchor: 0.0}
    for p in free:
        se[p] = math.sqrt(max(inv[idx[p]][idx[p]], 0.0))
    return r, se


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchor", default="house-random")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    lines = []
    for f in args.files or ["-"]:
        lines += (sys.stdin if f == "-" else open(f)).read().splitlines()
    wins = parse(lines)
    names = sorted({x for x, _ in wins})
    if args.anchor not in names:
        sys.exit(f"{args.anchor} played no game")
    r, se = fit(names, wins, args.anchor)
    print("| rung | Elo | 95% interval | games | score |")
    print("|---|---:|---:|---:|---:|")
    for p in sorted(names, key=lambda p: r[p]):
        won = sum(v for (x, _), v in wins.items() if x == p)
        played = won + sum(v for (_, y), v in wins.items() if y == p)
        lo, hi = (r[p] - 1.96 * se[p]) * ELO, (r[p] + 1.96 * se[p]) * ELO
        interval = "anchor" if p == args.anchor else f"{lo:+.0f}..{hi:+.0f}"
        print(f"| {p} | {r[p] * ELO:+.0f} | {interval} | {played:.0f} | {won:g}/{played:.0f} |")
    print()
    print("| pair | score of the first | games |")
    print("|---|---:|---:|")
    for x, y in sorted({tuple(sorted(k, key=lambda p: -r[p])) for k in wins}):
        n = wins.get((x, y), 0.0) + wins.get((y, x), 0.0)
        print(f"| {x} vs {y} | {wins.get((x, y), 0.0):g}/{n:.0f} | {n:.0f} |")


if __name__ == "__main__":
    main()
