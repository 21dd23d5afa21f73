"""A throwaway PostgreSQL server for the benchmark (the same recipe as the tests' ``pg_support``).

``with postgres_server() as url:`` starts the locally installed PostgreSQL binaries on loopback
(data directory in a temporary folder, fsync off: the benchmark measures Cadence, not the disk)
and yields ``postgresql://postgres@127.0.0.1:PORT/bench``; :func:`new_database` adds an empty
database. Yields None (with the reason in :data:`UNAVAILABLE`) when the binaries or the Python
packages are missing, so the PostgreSQL rows are skipped, not failed.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNAVAILABLE: list[str] = []
_DATA_DIRS: dict[str, Path] = {}
"""The data directory of each running server, by URL (for :func:`server_pid`)."""


def _support() -> object:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import pg_support
    finally:
        sys.path.pop(0)
    return pg_support


@contextlib.contextmanager
def postgres_server() -> Iterator[str | None]:
    """A private PostgreSQL server for the run, or None when it cannot start here."""
    try:
        pg: object = _support()
    except ImportError as exc:  # pytest missing: the helpers live with the tests
        UNAVAILABLE.append(f"tests/pg_support not importable: {exc}")
        yield None
        return
    missing = pg._missing_python_packages()  # type: ignore[attr-defined]
    bindir = pg._find_bindir()  # type: ignore[attr-defined]
    if missing or bindir is None:
        UNAVAILABLE.append(f"missing {', '.join(missing) or 'PostgreSQL server binaries'}")
        yield None
        return
    workdir = Path(tempfile.mkdtemp(prefix="cadence-bench-pg-"))
    datadir, sockdir, logfile = workdir / "data", workdir / "sock", workdir / "server.log"
    sockdir.mkdir()
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        for path in (workdir, sockdir):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    os.chmod(workdir, 0o700)
    run = pg._Runner(workdir)  # type: ignore[attr-defined]
    running = False
    url = ""
    try:
        init = run(bindir / "initdb", "-D", datadir, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                   "--locale=C", "--no-sync", "--no-instructions")  # fmt: skip
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed: {init.stderr}")
        port = pg._free_port()  # type: ignore[attr-defined]
        options = (
            f"-h 127.0.0.1 -p {port} -k {sockdir} -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        start = run(bindir / "pg_ctl", "-D", datadir, "-l", logfile, "-o", options, "-w", "-t", "60", "start")
        running = start.returncode == 0
        if not running:
            raise RuntimeError(f"pg_ctl start failed: {start.stderr}")
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        _DATA_DIRS[url] = datadir
        yield url
    finally:
        _DATA_DIRS.pop(url, None)
        if running:
            run(bindir / "pg_ctl", "-D", datadir, "-m", "immediate", "-w", "stop", timeout=60)
        shutil.rmtree(workdir, ignore_errors=True)


def server_pid(url: str | None) -> int | None:
    """The postmaster's pid of the server of ``url`` (a database URL on it); None for an unknown URL."""
    datadir = _DATA_DIRS.get((url or "").rsplit("/", 1)[0] + "/postgres")
    if datadir is None:
        return None
    try:
        return int((datadir / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def new_database(server_url: str) -> str:
    """An empty database on the server of ``server_url``; its URL."""
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + "/" + name
