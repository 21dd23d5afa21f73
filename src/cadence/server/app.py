"""The FastAPI application factory and the uvicorn runner behind ``cadence serve``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from cadence import __version__
from cadence.errors import ConfigurationError
from cadence.logs import configure_logging
from cadence.orchestration.engine import Cadence
from cadence.persistence.databases import (
    connections_per_process,
    parse_database_url,
    postgres_connection_limit,
)
from cadence.persistence.locks import DatabaseLocks, LeaderJob, open_database_locks
from cadence.persistence.retention import retention_job
from cadence.persistence.threads import ThreadStore, configured_thread_store
from cadence.server import admin, approvals, chat, memories, openai_compat, threads, web
from cadence.server.auth import AuthMiddleware, redact_keys_in_server_logs
from cadence.server.errors import JSONResponse, install_error_handlers
from cadence.server.limits import BodyLimitMiddleware
from cadence.server.service import ChatService
from cadence.server.validation import apply_schema_limits
from cadence.settings import Settings, get_settings

logger = logging.getLogger(__name__)


DESCRIPTION = """\
Cadence's HTTP API: chat (JSON, Server-Sent Events, WebSocket), threads, plugins,
health, and an OpenAI-compatible `/v1/chat/completions`.

Errors are always `{"error": {"code": ..., "message": ...}}`. With API keys configured,
send `Authorization: Bearer <key>` or `X-API-Key: <key>` (everything but `/health`, `/ready`).
"""


TOO_LARGE_RESPONSE: dict[str, Any] = {
    "description": "The body is larger than CADENCE_MAX_REQUEST_BYTES.",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
}


def create_app(
    settings: Settings | None = None,
    engine: Cadence | None = None,
    *,
    thread_store: ThreadStore | None = None,
    engine_kwargs: Mapping[str, Any] | None = None,
    db_locks: DatabaseLocks | None = None,
) -> FastAPI:
    """Build the app. Its lifespan opens ``Cadence.open(settings)`` unless ``engine`` is given.

    The thread store and the database locks (per-thread serialization across processes,
    leader jobs) are opened from ``settings.resolved_database_url`` (the checkpointer's
    database) unless ``thread_store`` / ``db_locks`` are given; ``engine_kwargs`` go to
    ``Cadence.open`` (e.g. ``model=`` in tests). The lifespan also runs the checkpoint
    retention in the background, in one process of all sharing the database.
    """
    settings = settings or (engine.settings if engine is not None else get_settings())

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            store = thread_store
            if store is None:
                store = await stack.enter_async_context(configured_thread_store(settings))
            locks = db_locks
            if locks is None:
                locks = await stack.enter_async_context(open_database_locks(settings.resolved_database_url))
            eng = engine
            if eng is None:  # the engine records the turns it runs itself (cadence chat) in the same store
                options = {"thread_store": store, **dict(engine_kwargs or {})}
                eng = await stack.enter_async_context(Cadence.open(settings, **options))
            service = ChatService(eng, store, settings, locks)
            app.state.db_locks = locks
            job = retention_job(settings)
            if job is not None:
                retention = LeaderJob(locks, "retention", job, settings.retention_interval_s)
                app.state.retention = await stack.enter_async_context(retention)
            await memories.start_consolidation(stack, app, service, locks, settings)  # memory, on idle
            app.state.service = service
            app.state.reload_lock = asyncio.Lock()
            tune_gc()
            logger.info("Cadence server ready (%d plugin(s) loaded)", len(eng.plugins))
            stack.callback(on_stop_signal(service.begin_shutdown))
            try:
                yield
            finally:
                await service.drain(settings.shutdown_grace)
                app.state.service = None

    app = FastAPI(
        title="Cadence",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        default_response_class=JSONResponse,  # text that cannot be encoded is sent as U+FFFD
        docs_url=None,  # /docs is served by cadence.server.web with local assets
        redoc_url=None,
        openapi_tags=[
            {"name": "chat", "description": "Send messages; JSON, SSE or WebSocket."},
            {"name": "threads", "description": "A user's conversations."},
            {"name": "openai", "description": "OpenAI-compatible endpoints for the `openai` client."},
            {"name": "operations", "description": "Health, readiness and plugins."},
        ],
    )
    app.state.service = None
    app.state.settings = settings
    install_error_handlers(app)
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=settings.max_request_bytes,
        drain_s=settings.request_drain_s,
        body_timeout_s=settings.request_body_timeout_s,
    )
    app.add_middleware(AuthMiddleware, keys=[key.get_secret_value() for key in settings.api_keys])
    redact_keys_in_server_logs()  # a WebSocket's ?api_key= is in uvicorn's log lines
    for module in (chat, threads, approvals, memories, openai_compat, admin):
        app.include_router(module.router)
    app.state.api_routes = [
        r for m in (chat, threads, approvals, memories, openai_compat, admin) for r in m.router.routes
    ]
    web.install(app)  # the chat page at /, /docs offline
    _document(app, settings)
    return app


def _document(app: FastAPI, settings: Settings) -> None:
    """Complete the OpenAPI schema: the limits from ``settings``, 413 on every body, the API-key schemes
    (enforced by AuthMiddleware when keys are set)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
            tags=app.openapi_tags,
        )
        schema.setdefault("components", {})["securitySchemes"] = {
            "bearer": {
                "type": "http",
                "scheme": "bearer",
                "description": "An API key from CADENCE_API_KEYS.",
            },
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        }
        for path, ops in schema.get("paths", {}).items():
            if path in {"/health", "/ready"}:
                continue
            for op in ops.values():
                if isinstance(op, dict):
                    op["security"] = [{"bearer": []}, {"apiKey": []}, {}]
        for ops in schema.get("paths", {}).values():
            for op in ops.values():
                if isinstance(op, dict) and "requestBody" in op:
                    op.setdefault("responses", {}).setdefault("413", TOO_LARGE_RESPONSE)
        apply_schema_limits(schema, settings)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def tune_gc() -> None:
    """Freeze start-up objects and raise the collection threshold.

    Under load a turn allocates many short-lived objects; with CPython's default
    thresholds full collections re-scan the long-lived graph, models and modules
    again and again (over half the CPU time at 1,000 concurrent turns, see
    docs/benchmarks.md). Freezing moves start-up objects out of the collector's view.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def bind_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A bound TCP socket for ``host:port``; ConfigurationError (one line) if the address is unusable.

    ``reuse_port``: bind with ``SO_REUSEPORT``, so that worker processes can each listen on
    the same port with sockets of their own (:func:`worker_sockets`); the socket reserves the port.
    The port is first bound without it: another server already on the port (even one with
    ``SO_REUSEPORT`` sockets, like a second ``cadence serve --workers K``) is refused, not joined.
    """
    sock = _bind(host, port, reuse_port=False)
    if not reuse_port:
        return sock
    port = sock.getsockname()[1]
    sock.close()
    return _bind(host, port, reuse_port=True)


