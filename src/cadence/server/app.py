"""The FastAPI application factory and the uvicorn runner behind ``cadence serve``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from cadence import __version__
from cadence.orchestration.engine import Cadence
from cadence.persistence.threads import ThreadStore, open_thread_store
from cadence.server import admin, chat, openai_compat, threads
from cadence.server.auth import AuthMiddleware
from cadence.server.errors import install_error_handlers
from cadence.server.service import ChatService
from cadence.settings import Settings, get_settings

logger = logging.getLogger(__name__)

SHUTDOWN_GRACE_S = 10.0

DESCRIPTION = """\
Cadence's HTTP API: chat (JSON, Server-Sent Events, WebSocket), threads, plugins,
health, and an OpenAI-compatible `/v1/chat/completions`.

Errors are always `{"error": {"code": ..., "message": ...}}`. With API keys configured,
send `Authorization: Bearer <key>` or `X-API-Key: <key>` (everything but `/health`, `/ready`).
"""


def create_app(
    settings: Settings | None = None,
    engine: Cadence | None = None,
    *,
    thread_store: ThreadStore | None = None,
    engine_kwargs: Mapping[str, Any] | None = None,
) -> FastAPI:
    """Build the app. Its lifespan opens ``Cadence.open(settings)`` unless ``engine`` is given.

    The thread store is opened from ``settings.resolved_database_url`` (the checkpointer's
    database) unless ``thread_store`` is given; ``engine_kwargs`` go to ``Cadence.open``
    (e.g. ``model=`` in tests).
    """
    settings = settings or (engine.settings if engine is not None else get_settings())

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            store = thread_store
            if store is None:
                store = await stack.enter_async_context(open_thread_store(settings.resolved_database_url))
            eng = engine
            if eng is None:
                eng = await stack.enter_async_context(Cadence.open(settings, **dict(engine_kwargs or {})))
            service = ChatService(eng, store, settings)
            app.state.service = service
            app.state.reload_lock = asyncio.Lock()
            tune_gc()
            logger.info("Cadence server ready (%d plugin(s) loaded)", len(eng.plugins))
            try:
                yield
            finally:
                await service.drain(SHUTDOWN_GRACE_S)
                app.state.service = None

    app = FastAPI(
        title="Cadence",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
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
    app.add_middleware(AuthMiddleware, keys=list(settings.api_keys))
    for module in (chat, threads, openai_compat, admin):
        app.include_router(module.router)
    _document_security(app)
    return app


def _document_security(app: FastAPI) -> None:
    """Add the API-key schemes to the OpenAPI schema (enforced by AuthMiddleware when keys are set)."""

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


def run_server(settings: Settings | None = None, host: str | None = None, port: int | None = None) -> None:
    """Serve the API with uvicorn until interrupted (``cadence serve``)."""
    import uvicorn

    settings = settings or get_settings()
    level = str(settings.log_level or "WARNING").upper()
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        log_level=level.lower(),
        timeout_graceful_shutdown=int(SHUTDOWN_GRACE_S) + 5,
    )
