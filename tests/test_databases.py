"""PostgreSQL pools: a connection is checked with a round trip only after it has been idle a while.

Against the private server of ``pg_support.postgres_server_url`` (skipped without PostgreSQL).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool
from tests.conftest import make_settings

from cadence.memory.store import open_memory_store
from cadence.persistence import open_checkpointer
from cadence.persistence.databases import (
    IdleCheck,
    companion_pool_size,
    connections_per_process,
    postgres_connection_limit,
    postgres_pool,
)
from cadence.persistence.threads import configured_thread_store
from cadence.server.app import check_connection_budget
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


async def test_pool_sizes_follow_the_setting(postgres_server_url: str) -> None:
    """CADENCE_POSTGRES_POOL_SIZE bounds the checkpointer's pool; the other two get half of it."""
    url = fresh_database(postgres_server_url)
    settings = make_settings(database_url=url, postgres_pool_size=4)
    async with (
        open_checkpointer(url, postgres_pool_size=settings.postgres_pool_size) as saver,
        configured_thread_store(settings) as threads,
        open_memory_store(settings) as store,
    ):
        assert saver.conn.max_size == 4, "the checkpointer pool"
        assert threads._pool.max_size == 2  # type: ignore[attr-defined]
        assert store.conn.max_size == 2  # type: ignore[attr-defined]
    assert [companion_pool_size(n) for n in (1, 2, 5, 10)] == [1, 1, 2, 5]


async def test_serving_warns_when_the_workers_could_exceed_max_connections(
    postgres_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    url = fresh_database(postgres_server_url)
    settings = make_settings(database_url=url, postgres_pool_size=4)
    per_process = connections_per_process(4, memory=settings.memory)
    assert per_process == 4 + 2 * (2 if settings.memory else 1) + 1
    limit = await postgres_connection_limit(url, url)
    with caplog.at_level(logging.WARNING, logger="cadence.server.app"):
        assert await check_connection_budget(settings, max(1, limit // per_process)) == limit
        assert not caplog.records
        await check_connection_budget(settings, limit // per_process + 1)
    (record,) = caplog.records
    assert "CADENCE_POSTGRES_POOL_SIZE" in record.getMessage() and str(limit) in record.getMessage()
    assert await check_connection_budget(make_settings(database_url="sqlite:///x.db"), 99) is None


@pytest.mark.parametrize(
    ("url", "parsed"),
    [
        ("sqlite:///data/cadence.db", ("sqlite", "data/cadence.db")),
        ("sqlite:////abs/cadence.db", ("sqlite", "/abs/cadence.db")),
        ("sqlite:///:memory:", ("memory", "")),  # SQLite's name for memory: nothing written to a file
        ("sqlite://:memory:", ("memory", "")),
        ("memory://", ("memory", "")),
    ],
)
def test_database_urls(url: str, parsed: tuple[str, str]) -> None:
    from cadence.persistence.databases import parse_database_url

    assert parse_database_url(url) == parsed


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite:///  "])
def test_a_sqlite_url_without_a_file_is_a_configuration_error(url: str) -> None:
    from cadence.errors import ConfigurationError
    from cadence.persistence.databases import parse_database_url

    with pytest.raises(ConfigurationError, match="names no file"):
        parse_database_url(url)


async def test_sqlite_memory_url_keeps_memories_in_memory(tmp_path, monkeypatch) -> None:
    """``sqlite:///:memory:`` wrote the memory store to ``./:memory:.memory.db`` in the working folder."""
    monkeypatch.chdir(tmp_path)
    async with open_memory_store(make_settings(database_url="sqlite:///:memory:")) as store:
        await store.aput(("u",), "k", {"text": "x"})
    assert list(tmp_path.iterdir()) == []