def _bind(host: str, port: int, *, reuse_port: bool) -> socket.socket:
    """:func:`bind_socket`'s one attempt."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        except OSError as exc:  # refused here (a sandbox): the workers share this socket instead
            logger.warning("SO_REUSEPORT refused; the workers share one socket", extra={"error": str(exc)})
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise ConfigurationError(
            f"Cannot listen on {host}:{port}: {reason}. Choose another --port (CADENCE_PORT) "
            "or --host (CADENCE_HOST)."
        ) from exc
    sock.set_inheritable(True)
    return sock


def server_url(sock: socket.socket) -> str:
    """The ``http://host:port`` a bound socket serves."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


def on_stop_signal(begin: Callable[[], None]) -> Callable[[], None]:
    """Call ``begin`` on the event loop when the process is told to stop (SIGINT, SIGTERM), before the
    handler already installed (uvicorn's, which then stops accepting and waits for the requests);
    returns the function that puts the earlier handlers back.

    The requests still wait for their turns at that moment, so the turns' grace is spent while they
    can still answer. Signal handlers belong to the main thread: elsewhere (a server in a thread, in
    tests) or without a handler to chain to, nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    earlier = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    installed: dict[int, Callable[..., None]] = {}
    for sig, handler in earlier.items():
        if not callable(handler):
            continue

        def chained(signum: int, frame: Any, _next: Callable[..., Any] = handler) -> None:
            loop.call_soon_threadsafe(begin)
            _next(signum, frame)

        signal.signal(sig, chained)
        installed[sig] = chained

    def restore() -> None:
        for sig, chained in installed.items():
            if signal.getsignal(sig) is chained:  # still ours: put the earlier one back
                signal.signal(sig, earlier[sig])

    return restore


def graceful_shutdown_s(settings: Settings) -> int:
    """How long uvicorn waits for open requests when it stops: the turns' grace, then time to answer."""
    return int(settings.shutdown_grace) + 10


