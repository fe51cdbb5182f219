"""HTTP calls (urllib) with the arena's retry rules (agents.md sections 3 and 5)."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any, List, Optional, Tuple
from urllib.parse import quote, urlencode

from .errors import ApiError, NetworkError, retry_wait
from .types import (BotCreated, BotProfile, GameState, LeaderboardRow, Move, PlayerCreated,
                    PoolEntry, PoolList, RatingHistory, SetView)


class Transport:
    """One arena (a base URL): single exchanges, with an optional bearer token."""

    def __init__(self, base_url: str):
        self.base = base_url.rstrip("/")

    def request(self, method: str, path: str, body: Any = None, token: Optional[str] = None,
                timeout: float = 15.0, headers: Optional[dict] = None) -> Tuple[int, Any]:
        """One exchange: (status, parsed JSON or None), with any extra request ``headers``.
        Raises ApiError or NetworkError."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            req.add_header(name, value)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                raw = resp.read()
                return resp.status, (json.loads(raw) if raw else None)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)["error"]
            except (ValueError, KeyError, TypeError):
                err = {"code": f"http_{e.code}", "message": raw[:200].decode(errors="replace")}
            ra = e.headers.get("Retry-After")
            try:
                retry_after = float(ra) if ra is not None else None
            except ValueError:
                retry_after = None
            raise ApiError(e.code, err.get("code", ""), err.get("message", ""),
                           err.get("details") or {}, retry_after) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as e:
            raise NetworkError(f"{method} {path}: {e}") from None

    def register_player(self, name: str) -> PlayerCreated:
        """``POST /v1/players``: the player token is shown only in this answer."""
        _, d = self.request("POST", "/v1/players", {"name": name})
        return PlayerCreated(**d)

    def create_bot(self, player_token: str, name: str, max_stake: Optional[int] = None) -> BotCreated:
        """``POST /v1/bots`` with a player token: the bot token is shown only in this answer."""
        body: dict = {"name": name}
        if max_stake is not None:
            body["max_stake"] = max_stake
        _, d = self.request("POST", "/v1/bots", body, token=player_token)
        return BotCreated(**d)


