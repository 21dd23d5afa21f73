"""Per-thread locks: two requests on one thread never interleave; different threads run freely.

A request waits up to ``CADENCE_THREAD_LOCK_TIMEOUT`` seconds for a busy thread, then
gets 409 ``thread_busy``. Two levels:

- the in-process lock (an ``asyncio.Lock`` per thread on the server's event loop): the fast
  path, queues this process's requests in arrival order; entries are dropped when nobody
  holds or waits for them;
- the database lock (:mod:`cadence.persistence.locks`), taken after the in-process one when
  the database is shared by other processes (``--workers``, several machines): released
  before the in-process lock, so the next local waiter finds it free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from cadence.errors import ConflictError
from cadence.persistence.locks import DatabaseLease, DatabaseLocks

logger = logging.getLogger(__name__)


@dataclass
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class ThreadLease:
    """A held thread lock; :meth:`release` and :meth:`arelease` are idempotent."""

    def __init__(self, locks: ThreadLocks, key: str, db_lease: DatabaseLease | None = None) -> None:
        self._locks = locks
        self.key = key
        self._db_lease = db_lease
        self._released = False

    async def arelease(self) -> None:
        """Release the database lock (if any), then the in-process lock (safe to call more than once)."""
        if self._released:
            return
        self._released = True
        try:
            if self._db_lease is not None:
                await asyncio.shield(self._db_lease.release())
        except Exception:
            logger.warning("could not release the database lock of thread %s", self.key, exc_info=True)
        finally:
            self._locks._release(self.key)

    def release(self) -> None:
        """Release without awaiting: at once without a database lock, else in a task (same order)."""
        if self._released:
            return
        if self._db_lease is None:
            self._released = True
            self._locks._release(self.key)
            return
        task = asyncio.get_running_loop().create_task(self.arelease())
        self._locks._pending.add(task)
        task.add_done_callback(self._locks._pending.discard)


class ThreadLocks:
    """A registry of ``asyncio.Lock`` objects keyed by thread id, backed by ``db`` across processes."""

    def __init__(self, db: DatabaseLocks | None = None) -> None:
        self._entries: dict[str, _Entry] = {}
        self.db = db if db is not None and db.shared else None
        self._pending: set[asyncio.Task[None]] = set()

    def busy(self, key: str) -> bool:
        """Whether a request currently holds the thread."""
        entry = self._entries.get(key)
        return bool(entry and entry.lock.locked())

    async def held_elsewhere(self, key: str) -> bool:
        """Whether another process (a worker sharing the database) holds the thread now: its database
        lock is taken (checked by taking it, at once released). False without a shared database."""
        if self.db is None:
            return False
        lease = await self.db.try_acquire(f"thread:{key}")
        if lease is None:
            return True
        await asyncio.shield(lease.release())
        return False

    async def acquire(self, key: str, timeout: float) -> ThreadLease:
        """Hold the thread, waiting up to ``timeout`` seconds in all; ConflictError (409) if still busy."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, timeout)
        entry = self._entries.setdefault(key, _Entry())
        entry.users += 1
        try:
            if timeout <= 0:
                if entry.lock.locked():
                    raise TimeoutError
                await entry.lock.acquire()
            else:
                async with asyncio.timeout(timeout):
                    await entry.lock.acquire()
        except TimeoutError:
            self._forget(key, entry)
            raise self._busy(key, timeout) from None
        except BaseException:
            self._forget(key, entry)
            raise
        if self.db is None:
            return ThreadLease(self, key)
        try:
            db_lease = await self.db.acquire(f"thread:{key}", max(0.0, deadline - loop.time()))
        except BaseException:
            self._release(key)
            raise
        if db_lease is None:
            self._release(key)
            raise self._busy(key, timeout)
        return ThreadLease(self, key, db_lease)

    @staticmethod
    def _busy(key: str, timeout: float) -> ConflictError:
        return ConflictError(
            f"Thread {key!r} is busy with another request (waited {timeout:g} s); retry when it is done.",
            code="thread_busy",
        )

    async def wait_released(self) -> None:
        """Wait for database-lock releases still in flight (shutdown)."""
        if self._pending:
            with contextlib.suppress(Exception):
                await asyncio.gather(*self._pending, return_exceptions=True)

    def _forget(self, key: str, entry: _Entry) -> None:
        entry.users -= 1
        if entry.users <= 0 and self._entries.get(key) is entry:
            del self._entries[key]

    def _release(self, key: str) -> None:
        entry = self._entries.get(key)
        if entry is None:
            return
        entry.lock.release()
        self._forget(key, entry)

    def __len__(self) -> int:
        return len(self._entries)
