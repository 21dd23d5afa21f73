"""Thread routes: list a user's threads, read one with its messages, delete one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from cadence.errors import NotFoundError, ValidationError
from cadence.persistence.threads import ThreadRecord, make_title
from cadence.server.auth import Principal, get_principal, resolve_user
from cadence.server.chat import ERRORS
from cadence.server.deps import get_service
from cadence.server.schemas import (
    DeleteResponse,
    MessageOut,
    ThreadDetail,
    ThreadList,
    ThreadRename,
    ThreadSummary,
)
from cadence.server.service import ChatService
from cadence.server.validation import (
    LABEL_PATTERN,
    THREAD_ID_PATTERN,
    USER_ID_PATTERN,
    check_text,
    limit,
    validate_label,
    validate_thread_id,
)

router = APIRouter(prefix="/api/v1/threads", tags=["threads"])

MAX_OFFSET = 2**31 - 1
"""Largest ``offset`` of the thread list (a database integer)."""

UserQuery = Annotated[
    str | None,
    Query(
        pattern=USER_ID_PATTERN,
        description="Act as this user (default: the key's user or default_user).",
        json_schema_extra=limit("max_id_chars"),
    ),
]
LabelQuery = Annotated[str | None, Query(pattern=LABEL_PATTERN, json_schema_extra=limit("max_id_chars"))]
ThreadPath = Annotated[
    str,
    Path(pattern=THREAD_ID_PATTERN, description="The thread id.", json_schema_extra=limit("max_id_chars")),
]


def _summary(record: ThreadRecord) -> ThreadSummary:
    return ThreadSummary(
        thread_id=record.thread_id,
        user_id=record.user_id,
        title=record.title,
        created_at=record.created_at,
        updated_at=record.updated_at,
        turns=record.turns,
        org_id=record.org_id,
        project_id=record.project_id,
    )


@router.get("", response_model=ThreadList, summary="List the user's threads", responses=ERRORS)
async def list_threads(
    user_id: UserQuery = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    org_id: LabelQuery = None,
    project_id: LabelQuery = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> ThreadList:
    """The user's threads with their title (first message) and last activity, most recent first."""
    user = resolve_user(principal, user_id, service.settings)
    # an empty filter is no filter, as an empty user_id is the default user (?org_id=&project_id=)
    org_id, project_id = org_id or None, project_id or None
    validate_label("org_id", org_id, service.settings)
    validate_label("project_id", project_id, service.settings)
    records = await service.store.list(user, limit=limit, offset=offset, org_id=org_id, project_id=project_id)
    return ThreadList(threads=[_summary(r) for r in records], limit=limit, offset=offset)


@router.get(
    "/{thread_id}", response_model=ThreadDetail, summary="Read a thread and its messages", responses=ERRORS
)
async def get_thread(
    thread_id: ThreadPath,
    user_id: UserQuery = None,
    include_internal: Annotated[
        bool, Query(description="Also return routing, agent steps and tool results (marked internal).")
    ] = False,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> ThreadDetail:
    """The conversation: user messages and final answers (internal work only if asked)."""
    user = resolve_user(principal, user_id, service.settings)
    validate_thread_id(thread_id, service.settings)
    record = await service.owned(user, thread_id)
    messages = await service.messages(user, thread_id, include_internal=include_internal, record=record)
    return ThreadDetail(
        **_summary(record).model_dump(), messages=[MessageOut.model_validate(m) for m in messages]
    )


@router.delete("/{thread_id}", response_model=DeleteResponse, summary="Delete a thread", responses=ERRORS)
async def delete_thread(
    thread_id: ThreadPath,
    user_id: UserQuery = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> DeleteResponse:
    """Delete the thread's history and record (waits for a running turn, else 409)."""
    user = resolve_user(principal, user_id, service.settings)
    validate_thread_id(thread_id, service.settings)
    await service.delete(user, thread_id)
    return DeleteResponse(thread_id=thread_id, deleted=True)


@router.patch("/{thread_id}", response_model=ThreadSummary, summary="Rename a thread", responses=ERRORS)
async def rename_thread(
    thread_id: ThreadPath,
    body: ThreadRename,
    user_id: UserQuery = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> ThreadSummary:
    """Give the thread a new title (its first message by default); the activity time is unchanged."""
    user = resolve_user(principal, user_id, service.settings)
    validate_thread_id(thread_id, service.settings)
    check_text("title", body.title)
    if not make_title(body.title):
        raise ValidationError("title: the title is blank; send at least one visible character.",
                              code="empty_title")  # fmt: skip
    await service.owned(user, thread_id)
    record = await service.store.rename(user, thread_id, body.title)
    if record is None:  # deleted in between
        raise NotFoundError(f"No thread {thread_id!r} for this user.", code="thread_not_found")
    return _summary(record)
