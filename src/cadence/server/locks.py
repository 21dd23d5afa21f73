"""Per-thread locks: two requests on one thread never interleave; different threads run freely.

A request waits up to ``CADENCE_THREAD_LOCK_TIMEOUT`` seconds for a busy thread, then
gets 409 ``thread_busy``. Locks live on the server's event loop (one process); entries
are dropped when nobody holds or waits for them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from cadence.errors import ConflictError


@dataclass
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class ThreadLease:
    """A held thread lock; :meth:`release` is idempotent."""

    def __init__(self, locks: ThreadLocks, key: str) -> None:
        self._locks = locks
        self.key = key
        self._released = False

    def release(self) -> None:
        """Release the lock (safe to call more than once)."""
        if not self._released:
            self._released = True
            self._locks._release(self.key)


class ThreadLocks:
    """A registry of ``asyncio.Lock`` objects keyed by thread id."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    def busy(self, key: str) -> bool:
        """Whether a request currently holds the thread."""
        entry = self._entries.get(key)
        return bool(entry and entry.lock.locked())

    async def acquire(self, key: str, timeout: float) -> ThreadLease:
        """Hold the thread, waiting up to ``timeout`` seconds; ConflictError (409) if still busy."""
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
            raise ConflictError(
                f"Thread {key!r} is busy with another request (waited {timeout:g} s); retry when it is done.",
                code="thread_busy",
            ) from None
        except BaseException:
            self._forget(key, entry)
            raise
        return ThreadLease(self, key)

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
