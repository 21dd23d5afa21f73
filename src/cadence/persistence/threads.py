"""Thread ownership and listing: who owns which conversation, its title and last activity.

The checkpointer holds the messages; the thread store holds one row per thread so the
HTTP API can list a user's conversations, check ownership (a thread id belongs to one
user; anyone else gets "not found") and delete them. Implementations:

- :class:`SqliteThreadStore`: a ``cadence_threads`` table in the checkpointer's SQLite file;
- :class:`PostgresThreadStore`: the same table in PostgreSQL (psycopg, imported when used);
- :class:`MemoryThreadStore`: a dict, for tests and ``memory://``.

:func:`open_thread_store` picks one from a database URL, like ``open_checkpointer``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from cadence.errors import NotFoundError
from cadence.persistence.databases import (
    POSTGRES_CHECK_IDLE_S,
    POSTGRES_POOL_SIZE,
    SQLITE_SYNCHRONOUS,
    companion_pool_size,
    connect_sqlite,
    parse_database_url,
    postgres_pool,
    postgres_storage_errors,
    retry_while_locked,
    setup_lock_on,
    setup_sqlite,
)
from cadence.settings import Settings

TITLE_MAX_CHARS = 80
_CONTROL = {c: " " for c in [*range(32), 127]}

_COLUMNS = (
    "thread_id, user_id, org_id, project_id, title, created_at, updated_at, turns, question_id, question"
)
_QUESTION_COLUMNS = ("question_id", "question")
"""Added after the first release: :func:`_migrations` adds them to an older table."""


def make_title(message: str, limit: int = TITLE_MAX_CHARS) -> str:
    """A thread title from its first message: control characters dropped, whitespace collapsed,
    truncated with an ellipsis (any database can store it: no NUL)."""
    text = " ".join(message.translate(_CONTROL).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class ThreadRecord:
    """One thread: its owner, optional org/project, title and activity times (UTC)."""

    thread_id: str
    user_id: str
    title: str
    created_at: datetime
    updated_at: datetime
    turns: int = 0
    org_id: str | None = None
    project_id: str | None = None
    question_id: str | None = None
    """The message id of the latest question asked on the thread, written when its turn starts (the
    server's turns): a question its checkpoint lacks never finished (the server stopped mid-turn)."""
    question: str | None = None
    """That question's text."""

    @classmethod
    def from_row(cls, row: Any) -> ThreadRecord:
        """Build from a ``_COLUMNS``-ordered row."""
        thread_id, user_id, org_id, project_id, title, created, updated, turns, question_id, question = row
        return cls(
            thread_id=thread_id,
            user_id=user_id,
            title=title or "",
            created_at=datetime.fromtimestamp(float(created), UTC),
            updated_at=datetime.fromtimestamp(float(updated), UTC),
            turns=int(turns or 0),
            org_id=org_id,
            project_id=project_id,
            question_id=question_id,
            question=question,
        )


def _not_found(thread_id: str) -> NotFoundError:
    return NotFoundError(f"No thread {thread_id!r} for this user.", code="thread_not_found")


@runtime_checkable
class ThreadStore(Protocol):
    """Ownership and metadata of threads. All methods are coroutines."""

    async def setup(self) -> None:
        """Create tables if needed."""

    async def ping(self) -> None:
        """Raise if the database is unreachable."""

    async def get(self, thread_id: str) -> ThreadRecord | None:
        """The thread with this id, whoever owns it."""

    async def claim(
        self,
        user_id: str,
        thread_id: str,
        *,
        title: str,
        org_id: str | None = None,
        project_id: str | None = None,
        turns: int = 0,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
    ) -> ThreadRecord:
        """Create the thread for ``user_id`` if it is new; raise NotFoundError if another user owns it.

        ``turns``, ``created_at``, ``updated_at``: what a new record starts with (default: no turn,
        now), for a thread whose history exists already (adopted from its checkpoints).
        """

    async def start_turn(
        self,
        user_id: str,
        thread_id: str,
        *,
        title: str,
        org_id: str | None = None,
        project_id: str | None = None,
        question_id: str | None = None,
        question: str | None = None,
    ) -> ThreadRecord:
        """Claim the thread (create it if new), count a turn on it and keep its question, in one write.

        The turn's activity time is its start. ``question_id``/``question``: the turn's question
        (:attr:`ThreadRecord.question`), durable before the turn runs. NotFoundError if another
        user owns the thread (nothing is changed then).
        """

    async def touch(self, user_id: str, thread_id: str, *, turn: bool = True) -> None:
        """Record activity on the thread: its activity time, and ``turn``: one more turn started
        (False for a run that continues a turn, such as a decided pause)."""

    async def settle_question(self, user_id: str, thread_id: str) -> None:
        """Forget the thread's recorded question (a run that sets the thread's state otherwise: a
        resume continues the question's turn, a fork may branch from before it)."""

    async def list(
        self,
        user_id: str,
        *,
        limit: int = 50,
        offset: int = 0,
        org_id: str | None = None,
        project_id: str | None = None,
    ) -> list[ThreadRecord]:
        """The user's threads, most recently active first."""

    async def delete(self, user_id: str, thread_id: str) -> bool:
        """Delete the user's thread record; False if there was none."""

    async def rename(self, user_id: str, thread_id: str, title: str) -> ThreadRecord | None:
        """Give the user's thread a new title (cleaned by :func:`make_title`); None if there is none."""


# -- memory ------------------------------------------------------------------------------
class MemoryThreadStore:
    """Threads in a dict (tests, ``memory://``)."""

    def __init__(self) -> None:
        self._rows: dict[str, ThreadRecord] = {}

    async def setup(self) -> None:
        """Nothing to create."""

    async def ping(self) -> None:
        """Always reachable."""

    async def get(self, thread_id: str) -> ThreadRecord | None:
        """The thread with this id, whoever owns it."""
        return self._rows.get(thread_id)

    async def claim(
        self,
        user_id: str,
        thread_id: str,
        *,
        title: str,
        org_id: str | None = None,
        project_id: str | None = None,
        turns: int = 0,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
    ) -> ThreadRecord:
        """Create the thread if new; NotFoundError if another user owns it."""
        row = self._rows.get(thread_id)
        if row is None:
            created = created_at or datetime.now(UTC)
            updated = updated_at or created
            row = ThreadRecord(
                thread_id, user_id, make_title(title), created, updated, turns, org_id, project_id
            )
            self._rows[thread_id] = row
        if row.user_id != user_id:
            raise _not_found(thread_id)
        return row

    async def start_turn(
        self,
        user_id: str,
        thread_id: str,
        *,
        title: str,
        org_id: str | None = None,
        project_id: str | None = None,
        question_id: str | None = None,
        question: str | None = None,
    ) -> ThreadRecord:
        """Claim the thread, count a turn and keep its question; NotFoundError if another user owns it.

        One lookup and one record (the engine calls it on every turn of an in-memory engine).
        """
        row = self._rows.get(thread_id)
        now = datetime.now(UTC)
        if row is None:
            row = ThreadRecord(
                thread_id, user_id, make_title(title), now, now, 1, org_id, project_id, question_id, question
            )
        elif row.user_id != user_id:
            raise _not_found(thread_id)
        else:
            row = dataclasses.replace(
                row, updated_at=now, turns=row.turns + 1, question_id=question_id, question=question
            )
        self._rows[thread_id] = row
        return row

    async def touch(self, user_id: str, thread_id: str, *, turn: bool = True) -> None:
        """Bump the activity time and (``turn``) the turn count."""
        row = self._rows.get(thread_id)
        if row is not None and row.user_id == user_id:
            now = datetime.now(UTC)
            self._rows[thread_id] = dataclasses.replace(row, updated_at=now, turns=row.turns + int(turn))

    async def settle_question(self, user_id: str, thread_id: str) -> None:
        """Forget the thread's recorded question (the owner's thread only)."""
        row = self._rows.get(thread_id)
        if row is not None and row.user_id == user_id:
            self._rows[thread_id] = dataclasses.replace(row, question_id=None, question=None)

    async def list(
        self,
        user_id: str,
        *,
        limit: int = 50,
        offset: int = 0,
        org_id: str | None = None,
        project_id: str | None = None,
    ) -> list[ThreadRecord]:
        """The user's threads, most recently active first."""
        rows = [
            r
            for r in self._rows.values()
            if r.user_id == user_id
            and (org_id is None or r.org_id == org_id)
            and (project_id is None or r.project_id == project_id)
        ]
        rows.sort(key=lambda r: r.updated_at, reverse=True)
        return rows[offset : offset + limit]

    async def delete(self, user_id: str, thread_id: str) -> bool:
        """Remove the record if the user owns it."""
        row = self._rows.get(thread_id)
        if row is None or row.user_id != user_id:
            return False
        del self._rows[thread_id]
        return True

    async def rename(self, user_id: str, thread_id: str, title: str) -> ThreadRecord | None:
        """Replace the title if the user owns the thread (activity time unchanged)."""
        row = self._rows.get(thread_id)
        if row is None or row.user_id != user_id:
            return None
        row = dataclasses.replace(row, title=make_title(title))
        self._rows[thread_id] = row
        return row


# -- SQL (shared by SQLite and PostgreSQL) -------------------------------------------------
def _schema(real: str) -> list[str]:
    return [
        f"""CREATE TABLE IF NOT EXISTS cadence_threads (
            thread_id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            org_id TEXT,
            project_id TEXT,
            title TEXT NOT NULL DEFAULT '',
            created_at {real} NOT NULL,
            updated_at {real} NOT NULL,
            turns INTEGER NOT NULL DEFAULT 0,
            question_id TEXT,
            question TEXT
        )""",
        "CREATE INDEX IF NOT EXISTS cadence_threads_user_activity ON cadence_threads (user_id, updated_at)",
    ]


def _migrations(present: set[str] | None = None) -> list[str]:
    """The statements adding the columns an older ``cadence_threads`` table lacks: those not in
    ``present`` (SQLite), or every one with ``IF NOT EXISTS`` when ``present`` is None (PostgreSQL)."""
    if present is None:
        return [f"ALTER TABLE cadence_threads ADD COLUMN IF NOT EXISTS {c} TEXT" for c in _QUESTION_COLUMNS]
    return [f"ALTER TABLE cadence_threads ADD COLUMN {c} TEXT" for c in _QUESTION_COLUMNS if c not in present]


class _SqlThreadStore:
    """Thread store logic over a DB-API-like async ``_execute``; subclasses set the placeholder."""

    placeholder = "?"

    async def _execute(self, sql: str, params: tuple[Any, ...] = (), *, fetch: bool = False) -> list[Any]:
        """Run one statement; ``fetch``: return its rows."""
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.placeholder)

    async def ping(self) -> None:
        """Run a trivial query."""
        await self._execute("SELECT 1", fetch=True)

    async def get(self, thread_id: str) -> ThreadRecord | None:
        """The thread with this id, whoever owns it."""
        rows = await self._execute(
            self._sql(f"SELECT {_COLUMNS} FROM cadence_threads WHERE thread_id = ?"), (thread_id,), fetch=True
        )
        return ThreadRecord.from_row(rows[0]) if rows else None

    async def _owned(self, user_id: str, thread_id: str) -> ThreadRecord:
        """The user's thread after a write that may have created it; NotFoundError if it is another user's."""
        row = await self.get(thread_id)
        if row is None or row.user_id != user_id:
            raise _not_found(thread_id)
        return row

    async def claim(
        self,
        user_id: str,
        thread_id: str,
        *,
        title: str,
        org_id: str | None = None,
        project_id: str | None = None,
        turns: int = 0,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
    ) -> ThreadRecord:
        """Insert the thread if new (race-free); NotFoundError if another user owns it."""
        created = created_at.timestamp() if created_at is not None else time.time()
        updated = updated_at.timestamp() if updated_at is not None else created
        await self._execute(
            self._sql(
                f"INSERT INTO cadence_threads ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL) "
                "ON CONFLICT (thread_id) DO NOTHING"
            ),
            (thread_id, user_id, org_id, project_id, make_title(title), created, updated, int(turns)),
        )
        return await self._owned(user_id, thread_id)

    async def start_turn(
        self,
        user_id: str,
        thread_id: str,
        *,
        title: str,
        org_id: str | None = None,
        project_id: str | None = None,
        question_id: str | None = None,
        question: str | None = None,
    ) -> ThreadRecord:
        """Insert the thread with one turn, or count one more on the owner's; NotFoundError otherwise.

        One statement (an upsert whose update only applies to the owner's row, returning that
        row: none when another user owns the thread), where :meth:`claim` at the start and
        :meth:`touch` at the end took SQLite's writer lock twice per turn. The turn's question
        rides in the same write.
        """
        now = time.time()
        rows = await self._execute(
            self._sql(
                f"INSERT INTO cadence_threads ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?) "
                "ON CONFLICT (thread_id) DO UPDATE SET updated_at = excluded.updated_at, "
                "turns = cadence_threads.turns + 1, question_id = excluded.question_id, "
                "question = excluded.question WHERE cadence_threads.user_id = excluded.user_id "
                f"RETURNING {_COLUMNS}"
            ),
            (thread_id, user_id, org_id, project_id, make_title(title), now, now, question_id, question),
            fetch=True,
        )
        if not rows:
            raise _not_found(thread_id)
        return ThreadRecord.from_row(rows[0])

    async def touch(self, user_id: str, thread_id: str, *, turn: bool = True) -> None:
        """Bump the activity time and (``turn``) the turn count."""
        await self._execute(
            self._sql(
                "UPDATE cadence_threads SET updated_at = ?, turns = turns + ? "
                "WHERE thread_id = ? AND user_id = ?"
            ),
            (time.time(), int(turn), thread_id, user_id),
        )

    async def settle_question(self, user_id: str, thread_id: str) -> None:
        """Forget the thread's recorded question (the owner's thread only)."""
        await self._execute(
            self._sql(
                "UPDATE cadence_threads SET question_id = NULL, question = NULL "
                "WHERE thread_id = ? AND user_id = ?"
            ),
            (thread_id, user_id),
        )

    async def list(
        self,
        user_id: str,
        *,
        limit: int = 50,
        offset: int = 0,
        org_id: str | None = None,
        project_id: str | None = None,
    ) -> list[ThreadRecord]:
        """The user's threads, most recently active first."""
        where = ["user_id = ?"]
        params: list[Any] = [user_id]
        if org_id is not None:
            where.append("org_id = ?")
            params.append(org_id)
        if project_id is not None:
            where.append("project_id = ?")
            params.append(project_id)
        sql = (
            f"SELECT {_COLUMNS} FROM cadence_threads WHERE {' AND '.join(where)} "
            "ORDER BY updated_at DESC, thread_id LIMIT ? OFFSET ?"
        )
        rows = await self._execute(self._sql(sql), (*params, int(limit), int(offset)), fetch=True)
        return [ThreadRecord.from_row(r) for r in rows]

    async def delete(self, user_id: str, thread_id: str) -> bool:
        """Remove the record if the user owns it."""
        found = await self._execute(
            self._sql("SELECT 1 FROM cadence_threads WHERE thread_id = ? AND user_id = ?"),
            (thread_id, user_id),
            fetch=True,
        )
        if not found:
            return False
        await self._execute(
            self._sql("DELETE FROM cadence_threads WHERE thread_id = ? AND user_id = ?"), (thread_id, user_id)
        )
        return True

    async def rename(self, user_id: str, thread_id: str, title: str) -> ThreadRecord | None:
        """Replace the title if the user owns the thread (activity time unchanged)."""
        await self._execute(
            self._sql("UPDATE cadence_threads SET title = ? WHERE thread_id = ? AND user_id = ?"),
            (make_title(title), thread_id, user_id),
        )
        row = await self.get(thread_id)
        return row if row is not None and row.user_id == user_id else None


