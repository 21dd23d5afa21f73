"""The SQLite writer lock (cadence.persistence.sqlite_writer): held exactly while a connection writes."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from cadence.persistence.databases import connect_sqlite
from cadence.persistence.sqlite_writer import WriterLock, WriterLockedConnection, is_write


def _connect(path: Path, **kwargs: object) -> WriterLockedConnection:
    conn = sqlite3.connect(str(path), factory=WriterLockedConnection, check_same_thread=False, **kwargs)
    assert isinstance(conn, WriterLockedConnection)
    return conn


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "w.db"
    conn = _connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
    conn.close()
    return path


def _free(path: Path) -> bool:
    """Whether another process could take the lock now (a second lock file handle stands for one)."""
    other = WriterLock(str(path.resolve()))
    try:
        other.acquire(timeout=0.05)
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()  # closing the handle frees its flock
    return True


@pytest.mark.parametrize(
    ("sql", "writes"),
    [
        ("INSERT INTO t VALUES (1, 'a')", True),
        ("  insert or replace into t values (1, 'a')", True),
        ("UPDATE t SET v = 'b'", True),
        ("DELETE FROM t", True),
        ("BEGIN IMMEDIATE", True),
        ("CREATE TABLE u (x)", True),
        ("BEGIN", False),
        ("SELECT * FROM t", False),
        ("COMMIT", False),
        ("PRAGMA journal_mode = WAL", False),
    ],
)
def test_is_write(sql: str, writes: bool) -> None:
    assert is_write(sql) is writes


def test_a_transaction_holds_the_lock_from_its_first_write_to_commit(db: Path) -> None:
    conn = _connect(db)  # Python's implicit transactions
    conn.execute("SELECT * FROM t").fetchall()
    assert _free(db)
    conn.execute("INSERT INTO t VALUES (1, 'a')")
    assert not _free(db)
    conn.execute("INSERT INTO t VALUES (2, 'b')")
    conn.commit()
    assert _free(db)
    conn.execute("DELETE FROM t WHERE k = 2")
    conn.rollback()
    assert _free(db)
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 2
    conn.close()


def test_autocommit_writes_hold_it_for_the_statement_only(db: Path) -> None:
    conn = _connect(db, isolation_level=None)
    conn.execute("INSERT INTO t VALUES (1, 'a')")
    assert _free(db)
    conn.execute("BEGIN IMMEDIATE")
    assert not _free(db)
    conn.execute("UPDATE t SET v = 'b'")
    conn.execute("COMMIT")
    assert _free(db)
    conn.close()


def test_a_returning_write_holds_it_until_its_rows_are_read(db: Path) -> None:
    conn = _connect(db, isolation_level=None)
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (1, 'a') RETURNING k")
    assert not _free(db)
    assert cur.fetchall() == [(1,)]
    assert _free(db)
    cur.execute("INSERT INTO t VALUES (2, 'b') RETURNING k")
    cur.close()  # not read to the end
    assert _free(db)
    conn.close()


def test_an_autocommit_batch_is_one_transaction(db: Path) -> None:
    conn = _connect(db, isolation_level=None)
    conn.execute("INSERT INTO t VALUES (3, 'x')")
    with pytest.raises(sqlite3.IntegrityError):
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b"), (3, "dup")])
    assert _free(db)
    assert conn.execute("SELECT k FROM t ORDER BY k").fetchall() == [(3,)]  # none of the batch
    cur = conn.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b")])
    assert cur.rowcount == 2
    assert not conn.in_transaction
    assert _free(db)
    conn.close()


def test_close_frees_a_lock_held_mid_transaction(db: Path) -> None:
    conn = _connect(db)
    conn.execute("INSERT INTO t VALUES (1, 'a')")
    assert not _free(db)
    conn.close()
    assert _free(db)
    check = _connect(db)
    assert check.execute("SELECT count(*) FROM t").fetchone()[0] == 0  # rolled back
    check.close()


def test_a_waiting_writer_goes_on_when_the_holder_commits(db: Path) -> None:
    holder = _connect(db)
    holder.execute("INSERT INTO t VALUES (1, 'a')")
    done: list[float] = []

    def write() -> None:
        other = _connect(db)
        other.execute("INSERT INTO t VALUES (2, 'b')")
        other.commit()
        done.append(time.monotonic())
        other.close()

    worker = threading.Thread(target=write)
    worker.start()
    time.sleep(0.2)
    assert not done  # waits for the holder (on the lock, not in SQLite's busy handler)
    committed = time.monotonic()
    holder.commit()
    worker.join(timeout=10)
    assert done and done[0] >= committed
    assert holder.execute("SELECT k FROM t ORDER BY k").fetchall() == [(1,), (2,)]
    holder.close()


def test_the_wait_is_bounded(db: Path) -> None:
    holder = WriterLock(str(db.resolve()))
    holder.acquire()
    try:
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            WriterLock(str(db.resolve())).acquire(timeout=0.1)
        assert time.monotonic() - started < 5
    finally:
        holder.release()
        holder.close()


def test_many_writers_lose_nothing(db: Path) -> None:
    errors: list[BaseException] = []

    def write(start: int, autocommit: bool) -> None:
        try:
            conn = _connect(db, **({"isolation_level": None} if autocommit else {}))
            for i in range(start, start + 50):
                conn.execute("INSERT INTO t VALUES (?, ?)", (i, "v"))
                if not autocommit:
                    conn.commit()
            conn.executemany("INSERT INTO t VALUES (?, ?)", [(start + 1000 + i, "m") for i in range(5)])
            conn.commit()
            conn.close()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n * 100, n % 2 == 0)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    check = _connect(db)
    assert check.execute("SELECT count(*) FROM t").fetchone()[0] == 6 * 55
    check.close()


async def test_cadence_connections_use_it(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    async with connect_sqlite(path, isolation_level=None) as conn:
        await conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
        async with conn.execute("BEGIN IMMEDIATE"):
            pass
        assert not _free(path)
        async with conn.execute("COMMIT"):
            pass
        assert _free(path)
        rows = await conn.execute_fetchall("INSERT INTO t VALUES (1) RETURNING k")
        assert list(rows) == [(1,)]
        assert _free(path)
    assert (tmp_path / "c.db.writer").exists()
