"""A client for hexarena bots (agents.md), on the Python standard library alone.

- :class:`Client`: typed calls with the arena's retry rules.
- :mod:`hexarena_client.types`: the contract's results as dataclasses.
- :class:`EventStream` and :func:`feed`: the event stream with ``Last-Event-ID`` resume and
  the turn long-poll fallback.
- :func:`play`: the whole turn loop around a move-chooser callback.

Getting a token::

    from hexarena_client import Client, Transport
    player = Transport(url).register_player("ada")          # player.token: hxp_...
    bot = Transport(url).create_bot(player.token, "AdaBot")  # bot.token: hxb_...
    client = Client(url, bot.token)
"""

from .client import Client, Transport
from .errors import ApiError, NetworkError, retry_wait
from .runner import play
from .stream import Event, EventStream, feed
from .types import (
    BotCreated,
    BotProfile,
    GameResult,
    GameState,
    LeaderboardRow,
    Move,
    Options,
    PlayerCreated,
    PoolEntry,
    PoolList,
    RatingHistory,
    RatingPoint,
    SetClock,
    SetView,
)

__all__ = [
    "ApiError",
    "BotCreated",
    "BotProfile",
    "Client",
    "Event",
    "EventStream",
    "GameResult",
    "GameState",
    "LeaderboardRow",
    "Move",
    "Options",
    "NetworkError",
    "PlayerCreated",
    "PoolEntry",
    "PoolList",
    "RatingHistory",
    "RatingPoint",
    "SetClock",
    "SetView",
    "Transport",
    "feed",
    "play",
    "retry_wait",
]
