"""A database that cannot store a write (full disk, read-only file): one clear error, nothing lost."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

import cadence.persistence.databases as databases
from cadence.errors import StorageError
from cadence.persistence.sqlite_writer import SqliteStorageError, WriterLockedConnection
from cadence.server import create_app
from pg_support import fresh_database, postgres_server_url  # noqa: F401  (fixture)
from test_persistence_conformance import _drop_connections
from test_server_support import live_server, scripted, settings

_FULL = {"on": False}


class _FillingConnection(WriterLockedConnection):
    """A Cadence connection whose file stops growing while ``_FULL['on']`` (SQLITE_FULL, as on a full disk)."""

    _capped = False

    def before(self, sql: str) -> None:
        if _FULL["on"] != self._capped:
            self._capped = _FULL["on"]
            pages = sqlite3.Connection.execute(self, "PRAGMA page_count").fetchone()[0]
            limit = pages if self._capped else 1_073_741_823
            sqlite3.Connection.execute(self, f"PRAGMA max_page_count = {limit}")
        super().before(sql)


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """Cadence's SQLite connections on a disk that fills up when ``full_disk['on'] = True``."""
    monkeypatch.setattr(databases, "WriterLockedConnection", _FillingConnection)
    _FULL["on"] = False
    yield _FULL
    _FULL["on"] = False


def _capped(path: Path) -> WriterLockedConnection:
    conn = sqlite3.connect(str(path), factory=WriterLockedConnection, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    return conn


def test_a_full_disk_is_a_storage_error_that_says_what_to_do(tmp_path: Path) -> None:
    conn = _capped(tmp_path / "w.db")
    with pytest.raises(SqliteStorageError) as caught:
        conn.execute("INSERT INTO t (v) VALUES (?)", ("x" * 50_000,))
    error = caught.value
    assert isinstance(error, sqlite3.OperationalError) and isinstance(error, StorageError)
    assert error.code == "storage_full" and error.status_code == 503
    assert "free disk space" in error.message and str(tmp_path) not in error.message  # no server paths
    assert "database or disk is full" in error.message
    conn.execute("PRAGMA query_only = ON")  # SQLite's answer to a read-only file
    with pytest.raises(SqliteStorageError) as caught:
        conn.execute("INSERT INTO t (v) VALUES ('a')")
    assert caught.value.code == "storage_read_only" and "writable" in caught.value.message
    for sql in ("INSERT INTO missing VALUES (1)", "SELECT json_extract('{bad', '$.a')"):
        with pytest.raises(sqlite3.OperationalError) as other:  # any other error is SQLite's own
            conn.execute(sql)
        assert not isinstance(other.value, StorageError)  # ('malformed JSON' is no damaged file)
    conn.close()


def test_a_batch_on_a_full_disk_reports_the_full_disk_and_frees_the_lock(tmp_path: Path) -> None:
    """SQLite rolls the batch's whole transaction back on SQLITE_FULL: the ROLLBACK that followed
    failed ('cannot rollback - no transaction is active') and hid why the batch failed."""
    conn = _capped(tmp_path / "w.db")
    with pytest.raises(SqliteStorageError) as caught:
        conn.executemany("INSERT INTO t (v) VALUES (?)", [("x" * 3000,)] * 20)
    assert caught.value.code == "storage_full"
    assert not conn.in_transaction and not conn.holds_writer()
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0  # all or nothing
    conn.close()


def _messages(url: str, thread: str) -> list[str]:
    body = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u"}, timeout=30).json()
    return [m["content"] for m in body["messages"]]


def test_a_full_disk_answers_503_storage_full_and_loses_nothing(
    tmp_path: Path, full_disk: dict[str, bool]
) -> None:
    cfg = settings(database_url=f"sqlite:///{tmp_path / 'cadence.db'}")
    answer = "x" * 20_000  # a checkpoint of several pages
    with live_server(create_app(cfg, engine_kwargs={"model": scripted(text=answer)})) as url:

        def turn(message: str, thread: str | None = None) -> httpx.Response:
            body: dict[str, Any] = {"message": message, "user_id": "u"}
            if thread:
                body["thread_id"] = thread
            return httpx.post(f"{url}/api/v1/chat", json=body, timeout=30)

        first = turn("Hello?")
        assert first.status_code == 200
        thread = first.json()["thread_id"]
        full_disk["on"] = True
        refused = [turn("And again? " * 400, thread), turn("A new question")]
        for resp in refused:  # the thread record's write, or the turn's checkpoint
            assert resp.status_code == 503, resp.text
            error = resp.json()["error"]
            assert error["code"] == "storage_full", error
            assert "free disk space" in error["message"], error
        full_disk["on"] = False
        assert _messages(url, thread) == ["Hello?", answer]  # what was stored before is intact
        again = turn("After the cleanup?", thread)
        assert again.status_code == 200
        assert _messages(url, thread) == ["Hello?", answer, "After the cleanup?", answer]


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://bob:secret@127.0.0.1:{port}/cadence",  # nothing listens there
        "postgresql://bob:secret@127.0.0.1:{port}/cadence?sslmod=require",  # a misspelt option
        "postgresql://bob:secret@127.0.0.1:port/cadence",  # a port that is not a number
    ],
)
async def test_a_postgres_url_that_does_not_work_says_to_check_it(url: str, unused_tcp_port: int) -> None:
    """A malformed URL was 'Unexpected ProgrammingError' in the CLI and a 500 at the server's start;
    none of the messages said what to check."""
    pytest.importorskip("psycopg")
    from cadence.errors import ConfigurationError
    from cadence.persistence.checkpointer import open_checkpointer

    with pytest.raises(ConfigurationError) as caught:
        async with open_checkpointer(url.format(port=unused_tcp_port)):
            pass
    message = caught.value.message
    assert message.startswith("Cannot connect to PostgreSQL at 127.0.0.1")
    assert "check CADENCE_DATABASE_URL" in message and "password" in message
    assert "secret" not in message and "\n" not in message


