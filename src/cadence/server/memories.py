"""Memory routes: list the caller's long-term memories, forget one, forget them all.

Owner-checked like threads: a request acts as the user of its API key (or ``user_id`` when the
key is not bound), and only ever reads or deletes that user's memories; another user's memory
id is simply "not found". ``project_id`` is optional: without it the routes cover all of the
user's memories, with it that project's only. With ``CADENCE_MEMORY=off`` (nothing recalled or
kept) the routes still list and forget what was kept before: a user can always see and delete
what is stored about them (the store is opened for the request, :func:`managed_memory`).

The module also runs the consolidation job of ``cadence serve``: once the server has been idle
for ``CADENCE_MEMORY_CONSOLIDATE_IDLE_S`` after some activity, every user's memories are
consolidated (one process of all sharing the database does it, see ``LeaderJob``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, Field

from cadence.errors import NotFoundError, ValidationError
from cadence.persistence.locks import LeaderJob
from cadence.server.auth import Principal, get_principal, resolve_user
from cadence.server.chat import ERRORS
from cadence.server.deps import get_service
from cadence.server.service import ChatService
from cadence.server.threads import LabelQuery, UserQuery
from cadence.server.validation import limit, validate_label
from cadence.settings import Settings

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/api/v1/memories", tags=["memories"])

MAX_OFFSET = 2**31 - 1
"""Largest ``offset`` of the memory list."""
IDLE_POLL_S = 30.0
"""How often the idle consolidation looks whether the server is idle (at most)."""

MemoryPath = Annotated[
    str,
    Path(pattern=r"^[A-Za-z0-9_-]+$", description="The memory id.", json_schema_extra=limit("max_id_chars")),
]


def _check_project(project_id: str | None, service: ChatService) -> None:
    """422 for a project id that cannot name a project: an empty one meant "every project" (a
    DELETE with ``project_id=`` deleted all of the user's memories)."""
    if project_id is not None and not project_id.strip():
        raise ValidationError(
            "project_id is empty; omit it to mean every project, or name the project.", code="invalid_value"
        )
    validate_label("project_id", project_id, service.settings)


class MemoryOut(BaseModel):
    """One long-term memory."""

    id: str = Field(description="The memory id (for DELETE /api/v1/memories/{id}).")
    kind: str = Field(description="fact (the user said it), result (a tool's), answer, or summary.")
    text: str = Field(description="What was said or found.")
    statement: str = Field(description="What an answering model is given (a fact addressed to the user).")
    project_id: str | None = Field(None, description="The project it belongs to (None: no project).")
    source_thread: str | None = Field(None, description="The thread it comes from.")
    topic: str | None = Field(None, description="What a fact is about (a newer fact on it replaces it).")
    created_at: datetime
    updated_at: datetime


class MemoryList(BaseModel):
    """A page of the user's memories, most recently updated first."""

    memories: list[MemoryOut]
    limit: int
    offset: int
    enabled: bool = Field(
        True,
        description="Whether the server keeps and recalls memories (CADENCE_MEMORY); when off, what was "
        "kept before is still listed and can be forgotten.",
    )


class MemoryDeleted(BaseModel):
    """What a DELETE removed."""

    deleted: int = Field(description="How many memories were deleted.")
    memory_id: str | None = Field(None, description="The memory deleted (single delete).")


@contextlib.asynccontextmanager
async def managed_memory(service: ChatService) -> AsyncIterator[Any]:
    """The memory service to list and forget with: the engine's, or — memory off — one over the
    memories kept before (:func:`cadence.memory.open_kept_memory_store`, opened for the request)."""
    memory = getattr(service.engine, "memory", None)
    if memory is not None:
        yield memory
        return
    from cadence.memory import MemoryService, open_kept_memory_store

    async with open_kept_memory_store(service.settings) as store:
        yield MemoryService(store, service.settings)


@router.get("", response_model=MemoryList, summary="List the user's memories", responses=ERRORS)
async def list_memories(
    user_id: UserQuery = None,
    project_id: LabelQuery = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> MemoryList:
    """The caller's memories (one project's with ``project_id``), most recently updated first."""
    user = resolve_user(principal, user_id, service.settings)
    _check_project(project_id, service)
    async with managed_memory(service) as memory:
        items = await memory.list(user, project_id=project_id, limit=limit, offset=offset)
    return MemoryList(
        memories=[MemoryOut.model_validate(i.to_dict()) for i in items],
        limit=limit,
        offset=offset,
        enabled=getattr(service.engine, "memory", None) is not None,
    )


@router.delete("/{memory_id}", response_model=MemoryDeleted, summary="Forget one memory", responses=ERRORS)
async def delete_memory(
    memory_id: MemoryPath,
    user_id: UserQuery = None,
    project_id: LabelQuery = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> MemoryDeleted:
    """Delete one of the caller's memories (404 ``memory_not_found`` when the caller has none by that id)."""
    user = resolve_user(principal, user_id, service.settings)
    _check_project(project_id, service)
    validate_label("memory id", memory_id, service.settings)  # 422 id_too_long, not a 404 echoing it
    async with managed_memory(service) as memory:
        found = await memory.forget(user, memory_id, project_id=project_id)
    if not found:
        raise NotFoundError(f"No memory {memory_id!r} for this user.", code="memory_not_found")
    return MemoryDeleted(deleted=1, memory_id=memory_id)


@router.delete(
    "", response_model=MemoryDeleted, summary="Forget all of the user's memories", responses=ERRORS
)
async def delete_memories(
    user_id: UserQuery = None,
    project_id: LabelQuery = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> MemoryDeleted:
    """Delete all of the caller's memories (one project's with ``project_id``)."""
    user = resolve_user(principal, user_id, service.settings)
    _check_project(project_id, service)
    async with managed_memory(service) as memory:
        return MemoryDeleted(deleted=await memory.forget_all(user, project_id=project_id))


# -- consolidation on idle ----------------------------------------------------------------------------
class IdleConsolidation:
    """The job: consolidate every user's memories once the server is idle after some activity."""

    def __init__(self, service: ChatService, settings: Settings) -> None:
        self.service = service
        self.idle_s = settings.memory_consolidate_idle_s
        self.last_busy = time.monotonic()
        self.last_run: float | None = None
        self.runs = 0

    def busy(self) -> bool:
        """Whether a turn is running now."""
        return bool(getattr(self.service, "_tasks", None))

    async def __call__(self) -> None:
        """One look: consolidate when idle long enough since the last activity (and not done since)."""
        now = time.monotonic()
        if self.busy():
            self.last_busy = now
            return
        active_since_run = self.last_run is None or self.last_busy > self.last_run
        if now - self.last_busy < self.idle_s or not active_since_run:
            return
        memory = getattr(self.service.engine, "memory", None)
        if memory is None:
            return
        report = await memory.consolidate_all()
        self.last_run = time.monotonic()
        self.runs += 1
        logger.info("memory consolidated on idle", extra=report.to_dict())


async def start_consolidation(
    stack: contextlib.AsyncExitStack, app: Any, service: ChatService, locks: Any, settings: Settings
) -> None:
    """Run :class:`IdleConsolidation` in the background of the app (one process of all), if memory is on."""
    if getattr(service.engine, "memory", None) is None or settings.memory_consolidate_idle_s <= 0:
        return
    job = IdleConsolidation(service, settings)
    interval = max(0.05, min(IDLE_POLL_S, settings.memory_consolidate_idle_s / 2))
    app.state.memory_consolidation = job
    await stack.enter_async_context(LeaderJob(locks, "memory-consolidation", job, interval))


__all__ = [
    "IdleConsolidation",
    "MemoryDeleted",
    "MemoryList",
    "MemoryOut",
    "managed_memory",
    "router",
    "start_consolidation",
]