class SqliteThreadStore(_SqlThreadStore):
    """Threads in a SQLite file via aiosqlite (its own worker thread; the event loop never blocks)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls, path: str | Path, *, synchronous: str = SQLITE_SYNCHRONOUS
    ) -> AsyncIterator[SqliteThreadStore]:
        """Open (and create) the store in the SQLite file at ``path`` (``synchronous``: connect_sqlite)."""
        async with connect_sqlite(path, synchronous=synchronous, isolation_level=None) as conn:
            store = cls(conn)
            await setup_sqlite(Path(path).expanduser(), store.setup)
            yield store

    async def setup(self) -> None:
        """WAL mode (readers and the checkpointer's writer coexist) and the table."""

        async def create() -> None:
            for stmt in ["PRAGMA journal_mode = WAL", *_schema("REAL")]:
                async with self._conn.execute(stmt):  # close each cursor: an open one holds a read lock
                    pass
            columns = await self._conn.execute_fetchall("PRAGMA table_info(cadence_threads)")
            for stmt in _migrations({row[1] for row in columns}):
                try:
                    async with self._conn.execute(stmt):
                        pass
                except sqlite3.OperationalError as exc:  # another process added it meanwhile
                    if "duplicate column" not in str(exc):
                        raise

        await retry_while_locked(create)

    async def _execute(self, sql: str, params: tuple[Any, ...] = (), *, fetch: bool = False) -> list[Any]:
        """One statement, its own transaction (autocommit): a write waits for the writer lock at its
        start (:mod:`cadence.persistence.sqlite_writer`, then SQLite's busy timeout) and holds it for
        this statement only, never while the event loop runs other work."""
        async with self._lock:
            if fetch:  # the statement and its rows in one call of the connection's thread
                return list(await self._conn.execute_fetchall(sql, params))
            async with self._conn.execute(sql, params):
                return []


class PostgresThreadStore(_SqlThreadStore):
    """Threads in PostgreSQL via a psycopg async connection pool (extra ``postgres``)."""

    placeholder = "%s"

    def __init__(self, pool: Any) -> None:
        self._pool = pool

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        url: str,
        *,
        check_idle_s: float = POSTGRES_CHECK_IDLE_S,
        max_size: int = companion_pool_size(POSTGRES_POOL_SIZE),
    ) -> AsyncIterator[PostgresThreadStore]:
        """Open a small pool to ``url`` (``max_size`` connections at most) and create the table."""
        async with postgres_pool(url, url, max_size=max_size, check_idle_s=check_idle_s) as pool:
            store = cls(pool)
            await store.setup()
            yield store

    async def setup(self) -> None:
        """Create the table and index (under the setup lock: concurrent first starts don't race)."""
        with postgres_storage_errors():
            async with self._pool.connection() as conn, setup_lock_on(conn):
                for stmt in _schema("DOUBLE PRECISION"):
                    await conn.execute(stmt)
                for stmt in _migrations():
                    await conn.execute(stmt)

    async def _execute(self, sql: str, params: tuple[Any, ...] = (), *, fetch: bool = False) -> list[Any]:
        """One statement on a pooled connection (committed when the connection returns to the pool);
        a full disk or a read-only server is a StorageError (:func:`postgres_storage_errors`)."""
        with postgres_storage_errors():
            async with self._pool.connection() as conn, conn.cursor() as cursor:
                await cursor.execute(sql, params)
                return list(await cursor.fetchall()) if fetch else []


