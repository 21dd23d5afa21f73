"""Locks held in the database, shared by every process that uses it.

Several server processes (``cadence serve --workers K``, or several machines behind a load
balancer) share one database. Two things must then hold across processes:

- **one turn per thread at a time**: two turns on one thread running in two processes would both
  start from the same checkpoint and the second to finish would silently drop the first one's
  messages; the server takes the thread's lock here after its in-process lock (the fast path);
- **background jobs run once, not K times**: a job (checkpoint retention; any periodic job) runs
  in the one process that holds its *leader lock* (:class:`LeaderJob`).

Backends (:func:`open_database_locks` picks one from ``CADENCE_DATABASE_URL``):

- PostgreSQL: session-level advisory locks (``pg_try_advisory_lock``) on one dedicated connection
  per process (the *lock session*); the server frees them when the session ends, so a crashed
  process never leaves a lock behind;
- SQLite: POSIX byte-range locks (``fcntl``) on a ``<database>.locks`` file beside the database,
  one byte per lock name: the same mechanism SQLite uses for its own file locks, and likewise
  freed by the kernel when a process dies; one machine only, like SQLite itself;
- memory: one process by definition, so nothing to share (:class:`LocalLocks`).

Waiting polls (2 ms doubling to 50 ms) instead of blocking in the database: a PostgreSQL session
blocked in a statement would hold up every other lock operation of the process (and the
checkpointer's ``CREATE INDEX CONCURRENTLY`` migrations); waiters of different processes are
therefore not served in arrival order (waiters of one process are: the in-process lock queues them).
Names are hashed to 64 bits; two names sharing a hash only serialize each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from cadence.persistence.databases import connect_postgres, parse_database_url

logger = logging.getLogger(__name__)

POLL_MIN_S = 0.002
POLL_MAX_S = 0.05
_FILE_OFFSET_SPACE = 2**62


def lock_key(name: str) -> int:
    """The signed 64-bit key of a lock name (PostgreSQL advisory lock key, lock-file offset)."""
    digest = hashlib.blake2b(f"cadence:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class DatabaseLease:
    """A held database lock; :meth:`release` is idempotent."""

    def __init__(self, owner: DatabaseLocks, name: str, token: Any = None) -> None:
        self._owner = owner
        self.name = name
        self._token = token
        self._released = False

    @property
    def released(self) -> bool:
        """Whether :meth:`release` has run."""
        return self._released

    @property
    def held(self) -> bool:
        """Whether the lock is still held: not released, and (PostgreSQL) its session not lost since."""
        return not self._released and self._owner._valid(self._token)

    async def release(self) -> None:
        """Release the lock (safe to call more than once)."""
        if not self._released:
            self._released = True
            await self._owner._release(self.name, self._token)


@runtime_checkable
class DatabaseLocks(Protocol):
    """Named locks shared by every process on one database."""

    shared: bool
    """Whether the locks reach other processes (False for :class:`LocalLocks`)."""

    async def try_acquire(self, name: str) -> DatabaseLease | None:
        """Take the lock now, or None if another holder has it."""

    async def acquire(self, name: str, timeout: float) -> DatabaseLease | None:
        """Take the lock, waiting up to ``timeout`` seconds; None if it stayed taken."""

    async def _release(self, name: str, token: Any) -> None: ...

    def _valid(self, token: Any) -> bool: ...

    async def ping(self) -> None:
        """Check the locks' connection (PostgreSQL: reconnects a lost lock session, ending its leases)."""


