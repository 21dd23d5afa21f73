"""The SQLite writer lock, handed over at once between Cadence's connections and processes.

SQLite lets one connection write at a time. A connection that finds the writer lock taken sleeps
in SQLite's busy handler — 1, 2, 5, 10, 15, 20, 25 ms and on — and tries again; meanwhile the
connection's one thread, and every statement queued on it, waits too, even after the lock was
freed. With several workers on one file (``cadence serve --workers K``), or the thread store and
the checkpointer of one process on the same file, those sleeps cost more than the writes.

:class:`WriterLockedConnection` (the ``sqlite3`` connection class of every Cadence connection)
takes a lock of its own before a transaction's first write and frees it when the transaction
ends: a thread lock among the process's connections to the file (its waiters wake at once), then
an ``flock`` on ``<file>.writer`` among processes (polled every 0.1–1 ms). Writers then meet there
instead of in the busy handler. SQLite's own locking stays the authority: a writer outside
Cadence (the ``sqlite3`` shell) is still safe, it just waits as before. Without ``fcntl``
(Windows) only the thread lock is used.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cadence.errors import StorageError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

WRITE_WAIT_S = 30.0
"""How long a write waits for the lock before failing as SQLite does ("database is locked")."""
_POLL_FIRST_S = 0.0001
_POLL_MAX_S = 0.001
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER")
_LOCKING_BEGIN = ("BEGIN IMMEDIATE", "BEGIN EXCLUSIVE")
_SQLITE_BUSY, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT = 5, 8, 10, 11
_SQLITE_FULL, _SQLITE_CANTOPEN = 13, 14


class SqliteStorageError(sqlite3.OperationalError, StorageError):
    """A SQLite write (or read) the file's disk or permissions refused, as a :class:`StorageError`.

    Still a ``sqlite3.OperationalError`` (code that handles SQLite's errors sees one), and a
    :class:`~cadence.errors.CadenceError` whose one-line message says what to do: a turn fails
    with it, the HTTP API answers 503 with its code, the CLI prints it. SQLite undid the failed
    statement; what was stored before is intact.
    """

    def __init__(self, message: str, *, code: str) -> None:
        StorageError.__init__(self, message, code=code)


def storage_error(exc: sqlite3.Error, database: str = "") -> SqliteStorageError | None:
    """``exc`` as a :class:`SqliteStorageError` when the disk or the file's permissions caused it
    (a full disk, a read-only file or folder, an I/O error, a damaged file); None for any other error.

    ``database``: the file's name, for the message (none in errors an API client may see: the
    message then names the setting, CADENCE_DATABASE_URL, instead of the server's paths)."""
    if isinstance(exc, SqliteStorageError):
        return exc
    primary = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    reason = str(exc)
    file = f" {database}" if database else " (CADENCE_DATABASE_URL)"
    if primary == _SQLITE_FULL or "disk is full" in reason:
        return SqliteStorageError(
            f"The SQLite database{file} is out of space ({reason}): free disk space on its volume "
            "(or move CADENCE_DATA_DIR to a larger one) and try again; the failed write was not saved, "
            "everything saved before is intact.",
            code="storage_full",
        )
    if primary == _SQLITE_READONLY or "readonly database" in reason:
        return SqliteStorageError(
            f"The SQLite database{file} cannot be written ({reason}): make the file, its -wal and -shm "
            "files and its folder writable by the server's user (or check CADENCE_DATABASE_URL) and "
            "try again; the failed write was not saved.",
            code="storage_read_only",
        )
    if primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN) or "disk I/O error" in reason:
        return SqliteStorageError(
            f"The SQLite database{file} could not be read or written ({reason}): check its disk, free "
            "space and the permissions of the file and its folder and try again; the failed statement "
            "changed nothing.",
            code="storage_error",
        )
    if primary == _SQLITE_BUSY or reason == "database is locked":
        return SqliteStorageError(
            f"The SQLite database{file} stayed locked by another writer too long ({reason}): another "
            "program keeps a write transaction open on it (a sqlite3 shell, a backup tool); end it "
            "and try again; the failed write was not saved.",
            code="storage_busy",
        )
    if primary == _SQLITE_CORRUPT or "disk image is malformed" in reason:
        return SqliteStorageError(
            f"The SQLite database{file} is damaged ({reason}): stop the server, keep a copy of the file "
            "and restore it from a backup (or recover it with the sqlite3 shell's .recover command); "
            "the failed statement changed nothing.",
            code="storage_error",
        )
    return None


