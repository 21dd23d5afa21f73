"""Section 3: N concurrent conversations through the HTTP server.

The server runs in a subprocess (``bench.server_app``: uvicorn on loopback, Cadence
with :class:`~bench.policy_model.PolicyChatModel`, 100 ms per model call). A lean
HTTP/1.1 client (:mod:`bench.load_client`, one keep-alive connection per conversation)
sends N one-agent tool turns at once, each on a new thread. Ideal wall time is the longest
chain of model calls × the delay (4 × 100 ms): what an engine with zero overhead and
unbounded concurrency would take. Peak RSS of each server process is sampled every 20 ms with psutil.

Workers: with K > 1 the server is ``cadence.server.app.serve_workers`` (uvicorn's
supervisor and K worker processes on one socket, one database; per-thread locks in the
database). Server CPU is the sum over the supervisor and its workers; memory is the peak
RSS of the largest worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.load_client import Connection, LoadClientError
from bench.pg_server import server_pid
from bench.policy_model import ANSWER
from bench.server_app import raise_fd_limit
from bench.stats import median, percentile

MESSAGE = "Calculate 15 * 23"
CHAIN = 4
"""Model calls on the longest path of the one-agent tool turn."""
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class ConcurrencyRow:
    """One load level."""

    backend: str
    n: int
    workers: int
    ok: int
    wall_s: float
    ideal_s: float
    ratio: float
    rps: float
    p50_ms: float
    p95_ms: float
    rss_idle_mb: float
    rss_peak_mb: float
    server_cpu_s: float
    client_cpu_s: float
    rss_worker_peak_mb: float = 0.0
    """Peak RSS of the largest worker process (K = 1: the server process)."""
    runs_wall_s: list[float] = field(default_factory=list)
    """Wall times of every run of this level (the row is the median run's)."""
    worker_cpu_s: list[float] = field(default_factory=list)
    """CPU seconds of each serving process during the load, largest first (how evenly K workers shared it)."""
    failures: dict[str, int] = field(default_factory=dict)
    """Requests that failed, by error (connection errors, HTTP status)."""
    db_cpu_s: float = 0.0
    """CPU seconds of the PostgreSQL server (postmaster and backends) during the load; 0 otherwise."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server(
    workdir: Path, database_url: str, delay: float, profile: Path | None = None, workers: int = 1
) -> Iterator[tuple[str, int]]:
    """Start ``bench.server_app`` and yield ``(base_url, pid)``; stop it with SIGINT."""
    port = _free_port()
    cmd = [
        sys.executable, "-m", "bench.server_app", "--port", str(port), "--database-url", database_url,
        "--delay", str(delay), "--data-dir", str(workdir / "server-data"), "--workers", str(workers),
    ]  # fmt: skip
    if profile is not None:
        cmd += ["--profile", str(profile)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    log = (workdir / f"server-{port}.log").open("w")
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_ready(port, proc)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait_ready(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the benchmark server exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=1).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("the benchmark server did not become ready")


def _tree(pid: int) -> list[Any]:
    """The server process and its workers (uvicorn's supervisor spawns them as children)."""
    import psutil

    proc = psutil.Process(pid)
    return [proc, *proc.children(recursive=True)]


def _tree_cpu(pid: int | None) -> float:
    """CPU seconds of process ``pid`` and its descendants (0.0 without a pid). For PostgreSQL: the
    postmaster and its backends; backends that exited no longer count, so compare readings taken while
    the clients stay connected."""
    return sum(_cpu_by_process(pid).values()) if pid is not None else 0.0


def _cpu_by_process(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of the server process and each of its workers, by pid."""
    import psutil

    out: dict[int, float] = {}
    for p in _tree(pid):
        with contextlib.suppress(psutil.Error):
            out[p.pid] = sum(p.cpu_times()[:2])
    return out


async def _sample_rss(pid: int, stop: asyncio.Event, peak: list[float]) -> None:
    """peak[0]: the whole tree's RSS; peak[1]: the largest single process's."""
    import psutil

    procs = _tree(pid)
    while not stop.is_set():
        total = 0.0
        for p in procs:
            with contextlib.suppress(psutil.Error):
                rss = p.memory_info().rss / 2**20
                total += rss
                peak[1] = max(peak[1], rss)
        peak[0] = max(peak[0], total)
        await asyncio.sleep(0.02)


async def _open(conn: Connection, attempts: int = 3) -> bool:
    """Open ``conn`` with a ``/health`` request, retrying a refused connect."""
    for attempt in range(attempts):
        try:
            await conn.get("/health")
            return True
        except LoadClientError:
            await conn.close()
            await asyncio.sleep(0.2 * (attempt + 1))
    return False


async def load(
    base: str, pid: int, n: int, backend: str, delay: float, workers: int = 1, database: str | None = None
) -> ConcurrencyRow:
    """Send ``n`` concurrent chat turns and measure them.

    Each conversation has its own keep-alive connection (:class:`bench.load_client.Connection`):
    the client shares the cores with the server, so it is the leanest one that speaks HTTP/1.1
    (about a tenth of httpx's CPU per request). With ``database`` (a PostgreSQL URL) the
    database server's CPU during the load is measured too.
    """
    rss_idle = sum(p.memory_info().rss for p in _tree(pid)) / 2**20
    conns = [Connection(base) for _ in range(n)]
    try:
        # open the connections first so that the measurement is of turns, not TCP handshakes; a
        # connection refused in the burst is retried (and otherwise counted when its turn fails)
        await asyncio.gather(*(_open(c) for c in conns))
        request = conns[0].encode("POST", "/api/v1/chat", {"message": MESSAGE})
        latencies: list[float] = []
        failures: dict[str, int] = {}

        async def one(i: int) -> bool:
            t0 = time.perf_counter()
            try:
                r = await conns[i].send(request)
            except LoadClientError as exc:  # counted (not ok), the others still measured
                failures[exc.kind] = failures.get(exc.kind, 0) + 1
                return False
            latencies.append((time.perf_counter() - t0) * 1000)
            if r.status_code != 200:
                failures[f"HTTP {r.status_code}"] = failures.get(f"HTTP {r.status_code}", 0) + 1
            return r.status_code == 200 and r.json().get("response") == ANSWER

        stop = asyncio.Event()
        peak = [rss_idle, 0.0]
        sampler = asyncio.create_task(_sample_rss(pid, stop, peak))
        by_process0 = _cpu_by_process(pid)
        db_pid = server_pid(database)
        db_cpu0 = _tree_cpu(db_pid)
        client_cpu0 = time.process_time()
        t0 = time.perf_counter()
        results = await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - t0
        client_cpu = time.process_time() - client_cpu0
        db_cpu = _tree_cpu(db_pid) - db_cpu0
        by_process = {k: v - by_process0.get(k, 0.0) for k, v in _cpu_by_process(pid).items()}
        server_cpu_s = sum(by_process.values())
        stop.set()
        await sampler
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    ideal = CHAIN * delay
    return ConcurrencyRow(
        backend=backend,
        n=n,
        workers=workers,
        ok=sum(results),
        wall_s=round(wall, 3),
        ideal_s=round(ideal, 3),
        ratio=round(wall / ideal, 2),
        rps=round(n / wall, 1),
        p50_ms=round(median(latencies), 1) if latencies else 0.0,
        p95_ms=round(percentile(latencies, 95), 1) if latencies else 0.0,
        rss_idle_mb=round(rss_idle, 1),
        rss_peak_mb=round(peak[0], 1),
        server_cpu_s=round(server_cpu_s, 2),
        client_cpu_s=round(client_cpu, 2),
        rss_worker_peak_mb=round(peak[1], 1),
        failures=failures,
        worker_cpu_s=sorted((round(v, 2) for v in by_process.values() if v >= 0.01), reverse=True),
        db_cpu_s=round(db_cpu, 2),
    )


TOP_REPEATS = 5
"""Runs of the highest load level (the median run is reported)."""


def top_repeats(n: int, levels: list[int]) -> int:
    """How often level ``n`` is run: :data:`TOP_REPEATS` times for the highest level above 100, else once."""
    return TOP_REPEATS if n == max(levels) and n > 100 else 1


def _configs(backends: list[str], workers: list[int]) -> list[tuple[str, int]]:
    """(backend, K) pairs: memory:// is per process, so only K = 1."""
    return [(b, k) for b in backends for k in workers if not (b == "memory" and k > 1)]


async def run_concurrency(
    workdir: Path,
    levels: list[int],
    backends: list[str],
    delay: float = 0.1,
    workers: list[int] | None = None,
) -> dict[str, Any]:
    """Section 3 at every load level, on a fresh server (and database) per checkpointer and K.

    The servers of one checkpointer (K = 1, 2, …) run side by side and each load level visits
    them in turn, so that a change in what else the shared machine runs falls on every K alike
    (an idle server costs nothing); the top level repeats that round :data:`TOP_REPEATS` times.
    """
    from bench.pg_server import UNAVAILABLE, new_database, postgres_server

    raise_fd_limit()
    rows: list[ConcurrencyRow] = []
    skipped: list[str] = []
    with postgres_server() if "postgres" in backends else contextlib.nullcontext() as pg_url:
        for backend in backends:
            ks = [k for b, k in _configs([backend], workers or [1])]
            if backend == "postgres" and pg_url is None:
                skipped.append(f"postgres: {'; '.join(UNAVAILABLE) or 'unavailable'}")
                continue
            with contextlib.ExitStack() as stack:
                subjects: list[tuple[int, str, int, str | None]] = []  # (K, base URL, pid, database)
                for k in ks:
                    if backend == "memory":
                        url = "memory://"
                    elif backend == "postgres":
                        url = new_database(pg_url)
                    else:
                        url = f"sqlite:///{workdir / f'server-{backend}-k{k}.db'}"
                    base, pid = stack.enter_context(server(workdir, url, delay, workers=k))
                    subjects.append((k, base, pid, url if backend == "postgres" else None))
                for k, base, pid, db in subjects:
                    for _ in range(max(1, k)):
                        await load(base, pid, 5, backend, delay, k, db)  # warm-up (every worker, roughly)
                measured: dict[tuple[int, int], list[ConcurrencyRow]] = {}
                for n in levels:
                    # the saturated level is noisy from run to run (which worker accepts what, the
                    # other jobs on the cores): measured TOP_REPEATS times, the median run is kept
                    for _ in range(top_repeats(n, levels)):
                        for k, base, pid, db in subjects:
                            run = await load(base, pid, n, backend, delay, k, db)
                            measured.setdefault((k, n), []).append(run)
                for (k, n), runs in sorted(measured.items()):
                    row = sorted(runs, key=lambda r: r.wall_s)[len(runs) // 2]
                    row.runs_wall_s = [r.wall_s for r in runs]
                    rows.append(row)
                    print(f"  concurrency {backend:8} K={k} N={n:5}: {row.wall_s:.2f} s ({row.ratio}x), "
                          f"{row.rps} req/s, CPU {1000 * row.server_cpu_s / n:.1f} ms/turn, "
                          f"worker peak RSS {row.rss_worker_peak_mb} MB, ok {row.ok}/{n}")  # fmt: skip
    return {
        "rows": [asdict(r) for r in rows],
        "delay_s": delay,
        "chain": CHAIN,
        "skipped": skipped,
        "cores": os.cpu_count(),
        "load_before": os.getloadavg()[0],
    }


async def profile_server(workdir: Path, n: int, backend: str, delay: float = 0.1) -> dict[str, Any]:
    """Run ``n`` concurrent turns against a server under pyinstrument; where its CPU time goes."""
    from pyinstrument.session import Session

    from bench.profiling import summarize

    session_file = workdir / "server.pyisession"
    url = "memory://" if backend == "memory" else f"sqlite:///{workdir / f'server-prof-{backend}.db'}"
    with server(workdir, url, delay, profile=session_file) as (base, pid):
        await load(base, pid, 5, backend, delay)
        row = await load(base, pid, n, backend, delay)
    summary = summarize(Session.load(session_file))
    return {
        "n": n,
        "backend": backend,
        "wall_s": row.wall_s,
        "by_package": summary.by_package,
        "our_functions": summary.our_functions,
        "hot_functions": summary.hot_functions,
    }


def run_gc_probe(n: int) -> list[dict[str, Any]]:
    """``bench.gc_probe`` once per GC mode, each in a fresh process."""
    import json

    from bench.gc_probe import MODES

    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    rows = []
    for mode in MODES:
        out = subprocess.run(
            [sys.executable, "-m", "bench.gc_probe", str(n), mode],
            env=env, cwd=ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        print(f"  gc probe N={n} {mode:7}: wall {r['wall_s']} s, CPU {r['cpu_s']} s, in GC {r['gc_s']} s")
    return rows