class Client:
    """A bot's calls: its token, and retries of what is safe to repeat."""

    def __init__(self, base_url: str, token: str, sleep=time.sleep):
        self.transport = Transport(base_url)
        self.token = token
        self._sleep = sleep

    def call(self, method: str, path: str, body: Any = None, timeout: float = 15.0,
             give_up_s: Optional[float] = None, headers: Optional[dict] = None) -> Tuple[int, Any]:
        """One call; with ``give_up_s``, sent again as :func:`retry_wait` says until that many
        seconds have passed. Only for requests that are safe to repeat."""
        until = None if give_up_s is None else time.monotonic() + give_up_s
        attempt = 0
        while True:
            try:
                return self.transport.request(method, path, body, self.token, timeout, headers)
            except (ApiError, NetworkError) as e:
                wait = None if until is None else retry_wait(e, attempt)
                if wait is None or time.monotonic() + wait > until:
                    raise
                self._sleep(wait)
                attempt += 1

    def me(self) -> BotProfile:
        return BotProfile.from_json(self.call("GET", "/v1/bots/me", give_up_s=30)[1])

    def game(self, set_id: str, game_no: int) -> GameState:
        d = self.call("GET", f"/v1/sets/{set_id}/games/{game_no}", give_up_s=30)[1]
        return GameState.from_json(d)

    def set(self, set_id: str) -> SetView:
        return SetView.from_json(self.call("GET", f"/v1/sets/{set_id}", give_up_s=30)[1])

    def turn(self, wait_s: int = 30) -> Optional[GameState]:
        """``GET /v1/bots/me/turn``: the game on move the longest, or None after ``wait_s``."""
        status, d = self.call("GET", f"/v1/bots/me/turn?wait_s={wait_s}", timeout=wait_s + 15)
        return GameState.from_json(d) if status == 200 and d else None

    def post_move(self, state: GameState, move, give_up_s: float = 20.0,
                  info: Optional[dict] = None) -> GameState:
        """``POST /v1/sets/{id}/games/{n}/moves?ply=K``: posts ``move`` (a :class:`Move` or
        its JSON) as ply ``K = state.ply + 1``, resending the same move with the same ply after
        transient errors for up to ``give_up_s`` seconds (agents.md section 3). The Rust
        client's ``post_move(key, ply, move, give_up)`` takes the game key and ply apart; here
        both come from ``state``.

        ``info`` is what the bot thought of the move (agents.md, "What your bot thought"):
        a dict of ``eval`` (0..1), ``pv`` (at most 16 ``a1`` names), ``depth``, ``nodes``,
        ``comment``, sent as the ``Hexarena-Info`` header (compact JSON, at most 1,024 bytes;
        a 400 ``invalid_info`` plays nothing)."""
        body = move.to_json() if isinstance(move, Move) else move
        path = f"/v1/sets/{state.set_id}/games/{state.game_no}/moves?ply={state.ply + 1}"
        headers = None
        if info:
            headers = {"Hexarena-Info": json.dumps(info, separators=(",", ":"))}
        return GameState.from_json(self.call("POST", path, body, give_up_s=give_up_s,
                                             headers=headers)[1])

    def move(self, state: GameState, move, give_up_s: float = 20.0) -> GameState:
        """The same as :meth:`post_move` (its first name, kept)."""
        return self.post_move(state, move, give_up_s)

    def bot(self, name_or_id: str) -> BotProfile:
        """``GET /v1/bots/{name-or-id}``: any bot's public profile (name in any case)."""
        path = f"/v1/bots/{quote(name_or_id, safe='')}"
        return BotProfile.from_json(self.call("GET", path, give_up_s=30)[1])

    def declare(self, accepts: Optional[dict] = None,
                max_concurrent_sets: Optional[int] = None) -> BotProfile:
        """``PATCH /v1/bots/me``: what the bot accepts (``{"sizes": [9, 13], ...}``, each range
        ``[min, max]``; a new ``accepts`` replaces the old one whole) and how many sets it
        plays at once. Returns the profile as it is now."""
        body: dict = {}
        if accepts is not None:
            body["accepts"] = accepts
        if max_concurrent_sets is not None:
            body["max_concurrent_sets"] = max_concurrent_sets
        return BotProfile.from_json(self.call("PATCH", "/v1/bots/me", body, give_up_s=20)[1])

    def retire(self) -> BotProfile:
        """``DELETE /v1/bots/me``: retires the bot for good (it plays no new sets)."""
        return BotProfile.from_json(self.call("DELETE", "/v1/bots/me", give_up_s=20)[1])

    def versus(self, bot: str, other: str) -> dict:
        """``GET /v1/bots/{bot}/versus/{other}``: head-to-head figures from ``bot``'s side."""
        path = f"/v1/bots/{quote(bot, safe='')}/versus/{quote(other, safe='')}"
        return self.call("GET", path, give_up_s=30)[1]

    def mistakes(self, name_or_id: str, limit: Optional[int] = None) -> dict:
        """``GET /v1/bots/{name}/mistakes``: the positions where the bot's moves lost the most
        win probability, worst first, each with the better move."""
        path = f"/v1/bots/{quote(name_or_id, safe='')}/mistakes{_query(limit=limit)}"
        return self.call("GET", path, give_up_s=30)[1]

    def analysis(self, set_id: str, game_no: int) -> dict:
        """``GET /v1/sets/{id}/games/{n}/analysis``: the arena's analysis of a finished game
        (``status`` ``pending`` until it is ready)."""
        return self.call("GET", f"/v1/sets/{set_id}/games/{game_no}/analysis", give_up_s=30)[1]

    def ratings(self, name_or_id: str) -> RatingHistory:
        """``GET /v1/bots/{name-or-id}/ratings``: Elo and Glicko-2 around each rated set."""
        path = f"/v1/bots/{quote(name_or_id, safe='')}/ratings"
        return RatingHistory.from_json(self.call("GET", path, give_up_s=30)[1])

    def leaderboard(self, limit: Optional[int] = None, offset: Optional[int] = None,
                    provisional: Optional[bool] = None) -> List[LeaderboardRow]:
        """``GET /v1/leaderboard``: rows by Elo; ``provisional`` False leaves out bots whose
        deviation is above 110, True lists only them."""
        q = _query(limit=limit, offset=offset,
                   provisional=None if provisional is None else str(provisional).lower())
        d = self.call("GET", f"/v1/leaderboard{q}", give_up_s=30)[1]
        return [LeaderboardRow.from_json(r) for r in d["rows"]]

    def sets(self, status: Optional[str] = None, bot: Optional[str] = None,
             limit: Optional[int] = None, before: Optional[str] = None) -> List[SetView]:
        """``GET /v1/sets``: one page of sets, newest first (rows have no ``games``); pass the
        last row's id as ``before`` for the next page."""
        q = _query(status=status, bot=bot, limit=limit, before=before)
        d = self.call("GET", f"/v1/sets{q}", give_up_s=30)[1]
        return [SetView.from_json(r) for r in d["sets"]]

    def resign(self, set_id: str, game_no: int) -> GameState:
        d = self.call("POST", f"/v1/sets/{set_id}/games/{game_no}/resign", {}, give_up_s=20)[1]
        return GameState.from_json(d)

    def accept(self, set_id: str) -> SetView:
        """Resent after transient errors: a repeat by the bot that accepted is a 200."""
        return SetView.from_json(self.call("POST", f"/v1/sets/{set_id}/accept", {}, give_up_s=20)[1])

    def decline(self, set_id: str) -> SetView:
        return SetView.from_json(self.call("POST", f"/v1/sets/{set_id}/decline", {}, give_up_s=20)[1])

    def cancel(self, set_id: str) -> SetView:
        return SetView.from_json(self.call("POST", f"/v1/sets/{set_id}/cancel", {}, give_up_s=20)[1])

    def create_set(self, opponent: Optional[str] = None, stake: Optional[int] = None,
                   size: Optional[int] = None, random_stones: Optional[int] = None,
                   initial_s: Optional[int] = None, increment_s: Optional[int] = None,
                   rated: Optional[bool] = None) -> SetView:
        """``POST /v1/sets`` (not retried: it would create a second set). ``rated`` matters
        for an unstaked set (``stake=0``); a staked set is always rated."""
        body: dict = {"game": "hex", "options": _options(size, random_stones)}
        for k, v in (("opponent", opponent), ("stake", stake), ("rated", rated)):
            if v is not None:
                body[k] = v
        clock = _clock(initial_s, increment_s)
        if clock:
            body["clock"] = clock
        return SetView.from_json(self.call("POST", "/v1/sets", body)[1])

    def practice(self, opponent: Optional[str] = None, size: Optional[int] = None,
                 random_stones: Optional[int] = None, initial_s: Optional[int] = None,
                 increment_s: Optional[int] = None) -> SetView:
        """``POST /v1/practice``: an unstaked set against a house bot (a rung such as
        ``house-novice``; ``house-random`` by default), active at once."""
        body: dict = {"options": _options(size, random_stones)}
        if opponent is not None:
            body["opponent"] = opponent
        clock = _clock(initial_s, increment_s)
        if clock:
            body["clock"] = clock
        return SetView.from_json(self.call("POST", "/v1/practice", body)[1])


    def join_pool(self, stake: Optional[int] = None, rated: Optional[bool] = None,
                  size: Optional[int] = None, random_stones: Optional[int] = None,
                  initial_s: Optional[int] = None, increment_s: Optional[int] = None) -> PoolEntry:
        """``POST /v1/pool``: joins the matchmaking pool (or changes the entry, keeping its
        place); the arena then creates sets against pool bots of near rating while this bot is
        online. Retried for up to 20 s (joining again is the same entry)."""
        body: dict = {}
        for k, v in (("stake", stake), ("rated", rated)):
            if v is not None:
                body[k] = v
        options = _options(size, random_stones)
        if options:
            body["options"] = options
        clock = _clock(initial_s, increment_s)
        if clock:
            body["clock"] = clock
        return PoolEntry.from_json(self.call("POST", "/v1/pool", body, give_up_s=20)[1])

    def leave_pool(self) -> None:
        """``DELETE /v1/pool``: leaves the pool (sets already started go on); leaving again is
        the same success. Retried for up to 20 s."""
        self.call("DELETE", "/v1/pool", give_up_s=20)

    def pool(self) -> PoolList:
        """``GET /v1/pool``: who waits in the pool, longest first, and its rules."""
        return PoolList.from_json(self.call("GET", "/v1/pool", give_up_s=30)[1])


def _options(size, random_stones) -> dict:
    return {k: v for k, v in (("size", size), ("random_stones", random_stones)) if v is not None}


def _clock(initial_s, increment_s) -> dict:
    return {k: v for k, v in (("initial_s", initial_s), ("increment_s", increment_s)) if v is not None}


def _query(**params) -> str:
    q = urlencode({k: v for k, v in params.items() if v is not None})
    return f"?{q}" if q else ""
