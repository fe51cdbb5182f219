"""The contract's results as dataclasses (SPEC sections 3 to 6; agents.md "The game state").

Each ``from_json`` reads the server's JSON and keeps it whole in ``raw``, so a field this
package does not name yet is still at hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

Cell = Tuple[int, int]


def _cell(v) -> Optional[Cell]:
    return (int(v[0]), int(v[1])) if v is not None else None


@dataclass(frozen=True)
class Move:
    """A move body: a cell ``(row, col)`` or the swap."""

    cell: Optional[Cell] = None
    swap: bool = False

    @classmethod
    def from_json(cls, d: dict) -> "Move":
        if d.get("swap") is True:
            return cls(swap=True)
        return cls(cell=_cell(d["cell"]))

    def to_json(self) -> dict:
        return {"swap": True} if self.swap else {"cell": [self.cell[0], self.cell[1]]}

    @property
    def name(self) -> str:
        """``a1`` notation (column letter, row from 1), or ``swap``."""
        if self.swap:
            return "swap"
        r, c = self.cell
        return f"{chr(ord('a') + c)}{r + 1}"


@dataclass
class Seat:
    seat: int
    bot: str
    color: str
    edges: str  # "top-bottom" or "left-right"; they exchange after a swap


@dataclass
class PlayedMove:
    ply: int
    seat: int
    name: str
    elapsed_ms: int
    at: str
    cell: Optional[Cell] = None
    swap: bool = False
    # What the mover said it thought (its ``Hexarena-Info``), None when it sent nothing.
    info: Optional[Dict[str, Any]] = None

    @property
    def move(self) -> Move:
        return Move(cell=self.cell, swap=self.swap)


@dataclass
class Board:
    size: int
    cells: List[List[int]]
    winning_path: Optional[List[Cell]]


@dataclass
class Clock:
    remaining_ms: List[int]
    increment_ms: int
    turn_started_at: Optional[str]
    deadline: Optional[str]
    first_move: Optional[bool]
    server_time: str


@dataclass
class GameResult:
    winner: Optional[int]
    winner_bot: Optional[str]
    reason: str
    offline: bool = False


@dataclass
class Options:
    """The game options (``options`` of a state or set): board ``size``, ``random_stones``."""

    size: int
    random_stones: int

    @classmethod
    def from_json(cls, d: dict) -> "Options":
        return cls(size=int(d["size"]), random_stones=int(d["random_stones"]))


@dataclass
class SetClock:
    """A set's Fischer clock (``clock`` of a set): ``initial_s`` and ``increment_s`` seconds."""

    initial_s: int
    increment_s: int


@dataclass
class GameState:
    """A game state under its wire names (agents.md section 4); ``size`` and
    ``random_stones`` are shortcuts for ``options.size`` and ``options.random_stones``."""

    set_id: str
    game_no: int
    status: str
    options: Options
    seats: List[Seat]
    to_move: Optional[int]
    ply: int
    opening: List[Cell]
    moves: List[PlayedMove]
    board: Board
    legal_moves: List[Move]
    clock: Clock
    result: Optional[GameResult]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: dict) -> "GameState":
        r = d.get("result")
        return cls(
            set_id=d["set_id"],
            game_no=d["game_no"],
            status=d["status"],
            options=Options.from_json(d["options"]),
            seats=[Seat(**s) for s in d["seats"]],
            to_move=d["to_move"],
            ply=d["ply"],
            opening=[_cell(c) for c in d["opening"]],
            moves=[PlayedMove(ply=m["ply"], seat=m["seat"], name=m["name"],
                              elapsed_ms=m["elapsed_ms"], at=m["at"], cell=_cell(m.get("cell")),
                              swap=m.get("swap") is True, info=m.get("info"))
                   for m in d["moves"]],
            board=Board(size=d["board"]["size"], cells=d["board"]["cells"],
                        winning_path=None if d["board"]["winning_path"] is None
                        else [_cell(c) for c in d["board"]["winning_path"]]),
            legal_moves=[Move.from_json(m) for m in d["legal_moves"]],
            clock=Clock(**{k: d["clock"][k] for k in (
                "remaining_ms", "increment_ms", "turn_started_at", "deadline", "first_move",
                "server_time")}),
            result=None if r is None else GameResult(
                winner=r["winner"], winner_bot=r["winner_bot"], reason=r["reason"],
                offline=bool(r.get("offline", False))),
            raw=d,
        )

    @property
    def size(self) -> int:
        return self.options.size

    @property
    def random_stones(self) -> int:
        return self.options.random_stones

    @property
    def key(self) -> Tuple[str, int]:
        return (self.set_id, self.game_no)

    def seat_of(self, bot: str) -> Optional[int]:
        for s in self.seats:
            if s.bot.lower() == bot.lower():
                return s.seat
        return None

    def is_turn_of(self, bot: str) -> bool:
        return self.status == "active" and self.to_move is not None \
            and self.seat_of(bot) == self.to_move


