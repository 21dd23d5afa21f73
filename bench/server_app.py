"""Launch Cadence's HTTP server with the benchmark's policy model (run as a subprocess by the bench).

``python -m bench.server_app --port 8765 --database-url sqlite:///x.db --delay 0.1``
(``--profile out.pyisession`` saves a pyinstrument session on shutdown; ``--workers 2`` serves
with two processes through ``cadence.server.app.serve_workers``, each building its app with
:func:`worker_app`, like ``cadence serve --workers 2``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import tempfile
from pathlib import Path

from bench.conversations import AGENTS
from bench.policy_model import PolicyChatModel


def raise_fd_limit() -> None:
    """Allow as many open sockets as the hard limit permits (1000 concurrent connections)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


DELAY_ENV = "BENCH_MODEL_DELAY_S"
KEEP_ALIVE_S = 600
"""The client opens its N connections before sending: on a busy machine that takes longer than
uvicorn's default 5 s keep-alive, which would close the first ones before their request."""


def worker_app() -> object:
    """The app factory of each worker process: the parent's settings, the policy model."""
    from cadence.server import create_app
    from cadence.server.app import worker_settings

    model = PolicyChatModel(delay_s=float(os.environ.get(DELAY_ENV, "0.1")))
    return create_app(worker_settings(), engine_kwargs={"model": model})


async def _create_schemas(url: str) -> None:
    """Create the tables once before the workers start (the policy model needs no engine preflight)."""
    from cadence.persistence import open_checkpointer
    from cadence.persistence.threads import open_thread_store

    async with open_thread_store(url), open_checkpointer(url):
        pass


def main() -> None:
    """Parse arguments, build the app and serve it until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url", default="memory://")
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--profile", default=None, help="Save a pyinstrument session here on shutdown.")
    parser.add_argument("--workers", type=int, default=1, help="Worker processes (one database).")
    args = parser.parse_args()
    raise_fd_limit()

    import uvicorn

    from cadence.server import create_app
    from cadence.settings import Settings

    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="cadence-bench-server-"))
    settings = Settings(
        data_dir=data_dir,
        database_url=args.database_url,
        entry_points_enabled=False,
        builtin_plugins=list(AGENTS),
        log_level="WARNING",
    )
    if args.workers > 1:
        from cadence.server.app import bind_socket, per_worker_sockets_supported, serve_workers

        os.environ[DELAY_ENV] = str(args.delay)
        asyncio.run(_create_schemas(settings.resolved_database_url))
        # like ``cadence serve --workers K``: a listening socket per worker where the OS balances them
        sock = bind_socket("127.0.0.1", args.port, reuse_port=per_worker_sockets_supported())
        factory = "bench.server_app:worker_app"
        options = {"preflight": False, "timeout_keep_alive": KEEP_ALIVE_S, "backlog": 4096}
        serve_workers(settings, sock, args.workers, app_factory=factory, **options)
        return
    app = create_app(settings, engine_kwargs={"model": PolicyChatModel(delay_s=args.delay)})
    profiler = None
    if args.profile:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.001, async_mode="disabled")
        profiler.start()
    try:
        uvicorn.run(
            app, host="127.0.0.1", port=args.port, log_level="warning", backlog=4096, access_log=False,
            timeout_keep_alive=KEEP_ALIVE_S,
        )  # fmt: skip
    finally:
        if profiler is not None:
            profiler.stop()
            profiler.last_session.save(args.profile)


if __name__ == "__main__":
    main()