class _PollingLocks:
    """``acquire`` by polling ``try_acquire``; an in-process record of held names.

    Held names are refused to a second taker in the same process (advisory and ``fcntl`` locks are
    re-entrant for their holder, so without the record two coroutines of one process would both win).
    """

    shared = True

    def __init__(self) -> None:
        self._held: set[str] = set()

    async def _try(self, name: str) -> Any:
        raise NotImplementedError

    async def try_acquire(self, name: str) -> DatabaseLease | None:
        """Take the lock now, or None if another holder (in this process or another) has it."""
        if name in self._held:
            return None
        self._held.add(name)
        attempt = asyncio.ensure_future(self._try(name))
        try:
            token = await asyncio.shield(attempt)
        except asyncio.CancelledError:
            # the caller gave up: let the attempt finish and undo a success (a lock taken for nobody
            # would stay held by this process's session until it ends)
            try:
                won = await attempt
                if won is not None:
                    await self._unlock(name, won)
            finally:
                self._held.discard(name)
            raise
        except BaseException:
            self._held.discard(name)
            raise
        if token is None:
            self._held.discard(name)
            return None
        return DatabaseLease(self, name, token)  # type: ignore[arg-type]

    async def acquire(self, name: str, timeout: float) -> DatabaseLease | None:
        """Take the lock, polling until ``timeout`` seconds have passed; None if it stayed taken."""
        deadline = time.monotonic() + max(0.0, timeout)
        delay = POLL_MIN_S
        while True:
            lease = await self.try_acquire(name)
            if lease is not None:
                return lease
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            await asyncio.sleep(min(delay, left))
            delay = min(POLL_MAX_S, delay * 2)

    async def _release(self, name: str, token: Any) -> None:
        try:
            await self._unlock(name, token)
        finally:
            self._held.discard(name)

    async def _unlock(self, name: str, token: Any) -> None:
        raise NotImplementedError

    def _valid(self, token: Any) -> bool:
        return True

    async def ping(self) -> None:
        """Nothing to check: the locks live in this process or in the kernel."""


class LocalLocks(_PollingLocks):
    """Locks of one process (``memory://``): the in-process record is the whole lock."""

    shared = False

    async def _try(self, name: str) -> Any:
        return True

    async def _unlock(self, name: str, token: Any) -> None:
        return None


class FileLocks(_PollingLocks):
    """``fcntl`` byte-range locks on one file (SQLite's databases: one machine, several processes).

    One open descriptor per file and process (POSIX drops all of a process's locks on a file when
    any descriptor of it closes), shared by every :class:`FileLocks` of the process on that file, as
    is the record of held names.
    """

    _files: ClassVar[dict[str, tuple[int, set[str]]]] = {}

    def __init__(self, path: str | Path) -> None:
        import fcntl  # noqa: F401  (POSIX only; ImportError on Windows, handled by open_database_locks)

        super().__init__()
        self.path = Path(path).expanduser().resolve()
        key = str(self.path)
        entry = self._files.get(key)
        if entry is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(key, os.O_RDWR | os.O_CREAT, 0o600)
            entry = (fd, set())
            self._files[key] = entry
        self._fd, self._held = entry

    @staticmethod
    def _offset(name: str) -> int:
        return lock_key(name) % _FILE_OFFSET_SPACE

    async def _try(self, name: str) -> Any:
        import fcntl

        try:
            fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, self._offset(name))
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EAGAIN):
                return None
            raise
        return True

    async def _unlock(self, name: str, token: Any) -> None:
        import fcntl

        fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, self._offset(name))


