"""Several processes on one database: per-thread locks across processes, leader jobs, real servers.

- the database locks reach other processes and die with them (SQLite: ``fcntl`` on a lock file;
  PostgreSQL: advisory locks on the process's lock session);
- a :class:`LeaderJob` runs in one holder at a time and another takes over when it stops;
- two ``cadence serve`` processes on different ports sharing one database (SQLite file or
  PostgreSQL: the several-machines case on loopback) serve one thread: concurrent requests
  sent alternately to both are serialized, none is lost, both show the same history;
- ``cadence serve --workers 2``: two worker processes on one port, same guarantees.

The servers use the scripted model (``CADENCE_LLM=scripted:<file>``) with a delay per call, so
turns overlap unless the locks serialize them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cadence.errors import ConfigurationError
from cadence.persistence.locks import LeaderJob, open_database_locks
from cadence.server.app import WorkerSocket, bind_socket, per_worker_sockets_supported, worker_sockets
from pg_support import fresh_database, postgres_server_url

__all__ = ["postgres_server_url"]

ANSWER = "Done and dusted"
DELAY_S = 0.15  # per model call; a turn makes two (coordinator, synthesizer)
REQUESTS = 8
START_TIMEOUT_S = 90


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database each process can open."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    return fresh_database(request.getfixturevalue("postgres_server_url"))


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")}
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in [src, env.get("PYTHONPATH", "")] if p)
    env.update(extra or {})
    return env


# -- the locks themselves, across processes ---------------------------------------------
HOLDER = """
import asyncio, sys
from cadence.persistence.locks import open_database_locks

async def main():
    async with open_database_locks(sys.argv[1]) as locks:
        lease = await locks.try_acquire("thread:shared")
        print("held" if lease else "refused", flush=True)
        await asyncio.sleep(600)

