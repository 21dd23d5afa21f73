"""The memory store: LangGraph's ``BaseStore``, chosen by ``CADENCE_DATABASE_URL`` like the checkpointer.

- ``sqlite:///dir/cadence.db`` (default): ``AsyncSqliteStore`` in ``dir/cadence.memory.db``, beside
  the checkpoints (a file of its own: memory writes never wait for the checkpointer's writer lock);
- ``postgresql://…``: ``AsyncPostgresStore`` over a connection pool, in the same database
  (its own ``store`` tables; set-up under the shared advisory lock);
- ``memory://``: ``InMemoryStore`` (tests, one process).

With ``CADENCE_MEMORY_EMBEDDINGS`` set, the store gets LangGraph's vector index over the memories'
``text`` (the embedding model from LangChain's ``init_embeddings``); recall then also scores by
similarity (see :mod:`cadence.memory.service`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from cadence.errors import ConfigurationError
from cadence.persistence.databases import (
    POSTGRES_EXTRA_HINT,
    companion_pool_size,
    connect_sqlite,
    parse_database_url,
    postgres_pool,
    postgres_setup_lock,
    postgres_storage_errors,
    setup_sqlite,
)
from cadence.settings import Settings

INDEXED_FIELDS = ["text"]
"""The memory fields the vector index embeds (when embeddings are configured)."""


def memory_sqlite_path(checkpoint_path: str | Path) -> Path:
    """The memory file beside a SQLite checkpoint file: ``cadence.db`` → ``cadence.memory.db``."""
    path = Path(checkpoint_path).expanduser()
    return path.with_name(f"{path.stem}.memory{path.suffix or '.db'}")


def embedding_index(settings: Settings) -> dict[str, Any] | None:
    """LangGraph's index config for ``CADENCE_MEMORY_EMBEDDINGS`` (None when unset)."""
    name = (settings.memory_embeddings or "").strip()
    if not name:
        return None
    try:
        from langchain.embeddings import init_embeddings  # type: ignore[import-not-found]
    except ImportError:
        raise ConfigurationError(
            "CADENCE_MEMORY_EMBEDDINGS needs the langchain package (pip install langchain) "
            "and the provider's integration; unset it for lexical recall."
        ) from None
    try:
        embed = init_embeddings(name)
    except Exception as exc:
        raise ConfigurationError(f"CADENCE_MEMORY_EMBEDDINGS {name!r} cannot be used: {exc}") from exc
    return {"dims": settings.memory_embedding_dims, "embed": embed, "fields": INDEXED_FIELDS}


@contextlib.asynccontextmanager
async def open_kept_memory_store(settings: Settings) -> AsyncIterator[BaseStore]:
    """The store of the memories kept so far, to list, forget or consolidate them — also with
    ``CADENCE_MEMORY=off``: a user can always see and delete what was kept about them.

    Nothing is created for it: without a SQLite memory file yet, and with ``memory://`` (a
    per-process store: with memory off the process kept nothing), it is an empty in-memory store.
    On PostgreSQL the pool has one connection (the memory management of a server whose memory is
    off opens it per request, outside the connection budget of its turns).
    """
    kind, target = parse_database_url(settings.resolved_database_url)
    if kind == "memory" or (
        kind == "sqlite" and not await asyncio.to_thread(memory_sqlite_path(target).is_file)
    ):
        yield InMemoryStore()
        return
    async with open_memory_store(settings, pool_size=1) as store:
        yield store


@contextlib.asynccontextmanager
async def open_memory_store(
    settings: Settings, index: dict[str, Any] | None = None, *, pool_size: int | None = None
) -> AsyncIterator[BaseStore]:
    """An async context manager yielding the ready memory store for ``settings``.

    ``index`` overrides the vector index derived from ``CADENCE_MEMORY_EMBEDDINGS`` (tests pass a
    fake embedding); ``pool_size`` the PostgreSQL pool's size (default: a companion pool of
    ``CADENCE_POSTGRES_POOL_SIZE``). Problems (unreachable database, unwritable file) are one-line
    :class:`ConfigurationError`\\ s, raised before anything runs.
    """
    url = settings.resolved_database_url
    kind, target = parse_database_url(url)
    index = index if index is not None else embedding_index(settings)
    if kind == "memory":
        yield InMemoryStore(index=index)  # type: ignore[arg-type]
        return
    if kind == "sqlite":
        from langgraph.store.sqlite.aio import AsyncSqliteStore

        path = memory_sqlite_path(target)
        async with connect_sqlite(
            path, synchronous=settings.sqlite_synchronous, isolation_level=None
        ) as conn:
            store = AsyncSqliteStore(conn, index=index)  # type: ignore[arg-type]

            async def setup() -> None:
                async with conn.execute("PRAGMA journal_mode = WAL"):  # readers never block the writer
                    pass
                await store.setup()

            await setup_sqlite(path, setup)
            yield store
        return
    try:
        from langgraph.store.postgres.aio import AsyncPostgresStore
        from psycopg.rows import dict_row
    except ImportError as exc:
        raise ConfigurationError(POSTGRES_EXTRA_HINT) from exc
    async with postgres_pool(
        url,
        target,
        max_size=pool_size or companion_pool_size(settings.postgres_pool_size),
        check_idle_s=settings.postgres_check_idle_s,
        prepare_threshold=0,
        row_factory=dict_row,
    ) as pool:
        pg_store = _storage_errors(AsyncPostgresStore)(conn=pool, index=index)  # type: ignore[arg-type]
        async with postgres_setup_lock(url, target):
            await pg_store.setup()
        yield pg_store


def _storage_errors(store_class: type[Any]) -> type[Any]:
    """LangGraph's ``AsyncPostgresStore`` whose operations raise a :class:`~cadence.errors.StorageError`
    saying what to do when the server is out of disk space, read-only or unreachable (503 on the memory
    routes, as the threads' and checkpoints' do), not the raw psycopg error (500)."""

    class CadencePostgresStore(store_class):  # type: ignore[misc, valid-type]
        """``AsyncPostgresStore`` failing with a StorageError (full disk, read-only or unreachable server)."""

        async def abatch(self, ops: Any) -> list[Any]:
            """Run the operations (every read and write of the store goes through here)."""
            with postgres_storage_errors():
                return await super().abatch(ops)

    return CadencePostgresStore


__all__ = [
    "INDEXED_FIELDS",
    "embedding_index",
    "memory_sqlite_path",
    "open_kept_memory_store",
    "open_memory_store",
]
