"""Open the LangGraph checkpointer named by a database URL.

- ``sqlite:///path/to/file.db`` (default, under the data directory): ``AsyncSqliteSaver``;
- ``postgresql://user:pass@host/db``: ``AsyncPostgresSaver`` (extra ``postgres``);
- ``memory://``: ``InMemorySaver`` (tests).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from cadence.errors import ConfigurationError


def parse_database_url(url: str) -> tuple[str, str]:
    """``(kind, target)`` with kind ``sqlite``, ``postgres`` or ``memory``."""
    text = url.strip()
    if text in {"memory", "memory://", ":memory:"}:
        return "memory", ""
    if text.startswith("sqlite:///"):
        return "sqlite", text[len("sqlite:///") :]
    if text.startswith("sqlite://"):
        return "sqlite", text[len("sqlite://") :]
    if text.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        return "postgres", text.replace("postgresql+psycopg://", "postgresql://", 1)
    raise ConfigurationError(
        f"Unsupported CADENCE_DATABASE_URL {url!r}; use sqlite:///path.db, postgresql://user:pass@host/db or memory://"
    )


@contextlib.asynccontextmanager
async def open_checkpointer(url: str) -> AsyncIterator[Any]:
    """An async context manager yielding a ready checkpointer for ``url``."""
    kind, target = parse_database_url(url)
    if kind == "memory":
        yield InMemorySaver()
        return
    if kind == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        path = Path(target).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            await saver.setup()
            yield saver
        return
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool
    except ImportError as exc:
        raise ConfigurationError(
            'PostgreSQL needs the postgres extra: pip install "cadence-agents[postgres]"'
        ) from exc
    # A pool (not one connection): concurrent turns don't queue on a single connection, and a
    # connection dropped by a database restart or an idle timeout is replaced (checked on checkout).
    pool = AsyncConnectionPool(
        target,
        min_size=1,
        max_size=10,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        check=AsyncConnectionPool.check_connection,
        open=False,
    )
    async with postgres_setup_lock(url, target):
        await pool.open(wait=True, timeout=30)
        try:
            saver = AsyncPostgresSaver(conn=pool)
            await saver.setup()
        except BaseException:
            await pool.close()
            raise
    try:
        yield saver
    finally:
        await pool.close()


# Any constant bigint: the PostgreSQL advisory lock that serializes schema setup across processes.
SETUP_LOCK_KEY = 0x43616465_6E636501


async def connect_postgres(url: str, target: str) -> Any:
    """An autocommit psycopg connection to ``target``; ConfigurationError (quickly) if unreachable."""
    import psycopg

    try:
        return await psycopg.AsyncConnection.connect(target, autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as exc:
        raise ConfigurationError(f"Cannot reach PostgreSQL at {url.split('@')[-1]}: {exc}") from exc


@contextlib.asynccontextmanager
async def postgres_setup_lock(url: str, target: str) -> AsyncIterator[None]:
    """Hold a session advisory lock while creating tables, so servers starting together on a fresh
    database don't race (``CREATE ... IF NOT EXISTS`` is not atomic: the losers fail with
    UniqueViolation/DuplicateObject). Don't nest it: another session would wait on it."""
    async with await connect_postgres(url, target) as conn:
        await conn.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK_KEY,))
        try:
            yield
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_KEY,))
