"""Server-sent events (SPEC section 6, agents.md section 2): one stream resumed with
``Last-Event-ID``, and :func:`feed`, which keeps the bot's stream open and long-polls the turn
while it is down."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Iterator, Optional, Tuple

from .client import Client, Transport
from .errors import ApiError, NetworkError
from .types import GameState

STREAM_IDLE_S = 30.0   # nothing at all, not even a keep-alive comment, for this long: dead
TURN_WAIT_S = 30       # the long-poll's wait while the stream is down


@dataclass
class Event:
    """One event: its ``id:``, ``event:`` name and ``data:`` text; a comment line (the
    keep-alive) comes as ``event == "comment"`` with its text in ``data``."""

    id: Optional[str]
    event: str
    data: str

    def json(self):
        return json.loads(self.data)


class EventStream:
    """``GET path`` as ``text/event-stream``. Iterating gives :class:`Event` objects until
    the stream ends (then :class:`NetworkError`); ``last_id`` is what to resume from."""

    def __init__(self, transport: Transport, path: str, token: Optional[str] = None,
                 last_id: Optional[str] = None, idle_s: float = STREAM_IDLE_S):
        req = urllib.request.Request(transport.base + path, method="GET")
        req.add_header("Accept", "text/event-stream")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        if last_id:
            req.add_header("Last-Event-ID", last_id)
        self.last_id = last_id
        try:
            self._resp = urllib.request.urlopen(req, timeout=idle_s)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)["error"]
            except (ValueError, KeyError, TypeError):
                err = {"code": f"http_{e.code}", "message": ""}
            raise ApiError(e.code, err.get("code", ""), err.get("message", ""),
                           err.get("details") or {}, None) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            raise NetworkError(f"GET {path}: {e}") from None

    def close(self) -> None:
        self._resp.close()

    def __iter__(self) -> Iterator[Event]:
        name, data, ev_id = "", None, None
        while True:
            try:
                raw = self._resp.readline()
            except (socket.timeout, OSError, http.client.HTTPException) as e:
                raise NetworkError(f"stream: {e or 'idle'}") from None
            if not raw:
                raise NetworkError("stream closed by the server")
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if line == "":
                if data is not None:
                    yield Event(ev_id, name or "message", data)
                name, data, ev_id = "", None, None
                continue
            if line.startswith(":"):
                yield Event(None, "comment", line[1:].lstrip())
                continue
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "event":
                name = value
            elif key == "data":
                data = value if data is None else data + "\n" + value
            elif key == "id" and "\0" not in value:
                ev_id = value
                self.last_id = value


def feed(client: Client, idle_s: float = STREAM_IDLE_S) -> Iterator[Tuple[str, object]]:
    """The bot's feed, forever: ``("connected", None)`` when the stream (re)opens,
    ``("event", Event)`` for each event and keep-alive, ``("turn", GameState)`` from the
    long-poll while the stream is down (reconnecting with backoff 1 s, 2 s ... 30 s, resuming
    with ``Last-Event-ID``). Raises :class:`ApiError` ``unauthorized`` for a refused token."""
    last_id: Optional[str] = None
    backoff = 1.0
    while True:
        try:
            stream = EventStream(client.transport, "/v1/bots/me/events", client.token,
                                 last_id, idle_s)
            backoff = 1.0
            yield ("connected", None)
            try:
                for ev in stream:
                    last_id = stream.last_id
                    yield ("event", ev)
            except NetworkError:
                last_id = stream.last_id
            finally:
                stream.close()
        except ApiError as e:
            if e.code == "unauthorized":
                raise
        except NetworkError:
            pass
        retry_at = time.monotonic() + backoff
        backoff = min(backoff * 2, 30.0)
        while time.monotonic() < retry_at:
            wait = int(max(1, min(TURN_WAIT_S, retry_at - time.monotonic())))
            try:
                state = client.turn(wait)
            except ApiError as e:
                if e.code == "unauthorized":
                    raise
                time.sleep(min(e.retry_after or 1.0, max(0.0, retry_at - time.monotonic())))
                continue
            except NetworkError:
                time.sleep(min(1.0, max(0.0, retry_at - time.monotonic())))
                continue
            if state is not None:
                yield ("turn", state)