asyncio.run(main())
"""


async def test_database_locks_reach_other_processes_and_die_with_them(database_url: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, database_url], env=_env(), stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(holder.stdout.readline), START_TIMEOUT_S)
        assert line.strip() == "held"
        async with open_database_locks(database_url) as locks:
            assert locks.shared
            assert await locks.try_acquire("thread:shared") is None
            assert await locks.acquire("thread:shared", timeout=0.3) is None
            other = await locks.try_acquire("thread:other")  # other names are free
            assert other is not None
            await other.release()
            holder.send_signal(signal.SIGKILL)  # a crash: no release ever runs
            holder.wait(timeout=30)
            lease = await locks.acquire("thread:shared", timeout=30)
            assert lease is not None
            assert await locks.try_acquire("thread:shared") is None  # held: refused in this process too
            await lease.release()
            await lease.release()  # idempotent
            again = await locks.try_acquire("thread:shared")
            assert again is not None
            await again.release()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


async def test_a_leader_job_runs_in_one_holder_and_fails_over(database_url: str) -> None:
    runs = {"a": 0, "b": 0}

    def job(name: str):
        async def run() -> None:
            runs[name] += 1

        return run

    async with contextlib.AsyncExitStack() as stack:
        locks_a = await stack.enter_async_context(open_database_locks(database_url))
        locks_b = await stack.enter_async_context(open_database_locks(database_url))
        a = LeaderJob(locks_a, "demo", job("a"), 0.02, retry_s=0.02, run_first=True)
        b = LeaderJob(locks_b, "demo", job("b"), 0.02, retry_s=0.02, run_first=True)
        await a.__aenter__()
        await _until(lambda: runs["a"] >= 1)
        await b.__aenter__()
        await _until(lambda: runs["a"] >= 10)
        assert runs["b"] == 0 and a.is_leader and not b.is_leader
        await a.stop()  # the leader goes away: the other one takes over
        await _until(lambda: runs["b"] >= 3)
        assert b.is_leader
        frozen = runs["a"]
        await _until(lambda: runs["b"] >= 6)
        assert runs["a"] == frozen
        await b.stop()


async def test_a_leader_that_loses_its_postgres_session_hands_over(postgres_server_url: str) -> None:
    import psycopg

    url = fresh_database(postgres_server_url)
    runs = {"a": 0, "b": 0}

    def job(name: str):
        async def run() -> None:
            runs[name] += 1

        return run

    async with open_database_locks(url) as locks_a, open_database_locks(url) as locks_b:
        a = LeaderJob(locks_a, "demo", job("a"), 0.02, retry_s=0.02, run_first=True)
        b = LeaderJob(locks_b, "demo", job("b"), 0.02, retry_s=0.02, run_first=True)
        async with a:
            await _until(lambda: runs["a"] >= 1)
            async with b:
                await _until(lambda: runs["a"] >= 5)
                assert runs["b"] == 0
                # the database drops a's lock session (restart, network, idle timeout): its locks go with it
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as admin:
                    await admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                    )
                await _until(lambda: locks_a._session >= 1)  # a noticed and reconnected
                # one leader again (whichever took the free lock first), never two
                await _until(lambda: a.is_leader != b.is_leader)
                leader, other = ("a", "b") if a.is_leader else ("b", "a")
                before = dict(runs)
                await _until(lambda: runs[leader] >= before[leader] + 5)
                assert runs[other] <= before[other] + 1  # at most a run already under way


async def _until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


# -- real servers -------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def cadence_serve(tmp_path: Path, database_url: str, *args: str) -> Iterator[tuple[str, int]]:
    """``cadence serve`` in a subprocess on a free port; yields its URL and pid; stopped with SIGINT."""
    script = tmp_path / "script.json"
    if not script.exists():
        script.write_text(json.dumps([{"content": ANSWER, "delay_s": DELAY_S}] * 400))
    port = _free_port()
    env = _env({
        "CADENCE_LLM": f"scripted:{script}",
        "CADENCE_DATABASE_URL": database_url,
        "CADENCE_DATA_DIR": str(tmp_path / "data"),
        "CADENCE_BUILTIN_PLUGINS": "",
        "CADENCE_ENTRY_POINTS_ENABLED": "false",
        "CADENCE_MODEL_MAX_RETRIES": "0",
        "CADENCE_THREAD_LOCK_TIMEOUT": "120",
    })  # fmt: skip
    log = (tmp_path / f"serve-{port}.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cadence.cli.main", "serve", "--port", str(port), *args],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                log.flush()
                raise AssertionError(f"cadence serve exited: {(tmp_path / f'serve-{port}.log').read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "cadence serve did not become ready"
            time.sleep(0.2)
        yield url, proc.pid
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


async def _concurrent_turns(urls: list[str], thread: str, n: int) -> list[str]:
    """``n`` requests on ``thread`` at once, request i to ``urls[i % len(urls)]``, each on its own
    connection; returns the thread id each got."""

    async def one(i: int) -> str:
        async with httpx.AsyncClient(base_url=urls[i % len(urls)], timeout=120) as client:
            resp = await client.post(
                "/api/v1/chat", json={"message": f"m{i}", "user_id": "u", "thread_id": thread}
            )
            assert resp.status_code == 200, resp.text
            assert resp.json()["response"] == ANSWER
            return str(resp.json()["thread_id"])

    return list(await asyncio.gather(*(one(i) for i in range(n))))


async def _history(url: str, thread: str) -> list[tuple[str, str]]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        resp = await client.get(f"/api/v1/threads/{thread}", params={"user_id": "u"})
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert body["turns"] == REQUESTS
        return [(m["role"], m["content"]) for m in body["messages"]]


def _assert_serialized(history: list[tuple[str, str]]) -> None:
    """Every request's question is there once, each followed by its answer (no turn overlapped)."""
    questions = [content for role, content in history if role == "user"]
    assert sorted(questions) == sorted(f"m{i}" for i in range(REQUESTS))
    assert history == [pair for q in questions for pair in (("user", q), ("assistant", ANSWER))]


async def test_two_servers_on_one_database_serve_the_same_threads(tmp_path: Path, database_url: str) -> None:
    with (
        cadence_serve(tmp_path, database_url) as (first, _),
        cadence_serve(tmp_path, database_url) as (second, _),
    ):
        started = time.monotonic()
        ids = await _concurrent_turns([first, second], "shared-thread", REQUESTS)
        elapsed = time.monotonic() - started
        assert set(ids) == {"shared-thread"}
        seen_first, seen_second = (
            await _history(first, "shared-thread"),
            await _history(second, "shared-thread"),
        )
    assert seen_first == seen_second
    _assert_serialized(seen_first)
    assert elapsed >= REQUESTS * 2 * DELAY_S  # one turn after the other: the model's delays add up


