"""Errors of a call, and when to send it again (agents.md sections 3 and 5)."""

from __future__ import annotations

from typing import Optional


class ApiError(Exception):
    """The arena answered with an error envelope (or a non-2xx status without one)."""

    def __init__(self, status: int, code: str, message: str, details: dict,
                 retry_after: Optional[float]):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.retry_after = retry_after


class NetworkError(Exception):
    """No usable answer: refused, reset, timed out, truncated."""


# The 503s that say when to come back, besides 429.
WAIT_FOR_RETRY_AFTER = {"rate_limited", "storage_unavailable", "clock_unsynced", "house_busy"}
BACKOFF = {"internal", "unavailable", "request_timeout"}


def retry_wait(err: Exception, attempt: int) -> Optional[float]:
    """Seconds to wait before retry number ``attempt`` (0 first) after ``err``, or None when
    the request must not be sent again as it is. Backoff 0.5 s, 1 s, 2 s ... up to 8 s."""
    backoff = min(0.5 * (2 ** min(attempt, 16)), 8.0)
    if isinstance(err, NetworkError):
        return backoff
    if not isinstance(err, ApiError):
        return None
    if err.code in WAIT_FOR_RETRY_AFTER or err.status == 429:
        if err.retry_after is not None:
            return err.retry_after
        return 5.0 if err.status == 429 else backoff
    if err.code in BACKOFF or err.status >= 500 or err.status == 408:
        return backoff
    return None