def websocket_frame_limit(settings: Settings) -> int:
    """uvicorn's WebSocket frame limit: above ``CADENCE_MAX_REQUEST_BYTES``, so that a message over
    the limit reaches the app, which answers it with a 413 event and keeps the socket open (uvicorn
    would close the socket, 1009, without a word)."""
    return 2 * settings.max_request_bytes + 64 * 1024


async def serve(
    settings: Settings,
    sock: socket.socket,
    *,
    on_ready: Callable[[str], None] | None = None,
    **engine_kwargs: Any,
) -> None:
    """Open the engine and the thread store, then serve on ``sock`` until uvicorn stops.

    Everything that can be misconfigured (model, database, data folder) is opened
    before the server starts, so a mistake is a :class:`~cadence.errors.CadenceError`
    raised here (one line in the CLI), not a failed ASGI lifespan. ``on_ready`` gets the
    URL once the server accepts requests.
    """
    import uvicorn

    level = str(settings.log_level or "WARNING").lower()
    async with (
        configured_thread_store(settings) as store,
        open_database_locks(settings.resolved_database_url) as locks,
        Cadence.open(settings, thread_store=store, **engine_kwargs) as engine,
    ):
        app = create_app(settings, engine, thread_store=store, db_locks=locks)
        config = uvicorn.Config(
            app,
            log_level=level,
            lifespan="on",
            timeout_graceful_shutdown=graceful_shutdown_s(settings),
            ws_max_size=websocket_frame_limit(settings),
        )
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started and on_ready is not None:
            on_ready(server_url(sock))
        await task