async def test_serve_workers_runs_k_processes_on_one_port(tmp_path: Path) -> None:
    import psutil

    database_url = f"sqlite:///{tmp_path / 'workers.db'}"
    with cadence_serve(tmp_path, database_url, "--workers", "2") as (url, pid):
        ids = await _concurrent_turns([url], "one-thread", REQUESTS)
        assert set(ids) == {"one-thread"}
        history = await _history(url, "one-thread")
        port = int(url.rsplit(":", 1)[1])
        workers = {
            child.pid
            for child in psutil.Process(pid).children()
            if any(c.laddr and c.laddr.port == port for c in child.net_connections("tcp"))
        }
        listeners = {worker: _listening_sockets(worker, port) for worker in workers}
        parent_listens = _listening_sockets(pid, port)
        async with open_database_locks(database_url) as locks:
            # the retention job is led by one of the workers: its leader lock is taken
            assert await locks.try_acquire("leader:retention") is None
    _assert_serialized(history)
    assert len(workers) == 2, f"expected two worker processes serving port {port}, got {workers}"
    if per_worker_sockets_supported():
        # a listening socket of its own in each worker (SO_REUSEPORT: the kernel spreads the
        # connections), none in the supervisor, which only holds the port
        assert all(len(found) == 1 for found in listeners.values()), listeners
        assert len(set().union(*listeners.values())) == 2, listeners
        assert parent_listens == set()


