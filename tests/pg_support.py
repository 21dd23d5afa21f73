"""A throwaway PostgreSQL server for tests: ``postgres_server_url`` (session-scoped fixture).

Starts the locally installed PostgreSQL binaries (``initdb``/``pg_ctl``, found on ``PATH``,
in ``/usr/local/bin`` or under ``/usr/lib/postgresql/*/bin``) on 127.0.0.1 and a free port,
with its data directory and unix socket in a temporary folder, trust authentication and
durability switched off (fsync) for speed. PostgreSQL refuses to run as root, so when the
tests run as root the server runs as the ``postgres`` system user.

The fixture yields ``postgresql://postgres@127.0.0.1:PORT/postgres`` and stops the server
and removes the folder at the end of the session. It SKIPS (with the reason) when the
binaries, the ``postgres`` user (as root) or the Python packages (``psycopg``,
``langgraph-checkpoint-postgres``) are missing; it FAILS, with the server log, when the
binaries are there but the server does not start.

:func:`fresh_database` creates an empty database on that server for one test.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_USER = "postgres"
START_TIMEOUT_S = 60


def _find_bindir() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl`` (newest install first)."""
    candidates: list[Path] = []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    candidates.append(Path("/usr/local/bin"))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for bindir in candidates:
        if all(os.access(bindir / name, os.X_OK) for name in ("initdb", "pg_ctl", "postgres")):
            return bindir
    return None


def _missing_python_packages() -> list[str]:
    missing = []
    for module, requirement in (
        ("psycopg", "psycopg[binary,pool]>=3.2"),
        ("psycopg_pool", "psycopg[binary,pool]>=3.2"),
        ("langgraph.checkpoint.postgres", "langgraph-checkpoint-postgres>=3.0,<4"),
    ):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found and requirement not in missing:
            missing.append(requirement)
    return missing


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Runner:
    """Runs the server's commands as ``postgres`` when we are root, else as ourselves."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.as_root = os.geteuid() == 0
        self.prefix: list[str] = []
        if self.as_root:
            runuser = shutil.which("runuser")
            self.prefix = [runuser, "-u", PG_USER, "--"] if runuser else []

    def __call__(self, *args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        argv = [str(a) for a in args]
        if self.as_root and not self.prefix:  # no runuser: fall back to su
            argv = ["su", PG_USER, "-s", "/bin/sh", "-c", subprocess.list2cmdline(argv)]
        else:
            argv = [*self.prefix, *argv]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = env["LANG"] = "C"
        return subprocess.run(
            argv, cwd=self.workdir, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )


def _log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """Start a private PostgreSQL server for the session and yield its URL (see the module docstring)."""
    missing = _missing_python_packages()
    if missing:
        pytest.skip(f"PostgreSQL tests need the Python packages: {', '.join(missing)}")
    bindir = _find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL tests need the server binaries (initdb, pg_ctl, postgres); none found")
    uid = gid = None
    if os.geteuid() == 0:
        try:
            entry = pwd.getpwnam(PG_USER)
        except KeyError:
            pytest.skip(f"PostgreSQL refuses to run as root and there is no {PG_USER!r} system user")
        uid, gid = entry.pw_uid, entry.pw_gid

    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="cadence-pg-"))
    datadir, sockdir, logfile = workdir / "data", workdir / "sock", workdir / "server.log"
    sockdir.mkdir()
    if uid is not None:
        for path in (workdir, sockdir):
            os.chown(path, uid, gid)
    os.chmod(workdir, 0o700)
    run = _Runner(workdir)
    running = False
    try:
        init = run(
            bindir / "initdb", "-D", datadir, "-U", PG_USER, "-A", "trust",
            "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
        )  # fmt: skip
        if init.returncode != 0:
            pytest.fail(f"initdb failed ({init.returncode}):\n{init.stdout}\n{init.stderr}")
        port = _free_port()
        options = (
            f"-h 127.0.0.1 -p {port} -k {sockdir} -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=100"
        )
        start = run(
            bindir / "pg_ctl", "-D", datadir, "-l", logfile, "-o", options,
            "-w", "-t", str(START_TIMEOUT_S), "start",
        )  # fmt: skip
        running = start.returncode == 0
        if not running:
            pytest.fail(
                f"pg_ctl start failed ({start.returncode}):\n{start.stdout}\n{start.stderr}\n"
                f"server log:\n{_log_tail(logfile)}"
            )
        url = f"postgresql://{PG_USER}@127.0.0.1:{port}/postgres"
        _create_database(url, "cadence_test")
        print(f"\n[pg_support] PostgreSQL ready on port {port} in {time.monotonic() - started:.2f}s")
        yield url.rsplit("/", 1)[0] + "/cadence_test"
    finally:
        if running:
            stop = run(bindir / "pg_ctl", "-D", datadir, "-m", "immediate", "-w", "stop", timeout=60)
            if stop.returncode != 0:  # never leave a server behind
                with contextlib.suppress(Exception):
                    pid = int((datadir / "postmaster.pid").read_text().split()[0])
                    os.kill(pid, 9)
        shutil.rmtree(workdir, ignore_errors=True)


def _create_database(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')


def fresh_database(server_url: str) -> str:
    """Create an empty database on the server of ``server_url`` and return its URL."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    base = server_url.rsplit("/", 1)[0]
    _create_database(f"{base}/postgres", name)
    return f"{base}/{name}"


__all__ = ["fresh_database", "postgres_server_url"]