@dataclass
class GameSummary:
    game_no: int
    status: str
    ply: int
    winner: Optional[int]
    winner_bot: Optional[str]
    reason: Optional[str]


@dataclass
class SetView:
    """A set under its wire names (SPEC section 5). ``points`` are floats because a drawn
    game gives 0.5; ``size``, ``random_stones``, ``initial_s`` and ``increment_s`` are
    shortcuts into ``options`` and ``clock``."""

    id: str
    creator: str
    acceptor: Optional[str]
    opponent: Optional[str]
    status: str
    stake: int
    points: List[float]
    result: Optional[str]
    winner: Optional[str]
    options: Options
    clock: SetClock
    practice: bool
    rated: bool
    games: List[GameSummary]
    seed_sha256: Optional[str]
    seed: Optional[str]
    opening: Optional[List[Cell]]
    settlement: Optional[dict]
    #: A finished rated set's ratings around it, creator then acceptor (``bot``,
    #: ``rating_before``, ``rating_after``, the Glicko-2 figures); None otherwise.
    ratings: Optional[List[dict]] = None
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: dict) -> "SetView":
        return cls(
            id=d["id"], creator=d["creator"], acceptor=d.get("acceptor"),
            opponent=d.get("opponent"), status=d["status"], stake=d["stake"],
            points=[float(p) for p in d["points"]], result=d.get("result"),
            winner=d.get("winner"), options=Options.from_json(d["options"]),
            clock=SetClock(initial_s=int(d["clock"]["initial_s"]),
                           increment_s=int(d["clock"]["increment_s"])),
            practice=bool(d.get("practice", False)), rated=bool(d.get("rated", False)),
            games=[GameSummary(game_no=g["game_no"], status=g["status"], ply=g["ply"],
                               winner=g["winner"], winner_bot=g["winner_bot"],
                               reason=g["reason"]) for g in d.get("games", [])],
            seed_sha256=d.get("seed_sha256"), seed=d.get("seed"),
            opening=None if d.get("opening") is None else [_cell(c) for c in d["opening"]],
            settlement=d.get("settlement"), ratings=d.get("ratings"), raw=d,
        )

    @property
    def size(self) -> int:
        return self.options.size

    @property
    def random_stones(self) -> int:
        return self.options.random_stones

    @property
    def initial_s(self) -> int:
        return self.clock.initial_s

    @property
    def increment_s(self) -> int:
        return self.clock.increment_s


@dataclass
class PlayerCreated:
    id: str
    name: str
    token: str
    balance: int


@dataclass
class BotCreated:
    id: str
    name: str
    owner: str
    max_stake: int
    token: str