def _listening_sockets(pid: int, port: int) -> set[str]:
    """The listening sockets of process ``pid`` on ``port``, by their kernel identity (``socket:[inode]``)."""
    import psutil

    found = set()
    for conn in psutil.Process(pid).net_connections("tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.fd >= 0:
            found.add(os.readlink(f"/proc/{pid}/fd/{conn.fd}"))
    return found


def test_worker_socket_opens_a_socket_of_its_own_on_the_port() -> None:
    if not per_worker_sockets_supported():
        pytest.skip("SO_REUSEPORT balancing is Linux's")
    parent = bind_socket("127.0.0.1", 0, reuse_port=True)
    try:
        (stand_in,) = worker_sockets(parent)
        assert isinstance(stand_in, WorkerSocket)
        first, second = pickle.loads(pickle.dumps(stand_in)), pickle.loads(pickle.dumps(stand_in))
        try:
            assert first.getsockname() == second.getsockname() == parent.getsockname()
            assert first.fileno() != second.fileno()
            first.listen(8)
            # a second server on the port is refused, even one that would listen the same way
            with pytest.raises(ConfigurationError, match="Cannot listen on"):
                bind_socket("127.0.0.1", parent.getsockname()[1], reuse_port=True).close()
        finally:
            first.close()
            second.close()
    finally:
        parent.close()
    shared = bind_socket("127.0.0.1", 0)
    try:
        assert worker_sockets(shared) == [shared]  # bound without SO_REUSEPORT: one socket for all
    finally:
        shared.close()


def test_several_workers_refuse_a_memory_database(tmp_path: Path) -> None:
    env = _env({"CADENCE_DATABASE_URL": "memory://", "CADENCE_DATA_DIR": str(tmp_path)})
    out = subprocess.run(
        [sys.executable, "-m", "cadence.cli.main", "serve", "--port", "0", "--workers", "2"],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1].startswith("error: Several workers need a database")


async def test_postgres_lock_operations_of_a_burst_share_round_trips(postgres_server_url: str) -> None:
    """Many turns starting and ending at once: their tries and releases go in a few batched statements,
    each try gets its own answer, and the locks stay exclusive against another process's session."""
    url = fresh_database(postgres_server_url)
    names = [f"thread:burst-{i}" for i in range(200)]
    async with open_database_locks(url) as mine, open_database_locks(url) as other:
        blocker = await other.try_acquire(names[7])  # held elsewhere: that one try must lose
        assert blocker is not None
        before = mine.round_trips
        leases = await asyncio.gather(*(mine.try_acquire(n) for n in names))
        assert [lease is None for lease in leases] == [n == names[7] for n in names]
        assert mine.round_trips - before <= 10  # one statement per batch, not 200
        assert all(lease.held for lease in leases if lease is not None)
        # held here: another session is refused every one of them
        refused = await asyncio.gather(*(other.try_acquire(n) for n in names[:20] if n != names[7]))
        assert refused == [None] * 19
        before = mine.round_trips
        await asyncio.gather(*(lease.release() for lease in leases if lease is not None))
        assert mine.round_trips - before <= 10
        again = await asyncio.gather(*(other.try_acquire(n) for n in names[:20] if n != names[7]))
        assert all(lease is not None for lease in again)  # released: free for the other session
        await asyncio.gather(*(lease.release() for lease in again if lease is not None), blocker.release())
        # and a lone operation still goes at once
        lease = await mine.acquire(names[7], timeout=5)
        assert lease is not None
        await lease.release()


class _FakeWorker:
    """A worker process as uvicorn's supervisor sees it (pid, exit code, health check)."""

    def __init__(
        self, pid: int, *, answers: bool = True, alive: bool = True, exitcode: int | None = None
    ) -> None:
        self.pid, self.answers, self.exitcode = pid, answers, exitcode
        self.process = types.SimpleNamespace(is_alive=lambda: alive)

    def is_alive(self, timeout: float = 5) -> bool:
        return self.answers

    def kill(self) -> None:
        if self.exitcode is None:
            self.exitcode = -signal.SIGKILL

    def join(self) -> None:
        pass

    def start(self) -> None:
        pass


def test_the_supervisor_warns_when_a_worker_dies_and_when_it_is_replaced(monkeypatch, caplog) -> None:
    """A worker killed by a plugin (``os._exit(9)``) was replaced without a word at the default level."""
    import logging

    import uvicorn
    from uvicorn.supervisors import multiprocess

    from cadence.server.app import describe_exit, worker_supervisor

    monkeypatch.setattr(signal, "signal", lambda *args: None)  # the supervisor's handlers are its process's
    new_pids = iter([501, 502])
    monkeypatch.setattr(multiprocess, "Process", lambda config, sockets: _FakeWorker(next(new_pids)))
    supervisor = worker_supervisor(uvicorn.Config("app:app", workers=4), [], start_grace_s=60.0)
    died = _FakeWorker(101, answers=False, alive=False, exitcode=9)  # os._exit(9) in a tool
    healthy = _FakeWorker(100)
    hung = _FakeWorker(103, answers=False, alive=True)  # running, not answering: the supervisor kills it
    starting = _FakeWorker(104, answers=False, alive=True)  # still importing: not answering yet
    supervisor.processes = [died, healthy, hung, starting]
    long_ago = time.monotonic() - 60.0 - 1
    supervisor.first_seen.update({died: long_ago, healthy: long_ago, hung: long_ago})
    with caplog.at_level(logging.WARNING, logger="cadence.server.app"):
        supervisor.keep_subprocess_alive()
    assert [p.pid for p in supervisor.processes] == [501, 100, 502, 104]
    lines = [(r.getMessage(), r.__dict__.get("pid"), r.__dict__.get("exit_code"), r.__dict__.get("signal"))
             for r in caplog.records if r.name == "cadence.server.app"]  # fmt: skip
    assert lines == [
        ("worker process 101 died (exit code 9); starting a replacement", 101, 9, None),
        ("worker process 101 replaced by 501", 501, None, None),
        (
            "worker process 103 stopped answering its health check and was killed (signal SIGKILL); "
            "starting a replacement",
            103,
            -9,
            "SIGKILL",
        ),
        ("worker process 103 replaced by 502", 502, None, None),
    ]
    assert [r.__dict__.get("replaces") for r in caplog.records if "replaced" in r.getMessage()] == [101, 103]
    assert all(r.levelname == "WARNING" for r in caplog.records)
    assert describe_exit(-signal.SIGSEGV) == {"exit_code": -signal.SIGSEGV, "signal": "SIGSEGV"}
    # a starting worker that dies is replaced at once, grace or not
    starting.process = types.SimpleNamespace(is_alive=lambda: False)
    starting.exitcode = -signal.SIGKILL
    monkeypatch.setattr(multiprocess, "Process", lambda config, sockets: _FakeWorker(505))
    supervisor.keep_subprocess_alive()
    assert [p.pid for p in supervisor.processes] == [501, 100, 502, 505]


async def test_a_killed_worker_is_logged_and_replaced_under_cadence_serve(tmp_path: Path) -> None:
    import psutil

    database_url = f"sqlite:///{tmp_path / 'workers.db'}"
    with cadence_serve(tmp_path, database_url, "--workers", "2") as (url, pid):
        port = int(url.rsplit(":", 1)[1])
        workers = [c.pid for c in psutil.Process(pid).children() if "spawn_main" in " ".join(c.cmdline())]
        victim = min(workers)  # not the resource tracker, the supervisor's other child
        os.kill(victim, signal.SIGKILL)
        log = tmp_path / f"serve-{port}.log"
        deadline = time.monotonic() + START_TIMEOUT_S
        while "replaced by" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        # the server keeps serving: the other worker (or, while it is still starting on a loaded machine,
        # the replacement) answers; a refused connection is retried until the start-up deadline
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            while True:
                try:
                    assert (await client.get("/health")).status_code == 200
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline, log.read_text()
                    await asyncio.sleep(0.2)
    text = log.read_text()
    assert f"worker process {victim} died (signal SIGKILL); starting a replacement" in text
    assert f"pid={victim} exit_code=-9 signal=SIGKILL" in text
    assert f"worker process {victim} replaced by" in text
