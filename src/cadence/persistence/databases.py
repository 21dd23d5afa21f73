"""Database plumbing shared by the checkpointer and the thread store.

URL parsing, SQLite connections that wait for the writer lock, and PostgreSQL
pools and the advisory lock that serializes schema set-up across processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cadence.backoff import exponential_delay, retry_async
from cadence.errors import ConfigurationError, StorageError
from cadence.persistence.sqlite_writer import WRITE_WAIT_S, WriterLockedConnection, storage_error

SQLITE_BUSY_MS = int(WRITE_WAIT_S * 1000)
"""SQLite's busy timeout: as long as a write waits for Cadence's writer lock."""
SQLITE_SYNCHRONOUS = "normal"
"""``PRAGMA synchronous`` of Cadence's SQLite connections by default (CADENCE_SQLITE_SYNCHRONOUS)."""
POSTGRES_CHECK_IDLE_S = 5.0
"""A pooled PostgreSQL connection idle longer than this is checked with a round trip before use
(CADENCE_POSTGRES_CHECK_IDLE_S)."""
POSTGRES_POOL_SIZE = 10
"""Most connections of a process's checkpointer pool (CADENCE_POSTGRES_POOL_SIZE); the thread store's
and the memory store's pools open at most half as many (:func:`companion_pool_size`)."""


