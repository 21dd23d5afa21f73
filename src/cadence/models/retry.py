"""Retries of transient model errors: which errors are transient, and the policy's backoff.

The retry loop itself is :func:`cadence.backoff.retry_async` (tenacity), used by
:func:`cadence.orchestration.model_call.call_model` with a :class:`RetryPolicy`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from cadence.backoff import exponential_delay

_TRANSIENT_NAMES = (
    "ratelimit",
    "timeout",
    "apiconnection",
    "internalserver",
    "serviceunavailable",
    "overloaded",
    "connecterror",
    "readtimeout",
    "remoteprotocol",
)


class RateLimitError(Exception):
    """A provider rate limit (HTTP 429); raised by the scripted model too."""

    status_code = 429


@dataclass(frozen=True)
class RetryPolicy:
    """How to retry a transient failure."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_time: float = 60.0

    def delay(self, attempt: int) -> float:
        """Backoff before retry number ``attempt`` (1-based), with full jitter on half the span."""
        return exponential_delay(self.base_delay, cap=self.max_delay, half_jitter=True)(attempt)


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is worth retrying: rate limits, timeouts, connection errors and 5xx."""
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError, RateLimitError, ConnectionError)):
        return True
    from cadence.errors import CadenceError

    if isinstance(exc, CadenceError):
        return False
    status = getattr(exc, "status_code", None)
    if status is None:
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    if isinstance(status, int) and (status == 429 or status >= 500):
        return True
    name = type(exc).__name__.lower()
    return any(token in name for token in _TRANSIENT_NAMES)
