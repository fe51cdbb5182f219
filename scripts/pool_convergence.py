#!/usr/bin/env python3
"""Convergence of the ratings through the matchmaking pool (issue 20; BENCHMARKS.md).

Registers one bot per house strategy (each with its own owner), puts them in the pool
(unstaked, rated, the options and clock given), runs `hexarena play --strategy RUNG --sets 0`
for each, and after every finished pool set reads the leaderboard: the Kendall tau between
the Elo order and the known strength order (the ladder's), and the number of sets after
which the order was right and stayed right. Standard library only.

    hexarena serve --bind 127.0.0.1:18080 --database-url sqlite:///tmp/conv/arena.db \
        --house-bots false --pool-pair-sets-per-hour 1000 &
    python3 scripts/pool_convergence.py --url http://127.0.0.1:18080 \
        --hexarena target/release/hexarena --minutes 20
"""

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request

LADDER = ["house-random", "house-novice", "house-club", "house-bridge", "house-master"]


def call(url, method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read()
        return json.loads(text) if text else None


def kendall_tau(order, truth):
    """Tau-a between two orders of the same items (best first)."""
    pos = {b: i for i, b in enumerate(order)}
    n, s = len(truth), 0
    for i in range(n):
        for j in range(i + 1, n):
            # truth[i] is stronger than truth[j]
            s += 1 if pos[truth[i]] < pos[truth[j]] else -1
    return s / (n * (n - 1) / 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:18080")
    ap.add_argument("--hexarena", default="target/release/hexarena")
    ap.add_argument("--rungs", default="house-random,house-novice,house-club,house-bridge")
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--initial-s", type=int, default=20)
    ap.add_argument("--increment-s", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--tag", default=str(int(time.time()) % 100000))
    a = ap.parse_args()
    rungs = a.rungs.split(",")
    truth = sorted(rungs, key=LADDER.index, reverse=True)  # strongest first
    names, procs = {}, []
    for rung in rungs:
        name = f"{rung.split('-')[1].capitalize()}{a.tag}"[:24]
        p = call(a.url, "POST", "/v1/players", body={"name": "owner " + name})
        b = call(a.url, "POST", "/v1/bots", p["token"], {"name": name})
        names[name] = rung
        call(a.url, "POST", "/v1/pool", b["token"], {
            "stake": 0, "rated": True, "options": {"size": a.size},
            "clock": {"initial_s": a.initial_s, "increment_s": a.increment_s}})
        log = open(f"/tmp/pool_convergence_{name}.log", "w")
        procs.append(subprocess.Popen(
            [a.hexarena, "play", "--url", a.url, "--token", b["token"], "--strategy", rung,
             "--sets", "0"], stdout=log, stderr=log))
    truth_names = sorted(names, key=lambda n: LADDER.index(names[n]), reverse=True)
    print(f"bots: {', '.join(f'{n}={r}' for n, r in names.items())}", flush=True)
    print("sets  tau    Elo order (best first)", flush=True)
    seen, right_since, rows = -1, None, []
    end = time.time() + a.minutes * 60
    try:
        while time.time() < end:
            board = call(a.url, "GET", "/v1/leaderboard?game=hex&limit=100")["rows"]
            mine = [r for r in board if r["bot"] in names]
            sets = sum(r["sets"] for r in mine) // 2
            if sets != seen and len(mine) == len(names):
                seen = sets
                order = [r["bot"] for r in mine]  # the leaderboard's order: Elo
                tau = kendall_tau(order, truth_names)
                if tau == 1.0 and right_since is None:
                    right_since = sets
                elif tau < 1.0:
                    right_since = None
                rows.append((sets, tau, order))
                desc = ", ".join(f"{names[r['bot']]} {r['rating']:.0f}" for r in mine)
                print(f"{sets:4d}  {tau:+.2f}  {desc}", flush=True)
            time.sleep(2)
    finally:
        for p in procs:
            p.terminate()
    print(f"order right from set {right_since} on" if right_since is not None
          else "order not right at the end", flush=True)
    print(json.dumps({"rows": [(s, t) for s, t, _ in rows], "right_since": right_since}))


if __name__ == "__main__":
    sys.exit(main())
