"""The one retry helper: attempts, total time and the deadline bound it; only what it is told is retried."""

from __future__ import annotations

import asyncio

import pytest

from cadence.backoff import exponential_delay, retry_async


class Flaky(Exception):
    """A retryable failure."""


def failing(times: int, calls: list[int]):
    async def action(attempt: int) -> str:
        calls.append(attempt)
        if len(calls) <= times:
            raise Flaky(f"failure {len(calls)}")
        return "ok"

    return action


async def test_retries_until_success_and_reports_each_wait() -> None:
    calls: list[int] = []
    seen: list[tuple[int, str, float]] = []
    result = await retry_async(
        failing(2, calls),
        retry_on=lambda exc: isinstance(exc, Flaky),
        max_attempts=5,
        delay=lambda n: 0.0,
        on_retry=lambda n, exc, wait: seen.append((n, str(exc), wait)),
    )
    assert result == "ok"
    assert calls == [1, 2, 3]
    assert seen == [(1, "failure 1", 0.0), (2, "failure 2", 0.0)]


async def test_attempts_are_bounded_and_the_last_error_is_raised_as_it_is() -> None:
    calls: list[int] = []
    with pytest.raises(Flaky, match="failure 3"):
        await retry_async(
            failing(10, calls),
            retry_on=lambda exc: isinstance(exc, Flaky),
            max_attempts=3,
            delay=lambda n: 0.0,
        )
    assert calls == [1, 2, 3]


async def test_other_errors_and_cancellation_are_never_retried() -> None:
    calls: list[int] = []

    async def boom(attempt: int) -> None:
        calls.append(attempt)
        raise ValueError("permanent")

    with pytest.raises(ValueError):
        await retry_async(
            boom, retry_on=lambda exc: isinstance(exc, Flaky), max_attempts=5, delay=lambda n: 0.0
        )

    async def cancelled(attempt: int) -> None:
        calls.append(attempt)
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await retry_async(cancelled, retry_on=lambda exc: True, max_attempts=5, delay=lambda n: 0.0)
    assert calls == [1, 1]


async def test_no_retry_when_the_wait_does_not_fit_before_the_deadline_or_the_time_budget() -> None:
    calls: list[int] = []
    with pytest.raises(Flaky):
        await retry_async(
            failing(10, calls),
            retry_on=lambda exc: isinstance(exc, Flaky),
            max_attempts=5,
            delay=lambda n: 1.0,
            time_left=lambda: 0.5,
        )
    assert calls == [1]
    calls.clear()
    with pytest.raises(Flaky):
        await retry_async(
            failing(10, calls),
            retry_on=lambda exc: isinstance(exc, Flaky),
            max_attempts=5,
            delay=lambda n: 1.0,
            max_time=0.5,
        )
    assert calls == [1]
    calls.clear()
    # no deadline (None) and a wait that fits: retried
    assert (
        await retry_async(
            failing(1, calls),
            retry_on=lambda exc: isinstance(exc, Flaky),
            max_attempts=5,
            delay=lambda n: 0.0,
            time_left=lambda: None,
            max_time=60,
        )
        == "ok"
    )


def test_exponential_delay() -> None:
    assert [exponential_delay(0.5)(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]
    assert exponential_delay(0.5, cap=1.5)(4) == 1.5
    for n in range(1, 6):
        raw = min(8.0, 0.5 * 2 ** (n - 1))
        assert raw / 2 <= exponential_delay(0.5, cap=8.0, half_jitter=True)(n) <= raw
        assert 0.02 * 2 ** (n - 1) <= exponential_delay(0.02, jitter=0.02)(n) <= 0.02 * 2 ** (n - 1) + 0.02


async def test_attempts_are_numbered_across_the_first_try_and_the_retries() -> None:
    calls: list[int] = []
    seen: list[int] = []
    waits: list[int] = []

    def delay(n: int) -> float:
        waits.append(n)
        return 0.0

    with pytest.raises(Flaky, match="failure 4"):
        await retry_async(
            failing(10, calls),
            retry_on=lambda exc: isinstance(exc, Flaky),
            max_attempts=4,
            delay=delay,
            on_retry=lambda n, exc, wait: seen.append(n),
        )
    assert calls == [1, 2, 3, 4]
    assert seen == [1, 2, 3]
    assert waits[:3] == [1, 2, 3]
