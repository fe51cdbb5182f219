"""The turn loop around a move chooser (agents.md section 2): the feed in, one move per turn
out, and the sets around them."""

from __future__ import annotations

import random
import sys
import time
import traceback
from typing import Callable, Dict, List, Optional, Set, Tuple, Union

from .client import Client
from .errors import ApiError, NetworkError
from .stream import feed
from .types import GameState, Move, SetView

Chooser = Callable[[GameState], Union[Move, dict, Tuple[Union[Move, dict], dict]]]
ILLEGAL = {"occupied", "off_board", "swap_not_allowed", "invalid_move"}


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def play(client: Client, choose: Chooser, sets: int = 0, practice: Optional[str] = None,
         create: Optional[dict] = None, accept_open: bool = False, pool: Optional[dict] = None,
         log: Callable[[str], None] = _log, reconcile_every_s: float = 20.0,
         on_chooser_error: str = "resign") -> List[str]:
    """Plays as the bot of ``client``; ``choose(state)`` returns the move (a :class:`Move` or
    its JSON) for a game in which the bot is on move, or a ``(move, info)`` pair whose ``info``
    dict (``eval``, ``pv``, ``depth``, ``nodes``, ``comment``) goes with the move as its
    ``Hexarena-Info`` (an info the arena refuses is logged and the move sent without it). Practice sets against the house bot
    ``practice`` (any rung, e.g. ``house-novice``) run one after another; ``create`` (keyword
    arguments of :meth:`Client.create_set`) is created once; ``accept_open`` accepts open
    challenges.

    ``pool`` (keyword arguments of :meth:`Client.join_pool`, ``{}`` for the defaults) joins
    the matchmaking pool at the start; the pool sets the arena starts for the bot count, and
    the bot leaves the pool once ``sets`` of them are finished or in play, and whenever
    ``play`` returns or raises (a bot left in the pool while it is not playing would be paired
    and lose on time).

    Counting: ``sets`` counts only the sets this run started (practice, ``create``, the pool)
    or accepted. Sets already in progress when it starts (one left running by a crash) and sets
    started by someone else are played too but not counted. With ``sets`` > 0 it returns once
    that many of its own sets have finished *and* no set of the bot is still in progress, so
    it never leaves a game to lose on time; with 0 it runs forever.

    When ``choose`` raises: with ``on_chooser_error="resign"`` (the default) the traceback is
    logged, that game is resigned (so it does not run on silently to a loss on time) and play
    goes on with the next game; with ``"raise"`` the game is resigned and the exception is
    raised from ``play``.

    Returns the ids of the counted sets that finished, in the order they finished."""
    if on_chooser_error not in ("resign", "raise"):
        raise ValueError("on_chooser_error must be 'resign' or 'raise'")
    me = client.me().name
    tracked: Set[str] = set()  # sets of the bot in progress, counted or not
    mine: Set[str] = set()  # sets this run started or accepted
    finished: List[str] = []  # counted sets that finished
    seen_end: Set[str] = set()
    tried: Set[str] = set()
    answered: Dict[Tuple[str, int], int] = {}

    def target() -> bool:
        return sets > 0 and len(finished) >= sets

    def room() -> bool:
        return sets == 0 or len(finished) + len(mine & tracked) < sets

    def on_set_finished(s: SetView) -> None:
        if s.status == "finished" and me in (s.creator, s.acceptor) and s.id not in seen_end:
            seen_end.add(s.id)
            tracked.discard(s.id)
            counted = s.id in mine
            if counted:
                finished.append(s.id)
            log(f"{s.id} set finished: {s.result}  points {s.points}"
                + ("" if counted else "  (not started by this run: not counted)"))

    def reconcile() -> None:
        for set_id in list(tracked):
            try:
                s = client.set(set_id)
            except (ApiError, NetworkError):
                continue
            if s.status == "finished":
                on_set_finished(s)
            elif s.status in ("cancelled", "declined", "expired"):
                tracked.discard(set_id)

    def pick_up_active() -> None:
        try:
            for s in client.sets(status="active", bot=me, limit=100):
                if s.id not in tracked:
                    tracked.add(s.id)
                    log(f"{s.id} in progress already: playing it to its end (not counted)")
        except (ApiError, NetworkError) as e:
            log(f"listing the sets in progress: {e}")

    def start_sets() -> None:
        if practice is not None and not (mine & tracked) and room() and not target():
            s = client.practice(practice)
            tracked.add(s.id)
            mine.add(s.id)
            log(f"{s.id} practice against {practice} started")

    def chooser_failed(state: GameState, e: BaseException) -> None:
        log(f"{state.set_id} g{state.game_no} ply {state.ply + 1}: the chooser raised:\n"
            + "".join(traceback.format_exception(type(e), e, e.__traceback__)).rstrip()
            + "\nresigning this game")
        answered[state.key] = state.ply
        try:
            client.resign(state.set_id, state.game_no)
        except (ApiError, NetworkError) as r:
            log(f"{state.set_id} g{state.game_no} resign: {r}")

    def turn(state: GameState) -> None:
        fallback = False
        resend = None  # a move to send again without its refused info
        while state.is_turn_of(me) and answered.get(state.key, -1) < state.ply:
            info = None
            if resend is not None:
                mv, resend = resend, None
            elif fallback:
                mv = random.choice(state.legal_moves)
            else:
                try:
                    mv = choose(state)
                except Exception as e:  # noqa: BLE001 - any chooser bug ends the game openly
                    chooser_failed(state, e)
                    if on_chooser_error == "raise":
                        raise
                    return
                if isinstance(mv, tuple):
                    mv, info = mv
            try:
                new = client.post_move(state, mv, info=info)
            except ApiError as e:
                if e.code == "invalid_info" and info:
                    log(f"{state.set_id} g{state.game_no} ply {state.ply + 1}: info refused "
                        f"({e.message}); the move goes without it")
                    resend = mv
                    continue
                if e.code == "game_over":
                    answered[state.key] = state.ply
                    return
                if e.code in ("stale_ply", "not_your_turn") or (e.code in ILLEGAL and not fallback):
                    fallback = e.code in ILLEGAL
                    state = client.game(state.set_id, state.game_no)
                    continue
                raise
            answered[state.key] = state.ply
            name = mv.name if isinstance(mv, Move) else Move.from_json(mv).name
            log(f"{state.set_id} g{state.game_no} ply {state.ply + 1:>3} {name:>4}  {new.status}")
            state, fallback = new, False

    def done() -> bool:
        if tracked:
            return False
        if target():
            return True
        return (create is not None and not accept_open and practice is None and pool is None
                and bool(mine))

    in_pool = False
    joined = False

    def join_pool() -> None:
        # Once the feed is connected, so no pool set starts unseen.
        nonlocal in_pool, joined
        if pool is not None and not joined:
            joined = True
            entry = client.join_pool(**pool)
            in_pool = True
            log(f"joined the pool (stake {entry.stake}, rated {entry.rated})")

    def leave_pool() -> None:
        nonlocal in_pool
        if in_pool:
            try:
                client.leave_pool()
                in_pool = False
                log("left the pool")
            except (ApiError, NetworkError) as e:
                log(f"leaving the pool: {e}")

    def on_set_started(s: dict) -> None:
        tracked.add(s["id"])
        if in_pool and s.get("pool") is True and room() and not target():
            mine.add(s["id"])
            log(f"{s['id']} pool set started")
            if not room():
                leave_pool()

    def main_loop() -> List[str]:
        if create is not None:
            s = client.create_set(**create)
            tracked.add(s.id)
            mine.add(s.id)
            log(f"{s.id} created (stake {s.stake}, opponent {s.opponent or 'any'})")
        start_sets()
        last_check = time.monotonic()
        for kind, item in feed(client):
            if kind == "connected":
                # A stream that dropped before its first event gave no id to resume from, so a
                # set_started in the gap is not replayed (agents.md section 2): list the sets.
                pick_up_active()
                reconcile()
                join_pool()
            elif kind == "turn":
                tracked.add(item.set_id)
                turn(item)
            elif kind == "event" and item.event != "comment":
                data = item.json()
                if item.event == "your_turn":
                    state = GameState.from_json(data["state"])
                    tracked.add(state.set_id)
                    turn(state)
                elif item.event == "set_started":
                    on_set_started(data["set"])
                elif item.event == "set_finished":
                    on_set_finished(SetView.from_json(data["set"]))
                elif item.event == "set_closed":
                    tracked.discard(data["set"]["id"])
                elif item.event == "challenge" and accept_open:
                    s = SetView.from_json(data["set"])
                    if s.id not in tried and s.creator != me and room() and not target():
                        tried.add(s.id)
                        try:
                            client.accept(s.id)
                            tracked.add(s.id)
                            mine.add(s.id)
                            log(f"{s.id} accepted from {s.creator} (stake {s.stake})")
                        except ApiError as e:
                            log(f"accept {s.id}: {e}; skipping it")
            if time.monotonic() - last_check > reconcile_every_s:
                reconcile()
                last_check = time.monotonic()
            if done():
                return finished
            start_sets()
        return finished

    try:
        return main_loop()
    finally:
        leave_pool()
