"""The Python client against a live hexarena: the binary named by HEXARENA_BIN (default
target/debug/hexarena at the repository's top) on a free port with a fresh SQLite database."""

import os
import pathlib
import random
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request

from hexarena_client import ApiError, Client, EventStream, Move, NetworkError, play, retry_wait
from hexarena_client.client import Transport

TOP = pathlib.Path(__file__).resolve().parents[3]


def start_server():
    binary = os.environ.get("HEXARENA_BIN", str(TOP / "target" / "debug" / "hexarena"))
    db = tempfile.mkdtemp()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["RUST_LOG"] = "warn"
    proc = subprocess.Popen(
        [binary, "serve", "--bind", "127.0.0.1:0", "--database-url", f"sqlite://{db}/a.db",
         "--house-threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    url = None
    deadline = time.monotonic() + 60
    while url is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "listening on " in line:
            url = line.split("listening on ", 1)[1].strip()
    if url is None:
        proc.kill()
        raise RuntimeError("the server did not start")
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=2).read()
            return proc, url
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("no /healthz")


class LiveArena(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = start_server()
        cls.t = Transport(cls.url)

    @classmethod
    def tearDownClass(cls):
        cls.proc.kill()
        cls.proc.wait()

    def bot(self, name):
        p = self.t.register_player(f"owner of {name}")
        b = self.t.create_bot(p.token, name)
        self.assertTrue(b.token.startswith("hxb_"))
        return Client(self.url, b.token)

    def test_typed_calls_read_states_and_refusals_as_the_contract_says(self):
        ada, bob = self.bot("PyAda"), self.bot("PyBob")
        self.assertIsNone(ada.turn(0))
        s = ada.create_set(opponent="PyBob", stake=0, size=9, random_stones=0)
        self.assertEqual((s.status, s.size, s.opponent), ("open", 9, "PyBob"))
        self.assertEqual(bob.accept(s.id).status, "active")
        state = bob.turn(5)
        self.assertEqual((state.key, state.ply, state.to_move), ((s.id, 1), 0, 1))
        self.assertEqual(len(state.legal_moves), 81)
        new = bob.move(state, Move(cell=(4, 4)))
        self.assertEqual((new.ply, new.moves[0].name, new.board.cells[4][4]), (1, "e5", 1))
        self.assertIn(Move(swap=True), new.legal_moves)
        with self.assertRaises(ApiError) as e:
            bob.move(new, {"cell": [0, 0]})
        self.assertEqual((e.exception.status, e.exception.code), (409, "not_your_turn"))
        with self.assertRaises(ApiError) as e:
            ada.move(new, Move(cell=(4, 4)))
        self.assertEqual((e.exception.status, e.exception.code), (422, "occupied"))
        swapped = ada.move(new, Move(swap=True))
        self.assertEqual(swapped.seats[1].edges, "top-bottom")
        done = bob.resign(s.id, 1)
        self.assertEqual((done.status, done.result.reason, done.result.winner), ("finished", "resignation", 2))
        self.assertEqual(bob.resign(s.id, 1).result, done.result, "a repeated resign is a 200")
        with self.assertRaises(ApiError) as e:
            Client(self.url, "hxb_nobody").me()
        self.assertEqual(e.exception.code, "unauthorized")

    def test_the_event_stream_resumes_after_its_last_id_with_only_what_it_missed(self):
        ada, bob = self.bot("PyAdaS"), self.bot("PyBobS")
        stream = EventStream(bob.transport, "/v1/bots/me/events", bob.token)
        first = ada.create_set(opponent="PyBobS")
        events = iter(stream)
        ev = next(e for e in events if e.event != "comment")
        self.assertEqual((ev.event, ev.json()["set"]["id"]), ("challenge", first.id))
        last = stream.last_id
        self.assertIsNotNone(last)
        stream.close()
        second = ada.create_set(opponent="PyBobS")
        ada.cancel(first.id)
        self.assertEqual(ada.cancel(first.id).status, "cancelled", "a repeated cancel is a 200")
        stream = EventStream(bob.transport, "/v1/bots/me/events", bob.token, last_id=last, idle_s=1.0)
        seen = []
        try:
            for e in stream:
                if e.event != "comment":
                    seen.append((e.event, e.json()["set"]["id"]))
        except NetworkError:
            pass  # idle after the replay
        stream.close()
        self.assertEqual(seen, [("challenge", second.id), ("set_closed", first.id)])

    def test_play_runs_a_practice_set_to_the_end_with_a_callback(self):
        me = self.bot("PyPractice")
        logs = []
        finished = play(me, lambda s: random.choice(s.legal_moves), sets=1,
                        practice="house-random", log=logs.append)
        self.assertEqual(len(finished), 1)
        s = me.set(finished[0])
        self.assertEqual(s.status, "finished")
        self.assertEqual([g.status for g in s.games], ["finished", "finished"])
        self.assertIsNotNone(s.seed)
        self.assertTrue(any("set finished" in l for l in logs), logs)

    def test_two_bots_play_each_other_with_play_one_creating_one_accepting(self):
        ada, bob = self.bot("PyAdaP"), self.bot("PyBobP")
        out = {}
        t = threading.Thread(target=lambda: out.update(
            bob=play(bob, lambda s: s.legal_moves[0], sets=1, accept_open=True, log=lambda m: None)))
        t.start()
        time.sleep(0.5)
        out["ada"] = play(ada, lambda s: s.legal_moves[-1], sets=1, log=lambda m: None,
                          create={"opponent": "PyBobP", "stake": 10, "size": 9})
        t.join(60)
        self.assertFalse(t.is_alive())
        self.assertEqual(out["ada"], out["bob"])
        done = ada.set(out["ada"][0])
        self.assertEqual(done.stake, 10)
        # A staked set is rated: both sides' Elo before and after it, creator first.
        self.assertEqual([r["bot"] for r in done.ratings], ["PyAdaP", "PyBobP"])
        self.assertEqual([r["rating_before"] for r in done.ratings], [1200.0, 1200.0])
        self.assertEqual(sum(r["rating_after"] for r in done.ratings), 2400.0)


    def test_a_chooser_may_send_what_it_thought_and_a_refused_info_drops_only_the_info(self):
        me = self.bot("PyInfo")
        logs, n = [], [0]

        def choose(s):
            n[0] += 1
            # every third move an info the arena refuses (eval above 1)
            info = {"eval": 2.0} if n[0] % 3 == 0 else {"eval": 0.25, "comment": "py"}
            return random.choice(s.legal_moves), info

        finished = play(me, choose, sets=1, practice="house-random", log=logs.append)
        seen = {"ok": 0, "none": 0}
        for g in me.set(finished[0]).games:
            st = me.game(finished[0], g.game_no)
            seat = st.seat_of("PyInfo")
            for m in st.moves:
                if m.seat != seat:
                    self.assertIsNone(m.info)  # house-random says nothing
                elif m.info is None:
                    seen["none"] += 1
                else:
                    self.assertEqual(m.info, {"eval": 0.25, "comment": "py"})
                    seen["ok"] += 1
        self.assertGreater(seen["ok"], 0)
        self.assertGreater(seen["none"], 0)
        self.assertTrue(any("info refused" in l for l in logs), logs)

    def test_play_in_the_pool_counts_the_pool_sets_and_leaves_the_pool(self):
        ada, bob = self.bot("PyPoolA"), self.bot("PyPoolB")
        out, logs = {}, []
        pool = {"stake": 0, "rated": False, "size": 9}
        t = threading.Thread(target=lambda: out.update(
            bob=play(bob, lambda s: random.choice(s.legal_moves), sets=1, pool=pool,
                     log=lambda m: None)))
        t.start()
        out["ada"] = play(ada, lambda s: random.choice(s.legal_moves), sets=1, pool=pool,
                          log=logs.append)
        t.join(120)
        self.assertFalse(t.is_alive())
        self.assertEqual(len(out["ada"]), 1)
        self.assertEqual(len(out["bob"]), 1)
        s = ada.set(out["ada"][0])
        self.assertEqual(s.status, "finished")
        self.assertIs(s.raw.get("pool"), True)
        self.assertTrue(any("joined the pool" in l for l in logs), logs)
        self.assertTrue(any("left the pool" in l for l in logs), logs)
        waiting = [e.bot for e in ada.pool().entries]
        self.assertNotIn("PyPoolA", waiting)
        self.assertNotIn("PyPoolB", waiting)

    def test_declare_versus_mistakes_and_analysis_read_back(self):
        me = self.bot("PyDeclare")
        p = me.declare(accepts={"sizes": [9, 13]}, max_concurrent_sets=2)
        self.assertEqual(p.accepts["sizes"], [9, 13])
        self.assertEqual(p.max_concurrent_sets, 2)
        self.assertEqual(me.bot("PyDeclare").accepts["sizes"], [9, 13])
        finished = play(me, lambda s: random.choice(s.legal_moves), sets=1,
                        practice="house-random", log=lambda m: None)
        s = me.set(finished[0])
        a = me.analysis(s.id, 1)
        self.assertIn(a["status"], ("pending", "ready"))
        self.assertEqual(me.versus("PyDeclare", s.acceptor if s.creator == "PyDeclare"
                                   else s.creator)["sets"], 0)  # practice is left out
        self.assertIn("mistakes", me.mistakes("PyDeclare", limit=5))
        r = me.retire()
        self.assertTrue(r.retired)
        self.assertIsNotNone(r.retired_at)

    def test_the_pool_is_joined_listed_and_left(self):
        me = self.bot("PyPool")
        entry = me.join_pool(stake=0, rated=False, size=9, initial_s=60)
        self.assertEqual((entry.bot, entry.stake, entry.rated), ("PyPool", 0, False))
        self.assertEqual(entry.options, {"size": 9})
        self.assertEqual(entry.clock, {"initial_s": 60})
        listed = me.pool()
        self.assertIn("PyPool", [e.bot for e in listed.entries])
        self.assertIsInstance(listed.rules, dict)
        me.leave_pool()
        me.leave_pool()  # leaving again is the same success
        self.assertNotIn("PyPool", [e.bot for e in me.pool().entries])

    def test_a_state_and_a_set_carry_their_fields_under_the_wire_names(self):
        ada, bob = self.bot("PyAdaW"), self.bot("PyBobW")
        s = ada.create_set(opponent="PyBobW", stake=0, size=9, random_stones=2, initial_s=30,
                           increment_s=1, rated=True)
        self.assertEqual((s.options.size, s.options.random_stones), (9, 2))
        self.assertEqual((s.clock.initial_s, s.clock.increment_s, s.rated), (30, 1, True))
        bob.accept(s.id)
        state = bob.turn(5)
        self.assertEqual((state.options.size, state.options.random_stones), (9, 2))
        self.assertEqual((state.size, state.random_stones), (9, 2), "the shortcuts agree")
        self.assertEqual(len(state.opening), 4, "k stones of each colour")
        new = bob.post_move(state, state.legal_moves[0])
        self.assertEqual(new.ply, 1)

    def test_profiles_leaderboard_rating_history_and_set_lists_read_from_the_server(self):
        ada, bob = self.bot("PyAdaR"), self.bot("PyBobR")
        s = ada.create_set(opponent="PyBobR", stake=0, size=9, rated=True)
        bob.accept(s.id)
        # Each bot resigns the game it opens: one game each, a drawn rated set.
        for g in (1, 2):
            state = ada.game(s.id, g)
            first = ada if state.seats[0].bot == "PyAdaR" else bob
            first.resign(s.id, g)
        done = ada.set(s.id)
        self.assertEqual((done.status, done.points), ("finished", [1, 1]))
        self.assertTrue(all(isinstance(p, float) for p in done.points))
        me = bob.me()
        prof = ada.bot("pybobr")
        self.assertEqual((prof.name, prof.id, prof.sets), ("PyBobR", me.id, 1))
        self.assertEqual((prof.rating, prof.max_stake, prof.refused_moves), (1200, me.max_stake, 0))
        self.assertEqual((prof.strikes, prof.suspended_until), ([], None))
        self.assertAlmostEqual(prof.rating_exact, 1200.0)
        self.assertTrue(prof.provisional)
        self.assertGreater(prof.rating_deviation, 110)
        self.assertLess(prof.rating_deviation, 350, "one rated set shrinks the deviation")
        self.assertAlmostEqual(prof.glicko_rating, 1200.0, places=3)
        hist = ada.ratings("PyBobR")
        self.assertEqual(hist.bot, "PyBobR")
        self.assertEqual([(h.set_id, h.opponent, h.result, h.score) for h in hist.history],
                         [(s.id, "PyAdaR", "draw", 0.5)])
        self.assertAlmostEqual(hist.history[0].rating_deviation, prof.rating_deviation, places=3)
        rows = ada.leaderboard(limit=100, provisional=True)
        row = next(r for r in rows if r.bot == "PyBobR")
        self.assertEqual((row.sets, row.d, row.provisional), (1, 1, True))
        self.assertAlmostEqual(row.rating_deviation, prof.rating_deviation, places=3)
        self.assertNotIn("PyBobR", [r.bot for r in ada.leaderboard(limit=100, provisional=False)])
        listed = ada.sets(bot="PyAdaR", status="finished")
        self.assertEqual([x.id for x in listed], [s.id])
        self.assertEqual(listed[0].points, [1.0, 1.0])
        with self.assertRaises(ApiError) as e:
            ada.bot("NoSuchBot")
        self.assertEqual((e.exception.status, e.exception.code), (404, "not_found"))

    def test_practice_sends_the_clock_and_any_rung(self):
        me = self.bot("PyPracticeClock")
        s = me.practice("house-novice", size=9, initial_s=20, increment_s=3)
        self.assertEqual((s.opponent, s.practice, s.stake), ("house-novice", True, 0))
        self.assertEqual((s.clock.initial_s, s.clock.increment_s, s.size), (20, 3, 9))

    def test_a_chooser_that_raises_resigns_its_game_and_says_so(self):
        me = self.bot("PyRaiser")
        logs = []

        def broken(state):
            raise RuntimeError("my bug")
        finished = play(me, broken, sets=1, practice="house-random", log=logs.append)
        s = me.set(finished[0])
        self.assertEqual([g.reason for g in s.games], ["resignation", "resignation"])
        self.assertEqual(s.winner, "house-random")
        text = "\n".join(logs)
        self.assertIn("RuntimeError: my bug", text)
        self.assertIn("resigning this game", text)
        with self.assertRaises(RuntimeError):
            play(me, broken, sets=1, practice="house-random", log=lambda m: None,
                 on_chooser_error="raise")
        # With "raise" too, the game on move was resigned before the exception left play().
        left = me.sets(bot="PyRaiser", status="active")
        self.assertEqual(len(left), 1)
        self.assertEqual(me.game(left[0].id, 1).result.reason, "resignation")
        self.assertEqual(left[0].points, [0.0, 1.0])

    def test_play_finishes_a_set_left_in_progress_but_counts_only_its_own(self):
        me = self.bot("PyCrashed")
        # A set left running by an earlier run (it "crashed" before moving).
        left = me.practice("house-random", size=9)
        logs = []
        finished = play(me, lambda s: random.choice(s.legal_moves), sets=1,
                        practice="house-random", log=logs.append)
        self.assertEqual(len(finished), 1)
        self.assertNotEqual(finished[0], left.id, "the abandoned set is not counted")
        self.assertEqual(me.set(left.id).status, "finished", "but it is played to its end")
        self.assertEqual(me.set(finished[0]).status, "finished")
        self.assertEqual(me.sets(bot="PyCrashed", status="active"), [], "nothing left mid-game")
        self.assertTrue(any("not counted" in l for l in logs), logs)

    def test_python_bot_finishes_an_abandoned_set_without_counting_it(self):
        p = self.t.register_player("owner of PyBotCrashed")
        b = self.t.create_bot(p.token, "PyBotCrashed")
        me = Client(self.url, b.token)
        left = me.practice("house-random", size=9)
        out = subprocess.run(
            ["python3", str(TOP / "examples" / "python_bot.py"), "--url", self.url, "--token",
             b.token, "--practice", "house-random", "--sets", "1", "--seed", "1"],
            capture_output=True, text=True, timeout=240)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(me.set(left.id).status, "finished")
        rows = me.sets(bot="PyBotCrashed")
        self.assertEqual(sorted(r.status for r in rows), ["finished", "finished"], out.stderr)
        self.assertIn(f"{left.id} set finished", out.stderr)
        self.assertIn("not counted", out.stderr)
        self.assertIn("[1/1]", out.stderr)

class Retries(unittest.TestCase):
    def test_the_retry_rules_follow_agents_md(self):
        def api(status, code, ra=None):
            return ApiError(status, code, "", {}, ra)
        self.assertEqual([retry_wait(NetworkError("x"), a) for a in range(6)],
                         [0.5, 1.0, 2.0, 4.0, 8.0, 8.0])
        self.assertEqual(retry_wait(api(429, "rate_limited", 7), 3), 7)
        self.assertEqual(retry_wait(api(429, "rate_limited"), 0), 5.0)
        self.assertEqual(retry_wait(api(503, "storage_unavailable", 1), 4), 1)
        self.assertEqual(retry_wait(api(503, "clock_unsynced"), 1), 1.0)
        self.assertEqual(retry_wait(api(500, "internal"), 0), 0.5)
        for code in ("stale_ply", "game_over", "occupied", "unauthorized"):
            self.assertIsNone(retry_wait(api(409, code, 1), 0), code)


if __name__ == "__main__":
    unittest.main()