@dataclass
class BotProfile:
    """A bot's public profile (``GET /v1/bots/{name}``, ``/v1/bots/me``) under its wire
    names: Elo ``rating`` (rounded) and ``rating_exact``, Glicko-2 ``glicko_rating`` and
    ``rating_deviation``, ``provisional`` (deviation above 110), ``max_stake`` in PTS,
    ``strikes``, ``refused_moves`` and ``suspended_until`` (RFC 3339 or None)."""

    id: str
    name: str
    owner: str
    house: bool
    rating: int
    sets: int
    w: int
    d: int
    l: int
    won: int
    net: int
    online: bool
    rating_exact: float = 0.0
    glicko_rating: float = 0.0
    rating_deviation: float = 0.0
    rating_volatility: float = 0.0
    provisional: bool = True
    rank: Optional[int] = None
    max_stake: int = 0
    strikes: List[dict] = field(default_factory=list)
    refused_moves: int = 0
    suspended_until: Optional[str] = None
    owner_name: Optional[str] = None
    ladder: Optional[dict] = None
    accepts: Optional[dict] = None
    max_concurrent_sets: Optional[int] = None
    retired: bool = False
    retired_at: Optional[str] = None
    created_at: Optional[str] = None
    engine: Optional[dict] = None
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    _REQUIRED = ("id", "name", "owner", "house", "rating", "sets", "w", "d", "l", "won", "net",
                 "online")
    _OPTIONAL = ("rating_exact", "glicko_rating", "rating_deviation", "rating_volatility",
                 "provisional", "rank", "max_stake", "strikes", "refused_moves",
                 "suspended_until", "owner_name", "ladder", "accepts", "max_concurrent_sets",
                 "retired", "retired_at", "created_at", "engine")

    @classmethod
    def from_json(cls, d: dict) -> "BotProfile":
        kw = {k: d[k] for k in cls._REQUIRED}
        kw.update({k: d[k] for k in cls._OPTIONAL if k in d})
        return cls(**kw, raw=d)


@dataclass
class LeaderboardRow:
    """One row of ``GET /v1/leaderboard``: ``rank`` in the list as filtered, the ``bot``'s
    name, Elo ``rating``, Glicko-2 ``glicko_rating`` and ``rating_deviation``."""

    rank: int
    bot: str
    rating: int
    glicko_rating: float
    rating_deviation: float
    provisional: bool
    sets: int
    w: int
    d: int
    l: int
    won: int
    net: int
    house: bool
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: dict) -> "LeaderboardRow":
        return cls(**{k: d[k] for k in ("rank", "bot", "rating", "glicko_rating",
                                          "rating_deviation", "provisional", "sets", "w", "d",
                                          "l", "won", "net", "house")}, raw=d)


@dataclass
class RatingPoint:
    """One rated set in a bot's rating history: Elo and Glicko-2 before and after it."""

    set_id: str
    finished_at: Optional[str]
    opponent: str
    result: str  # "win", "draw" or "loss"
    score: float
    rating_before: float
    rating_after: float
    glicko_rating_before: Optional[float]
    glicko_rating: Optional[float]
    rating_deviation_before: Optional[float]
    rating_deviation: Optional[float]
    provisional: Optional[bool]


@dataclass
class RatingHistory:
    """``GET /v1/bots/{name}/ratings``: current figures and the history, oldest first."""

    bot: str
    rating: float
    glicko_rating: float
    rating_deviation: float
    provisional: bool
    history: List[RatingPoint]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: dict) -> "RatingHistory":
        keys = [f for f in RatingPoint.__dataclass_fields__]
        return cls(bot=d["bot"], rating=d["rating"], glicko_rating=d["glicko_rating"],
                   rating_deviation=d["rating_deviation"], provisional=d["provisional"],
                   history=[RatingPoint(**{k: h.get(k) for k in keys}) for h in d["history"]],
                   raw=d)


@dataclass
class PoolEntry:
    """One bot waiting in the matchmaking pool (``GET /v1/pool``, ``POST /v1/pool``): its Elo
    ``rating``, whether it is ``online`` (only online bots are paired), the sets it is
    ``playing`` and its ``capacity``, the ``stake`` in PTS per side (0: unstaked), ``rated``,
    the ``options`` and ``clock`` it asked for, and ``joined_at`` (RFC 3339)."""

    bot: str
    rating: float
    online: bool
    playing: int
    capacity: int
    stake: int
    rated: bool
    options: Dict[str, Any]
    clock: Dict[str, Any]
    joined_at: str
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: dict) -> "PoolEntry":
        keys = [f for f in cls.__dataclass_fields__ if f != "raw"]
        return cls(**{k: d[k] for k in keys}, raw=d)


@dataclass
class PoolList:
    """``GET /v1/pool``: the waiting bots, longest waiting first, and the pairing ``rules``."""

    entries: List[PoolEntry]
    rules: Dict[str, Any]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: dict) -> "PoolList":
        return cls(entries=[PoolEntry.from_json(e) for e in d["entries"]], rules=d["rules"], raw=d)
