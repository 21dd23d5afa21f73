"""Open the LangGraph checkpointer named by a database URL.

- ``sqlite:///path/to/file.db`` (default, under the data directory): ``AsyncSqliteSaver``;
- ``postgresql://user:pass@host/db``: ``AsyncPostgresSaver`` over a connection pool (extra ``postgres``);
- ``memory://``: ``InMemorySaver`` (tests).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from cadence.errors import ConfigurationError
from cadence.persistence.checkpoint_reads import ReadAheadMemorySaver, ReadAheadSaver
from cadence.persistence.databases import (
    POSTGRES_CHECK_IDLE_S,
    POSTGRES_EXTRA_HINT,
    POSTGRES_POOL_SIZE,
    SQLITE_SYNCHRONOUS,
    connect_sqlite,
    parse_database_url,
    postgres_pool,
    postgres_setup_lock,
    postgres_storage_errors,
    setup_sqlite,
)


@contextlib.asynccontextmanager
async def open_checkpointer(
    url: str,
    *,
    sqlite_synchronous: str = SQLITE_SYNCHRONOUS,
    postgres_check_idle_s: float = POSTGRES_CHECK_IDLE_S,
    postgres_pool_size: int = POSTGRES_POOL_SIZE,
) -> AsyncIterator[Any]:
    """An async context manager yielding a ready checkpointer for ``url``.

    ``sqlite_synchronous``: the SQLite connection's durability (:func:`connect_sqlite`);
    ``postgres_check_idle_s``: when a pooled connection is checked before use (:class:`IdleCheck`);
    ``postgres_pool_size``: the most connections its PostgreSQL pool opens.
    """
    kind, target = parse_database_url(url)
    if kind == "memory":
        yield ReadAheadMemorySaver()
        return
    if kind == "sqlite":
        # autocommit: each of the saver's writes is one statement (a batch of writes, one call:
        # sqlite_writer), so SQLite's writer lock is never held while the event loop runs other work
        async with connect_sqlite(target, synchronous=sqlite_synchronous, isolation_level=None) as conn:
            saver = _sqlite_saver_class()(conn)
            await setup_sqlite(target, saver.setup)
            yield saver
        return
    try:
        from psycopg.rows import dict_row
    except ImportError as exc:
        raise ConfigurationError(POSTGRES_EXTRA_HINT) from exc
    AsyncPostgresSaver = _postgres_saver_class()
    async with postgres_pool(
        url,
        target,
        max_size=postgres_pool_size,
        check_idle_s=postgres_check_idle_s,
        prepare_threshold=0,
        row_factory=dict_row,
    ) as pool:
        saver = AsyncPostgresSaver(conn=pool)
        async with postgres_setup_lock(url, target):  # held for the set-up only
            await saver.setup()
        yield saver


def _sqlite_saver_class() -> Any:
    """LangGraph's ``AsyncSqliteSaver`` taking reads handed over
    (:mod:`~cadence.persistence.checkpoint_reads`)."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    class CadenceSqliteSaver(ReadAheadSaver, AsyncSqliteSaver):
        """``AsyncSqliteSaver`` taking reads handed over."""

    return CadenceSqliteSaver


def _postgres_saver_class() -> Any:
    """LangGraph's ``AsyncPostgresSaver`` whose reads and writes raise a :class:`~cadence.errors.StorageError`
    saying what to do when the server is out of disk space, read-only or unreachable
    (:func:`postgres_storage_errors`); ConfigurationError without the ``postgres`` extra."""
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    except ImportError as exc:
        raise ConfigurationError(POSTGRES_EXTRA_HINT) from exc

    class CadencePostgresSaver(ReadAheadSaver, AsyncPostgresSaver):  # type: ignore[misc, valid-type]
        """``AsyncPostgresSaver`` failing with a StorageError (full disk, read-only or unreachable server),
        taking reads handed over (:mod:`~cadence.persistence.checkpoint_reads`)."""

        async def setup(self) -> None:
            """Create or migrate the tables."""
            with postgres_storage_errors():
                await super().setup()

        async def aget_tuple(self, *args: Any, **kwargs: Any) -> Any:
            """Read a checkpoint."""
            with postgres_storage_errors():
                return await super().aget_tuple(*args, **kwargs)

        async def alist(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            """Read checkpoints, newest first."""
            with postgres_storage_errors():
                async for item in super().alist(*args, **kwargs):
                    yield item

        async def aput(self, *args: Any, **kwargs: Any) -> Any:
            """Store a checkpoint."""
            with postgres_storage_errors():
                return await super().aput(*args, **kwargs)

        async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
            """Store a step's pending writes."""
            with postgres_storage_errors():
                await super().aput_writes(*args, **kwargs)

        async def adelete_thread(self, *args: Any, **kwargs: Any) -> None:
            """Delete a thread's checkpoints."""
            with postgres_storage_errors():
                await super().adelete_thread(*args, **kwargs)

    return CadencePostgresSaver