class PostgresLocks(_PollingLocks):
    """Session-level advisory locks on one connection of this process (the lock session).

    If the session is lost (database restart, network), PostgreSQL has already released its locks;
    the next operation reconnects and the leases taken on the old session release as no-ops (a
    warning is logged: for that moment, another process may have taken one of those threads).

    The session runs one statement at a time, so lock operations are batched: the tries and
    releases asked for while a statement runs go together in the next one (:data:`BATCH_SQL`). A
    burst of turns starting or ending at once costs a few round trips instead of one per turn, and
    a release never waits behind a queue of single statements.
    """

    BATCH_SQL = (
        "SELECT ARRAY(SELECT pg_advisory_unlock(u.k) FROM unnest(%s::bigint[]) AS u(k)),"
        " ARRAY(SELECT pg_try_advisory_lock(t.k) FROM unnest(%s::bigint[]) WITH ORDINALITY AS t(k, i)"
        " ORDER BY t.i)"
    )
    """One round trip for a batch: release the first array's keys, then try each of the second's."""

    def __init__(self, url: str, target: str) -> None:
        super().__init__()
        self._url = url
        self._target = target
        self._conn: Any = None
        self._session = 0
        self._conn_lock = asyncio.Lock()
        self._queue: list[tuple[bool, int, asyncio.Future[int | None] | None]] = []
        """Operations waiting for the next batch: (is a try, key, the caller's future or None)."""
        self._flusher: asyncio.Task[None] | None = None
        self.round_trips = 0
        """Statements sent on the lock session (batches and pings), for tests and benchmarks."""

    async def _connection(self) -> Any:
        if self._conn is None or self._conn.closed:
            if self._conn is not None:
                logger.warning("lost the PostgreSQL lock session; its locks were released; reconnecting")
                self._session += 1
            self._conn = await connect_postgres(self._url, self._target)
        return self._conn

    async def _execute(self, sql: str, params: tuple[Any, ...], *, retry: bool = True) -> Any:
        """Run ``sql`` on the lock session (reconnecting once if it was lost); its first row."""
        import psycopg

        async with self._conn_lock:
            for attempt in (1, 2):
                conn = await self._connection()
                try:
                    self.round_trips += 1
                    cursor = await conn.execute(sql, params)
                    return await cursor.fetchone()
                except psycopg.OperationalError:
                    with contextlib.suppress(Exception):
                        await conn.close()  # the next statement opens a new session
                    if attempt == 2 or not retry:
                        raise
        return None  # pragma: no cover

    async def _submit(self, is_try: bool, key: int) -> int | None:
        """Queue one operation for the next batch and wait for it: the session it ran on (a try that
        lost: None)."""
        future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._queue.append((is_try, key, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="cadence-db-locks")
        return await future

    async def _flush(self) -> None:
        """Send the queued operations, a batch at a time, until none is left."""
        while self._queue:
            batch, self._queue = self._queue, []
            unlocks = [key for is_try, key, _ in batch if not is_try]
            tries = [(key, future) for is_try, key, future in batch if is_try]
            try:
                row = await self._run_batch(unlocks, [key for key, _ in tries])
                session = self._session  # the session the batch ran on (read before anything else runs)
            except BaseException as exc:
                for _, _, future in batch:
                    if future is not None and not future.done():
                        if isinstance(exc, asyncio.CancelledError):
                            future.cancel()
                        else:
                            future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for (key, future), got in zip(tries, row, strict=True):
                if future is not None and not future.done():
                    future.set_result(session if got else None)
                elif got:  # its caller is gone: a lock taken for nobody is given back
                    self._queue.append((False, key, None))
            for is_try, _, future in batch:
                if not is_try and future is not None and not future.done():
                    future.set_result(session)

    async def _run_batch(self, unlocks: list[int], tries: list[int]) -> list[bool]:
        """One statement releasing ``unlocks`` and trying ``tries``; whether each try won.

        If the session was lost, its locks went with it: the releases are done, and the tries are
        sent again on the new session.
        """
        import psycopg

        try:
            row = await self._execute(self.BATCH_SQL, (unlocks, tries), retry=False)
        except psycopg.OperationalError:
            if not tries:
                return []
            row = await self._execute(self.BATCH_SQL, ([], tries))
        return list(row[1]) if row else [False] * len(tries)

    async def _try(self, name: str) -> Any:
        return await self._submit(True, lock_key(name))

    def _valid(self, token: Any) -> bool:
        return token == self._session and self._conn is not None and not self._conn.closed

    async def ping(self) -> None:
        """A round trip on the lock session; a lost session is replaced (its leases are no longer held)."""
        await self._execute("SELECT %s::bigint", (0,))

    async def _unlock(self, name: str, token: Any) -> None:
        if token != self._session:
            return  # taken on a lost session: already released by the server
        await self._submit(False, lock_key(name))

    async def aclose(self) -> None:
        """Close the lock session (PostgreSQL releases every lock it holds)."""
        if self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(BaseException):
                await self._flusher
        async with self._conn_lock:
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    await self._conn.close()
                self._conn = None


def lock_file_for(database: str | Path) -> Path:
    """The lock file beside a SQLite database."""
    path = Path(database).expanduser()
    return path.with_name(path.name + ".locks")


@contextlib.asynccontextmanager
async def open_database_locks(url: str) -> AsyncIterator[DatabaseLocks]:
    """The database locks for a ``CADENCE_DATABASE_URL`` (closed on exit)."""
    kind, target = parse_database_url(url)
    if kind == "memory":
        yield LocalLocks()
    elif kind == "sqlite":
        try:
            locks: DatabaseLocks = FileLocks(lock_file_for(target))
        except ImportError:  # no fcntl (Windows): one process per database
            logger.warning("no fcntl on this platform: thread locks do not reach other processes")
            locks = LocalLocks()
        yield locks
    else:
        pg = PostgresLocks(url, target)
        try:
            await pg.ping()  # connect now: an unreachable server fails at start
            yield pg
        finally:
            await pg.aclose()


# -- leader jobs ----------------------------------------------------------------------------
class LeaderJob:
    """Run ``job`` every ``interval_s`` seconds in exactly one of the processes sharing a database.

    Every process starts one (``async with LeaderJob(locks, "retention", job, 600):``); each tries
    to take the lock ``leader:<name>`` and the one that gets it keeps it, running the job, until it
    stops (its lock is released) or dies (the database or the kernel releases it); the others retry
    every ``retry_s`` seconds (default: the interval, at most 30 s) and one of them takes over.
    A failing job is logged and tried again at the next interval; it never stops the loop.

    ``run_first`` runs the job as soon as the lock is taken (else one interval later).
    """

    def __init__(
        self,
        locks: DatabaseLocks,
        name: str,
        job: Callable[[], Awaitable[Any]],
        interval_s: float,
        *,
        retry_s: float | None = None,
        run_first: bool = False,
    ) -> None:
        if interval_s <= 0:
            raise ValueError("LeaderJob needs a positive interval")
        self.locks = locks
        self.name = name
        self.job = job
        self.interval_s = interval_s
        self.retry_s = retry_s if retry_s is not None else min(interval_s, 30.0)
        self.run_first = run_first
        self.runs = 0
        self._lease: DatabaseLease | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def is_leader(self) -> bool:
        """Whether this process holds the job's lock now (a lost PostgreSQL lock session ends it)."""
        return self._lease is not None and self._lease.held

    async def _loop(self) -> None:
        try:
            while True:
                try:
                    if not await self._lead():
                        await asyncio.sleep(self.retry_s)
                        continue
                    await self.job()
                    self.runs += 1
                except asyncio.CancelledError:
                    raise
                except Exception:  # the job, or the database under the locks: log, carry on
                    logger.exception("background job %r failed; retrying in %g s", self.name, self.interval_s)
                await asyncio.sleep(self.interval_s)
        finally:
            if self._lease is not None:
                lease, self._lease = self._lease, None
                with contextlib.suppress(Exception):
                    await asyncio.shield(lease.release())

    async def _lead(self) -> bool:
        """Whether this process leads now: keep a held lock (checked on the database), else try to take it."""
        if self._lease is not None:
            await self.locks.ping()
            if self.is_leader:
                return True
            lease, self._lease = self._lease, None  # lost with its session: give it up, compete again
            with contextlib.suppress(Exception):
                await lease.release()
        self._lease = await self.locks.try_acquire(f"leader:{self.name}")
        if self._lease is None:
            return False
        logger.info("leading the background job %r", self.name)
        if not self.run_first:
            await asyncio.sleep(self.interval_s)
        return True

    def start(self) -> None:
        """Start the loop as a task of the running event loop."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name=f"cadence-leader-{self.name}")

    async def stop(self) -> None:
        """Stop the loop and give up the lock (another process takes over)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def __aenter__(self) -> LeaderJob:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


__all__ = [
    "DatabaseLease",
    "DatabaseLocks",
    "FileLocks",
    "LeaderJob",
    "LocalLocks",
    "PostgresLocks",
    "lock_file_for",
    "lock_key",
    "open_database_locks",
]