def run_server(
    settings: Settings | None = None,
    host: str | None = None,
    port: int | None = None,
    *,
    on_ready: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> None:
    """Serve the API until interrupted (``cadence serve``); ``on_ready`` gets the URL when it is up.

    ``workers`` (default ``CADENCE_WORKERS``) above 1 serves with that many processes
    (:func:`serve_workers`).
    """
    settings = settings or get_settings()
    configure_logging(settings.log_level or "WARNING")
    count = settings.workers if workers is None else workers
    sock = bind_socket(
        host or settings.host,
        settings.port if port is None else port,
        reuse_port=count > 1 and per_worker_sockets_supported(),
    )
    try:
        if count > 1:
            serve_workers(settings, sock, count, on_ready=on_ready)
        else:
            asyncio.run(serve(settings, sock, on_ready=on_ready))
    finally:
        sock.close()


# -- several worker processes --------------------------------------------------------------
WORKER_SETTINGS_ENV = "CADENCE__WORKER_SETTINGS"
"""The parent's settings (JSON) for its worker processes (not a setting: the double underscore)."""


def per_worker_sockets_supported() -> bool:
    """Whether each worker can listen with a socket of its own (Linux ``SO_REUSEPORT``).

    The kernel then spreads new connections evenly over the workers' sockets. Elsewhere
    (macOS does not balance ``SO_REUSEPORT``, Windows lacks it) the workers share one socket.
    """
    return sys.platform == "linux" and hasattr(socket, "SO_REUSEPORT")


def _listen_in_worker(family: int, address: tuple[Any, ...]) -> socket.socket:
    """A worker's own socket on ``address`` (``SO_REUSEPORT``: one more queue for the same port)."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    return sock


class WorkerSocket:
    """Stands for a listening socket each worker process opens for itself on the parent's port.

    A shared socket has one accept queue, and whichever worker wakes first accepts a whole
    burst of connections (measured: a 55/45 split of the work between two workers). With a
    socket per worker (``SO_REUSEPORT``) the kernel hashes each connection to one worker's
    queue. uvicorn's supervisor hands the same list of sockets to every worker it starts (or
    restarts); a worker unpickles this as a new socket of its own (``__reduce__``), so the
    supervisor is used as it is.
    """

    def __init__(self, sock: socket.socket) -> None:
        self.family = int(sock.family)
        self.address = tuple(sock.getsockname())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_listen_in_worker, (self.family, self.address))


def worker_sockets(sock: socket.socket) -> list[Any]:
    """What the workers listen with: a socket each when ``sock`` was bound for it, else ``sock`` shared."""
    if not per_worker_sockets_supported():
        return [sock]
    try:
        own = bool(sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT))
    except OSError:
        own = False
    return [WorkerSocket(sock)] if own else [sock]


def settings_for_workers(settings: Settings) -> str:
    """``settings`` as JSON a worker can rebuild them from (secrets included: an environment variable
    of the parent, inherited by its workers only)."""
    data = settings.model_dump(mode="json")
    data["database_url"] = settings.database_url.get_secret_value() if settings.database_url else None
    data["api_keys"] = [key.get_secret_value() for key in settings.api_keys]
    for name in list(data):
        field = getattr(settings, name, None)
        if hasattr(field, "get_secret_value"):
            data[name] = field.get_secret_value()
    return json.dumps(data)


def worker_settings() -> Settings:
    """The settings a worker process runs with: its parent's, else the environment's."""
    raw = os.environ.get(WORKER_SETTINGS_ENV)
    return Settings(**json.loads(raw)) if raw else get_settings()


def worker_app() -> FastAPI:
    """The app factory each worker process calls (``uvicorn --factory cadence.server.app:worker_app``)."""
    settings = worker_settings()
    configure_logging(settings.log_level or "WARNING")
    return create_app(settings)


async def _preflight(settings: Settings, workers: int = 1) -> None:
    """Open everything once in the parent: a misconfiguration is one line here, not K failing workers
    (and the schemas exist before the workers race to create them). On PostgreSQL, warn when ``workers``
    processes could open more connections than the server accepts (:func:`check_connection_budget`)."""
    async with (
        configured_thread_store(settings),
        open_database_locks(settings.resolved_database_url),
        Cadence.open(settings),
    ):
        await check_connection_budget(settings, workers)


async def check_connection_budget(settings: Settings, workers: int) -> int | None:
    """Warn when ``workers`` processes on PostgreSQL could need more connections than it accepts.

    Returns the server's limit for ordinary users (None for SQLite and memory). The pools open
    connections on demand, so an over-budget set-up works until a burst of turns needs them all,
    then fails with PostgreSQL's "too many clients": better said once at start.
    """
    url = settings.resolved_database_url
    kind, target = parse_database_url(url)
    if kind != "postgres":
        return None
    limit = await postgres_connection_limit(url, target)
    needed = workers * connections_per_process(settings.postgres_pool_size, memory=settings.memory)
    if needed > limit:
        logger.warning(
            "%d worker(s) may open up to %d PostgreSQL connections, more than the server's %d: lower "
            "CADENCE_POSTGRES_POOL_SIZE or raise max_connections (docs/deployment.md)",
            workers,
            needed,
            limit,
            extra={"workers": workers, "connections": needed, "limit": limit},
        )
    return limit


def serve_workers(
    settings: Settings,
    sock: socket.socket,
    workers: int,
    *,
    on_ready: Callable[[str], None] | None = None,
    app_factory: str = "cadence.server.app:worker_app",
    preflight: bool = True,
    **uvicorn_options: Any,
) -> None:
    """Serve on ``sock`` with ``workers`` processes (uvicorn's supervisor) until SIGINT/SIGTERM.

    Each worker builds its own app with ``app_factory`` (an import string of a function returning
    the app) and opens its own engine and connections to the shared database; the workers accept
    connections from the one listening socket. Per-thread serialization across them is the database's
    (:mod:`cadence.persistence.locks`); background jobs run in one of them (``LeaderJob``).
    A ``memory://`` database is per process, so it cannot be shared: ConfigurationError.
    ``uvicorn_options`` go to ``uvicorn.Config`` (e.g. ``timeout_keep_alive``).
    """
    import threading

    import uvicorn

    from cadence.persistence.databases import parse_database_url

    if parse_database_url(settings.resolved_database_url)[0] == "memory":
        raise ConfigurationError(
            "Several workers need a database they can share: set CADENCE_DATABASE_URL to sqlite:///... "
            "or postgresql://... (memory:// is per process), or serve with one worker."
        )
    if preflight:
        asyncio.run(_preflight(settings, workers))
    os.environ[WORKER_SETTINGS_ENV] = settings_for_workers(settings)
    config = uvicorn.Config(
        app_factory,
        factory=True,
        workers=workers,
        log_level=str(settings.log_level or "WARNING").lower(),
        lifespan="on",
        timeout_graceful_shutdown=graceful_shutdown_s(settings),
        ws_max_size=websocket_frame_limit(settings),
        **uvicorn_options,
    )
    url = server_url(sock)
    supervisor = worker_supervisor(config, worker_sockets(sock), settings.worker_start_grace_s)
    if on_ready is not None:
        threading.Thread(target=_announce_when_ready, args=(url, on_ready, supervisor), daemon=True).start()
    supervisor.run()


def describe_exit(exitcode: int | None) -> dict[str, Any]:
    """How a process ended, as log extras: ``exit_code`` (its status, or None while unknown), and
    ``signal`` when a signal ended it (its name: ``SIGKILL`` for ``kill -9`` or the OOM killer)."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = str(-exitcode)
        return {"exit_code": exitcode, "signal": name}
    return {"exit_code": exitcode}


def worker_supervisor(config: Any, sockets: list[Any], start_grace_s: float = 60.0) -> Any:
    """uvicorn's worker supervisor (``Multiprocess``) that says, as warnings, when a worker process dies
    (pid, exit code or signal) and when it is replaced (the new pid): uvicorn logs it at INFO only, which
    ``CADENCE_LOG_LEVEL`` (default WARNING) hides, so a worker killed by a plugin (``os._exit``, a
    segfault, the OOM killer) went unnoticed. A worker younger than ``start_grace_s``
    (``CADENCE_WORKER_START_GRACE_S``) is replaced only if it dies, not for being slow to answer: it
    answers only once it has imported Cadence, which took longer than uvicorn's 5 s on a loaded machine,
    and uvicorn then killed and restarted starting workers again and again."""
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess, multiprocess

    class LoggingMultiprocess(Multiprocess):
        """uvicorn's supervisor, with a warning for each worker it finds dead or hung and replaces."""

        def __init__(self, config: Any, sockets: list[Any]) -> None:
            super().__init__(config, sockets)
            self.first_seen: dict[Any, float] = {}

        def keep_subprocess_alive(self) -> None:
            """uvicorn's check of the workers (dead or not answering: killed and replaced), with the
            start-up grace and a warning for each one replaced."""
            if self.should_exit.is_set():
                return
            now = time.monotonic()
            for idx, process in enumerate(self.processes):
                young = now - self.first_seen.setdefault(process, now) < start_grace_s
                alive = process.process.is_alive()
                if alive and (young or process.is_alive(timeout=self.config.timeout_worker_healthcheck)):
                    continue
                process.kill()  # hung (not answering its health check): killed; dead: reaped
                process.join()
                if process.exitcode == STARTUP_FAILURE:  # the app cannot start: every restart would fail
                    logger.error(
                        "worker process %s failed to start; stopping the server", process.pid,
                        extra={"pid": process.pid, **describe_exit(process.exitcode)},
                    )  # fmt: skip
                    self.should_exit.set()
                    return
                if self.should_exit.is_set():
                    return
                how = describe_exit(process.exitcode)
                ended = f"signal {how['signal']}" if "signal" in how else f"exit code {how['exit_code']}"
                cause = "stopped answering its health check and was killed" if alive else "died"
                logger.warning(
                    "worker process %s %s (%s); starting a replacement", process.pid, cause, ended,
                    extra={"pid": process.pid, **how},
                )  # fmt: skip
                replacement = multiprocess.Process(self.config, self.sockets)
                replacement.start()
                self.processes[idx] = replacement
                self.first_seen.pop(process, None)
                self.first_seen[replacement] = time.monotonic()
                logger.warning(
                    "worker process %s replaced by %s", process.pid, replacement.pid,
                    extra={"pid": replacement.pid, "replaces": process.pid},
                )  # fmt: skip

    return LoggingMultiprocess(config, sockets)


def _announce_when_ready(url: str, on_ready: Callable[[str], None], supervisor: Any) -> None:
    """Call ``on_ready(url)`` once a worker answers ``/health``."""
    import time
    import urllib.request

    while not supervisor.should_exit.is_set():
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as resp:
                if resp.status == 200:
                    on_ready(url)
                    return
        except OSError:
            pass
        time.sleep(0.1)