def companion_pool_size(pool_size: int) -> int:
    """The thread store's and the memory store's pool size for a checkpointer pool of ``pool_size``.

    Their statements are fewer and shorter than the checkpointer's (one or two per turn each).
    """
    return max(1, pool_size // 2)


def connections_per_process(pool_size: int, *, memory: bool) -> int:
    """The most PostgreSQL connections one Cadence process opens: its pools and its lock session.

    The checkpointer's pool (``pool_size``), the thread store's (:func:`companion_pool_size`), the
    memory store's when long-term ``memory`` is on (the same), and the lock session (1).
    """
    return pool_size + companion_pool_size(pool_size) * (2 if memory else 1) + 1


async def postgres_connection_limit(url: str, target: str) -> int:
    """How many connections the server at ``target`` accepts from ordinary users.

    ``max_connections`` less the ``superuser_reserved_connections``; ConfigurationError when
    unreachable (:func:`connect_postgres`).
    """
    conn = await connect_postgres(url, target)
    try:
        cur = await conn.execute(
            "SELECT current_setting('max_connections')::int"
            " - current_setting('superuser_reserved_connections')::int"
        )
        row = await cur.fetchone()
        return int(row[0])
    finally:
        await conn.close()


# Any constant bigint: the PostgreSQL advisory lock that serializes schema setup across processes.
SETUP_LOCK_KEY = 0x43616465_6E636501
POSTGRES_EXTRA_HINT = 'PostgreSQL needs the postgres extra: pip install "cadence-agents[postgres]"'


def parse_database_url(url: str) -> tuple[str, str]:
    """``(kind, target)`` with kind ``sqlite``, ``postgres`` or ``memory``."""
    text = url.strip()
    if text in {"memory", "memory://", ":memory:"}:
        return "memory", ""
    if text.startswith("sqlite://"):
        target = text[len("sqlite:///") :] if text.startswith("sqlite:///") else text[len("sqlite://") :]
        if target == ":memory:":  # SQLite's own name for a database in memory: everything in memory
            return "memory", ""
        if not target.strip():
            raise ConfigurationError(
                f"CADENCE_DATABASE_URL {url!r} names no file; use sqlite:///path/to/cadence.db or memory://"
            )
        return "sqlite", target
    if text.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        return "postgres", text.replace("postgresql+psycopg://", "postgresql://", 1)
    raise ConfigurationError(
        f"Unsupported CADENCE_DATABASE_URL {url!r}; "
        "use sqlite:///path.db, postgresql://user:pass@host/db or memory://"
    )


# -- SQLite ---------------------------------------------------------------------------------------
SQLITE_SETTINGS_HINT = "check CADENCE_DATA_DIR (or CADENCE_DATABASE_URL)"


def sqlite_problem(file: str | Path, exc: BaseException) -> ConfigurationError:
    """A one-line ConfigurationError for a SQLite file that cannot be created, opened or written
    (a full disk or a read-only file: :func:`storage_error`'s message, which says what to do)."""
    problem = storage_error(exc, str(file)) if isinstance(exc, sqlite3.Error) else None
    if problem is not None and problem.code != "storage_error":  # full, read-only, locked: what to do
        return ConfigurationError(problem.message)
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return ConfigurationError(f"Cannot use the SQLite database {file}: {reason}; {SQLITE_SETTINGS_HINT}.")


def _prepare_folder(file: Path) -> None:
    folder = file.parent
    try:  # a name too long, a folder that may not be searched: OSError
        blocker = next((p for p in [folder, *folder.parents] if p.exists() and not p.is_dir()), None)
        is_folder = file.is_dir()
    except OSError as exc:
        raise sqlite_problem(file, exc) from None
    if blocker is not None:
        raise ConfigurationError(
            f"Cannot use the SQLite database {file}: {blocker} is a file, not a folder; "
            f"{SQLITE_SETTINGS_HINT}."
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot create the folder {folder} for the SQLite database: {exc.strerror or exc}; "
            f"{SQLITE_SETTINGS_HINT}."
        ) from None
    if is_folder:
        raise ConfigurationError(
            f"Cannot use the SQLite database {file}: it is a folder, not a file; {SQLITE_SETTINGS_HINT}."
        )


@contextlib.asynccontextmanager
async def connect_sqlite(
    path: str | Path, *, synchronous: str = SQLITE_SYNCHRONOUS, **kwargs: Any
) -> AsyncIterator[Any]:
    """An aiosqlite connection to ``path`` (parent folders created) that waits for the writer lock.

    ``synchronous`` is SQLite's ``PRAGMA synchronous``: ``normal`` (with WAL, a commit survives
    a crash of the process and is flushed to disk at checkpoints; the last commits can be lost
    to a power cut or an OS crash) or ``full`` (every commit flushed to disk before it returns).

    A path that cannot hold a database (a file where a folder should be, a read-only or
    missing folder) is a one-line :class:`ConfigurationError`, raised before anything runs.
    """
    import aiosqlite

    if synchronous.lower() not in ("normal", "full"):
        raise ConfigurationError(
            f"Unknown SQLite synchronous mode {synchronous!r}: "
            "use normal or full (CADENCE_SQLITE_SYNCHRONOUS)."
        )
    file = Path(path).expanduser()
    _prepare_folder(file)
    try:
        conn = await aiosqlite.connect(
            str(file), timeout=SQLITE_BUSY_MS / 1000, factory=WriterLockedConnection, **kwargs
        )
    except (sqlite3.Error, OSError) as exc:
        raise sqlite_problem(file, exc) from None
    try:
        try:
            async with conn.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_MS}"):
                pass
            async with conn.execute(f"PRAGMA synchronous = {synchronous.upper()}"):
                pass
        except sqlite3.Error as exc:
            raise sqlite_problem(file, exc) from None
        yield conn
    finally:
        await conn.close()


async def setup_sqlite(file: str | Path, action: Callable[[], Awaitable[None]]) -> None:
    """Run a schema set-up (:func:`retry_while_locked`); an unwritable file is a ConfigurationError."""
    try:
        await retry_while_locked(action)
    except sqlite3.Error as exc:
        raise sqlite_problem(file, exc) from None


async def retry_while_locked(action: Callable[[], Awaitable[None]], *, attempts: int = 8) -> None:
    """Run a SQLite schema set-up, retrying "database is locked".

    SQLite answers SQLITE_BUSY at once, without waiting for the busy timeout, when two
    connections race to switch a fresh file to WAL or to upgrade a read lock; several
    processes starting on a new database (workers, replicas) hit exactly that.
    """

    async def attempt_action(_attempt: int) -> None:
        await action()

    await retry_async(
        attempt_action,
        retry_on=lambda exc: isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc),
        max_attempts=attempts,
        delay=exponential_delay(0.02, jitter=0.02),
    )