def is_write(sql: str) -> bool:
    """Whether ``sql`` takes SQLite's writer lock (a data or schema change, ``BEGIN IMMEDIATE``)."""
    head = sql.lstrip()[:16].upper()
    return head.startswith(_WRITES) or head.startswith(_LOCKING_BEGIN)


class WriterLock:
    """One process's side of the lock on one database file (shared by its connections to it)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.users = 0
        """Open connections using this lock (the lock file is closed with the last)."""
        self._thread_lock = threading.Lock()
        self._fd: int | None = None
        if fcntl is not None:
            with contextlib.suppress(OSError):  # an unwritable folder: SQLite will say so itself
                self._fd = os.open(f"{path}.writer", os.O_RDWR | os.O_CREAT, 0o644)

    def acquire(self, timeout: float = WRITE_WAIT_S) -> None:
        """Take the lock (raises ``sqlite3.OperationalError`` after ``timeout`` seconds, as SQLite would)."""
        deadline = time.monotonic() + timeout
        if not self._thread_lock.acquire(timeout=timeout):
            raise sqlite3.OperationalError("database is locked")
        if self._fd is None:
            return
        wait = _POLL_FIRST_S
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    self._thread_lock.release()
                    raise sqlite3.OperationalError("database is locked") from None
                time.sleep(wait)
                wait = min(wait * 2, _POLL_MAX_S)
            except OSError:  # a file system without flock: the thread lock alone
                return

    def release(self) -> None:
        """Free the lock."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._thread_lock.release()

    def close(self) -> None:
        """Close the lock file."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


_locks: dict[str, WriterLock] = {}
_registry_lock = threading.Lock()


def _lock_for(database: Any) -> WriterLock | None:
    text = os.fsdecode(database) if isinstance(database, str | bytes | os.PathLike) else ""
    if not text or text == ":memory:" or text.startswith("file:"):
        return None
    path = str(Path(text).expanduser().resolve())
    with _registry_lock:
        lock = _locks.get(path)
        if lock is None:
            lock = _locks[path] = WriterLock(path)
        lock.users += 1
        return lock


def _unuse(lock: WriterLock) -> None:
    with _registry_lock:
        lock.users -= 1
        if lock.users <= 0 and _locks.get(lock.path) is lock:
            del _locks[lock.path]
            lock.close()


class WriterLockedConnection(sqlite3.Connection):
    """A ``sqlite3`` connection that holds the file's :class:`WriterLock` while it writes.

    The lock is taken before a statement that writes (outside a write already under way) and
    freed as soon as the connection is out of its transaction: after an autocommit write, at
    ``COMMIT``/``ROLLBACK`` (as statements or as ``commit()``/``rollback()``) or at ``close()``.
    """

    def __init__(self, database: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(database, *args, **kwargs)
        self._writer = _lock_for(database)
        self._writing = False

    def storage_error(self, exc: BaseException) -> SqliteStorageError | None:
        """``exc`` as a :class:`SqliteStorageError` when the disk or permissions caused it
        (:func:`storage_error`), else None."""
        problem = storage_error(exc) if isinstance(exc, sqlite3.Error) else None
        return None if problem is exc else problem

    def cursor(self, factory: Any = None) -> sqlite3.Cursor:  # type: ignore[override]
        """A cursor whose statements take the writer lock (a ``factory`` subclasses WriterLockedCursor)."""
        return super().cursor(factory or WriterLockedCursor)

    def before(self, sql: str) -> None:
        """Take the lock if ``sql`` writes and this connection does not hold it yet."""
        if self._writer is not None and not self._writing and is_write(sql):
            self._writer.acquire()
            self._writing = True

    def holds_writer(self) -> bool:
        """Whether this connection holds the writer lock."""
        return self._writing

    def settle(self) -> None:
        """Free the lock once the connection is out of its transaction."""
        if not self.in_transaction:
            self._free()

    def _free(self) -> None:
        if self._writing:
            self._writing = False
            self._writer.release()  # type: ignore[union-attr]

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        """``cursor().execute(...)`` (the C shortcut would skip the cursor's lock)."""
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> sqlite3.Cursor:  # type: ignore[override]
        """``cursor().executemany(...)``."""
        return self.cursor().executemany(sql, seq_of_parameters)

    def commit(self) -> None:
        """Commit, then free the lock (a full disk or a read-only file: :class:`SqliteStorageError`)."""
        try:
            super().commit()
        except sqlite3.Error as exc:
            problem = self.storage_error(exc)
            if problem is None:
                raise
            raise problem from exc
        finally:
            self.settle()

    def rollback(self) -> None:
        """Roll back, then free the lock."""
        try:
            super().rollback()
        finally:
            self.settle()

    def close(self) -> None:
        """Close (a transaction still open is rolled back by SQLite), free the lock and the lock file."""
        try:
            super().close()
        finally:
            self._free()
            if self._writer is not None:
                writer, self._writer = self._writer, None
                _unuse(writer)


class WriterLockedCursor(sqlite3.Cursor):
    """A cursor of a :class:`WriterLockedConnection` (``Connection.execute`` uses one too)."""

    _rows_pending = False

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        """Execute ``sql``, holding the writer lock if it writes.

        A write that returns rows (``RETURNING``) keeps SQLite's lock until its rows are read:
        the lock is kept until then too (:meth:`fetchall`, the last :meth:`fetchone`, :meth:`close`).
        """
        conn: WriterLockedConnection = self.connection  # type: ignore[assignment]
        try:
            conn.before(sql)
            super().execute(sql, parameters)
        except BaseException as exc:
            conn.settle()
            problem = conn.storage_error(exc)
            if problem is None:
                raise
            raise problem from exc
        if self.description is not None and conn.holds_writer():
            self._rows_pending = True
        else:
            conn.settle()
        return self

    def _rows_read(self) -> None:
        if self._rows_pending:
            self._rows_pending = False
            self.connection.settle()  # type: ignore[attr-defined]

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """Rows read in the block: a damaged file or a failing disk is a :class:`SqliteStorageError`."""
        try:
            yield
        except sqlite3.Error as exc:
            problem = self.connection.storage_error(exc)  # type: ignore[attr-defined]
            if problem is None:
                raise
            raise problem from exc

    def fetchone(self) -> Any:
        """The next row (the last one read frees the writer lock of a ``RETURNING`` write)."""
        with self._reading():
            row = super().fetchone()
        if row is None:
            self._rows_read()
        return row

    def fetchmany(self, size: int | None = None) -> list[Any]:
        """The next rows (the last ones read free the writer lock of a ``RETURNING`` write)."""
        wanted = self.arraysize if size is None else size
        with self._reading():
            rows = super().fetchmany(wanted)
        if len(rows) < wanted:
            self._rows_read()
        return rows

    def fetchall(self) -> list[Any]:
        """The remaining rows (frees the writer lock of a ``RETURNING`` write)."""
        try:
            with self._reading():
                return super().fetchall()
        finally:
            self._rows_read()

    def close(self) -> None:
        """Close the cursor (frees the writer lock of a ``RETURNING`` write not read to the end)."""
        try:
            super().close()
        finally:
            self._rows_read()

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> sqlite3.Cursor:  # type: ignore[override]
        """Execute ``sql`` for each parameter set, holding the writer lock if it writes.

        On an autocommit connection (``isolation_level=None``) outside a transaction, the rows of
        a write go in one transaction of their own, begun and committed in this same call: all or
        none of them are written, and the writer lock is held for this call only.
        """
        conn: WriterLockedConnection = self.connection  # type: ignore[assignment]
        try:
            conn.before(sql)
            if not (conn.isolation_level is None and not conn.in_transaction and is_write(sql)):
                return super().executemany(sql, seq_of_parameters)
            plain = sqlite3.Connection.execute  # its own cursor: this one keeps the rows' rowcount
            plain(conn, "BEGIN IMMEDIATE")
            try:
                super().executemany(sql, seq_of_parameters)
                plain(conn, "COMMIT")
            except BaseException:
                if conn.in_transaction:  # a full disk may have rolled the whole transaction back already
                    plain(conn, "ROLLBACK")
                raise
            return self
        except BaseException as exc:
            problem = conn.storage_error(exc)
            if problem is None:
                raise
            raise problem from exc
        finally:
            conn.settle()


__all__ = [
    "WRITE_WAIT_S",
    "SqliteStorageError",
    "WriterLock",
    "WriterLockedConnection",
    "WriterLockedCursor",
    "is_write",
    "storage_error",
]
