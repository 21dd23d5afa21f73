"""PostgreSQL pools: a connection is checked with a round trip only after it has been idle a while.

Against the private server of ``pg_support.postgres_server_url`` (skipped without PostgreSQL).
"""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from cadence.persistence.databases import IdleCheck, postgres_pool
from pg_support import fresh_database, postgres_server_url

__all__ = ["postgres_server_url"]  # the session fixture, re-exported so pytest finds it here


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The connections psycopg_pool's own check sent its empty query on."""
    checked: list[Any] = []
    original = AsyncConnectionPool.check_connection

    async def counting(conn: Any) -> None:
        checked.append(conn)
        await original(conn)

    monkeypatch.setattr(AsyncConnectionPool, "check_connection", staticmethod(counting))
    return checked


async def _pid(pool: Any) -> int:
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT pg_backend_pid()")).fetchone()
        return int(row[0])


async def _terminate(url: str, pid: int) -> None:
    """End the server process of connection ``pid`` and wait until it is gone."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as admin:
        await admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        for _ in range(200):
            cur = await admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,))
            if (await cur.fetchone())[0] == 0:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"backend {pid} did not exit")


async def test_a_recently_returned_connection_is_not_checked(
    postgres_server_url: str, round_trips: list[Any]
) -> None:
    url = fresh_database(postgres_server_url)
    async with postgres_pool(url, url, max_size=1, check_idle_s=60) as pool:
        first = await _pid(pool)
        checked = len(round_trips)
        for _ in range(5):
            assert await _pid(pool) == first
        assert len(round_trips) == checked  # five checkouts, no extra round trip


async def test_zero_checks_every_checkout(postgres_server_url: str, round_trips: list[Any]) -> None:
    url = fresh_database(postgres_server_url)
    async with postgres_pool(url, url, max_size=1, check_idle_s=0) as pool:
        await _pid(pool)
        checked = len(round_trips)
        for _ in range(3):
            await _pid(pool)
        assert len(round_trips) == checked + 3


@pytest.mark.parametrize(
    "check_idle_s",
    [
        0,  # idle: checked at checkout anyway
        60,  # used a moment ago: checked because the server wrote to it (it says so, then closes)
    ],
)
async def test_a_connection_dropped_by_the_server_is_replaced(
    postgres_server_url: str, round_trips: list[Any], check_idle_s: float
) -> None:
    url = fresh_database(postgres_server_url)
    async with postgres_pool(url, url, max_size=1, check_idle_s=check_idle_s) as pool:
        first = await _pid(pool)
        await _terminate(url, first)  # a server restart, an idle timeout, pg_terminate_backend
        checked = len(round_trips)
        assert await _pid(pool) != first  # checked, found dead, replaced: no error
        assert len(round_trips) > checked


async def test_free_local_checks_refuse_a_connection_left_in_a_transaction() -> None:
    class Info:
        transaction_status = psycopg.pq.TransactionStatus.INTRANS

    class Conn:
        closed = False
        broken = False
        info = Info()

    with pytest.raises(psycopg.OperationalError):
        await IdleCheck(60).check(Conn())
