#!/usr/bin/env python3
"""Example hexarena bot. It needs nothing beyond the Python standard library (tested with
Python 3.11).

It follows agents.md: it long-polls GET /v1/bots/me/turn, chooses a move, posts it with
?ply=<state.ply + 1>, resends the same move and ply after network errors, and acts on
every error code. It logs one line per move. It plays every set of the bot in progress
(also one left running by an earlier run) to its end, but counts in --sets only the sets this
run created or accepted, and exits once N of those have finished and no set is in progress.

  # register a player and a bot, print both tokens as JSON
  python3 python_bot.py --register --player-name ada --bot-name AdaBot

  # play 3 practice sets against house-random, or against a named rung of the ladder
  python3 python_bot.py --token hxb_... --practice --sets 3
  python3 python_bot.py --token hxb_... --practice house-novice --sets 3

  # post 20-PTS challenges and also accept open ones, stop after 5 sets
  python3 python_bot.py --token hxb_... --create-stake 20 --accept-open --sets 5
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from datetime import datetime, timezone

WAIT_S = 10              # long-poll wait. A turn is answered at once; this only sets the bookkeeping pace
HOUSEKEEP_EVERY_S = 10   # how often to look at our sets (finished? new ones to start?)
NEIGHBOURS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


def log(msg: str) -> None:
    now = datetime.now(timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    print(f"{now} {msg}", file=sys.stderr, flush=True)   # stdout stays clean for --register JSON


# --------------------------------------------------------------------------- HTTP


class ApiError(Exception):
    """The server answered with an error envelope."""

    def __init__(self, status: int, code: str, message: str, details: dict, retry_after: float | None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message
        self.details, self.retry_after = details or {}, retry_after


class NetworkError(Exception):
    """No usable answer: connection refused or reset, timeout, truncated body."""


class Client:
    def __init__(self, base_url: str, token: str | None = None):
        self.base = base_url.rstrip("/")
        self.token = token

    def request(self, method: str, path: str, body=None, query=None, timeout: float = 15.0, token=None):
        """One HTTP exchange. Returns (status, parsed JSON or None). Raises ApiError or NetworkError."""
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        tok = token or self.token
        if tok:
            req.add_header("Authorization", f"Bearer {tok}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                raw = resp.read()
                return resp.status, (json.loads(raw) if raw else None)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)["error"]
            except (ValueError, KeyError, TypeError):
                err = {"code": "http_%d" % e.code, "message": raw[:200].decode(errors="replace")}
            ra = e.headers.get("Retry-After")
            raise ApiError(e.code, err.get("code", ""), err.get("message", ""), err.get("details") or {},
                           float(ra) if ra and ra.replace(".", "", 1).isdigit() else None) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as e:
            raise NetworkError(f"{method} {path}: {e}") from None

    def call(self, method: str, path: str, body=None, query=None, timeout: float = 15.0,
             retry_network: bool = True, give_up_at: float | None = None, token=None):
        """Like request(), but also sleeps through 429 (Retry-After), and retries 500/503 and,
        if retry_network is set, network errors with exponential backoff. Sends the same
        request each time, which is only safe for idempotent requests (GETs and moves with ?ply)."""
        backoff = 0.5
        while True:
            try:
                return self.request(method, path, body, query, timeout, token)
            except ApiError as e:
                if e.code == "rate_limited" or e.status == 429:
                    wait = e.retry_after if e.retry_after is not None else 5.0
                    log(f"rate limited ({e.details.get('limit')}), sleeping {wait:.0f}s")
                    time.sleep(wait)
                    continue
                if e.status not in (500, 502, 503, 504):
                    raise
                err: Exception = e
            except NetworkError as e:
                if not retry_network:
                    raise
                err = e
            if give_up_at is not None and time.monotonic() + backoff > give_up_at:
                raise err
            log(f"retrying in {backoff:.1f}s after: {err}")
            time.sleep(backoff)
            backoff = min(backoff * 2, 8.0)


# --------------------------------------------------------------------------- strategy


def shortest(board, size, seat, axis):
    """0-1 BFS: how many empty cells `seat` still needs to join its edges.
    axis 0 = rows (top to bottom), axis 1 = cols (left to right)."""
    far = size * size + 1
    dist = [[far] * size for _ in range(size)]
    dq = deque()
    for k in range(size):
        r, c = (0, k) if axis == 0 else (k, 0)
        v = board[r][c]
        if v == seat:
            dist[r][c] = 0
            dq.appendleft((0, r, c))
        elif v == 0:
            dist[r][c] = 1
            dq.append((1, r, c))
    while dq:
        d, r, c = dq.popleft()
        if d > dist[r][c]:
            continue
        if (r if axis == 0 else c) == size - 1:
            return d
        for dr, dc in NEIGHBOURS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < size and 0 <= cc < size:
                v = board[rr][cc]
                if v == 3 - seat:
                    continue
                nd = d + (0 if v == seat else 1)
                if nd < dist[rr][cc]:
                    dist[rr][cc] = nd
                    (dq.appendleft if v == seat else dq.append)((nd, rr, cc))
    return far


def axis_of(state, seat: int) -> int:
    return 0 if state["seats"][seat - 1]["edges"] == "top-bottom" else 1


def choose_move(state, budget_s: float, rng: random.Random) -> dict:
    """Prefer moves that shorten our own path and lengthen the opponent's. Cells next to our
    own stones along our axis are tried first, and the search stops when the time budget
    is used up."""
    legal = state["legal_moves"]
    size = state["board"]["size"]
    board = [row[:] for row in state["board"]["cells"]]
    me = state["to_move"]
    opp = 3 - me
    my_axis, opp_axis = axis_of(state, me), axis_of(state, opp)

    if any(m.get("swap") for m in legal):
        # Only the opening stone is on the board. Take it if it is far from every edge.
        stones = [(r, c) for r in range(size) for c in range(size) if board[r][c]]
        if stones and all(2 <= x <= size - 3 for x in stones[0]):
            return {"swap": True}

    cells = [tuple(m["cell"]) for m in legal if "cell" in m]
    if not cells:
        return legal[0]
    mid = (size - 1) / 2

    def prior(cell):
        r, c = cell
        along = across = 0
        for dr, dc in NEIGHBOURS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < size and 0 <= cc < size and board[rr][cc] == me:
                if (dr if my_axis == 0 else dc) != 0:
                    along += 1
                else:
                    across += 1
        return 2 * along + across - 0.15 * (abs(r - mid) + abs(c - mid)) + rng.random() * 0.5

    ordered = sorted(cells, key=prior, reverse=True)
    start = time.monotonic()
    best, best_score = ordered[0], None
    for i, (r, c) in enumerate(ordered):
        if i > 0 and time.monotonic() - start > budget_s:
            break
        board[r][c] = me
        mine = shortest(board, size, me, my_axis)
        theirs = shortest(board, size, opp, opp_axis)
        board[r][c] = 0
        if mine == 0:
            return {"cell": [r, c]}                     # this move wins
        score = (theirs - mine) * 10 + prior((r, c))
        if best_score is None or score > best_score:
            best, best_score = (r, c), score
    return {"cell": list(best)}


def time_budget(state) -> float:
    """Seconds we allow ourselves to think: a small slice of what is left."""
    clk = state["clock"]
    me = state["to_move"]
    left_ms = clk["remaining_ms"][me - 1]
    if clk.get("first_move") and clk.get("deadline"):
        left_ms = (parse_time(clk["deadline"]) - parse_time(clk["server_time"])) * 1000
    return max(0.05, min(2.0, left_ms / 1000 / 25))


def parse_time(s: str) -> float:
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def cell_name(cell) -> str:
    return f"{chr(ord('a') + cell[1])}{cell[0] + 1}"


# --------------------------------------------------------------------------- seed check (agents.md section 10)

PCG_M = 0x2360ED051FC65DA44385DF649FCCF645
M128, M64 = (1 << 128) - 1, (1 << 64) - 1


class Pcg64:
    """rand_pcg::Pcg64 (Lcg128Xsl64) seeded like Pcg64::from_seed."""

    def __init__(self, seed: bytes):
        self.inc = int.from_bytes(seed[16:32], "little") | 1
        self.state = (int.from_bytes(seed[0:16], "little") + self.inc) & M128
        self.state = (self.state * PCG_M + self.inc) & M128

    def next_u64(self) -> int:
        self.state = (self.state * PCG_M + self.inc) & M128
        rot = self.state >> 122
        x = ((self.state >> 64) ^ self.state) & M64
        return ((x >> rot) | (x << (64 - rot))) & M64


def opening_from_seed(seed_hex: str, size: int, k: int):
    rng, n = Pcg64(bytes.fromhex(seed_hex)), size * size
    zone = (1 << 64) // n * n
    while True:
        chosen, cells = set(), []
        while len(cells) < 2 * k:
            x = rng.next_u64()
            if x >= zone:
                continue
            i = x % n
            if i not in chosen:
                chosen.add(i)
                cells.append([i // size, i % size])
        board = [[0] * size for _ in range(size)]
        for j, (r, c) in enumerate(cells):
            board[r][c] = 1 if j % 2 == 0 else 2
        # shortest() == 0 means the seat's stones alone already join its edges
        if shortest(board, size, 1, 0) != 0 and shortest(board, size, 2, 1) != 0:
            return cells
        # an opening that already connects is discarded; keep drawing from the same stream


def verify_set(s) -> str:
    if not s.get("seed"):
        return "seed not revealed"
    if hashlib.sha256(bytes.fromhex(s["seed"])).hexdigest() != s.get("seed_sha256"):
        return "SEED HASH MISMATCH"
    o = s["options"]
    got = opening_from_seed(s["seed"], o["size"], o["random_stones"])
    return "opening verified" if got == (s.get("opening") or []) else f"OPENING MISMATCH {got}"


# --------------------------------------------------------------------------- the bot


class Bot:
    def __init__(self, client: Client, args):
        self.c = client
        self.args = args
        self.rng = random.Random()
        status, me = self.c.call("GET", "/v1/bots/me")
        self.name = me["name"]
        self.target = args.games
        self.tracked: dict[str, str] = {}     # set id -> last known status (open/active)
        self.finished = 0
        self.mine: set[str] = set()           # sets this run created or accepted: the counted ones
        self.skip_sets: set[str] = set()      # open sets we cannot or should not accept
        self.pause_until = 0.0                # creating and accepting paused until (monotonic)
        self.last_housekeeping = 0.0
        log(f"playing as {self.name} (rating {me.get('rating')}); target {self.target or 'unlimited'} set(s)")

    # ---- main loop
    def run(self) -> None:
        while not self.done():
            if time.monotonic() - self.last_housekeeping >= HOUSEKEEP_EVERY_S:
                self.housekeeping()
                if self.done():
                    break
            try:
                status, state = self.c.call("GET", "/v1/bots/me/turn", query={"wait_s": WAIT_S},
                                            timeout=WAIT_S + 15)
            except ApiError as e:
                self.fatal_or_pause(e, "turn")
                continue
            if status == 200 and state:
                self.play(state)
        log(f"done: {self.finished} set(s) finished")

    def done(self) -> bool:
        # Never exit mid-set: a game left behind would be lost on time.
        in_progress = any(st == "active" for st in self.tracked.values())
        return self.target > 0 and self.finished >= self.target and not in_progress

    # ---- one move
    def play(self, state) -> None:
        if state.get("status") != "active" or state.get("to_move") is None:
            return
        sid, n, me = state["set_id"], state["game_no"], state["to_move"]
        self.tracked.setdefault(sid, "active")
        move = choose_move(state, time_budget(state), self.rng)
        self.send(state, move, allow_fallback=True)

    def send(self, state, move, allow_fallback: bool) -> None:
        sid, n, me = state["set_id"], state["game_no"], state["to_move"]
        ply = state["ply"] + 1
        path = f"/v1/sets/{sid}/games/{n}/moves"
        # Retry (same move, same ply) until shortly after our deadline; after that the game is lost anyway.
        clk = state["clock"]
        left_s = (parse_time(clk["deadline"]) - parse_time(clk["server_time"])) if clk.get("deadline") else 60
        give_up = time.monotonic() + max(left_s, 0) + 5
        t0 = time.monotonic()
        try:
            _, new = self.c.call("POST", path, body=move, query={"ply": ply}, give_up_at=give_up)
        except NetworkError as e:
            log(f"{sid} g{n} ply {ply}: gave up sending the move ({e})")
            return
        except ApiError as e:
            self.move_refused(state, move, ply, e, allow_fallback)
            return
        name = "swap" if move.get("swap") else cell_name(move["cell"])
        left = new["clock"]["remaining_ms"][me - 1]
        log(f"{sid} g{n} ply {ply:3d} seat {me} {name:>4}  rtt {int((time.monotonic() - t0) * 1000)}ms"
            f"  clock {left / 1000:.1f}s  status {new['status']}")
        if new["status"] == "finished":
            self.game_ended(new)

    def move_refused(self, state, move, ply, e: ApiError, allow_fallback: bool) -> None:
        sid, n = state["set_id"], state["game_no"]
        tag = f"{sid} g{n} ply {ply}"
        if e.code in ("stale_ply", "not_your_turn"):
            log(f"{tag}: {e.code}, re-reading")          # the next turn poll brings the fresh state
        elif e.code == "game_over":
            res = e.details.get("result") or {}
            log(f"{tag}: game over ({res.get('reason')}, winner {res.get('winner_bot')})")
            self.last_housekeeping = 0.0                  # check our sets soon
        elif e.code in ("occupied", "off_board", "swap_not_allowed", "invalid_move"):
            log(f"{tag}: {e.code} for {move}, re-reading and picking from legal_moves")
            if allow_fallback:
                try:
                    _, fresh = self.c.call("GET", f"/v1/sets/{sid}/games/{n}")
                except (ApiError, NetworkError) as e2:
                    log(f"{tag}: could not re-read: {e2}")
                    return
                me_name = state["seats"][state["to_move"] - 1]["bot"]
                if (fresh["status"] == "active" and fresh["to_move"]
                        and fresh["seats"][fresh["to_move"] - 1]["bot"] == me_name and fresh["legal_moves"]):
                    self.send(fresh, self.rng.choice(fresh["legal_moves"]), allow_fallback=False)
        elif e.code in ("not_your_seat", "forbidden", "not_found"):
            log(f"{tag}: {e.code} ({e.message}); skipping this game")
            time.sleep(1)
        else:
            self.fatal_or_pause(e, tag)

    def game_ended(self, state) -> None:
        res = state.get("result") or {}
        log(f"{state['set_id']} g{state['game_no']} finished: {res.get('reason')}, winner {res.get('winner_bot')}")
        if state["game_no"] == 2:
            self.last_housekeeping = 0.0

    # ---- sets: finish tracking, starting new ones
    def housekeeping(self) -> None:
        self.last_housekeeping = time.monotonic()
        try:
            self.refresh_tracked()
            if not self.done():
                self.start_sets()
        except NetworkError as e:
            log(f"housekeeping: {e}")
        except ApiError as e:
            self.fatal_or_pause(e, "housekeeping")

    def refresh_tracked(self) -> None:
        for status in ("active", "open"):
            _, page = self.c.call("GET", "/v1/sets", query={"bot": self.name, "status": status, "limit": 100})
            for row in page["sets"]:
                if row["creator"] == self.name or row.get("acceptor") == self.name:
                    self.tracked.setdefault(row["id"], status)
        for sid in list(self.tracked):
            _, s = self.c.call("GET", f"/v1/sets/{sid}")
            if s["status"] in ("open", "active"):
                self.tracked[sid] = s["status"]
                continue
            del self.tracked[sid]
            if s["status"] == "finished":
                counted = sid in self.mine
                self.finished += counted
                log(f"{sid} set finished: {s.get('result')}  points {s.get('points')}  "
                    f"{verify_set(s)}  [{self.finished}/{self.target or '-'}]"
                    + ("" if counted else "  (not started by this run: not counted)"))
            else:
                log(f"{sid} set {s['status']}")

    def start_sets(self) -> None:
        if time.monotonic() < self.pause_until:
            return
        in_flight = len(self.tracked)
        room = self.args.parallel - in_flight
        if self.target:
            own = sum(1 for sid in self.tracked if sid in self.mine)
            room = min(room, self.target - self.finished - own)
        if room <= 0:
            return
        a = self.args
        if a.practice:
            self.create("/v1/practice", {"opponent": a.practice})
            return
        if a.create_stake is not None and not any(st == "open" for st in self.tracked.values()):
            self.create("/v1/sets", {"game": "hex", "stake": a.create_stake})
            room -= 1
        if a.accept_open and room > 0:
            self.accept_some(room)

    def create(self, path: str, body: dict) -> None:
        try:
            # Creating is not idempotent: no blind retry after a network error. The next
            # housekeeping finds the set if it was in fact created.
            _, s = self.c.call("POST", path, body=body, retry_network=False)
        except NetworkError as e:
            log(f"create: {e}")
            return
        except ApiError as e:
            self.fatal_or_pause(e, "create")
            return
        self.tracked[s["id"]] = s["status"]
        self.mine.add(s["id"])
        log(f"{s['id']} created ({s['status']}, stake {s['stake']}, opponent {s.get('opponent') or s.get('acceptor') or 'any'})")

    def accept_some(self, room: int) -> None:
        _, page = self.c.call("GET", "/v1/sets", query={"status": "open", "limit": 50})
        for row in page["sets"]:
            if room <= 0:
                break
            sid = row["id"]
            if sid in self.skip_sets or row["creator"] == self.name:
                continue
            if row.get("opponent") not in (None, self.name):
                continue
            try:
                _, s = self.c.call("POST", f"/v1/sets/{sid}/accept", retry_network=False)
            except NetworkError as e:
                log(f"accept {sid}: {e}")
                return
            except ApiError as e:
                if e.code in ("set_not_open", "same_owner", "forbidden", "not_found"):
                    log(f"accept {sid}: {e.code}, skipping")
                    self.skip_sets.add(sid)
                    continue
                self.fatal_or_pause(e, f"accept {sid}")
                return
            self.tracked[sid] = s["status"]
            self.mine.add(sid)
            room -= 1
            log(f"{sid} accepted from {row['creator']} (stake {row['stake']})")

    # ---- errors that are not about one move
    def fatal_or_pause(self, e: ApiError, where: str) -> None:
        if e.code == "unauthorized":
            sys.exit(f"{where}: unauthorized: check --token (a bot token, hxb_...)")
        if e.code in ("bad_request", "invalid_options", "payload_too_large"):
            sys.exit(f"{where}: {e.code}: {e.message} {e.details}")
        if e.code == "suspended":
            log(f"{where}: suspended (3 strikes in 24 h); no staked sets for 10 min")
            self.pause_until = time.monotonic() + 600
        elif e.code == "insufficient_balance":
            log(f"{where}: insufficient balance; pausing new sets for 5 min")
            self.pause_until = time.monotonic() + 300
        else:
            log(f"{where}: {e}")
            time.sleep(2)


# --------------------------------------------------------------------------- registration


def register(args) -> None:
    c = Client(args.url)
    try:
        _, player = c.call("POST", "/v1/players", body={"name": args.player_name}, retry_network=False)
        body = {"name": args.bot_name}
        if args.max_stake is not None:
            body["max_stake"] = args.max_stake
        _, bot = c.call("POST", "/v1/bots", body=body, token=player["token"], retry_network=False)
    except (ApiError, NetworkError) as e:
        sys.exit(f"registration failed: {e}")
    print(json.dumps({
        "player_id": player["id"], "player_token": player["token"], "balance": player["balance"],
        "bot_id": bot["id"], "bot_name": bot["name"], "bot_token": bot["token"],
    }, indent=2))


def main() -> None:
    p = argparse.ArgumentParser(description="Example hexarena bot (standard library only).")
    p.add_argument("--url", default=os.environ.get("HEXARENA_URL", "http://127.0.0.1:8080"))
    p.add_argument("--token", default=os.environ.get("HEXARENA_TOKEN"), help="bot token (hxb_...)")
    p.add_argument("--practice", nargs="?", const="house-random", metavar="HOUSE_BOT",
                   help="start practice sets against a house bot: house-random (without a name), "
                        "house-novice, house-club, house-bridge or house-master")
    p.add_argument("--create-stake", type=int, metavar="N", help="post open challenges with this stake")
    p.add_argument("--accept-open", action="store_true", help="accept open challenges from the lobby")
    p.add_argument("--sets", "--games", dest="games", type=int, default=1, metavar="N",
                   help="exit after N sets (two games each) started or accepted by this run have "
                        "finished and none is in progress; 0 = run forever")
    p.add_argument("--parallel", type=int, default=1, help="sets to have in flight at once")
    p.add_argument("--seed", type=int, help="seed for the bot's own random choices")
    p.add_argument("--register", action="store_true", help="register a player and a bot, print the tokens")
    p.add_argument("--player-name", default="example-player")
    p.add_argument("--bot-name", default="ExampleBot")
    p.add_argument("--max-stake", type=int)
    args = p.parse_args()

    if args.register:
        register(args)
        return
    if not args.token:
        p.error("--token (or HEXARENA_TOKEN) is required unless --register")
    try:
        bot = Bot(Client(args.url, args.token), args)
    except (ApiError, NetworkError) as e:
        sys.exit(f"cannot start: {e}")
    if args.seed is not None:
        bot.rng.seed(args.seed)
    try:
        bot.run()
    except KeyboardInterrupt:
        log("interrupted")


if __name__ == "__main__":
    main()