# -- PostgreSQL -----------------------------------------------------------------------------------
def postgres_where(url: str) -> str:
    """``host:port/database`` of a PostgreSQL URL, without its user, password or query (for messages)."""
    try:
        parts = urlsplit(url)
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is not a number
        parts, port = urlsplit(url), ""
    host = parts.hostname or "localhost"
    return f"{host}{port}{parts.path or ''}"


def _unreachable(url: str, exc: BaseException) -> ConfigurationError:
    reason = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
    return ConfigurationError(
        f"Cannot connect to PostgreSQL at {postgres_where(url)} ({reason}); check CADENCE_DATABASE_URL "
        "(host, port, user, password and database name) and that the server is running and accepts "
        "connections from here."
    )


async def connect_postgres(url: str, target: str) -> Any:
    """An autocommit psycopg connection to ``target``; ConfigurationError (quickly) if unreachable,
    if it refuses the login or if the URL is malformed."""
    try:
        import psycopg
    except ImportError as exc:
        raise ConfigurationError(POSTGRES_EXTRA_HINT) from exc
    try:
        return await psycopg.AsyncConnection.connect(target, autocommit=True, connect_timeout=10)
    except (psycopg.OperationalError, psycopg.ProgrammingError) as exc:  # ProgrammingError: a bad URL
        raise _unreachable(url, exc) from exc


_PG_DISK_FULL = "53100"
_PG_READ_ONLY = "25006"


def _connection_lost(exc: BaseException, state: str | None) -> bool:
    """Whether a psycopg error says the server could not be reached (no connection from the pool in
    time, a connection refused or cut off), not that a statement failed."""
    try:
        from psycopg import OperationalError
        from psycopg_pool import PoolTimeout
    except ImportError:  # pragma: no cover - without the postgres extra nothing raises these
        return False
    if isinstance(exc, PoolTimeout):
        return True
    lost = state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")
    return isinstance(exc, OperationalError) and lost


def postgres_storage_error(exc: BaseException) -> StorageError | None:
    """``exc`` (a psycopg error) as a :class:`StorageError` saying what to do when the server is out of
    disk space, refuses writes (a standby, a read-only database) or cannot be reached; None for any
    other error."""
    state = getattr(exc, "sqlstate", None)
    reason = " ".join(str(exc).split()).rstrip(".")
    where = "(CADENCE_DATABASE_URL)"  # not its host: API clients may see the message
    if _connection_lost(exc, state):
        return StorageError(
            f"PostgreSQL {where} cannot be reached ({reason}): check that the database server is "
            "running and accepts connections from here, then try again.",
            code="storage_unavailable",
        )
    if state == _PG_DISK_FULL:
        return StorageError(
            f"PostgreSQL {where} is out of disk space ({reason}): free disk space on the database "
            "server and try again; the failed write was not saved, everything saved before is intact.",
            code="storage_full",
        )
    if state == _PG_READ_ONLY:
        return StorageError(
            f"PostgreSQL {where} refuses writes ({reason}): point CADENCE_DATABASE_URL at the primary "
            "server and a database that is not read-only (default_transaction_read_only), then try "
            "again; the failed write was not saved.",
            code="storage_read_only",
        )
    return None


@contextlib.contextmanager
def postgres_storage_errors() -> Iterator[None]:
    """Raise a :func:`postgres_storage_error` for a full disk, a read-only or an unreachable server met
    in the block."""
    try:
        yield
    except StorageError:
        raise
    except Exception as exc:
        problem = postgres_storage_error(exc)
        if problem is None:
            raise
        raise problem from exc


