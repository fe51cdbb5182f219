#!/usr/bin/env python3
"""Figures of issue 13 for BENCHMARKS.md, against running instances sharing one PostgreSQL
database (standard library only):

  wake    a bot long-polls instance B for a game while its opponent moves on instance A;
          prints the wake latency (move answered on A -> long-poll answered on B), p50/p99/max
          over --moves moves.
  idle    --bots bots long-poll GET /v1/bots/me/turn?wait_s=60 spread over the instances, with
          nothing to play; prints the database's transactions per second meanwhile
          (pg_stat_database.xact_commit of --db, read with psql).

  python3 scripts/cluster_figures.py wake --url http://127.0.0.1:8091 --url http://127.0.0.1:8092
  python3 scripts/cluster_figures.py idle --url ... --url ... --bots 1000 --db hx_bench
"""
import argparse, asyncio, json, subprocess, threading, time, urllib.request, random


def call(base, method, path, token=None, body=None, timeout=70):
    data = None if body is None else json.dumps(body).encode()
    rq = urllib.request.Request(base + path, data=data, method=method)
    rq.add_header("content-type", "application/json")
    if token:
        rq.add_header("authorization", "Bearer " + token)
    with urllib.request.urlopen(rq, timeout=timeout) as r:
        text = r.read()
        return r.status, (json.loads(text) if text else None)


def bot(base, name):
    _, p = call(base, "POST", "/v1/players", body={"name": "owner " + name})
    _, b = call(base, "POST", "/v1/bots", p["token"], {"name": name})
    return b["token"]


def quiet_move(ply):
    k = ply - 1
    seat, i = k % 2, k // 2
    row = (0 if seat == 0 else 4) + 2 * (i // 8)
    return {"cell": [row, i % 8]}


def wake(args):
    a, b = args.url[0], args.url[1]
    lags = []
    run = "%06x" % random.randrange(1 << 24)
    while len(lags) < args.moves:
        t1, t2 = bot(a, "wa" + run + str(len(lags))), bot(a, "wb" + run + str(len(lags)))
        _, s = call(a, "POST", "/v1/sets", t1, {"game": "hex", "options": {"size": 9, "random_stones": 0},
                                                "clock": {"initial_s": 600}, "stake": 0})
        sid = s["id"]
        call(a, "POST", f"/v1/sets/{sid}/accept", t2, {})
        _, st = call(a, "GET", f"/v1/sets/{sid}/games/1")
        names = {st["seats"][0]["bot"]: 0, st["seats"][1]["bot"]: 1}
        tokens = [None, None]
        for tok in (t1, t2):
            _, me = call(a, "GET", "/v1/bots/me", tok)
            tokens[names[me["name"]]] = tok
        for ply in range(1, 33):
            out = {}
            def poll():
                call(b, "GET", f"/v1/sets/{sid}/games/1?after_ply={ply - 1}&wait_s=30")
                out["t"] = time.perf_counter()
            th = threading.Thread(target=poll)
            th.start()
            time.sleep(0.02)
            call(a, "POST", f"/v1/sets/{sid}/games/1/moves?ply={ply}", tokens[(ply - 1) % 2], quiet_move(ply))
            moved = time.perf_counter()
            th.join()
            lags.append(max(0.0, out["t"] - moved) * 1000)
            if len(lags) >= args.moves:
                break
    lags.sort()
    pick = lambda p: lags[min(len(lags) - 1, int(p / 100 * len(lags)))]
    print(json.dumps({"moves": len(lags), "p50_ms": round(pick(50), 2), "p99_ms": round(pick(99), 2),
                      "max_ms": round(lags[-1], 2)}))


async def long_poll(host, port, token, stop):
    while not stop.is_set():
        try:
            r, w = await asyncio.open_connection(host, port)
            w.write(f"GET /v1/bots/me/turn?wait_s=60 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                    "Connection: close\r\n\r\n".encode())
            await w.drain()
            await r.read()
            w.close()
        except OSError:
            await asyncio.sleep(0.5)


def commits(db):
    out = subprocess.check_output(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-Atc",
                                   f"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '{db}'"])
    return int(out.strip())


async def idle_async(args):
    tokens = []
    run = "%06x" % random.randrange(1 << 24)
    for p in range(0, args.bots, 100):
        base = args.url[0]
        _, pl = call(base, "POST", "/v1/players", body={"name": f"idle {run} {p}"})
        for i in range(min(100, args.bots - p)):
            _, b = call(base, "POST", "/v1/bots", pl["token"], {"name": f"i{run}{p + i}"})
            tokens.append(b["token"])
    stop = asyncio.Event()
    hosts = [u.split("//")[1].split(":") for u in args.url]
    tasks = [asyncio.create_task(long_poll(hosts[i % len(hosts)][0], int(hosts[i % len(hosts)][1]), t, stop))
             for i, t in enumerate(tokens)]
    await asyncio.sleep(args.warmup)  # every bot is waiting
    c0, t0 = commits(args.db), time.time()
    await asyncio.sleep(args.seconds)
    c1, t1 = commits(args.db), time.time()
    stop.set()
    for t in tasks:
        t.cancel()
    print(json.dumps({"bots_waiting": len(tokens), "instances": len(args.url),
                      "db_transactions_per_s": round((c1 - c0 - 2) / (t1 - t0), 2)}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["wake", "idle"])
    ap.add_argument("--url", action="append", required=True)
    ap.add_argument("--moves", type=int, default=200)
    ap.add_argument("--bots", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--db", default="")
    ap.add_argument("--warmup", type=float, default=20)
    args = ap.parse_args()
    if args.what == "wake":
        wake(args)
    else:
        asyncio.run(idle_async(args))


if __name__ == "__main__":
    main()