async def test_a_full_disk_at_start_says_to_free_space(tmp_path: Path, full_disk: dict[str, bool]) -> None:
    """The schema set-up on a full disk said only 'database or disk is full; check CADENCE_DATA_DIR'."""
    from cadence.errors import ConfigurationError
    from cadence.persistence.checkpointer import open_checkpointer
    from cadence.persistence.threads import open_thread_store

    url = f"sqlite:///{tmp_path / 'cadence.db'}"
    async with open_thread_store(url):
        pass
    full_disk["on"] = True
    with pytest.raises(ConfigurationError) as caught:
        async with open_checkpointer(url):
            pass
    assert "is out of space" in caught.value.message and "free disk space" in caught.value.message


async def test_a_read_only_postgres_is_a_storage_error(request: pytest.FixtureRequest) -> None:
    """A database that refuses writes (a standby after a failover, default_transaction_read_only):
    raw psycopg errors, 'Unexpected ReadOnlySqlTransaction' at start and 500 internal_error after."""
    import psycopg

    from cadence.errors import StorageError
    from cadence.persistence.threads import open_thread_store
    from test_persistence_conformance import engine_on, turn

    server = request.getfixturevalue("postgres_server_url")
    url = fresh_database(server)
    async with open_thread_store(url) as store, engine_on(url, turn("Noted")) as (engine, _):
        await store.claim("alice", "t1", title="first")
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{url.rsplit("/", 1)[1]}" SET default_transaction_read_only = on')
        _drop_connections(url)  # the pools reconnect, read-only now
        await asyncio.sleep(0.1)
        with pytest.raises(StorageError) as caught:
            await store.claim("alice", "t2", title="second")
        assert caught.value.code == "storage_read_only" and "CADENCE_DATABASE_URL" in caught.value.message
        with pytest.raises(StorageError) as caught:  # the checkpoint of the question, before the turn runs
            await engine.ainvoke("Remember zebra", thread_id="t1", user_id="alice")
        assert caught.value.code == "storage_read_only"
        assert [r.thread_id for r in await store.list("alice")] == ["t1"]  # reads still work
    with pytest.raises(StorageError, match="refuses writes"):  # at start: the schema set-up
        async with open_thread_store(url):
            pass


