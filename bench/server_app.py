"""Launch Cadence's HTTP server with the benchmark's policy model (run as a subprocess by the bench).

``python -m bench.server_app --port 8765 --database-url sqlite:///x.db --delay 0.1``
(``--profile out.pyisession`` saves a pyinstrument session on shutdown).
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    """Parse arguments, build the app and serve it until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url", default="memory://")
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--profile", default=None, help="Save a pyinstrument session here on shutdown.")
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
    app = create_app(settings, engine_kwargs={"model": PolicyChatModel(delay_s=args.delay)})
    profiler = None
    if args.profile:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.001, async_mode="disabled")
        profiler.start()
    try:
        uvicorn.run(
            app, host="127.0.0.1", port=args.port, log_level="warning", backlog=4096, access_log=False
        )
    finally:
        if profiler is not None:
            profiler.stop()
            profiler.last_session.save(args.profile)


if __name__ == "__main__":
    main()
