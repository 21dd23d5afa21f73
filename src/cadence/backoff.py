"""One retry helper on tenacity: bounded in attempts, in total time and by a deadline.

Cadence retries in three places: model calls (transient provider errors,
:func:`cadence.orchestration.model_call.call_model`), prompt-mode structured
output (an invalid JSON reply, :mod:`cadence.orchestration.structured`) and SQLite
schema set-up ("database is locked", :func:`cadence.persistence.databases.retry_while_locked`).
All three run through :func:`retry_async`: it retries what ``retry_on`` accepts, waits
``delay(attempt)`` between attempts, and gives up (re-raising the last exception)
when the attempts are spent, when the next wait would pass ``max_time`` since the
first attempt, or when it would not fit in the time left before a deadline.

Only ``Exception`` subclasses are ever retried: cancellation and other
``BaseException`` subclasses propagate at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception

T = TypeVar("T")

__all__ = ["exponential_delay", "retry_async"]


def exponential_delay(
    base: float, *, cap: float | None = None, jitter: float = 0.0, half_jitter: bool = False
) -> Callable[[int], float]:
    """``delay(attempt)`` (1-based): ``base * 2 ** (attempt - 1)``, capped, with optional jitter.

    ``jitter`` adds ``uniform(0, jitter)`` seconds; ``half_jitter`` keeps half the delay
    and randomises the other half (``raw / 2 + uniform(0, raw / 2)``).
    """

    def delay(attempt: int) -> float:
        raw = base * (2 ** (attempt - 1))
        if cap is not None:
            raw = min(cap, raw)
        if half_jitter:
            raw = raw / 2 + random.uniform(0, raw / 2)
        return raw + (random.uniform(0, jitter) if jitter else 0.0)

    return delay


async def retry_async(
    action: Callable[[int], Awaitable[T]],
    *,
    retry_on: Callable[[BaseException], bool],
    max_attempts: int,
    delay: Callable[[int], float],
    max_time: float | None = None,
    time_left: Callable[[], float | None] | None = None,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> T:
    """Run ``action(attempt)`` (attempt is 1-based) until it returns; retry failures ``retry_on`` accepts.

    A failed attempt is retried after ``delay(attempt)`` seconds only while fewer than
    ``max_attempts`` have run, the wait ends before ``max_time`` seconds since the first
    attempt, and ``time_left()`` (seconds before a deadline; None for no deadline) is
    larger than the wait. ``on_retry(attempt, exc, wait)`` is called before each wait.
    Otherwise the last exception is re-raised as it is.
    """

    def gives_up(attempt: int, elapsed: float, wait: float) -> bool:
        if attempt >= max_attempts:
            return True
        if max_time is not None and elapsed + wait >= max_time:
            return True
        if time_left is not None:
            left = time_left()
            if left is not None and left <= wait:
                return True
        return False

    # the first attempt runs directly (most calls succeed at once: no retry machinery per call);
    # a failure it may retry hands over to tenacity for the attempts after it
    started = time.monotonic()
    try:
        return await action(1)
    except Exception as exc:
        wait = delay(1)
        if not retry_on(exc) or gives_up(1, time.monotonic() - started, wait):
            raise
        if on_retry is not None:
            on_retry(1, exc, wait)
    await asyncio.sleep(wait)

    def stop(state: RetryCallState) -> bool:
        attempt = state.attempt_number + 1
        return gives_up(attempt, time.monotonic() - started, state.upcoming_sleep)

    def before_sleep(state: RetryCallState) -> None:
        if on_retry is not None and state.outcome is not None:
            exc = state.outcome.exception()
            if exc is not None:
                on_retry(state.attempt_number + 1, exc, state.upcoming_sleep)

    retrying = AsyncRetrying(
        retry=retry_if_exception(lambda exc: isinstance(exc, Exception) and retry_on(exc)),
        stop=stop,
        wait=lambda state: delay(state.attempt_number + 1),
        before_sleep=before_sleep,
        reraise=True,
    )
    async for attempt in retrying:
        with attempt:
            return await action(attempt.retry_state.attempt_number + 1)
    raise AssertionError("unreachable: tenacity either returns or re-raises")  # pragma: no cover