def test_a_damaged_sqlite_file_says_so(tmp_path: Path) -> None:
    """A file damaged on disk ('database disk image is malformed') was 500 internal_error."""
    db = tmp_path / "cadence.db"
    cfg = settings(database_url=f"sqlite:///{db}")
    with live_server(create_app(cfg, engine_kwargs={"model": scripted(text="y" * 200_000)})) as url:
        reply = httpx.post(f"{url}/api/v1/chat", json={"message": "hi", "user_id": "u"}, timeout=30)
        thread = reply.json()["thread_id"]
    with db.open("r+b") as file:  # garbage over pages in the middle of the checkpoint's blob
        file.seek(db.stat().st_size // 2 // 4096 * 4096)
        file.write(b"\xff" * 4096 * 4)
    with live_server(create_app(cfg, engine_kwargs={"model": scripted()})) as url:
        shown = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u"}, timeout=30)
        assert shown.status_code == 503, shown.text
        error = shown.json()["error"]
        assert error["code"] == "storage_error" and "is damaged" in error["message"]
        assert "backup" in error["message"] and "(CADENCE_DATABASE_URL)" in error["message"]


async def test_a_file_name_too_long_is_a_configuration_error(tmp_path: Path) -> None:
    """It was a raw OSError ('[Errno 36] File name too long'), without the settings to check."""
    from cadence.errors import ConfigurationError
    from cadence.persistence.threads import open_thread_store

    with pytest.raises(ConfigurationError, match="File name too long; check CADENCE_DATA_DIR"):
        async with open_thread_store(f"sqlite:///{tmp_path / ('a' * 300)}.db"):
            pass


def test_a_database_another_program_keeps_locked_is_503_storage_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write transaction left open in another program (a sqlite3 shell) made every turn wait for
    the busy timeout and then fail as 500 'Internal error (OperationalError)'."""
    monkeypatch.setattr(databases, "SQLITE_BUSY_MS", 300)
    db = tmp_path / "cadence.db"
    with live_server(
        create_app(settings(database_url=f"sqlite:///{db}"), engine_kwargs={"model": scripted()})
    ) as url:
        body = {"message": "Hello?", "user_id": "u"}
        assert httpx.post(f"{url}/api/v1/chat", json=body, timeout=30).status_code == 200
        shell = sqlite3.connect(db, isolation_level=None)
        shell.execute("BEGIN IMMEDIATE")
        refused = httpx.post(f"{url}/api/v1/chat", json=body, timeout=30)
        assert refused.status_code == 503, refused.text
        error = refused.json()["error"]
        assert error["code"] == "storage_busy" and "another program" in error["message"]
        shell.execute("ROLLBACK")
        shell.close()
        assert httpx.post(f"{url}/api/v1/chat", json=body, timeout=30).status_code == 200


async def test_an_unreachable_postgres_is_storage_unavailable(request: pytest.FixtureRequest) -> None:
    """A database server that stops answering (down, restarting, refusing connections): every request
    waited for the pool and then failed as 500 'Internal error (PoolTimeout)'."""
    import psycopg
    from psycopg_pool import AsyncConnectionPool

    from cadence.errors import StorageError
    from cadence.persistence.checkpointer import _postgres_saver_class
    from cadence.persistence.threads import PostgresThreadStore

    server = request.getfixturevalue("postgres_server_url")
    url = fresh_database(server)
    name = url.rsplit("/", 1)[1]
    async with AsyncConnectionPool(url, timeout=0.5, open=False, kwargs={"autocommit": True}) as pool:
        store, saver = PostgresThreadStore(pool), _postgres_saver_class()(conn=pool)
        await store.setup()
        await saver.setup()
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        try:
            await asyncio.sleep(0.1)
            config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
            for read in (store.list("alice"), saver.aget_tuple(config), anext(saver.alist(config), None)):
                with pytest.raises(StorageError) as caught:
                    await read
                assert caught.value.code == "storage_unavailable"
                assert "cannot be reached" in caught.value.message and "running" in caught.value.message
        finally:
            with psycopg.connect(server, autocommit=True) as conn:
                conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