@contextlib.asynccontextmanager
async def setup_lock_on(conn: Any, timeout_s: float = 120.0) -> AsyncIterator[None]:
    """Hold the setup advisory lock on ``conn`` (autocommit), so servers starting together on a fresh
    database don't race (``CREATE ... IF NOT EXISTS`` is not atomic: the losers fail with
    UniqueViolation/DuplicateObject).

    Polls ``pg_try_advisory_lock`` instead of blocking in ``pg_advisory_lock``: a session blocked in a
    statement holds a snapshot, and the checkpointer's ``CREATE INDEX CONCURRENTLY`` migrations wait for
    every such snapshot, so the lock holder and the waiters would deadlock undetected.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (SETUP_LOCK_KEY,))
        row = await cursor.fetchone()
        if row and (row[0] if isinstance(row, tuple) else next(iter(row.values()))):
            break
        if time.monotonic() > deadline:
            raise ConfigurationError(f"Timed out after {timeout_s:.0f}s waiting for another server's setup")
        await asyncio.sleep(0.05)
    try:
        yield
    finally:
        await conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_KEY,))


@contextlib.asynccontextmanager
async def postgres_setup_lock(url: str, target: str) -> AsyncIterator[None]:
    """:func:`setup_lock_on` a connection of its own (ConfigurationError if the server is unreachable)."""
    async with await connect_postgres(url, target) as conn, setup_lock_on(conn):
        yield


class IdleCheck:
    """The pool's checkout check: a round trip only when a connection may have died.

    psycopg_pool's own ``check_connection`` sends an empty query at every checkout, which on a
    busy server doubles the round trips (and the database's work) of every statement. Here a
    connection is first checked for free: refused if closed, broken or left in a transaction;
    given the round trip if the server has sent it anything while it sat in the pool (a server
    that terminates a connection, at a restart or by ``pg_terminate_backend``, says so and closes
    the socket, which makes it readable) or if it has been idle ``idle_s`` seconds or more (a
    connection lost without a word). ``idle_s = 0``: the round trip at every checkout.
    """

    def __init__(self, idle_s: float) -> None:
        self.idle_s = idle_s
        self._returned: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    async def returned(self, conn: Any) -> None:
        """The pool's ``reset`` callback: note when ``conn`` came back."""
        self._returned[conn] = time.monotonic()

    async def check(self, conn: Any) -> None:
        """The pool's ``check`` callback; raises when ``conn`` must not be handed out."""
        from psycopg import OperationalError
        from psycopg.pq import TransactionStatus
        from psycopg_pool import AsyncConnectionPool

        if conn.closed or conn.broken or conn.info.transaction_status != TransactionStatus.IDLE:
            raise OperationalError("the pooled connection is not usable")
        returned = self._returned.get(conn)
        if returned is None or time.monotonic() - returned >= self.idle_s or _readable(conn.fileno()):
            await AsyncConnectionPool.check_connection(conn)


def _readable(fd: int) -> bool:
    """Whether socket ``fd`` has input waiting (or was closed by the peer); never blocks."""
    if hasattr(select, "poll"):  # any fd number (select.select stops at FD_SETSIZE)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])


@contextlib.asynccontextmanager
async def postgres_pool(
    url: str,
    target: str,
    *,
    max_size: int,
    check_idle_s: float = POSTGRES_CHECK_IDLE_S,
    **conn_kwargs: Any,
) -> AsyncIterator[Any]:
    """An open psycopg pool to ``target`` whose connections are checked on checkout.

    A pool (not one connection): concurrent work doesn't queue on a single connection, and a
    connection dropped by a database restart or an idle timeout is replaced (:class:`IdleCheck`
    with ``check_idle_s``). Fails fast with ConfigurationError when the server is unreachable or
    the ``postgres`` extra is missing.
    """
    try:
        from psycopg_pool import AsyncConnectionPool
    except ImportError as exc:
        raise ConfigurationError(POSTGRES_EXTRA_HINT) from exc
    await (await connect_postgres(url, target)).close()
    idle = IdleCheck(check_idle_s)
    pool = AsyncConnectionPool(
        target,
        min_size=1,
        max_size=max_size,
        kwargs={"autocommit": True, **conn_kwargs},
        check=idle.check,
        reset=idle.returned,
        open=False,
    )
    try:
        await pool.open(wait=True, timeout=30)
    except Exception as exc:
        await pool.close()
        raise _unreachable(url, exc) from exc
    try:
        yield pool
    finally:
        await pool.close()
