#!/usr/bin/env python3
"""Fails if any dependency's license is not compatible with MIT OR Apache-2.0 (no GPL/AGPL/LGPL).

Reads `cargo metadata`; every package must offer at least one permissive license in its SPDX
expression (an OR choice is enough), or be one of this workspace's own crates."""
import json
import re
import subprocess
import sys

ALLOWED = {
    "MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "Zlib", "0BSD", "CC0-1.0",
    "Unicode-3.0", "Unicode-DFS-2016", "Unlicense", "BSL-1.0", "MPL-2.0", "CDLA-Permissive-2.0",
    "Apache-2.0 WITH LLVM-exception", "MIT-0", "NCSA",
}

meta = json.loads(subprocess.check_output(["cargo", "metadata", "--format-version", "1", "--locked"]))
members = set(meta["workspace_members"])
bad = []
for pkg in meta["packages"]:
    if pkg["id"] in members:
        continue
    lic = pkg.get("license") or ""
    # An expression passes if every AND-group has at least one allowed alternative.
    groups = [g for g in re.split(r"\s+AND\s+", lic.replace("(", "").replace(")", "")) if g]
    ok = bool(groups) and all(
        any(alt.strip() in ALLOWED for alt in re.split(r"\s+OR\s+|/", g)) for g in groups
    )
    if not ok:
        bad.append(f"{pkg['name']} {pkg['version']}: {lic or 'no license field'}")
if bad:
    print("dependencies with incompatible or unknown licenses:\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"licenses ok ({len(meta['packages']) - len(members)} dependencies)")