@contextlib.asynccontextmanager
async def open_thread_store(
    url: str,
    *,
    sqlite_synchronous: str = SQLITE_SYNCHRONOUS,
    postgres_check_idle_s: float = POSTGRES_CHECK_IDLE_S,
    postgres_pool_size: int = POSTGRES_POOL_SIZE,
) -> AsyncIterator[ThreadStore]:
    """The thread store for a ``CADENCE_DATABASE_URL`` (same database as the checkpointer).

    On PostgreSQL its pool opens :func:`companion_pool_size` of ``postgres_pool_size`` connections at most.
    """
    kind, target = parse_database_url(url)
    if kind == "memory":
        yield MemoryThreadStore()
    elif kind == "sqlite":
        async with SqliteThreadStore.open(target, synchronous=sqlite_synchronous) as store:
            yield store
    else:
        size = companion_pool_size(postgres_pool_size)
        async with PostgresThreadStore.open(target, check_idle_s=postgres_check_idle_s, max_size=size) as pg:
            yield pg


def configured_thread_store(settings: Settings) -> contextlib.AbstractAsyncContextManager[ThreadStore]:
    """:func:`open_thread_store` for ``CADENCE_DATABASE_URL`` with the configured connection settings."""
    return open_thread_store(
        settings.resolved_database_url,
        sqlite_synchronous=settings.sqlite_synchronous,
        postgres_check_idle_s=settings.postgres_check_idle_s,
        postgres_pool_size=settings.postgres_pool_size,
    )


__all__ = [
    "MemoryThreadStore",
    "PostgresThreadStore",
    "SqliteThreadStore",
    "ThreadRecord",
    "ThreadStore",
    "configured_thread_store",
    "make_title",
    "open_thread_store",
]
