"""CADENCE_SQLITE_SYNCHRONOUS reaches every SQLite connection Cadence opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from cadence.errors import ConfigurationError
from cadence.memory.store import open_memory_store
from cadence.orchestration.engine import Cadence
from cadence.persistence import open_checkpointer
from cadence.persistence.databases import connect_sqlite
from cadence.persistence.threads import open_thread_store
from cadence.settings import Settings

NORMAL, FULL = 1, 2  # PRAGMA synchronous answers with these numbers


async def _synchronous(conn: object) -> int:
    async with conn.execute("PRAGMA synchronous") as cursor:  # type: ignore[attr-defined]
        return int((await cursor.fetchone())[0])


async def test_connections_are_normal_by_default(tmp_path: Path) -> None:
    async with connect_sqlite(tmp_path / "a.db") as conn:
        assert await _synchronous(conn) == NORMAL
    async with connect_sqlite(tmp_path / "a.db", synchronous="full") as conn:
        assert await _synchronous(conn) == FULL


async def test_unknown_mode_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="use normal or full"):
        async with connect_sqlite(tmp_path / "a.db", synchronous="off"):
            pass


@pytest.mark.parametrize(("mode", "expected"), [("normal", NORMAL), ("full", FULL)])
async def test_the_setting_reaches_checkpointer_thread_store_and_memory(
    tmp_path: Path, mode: str, expected: int
) -> None:
    url = f"sqlite:///{tmp_path / 'cadence.db'}"
    settings = Settings(
        data_dir=tmp_path, database_url=url, sqlite_synchronous=mode, entry_points_enabled=False
    )
    async with Cadence.open(settings) as engine:
        assert await _synchronous(engine.checkpointer.conn) == expected
    async with open_checkpointer(url, sqlite_synchronous=mode) as saver:
        assert await _synchronous(saver.conn) == expected
    async with open_thread_store(url, sqlite_synchronous=mode) as store:
        assert await _synchronous(store._conn) == expected  # type: ignore[attr-defined]
    async with open_memory_store(settings) as memory:
        assert await _synchronous(memory.conn) == expected  # type: ignore[attr-defined]
