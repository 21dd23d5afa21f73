"""Health, readiness and plugin routes."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi import Path as PathParam

from cadence import __version__
from cadence.errors import PermissionDeniedError
from cadence.orchestration.modes import ENTRY_NODES, MODES, check_mode
from cadence.orchestration.tones import TONE_NAMES
from cadence.server.auth import Principal, get_principal
from cadence.server.chat import ERRORS
from cadence.server.deps import get_service
from cadence.server.errors import JSONResponse, error_body
from cadence.server.schemas import (
    GraphEdgeOut,
    GraphNodeOut,
    GraphResponse,
    HealthResponse,
    ModeOut,
    ModesResponse,
    PluginList,
    PluginStatusOut,
    ReadyResponse,
)
from cadence.server.service import ChatService

logger = logging.getLogger(__name__)

router = APIRouter(tags=["operations"])


@router.get("/health", response_model=HealthResponse, summary="Liveness (no authentication)")
async def health() -> HealthResponse:
    """The process is up."""
    return HealthResponse(version=__version__)


@router.get(
    "/ready",
    response_model=ReadyResponse,
    response_model_exclude_none=True,
    summary="Readiness: engine loaded, database reachable, plugins not saturated (no authentication)",
    responses={503: {"description": "Not ready; `checks` says what failed."}},
)
async def ready(request: Request) -> Any:
    """200 when the engine is loaded and the database answers, else 503 with the failing checks.

    A plugin whose tool threads are all stuck (hung synchronous tools) makes the status
    ``degraded`` (still 200: every other plugin keeps working) with a ``plugin:<name>`` check.
    """
    checks: dict[str, str] = {}
    service: ChatService | None = getattr(request.app.state, "service", None)
    checks["engine"] = "ok" if service is not None and service.engine.graph is not None else "not loaded"
    if service is None:
        checks["database"] = "not open"
    else:
        try:
            await asyncio.wait_for(service.store.ping(), timeout=5)
            checks["database"] = "ok"
        except Exception as exc:  # report, don't raise: this is a probe
            checks["database"] = f"error: {type(exc).__name__}: {exc}"
    degraded = _saturated_plugins(service) if service is not None else {}
    if all(v == "ok" for v in checks.values()):
        if degraded:
            checks.update({f"plugin:{name}": f"degraded: {detail}" for name, detail in degraded.items()})
            return ReadyResponse(status="degraded", checks=checks, details=_model_workers())
        return ReadyResponse(status="ready", checks=checks, details=_model_workers())
    body = error_body(
        "not_ready", "The server is not ready: " + ", ".join(f"{k} {v}" for k, v in checks.items())
    )
    return JSONResponse({**body, "status": "not_ready", "checks": checks}, status_code=503)


@router.head("/health", include_in_schema=False)
@router.head("/ready", include_in_schema=False)
async def probe_head(request: Request) -> Response:
    """``HEAD /health`` and ``HEAD /ready`` (uptime monitors probe with HEAD): the GET's status, no body."""
    if request.url.path == "/health":
        return Response(status_code=200)
    answer = await ready(request)
    return Response(status_code=answer.status_code if isinstance(answer, Response) else 200)


def _model_workers() -> dict[str, Any] | None:
    """The embedded model's running worker processes (model file, pid, restarts), if any."""
    module = sys.modules.get("cadence.models.local.worker")
    workers = module.running_workers() if module is not None else []
    if not workers:
        return None
    return {
        "embedded_model_workers": [
            {"model": Path(w.key.path).name, "pid": w.pid, "restarts": w.restarts} for w in workers
        ]
    }


def _saturated_plugins(service: ChatService) -> dict[str, str]:
    """Plugins whose every tool thread is held by a call that timed out and never returned."""
    out: dict[str, str] = {}
    for name, bundle in service.engine.plugin_manager.bundles.items():
        stats = bundle.thread_pool.stats()
        if stats.saturated:
            out[name] = stats.describe()
    return out


def _plugin_list(service: ChatService) -> PluginList:
    return PluginList(plugins=[PluginStatusOut(**s.to_dict()) for s in service.engine.plugin_statuses])


@router.get(
    "/api/v1/plugins", response_model=PluginList, summary="List plugins and their status", responses=ERRORS
)
async def plugins(service: ChatService = Depends(get_service)) -> PluginList:
    """Every plugin candidate: loaded, failed (with the reason), overridden or disabled."""
    return _plugin_list(service)


@router.post(
    "/api/v1/plugins/reload",
    response_model=PluginList,
    summary="Rediscover plugins and rebuild the graph",
    responses=ERRORS,
)
async def reload_plugins(
    request: Request,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> PluginList:
    """Rebuild the graph in a worker thread; turns in flight finish on the old graph.

    With API keys on, only keys not bound to a user may reload (others get 403).
    """
    if not principal.is_admin:
        raise PermissionDeniedError(
            "Reloading plugins needs an API key not bound to a user.", code="forbidden"
        )
    async with request.app.state.reload_lock:
        await asyncio.to_thread(service.engine.reload)
    logger.info("plugins reloaded")
    return _plugin_list(service)


# -- modes and graphs (the web page's mode picker and graph view) ---------------------------
def _first_line(text: str | None) -> str:
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")


@router.get(
    "/api/v1/modes",
    response_model=ModesResponse,
    summary="The orchestration modes and answer tones a request may name",
    responses=ERRORS,
)
async def modes(service: ChatService = Depends(get_service)) -> ModesResponse:
    """Every mode (with its first node and whether it is ``CADENCE_MODE``) and every tone."""
    default = service.engine.mode
    out = []
    for name, builder in MODES.items():
        # the mode's own module (modes/<name>.py) describes it; else the builder's
        module = sys.modules.get(f"cadence.orchestration.modes.{name}") or sys.modules.get(builder.__module__)
        out.append(
            ModeOut(
                name=name,
                description=_first_line(getattr(module, "__doc__", None)),
                entry=ENTRY_NODES.get(name, ""),
                default=name == default,
            )
        )
    return ModesResponse(modes=out, default_mode=default, tones=list(TONE_NAMES), default_tone="natural")


def _graph(service: ChatService, mode: str) -> GraphResponse:
    """The mode's compiled graph as nodes, edges and Mermaid (compiles it on first use: run off the loop)."""
    drawable = service.engine.graph_for(mode).get_graph()
    edges = [
        GraphEdgeOut(
            source=e.source,
            target=e.target,
            conditional=bool(e.conditional),
            label=None if e.data is None else str(e.data),
        )
        for e in drawable.edges
    ]
    return GraphResponse(
        mode=mode,
        nodes=[GraphNodeOut(id=node_id) for node_id in drawable.nodes],
        edges=edges,
        mermaid=drawable.draw_mermaid(),
    )


@router.get(
    "/api/v1/modes/{mode}/graph",
    response_model=GraphResponse,
    summary="A mode's compiled graph (nodes, edges, Mermaid)",
    responses=ERRORS,
)
async def mode_graph(
    mode: Annotated[str, PathParam(max_length=40, description="A mode name (GET /api/v1/modes).")],
    service: ChatService = Depends(get_service),
) -> GraphResponse:
    """The graph a turn in ``mode`` runs on, with the plugins loaded now (422 ``unknown_mode``)."""
    name = check_mode(mode)
    return await asyncio.to_thread(_graph, service, name)
