"""Human in the loop over HTTP: pending approvals, resume, history and fork of a thread.

- ``GET  /api/v1/threads/{id}/approvals``: what the thread waits for;
- ``POST /api/v1/threads/{id}/resume``: decide the pending calls; the same turn continues
  (JSON answer like ``/api/v1/chat``, or SSE with ``"stream": true``);
- ``GET  /api/v1/threads/{id}/history``: the checkpoints (id, step, node, messages, tool calls
  and results);
- ``POST /api/v1/threads/{id}/fork``: run again from a checkpoint, optionally forcing a route or
  replacing tool results; answers with the branch's result.

Every route is owner-checked (404 for another user's thread) and holds the thread's lock while
its run lasts (409 ``thread_busy`` after the wait). A resume of a thread that waits for nothing
is 409 ``not_paused``; undecidable decisions are 422 ``invalid_decision`` (``invalid_text`` for a
lone surrogate), before anything resumes. A fork's replacement tool results are checked like a
tool's own (:func:`check_tool_results`) before anything runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from cadence.errors import CadenceError, ConflictError, ValidationError
from cadence.orchestration.approval import CallDecision, check_edits, parse_decisions
from cadence.server.auth import Principal, get_principal, resolve_user
from cadence.server.chat import ERRORS, stream_response, turn_response
from cadence.server.deps import get_service
from cadence.server.errors import JSONResponse
from cadence.server.schemas import (
    CHAT_STREAM_CONTENT,
    ChatErrorResponse,
    ChatResponse,
    ForkRequest,
    HistoryResponse,
    PendingResponse,
    ResumeRequest,
)
from cadence.server.service import ChatService, Turn
from cadence.server.threads import ThreadPath, UserQuery
from cadence.server.validation import check_json, check_text, validate_thread_id

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/api/v1/threads", tags=["threads"])

RUN_RESPONSES: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    409: {"model": ChatErrorResponse, "description": "The thread is busy, or not paused (resume)."},
    502: {"model": ChatErrorResponse, "description": "A model or tool failed; the thread stays usable."},
    504: {"model": ChatErrorResponse, "description": "The run exceeded its deadline."},
}


async def _release(lease: Any) -> None:
    """Release a thread lease (async when the lock registry offers it)."""
    arelease = getattr(lease, "arelease", None)
    if arelease is not None:
        await arelease()
    else:
        lease.release()


async def start_run(
    service: ChatService,
    user: str,
    thread_id: str,
    events: Callable[[], AsyncIterator[dict[str, Any]]],
    check: Callable[[], Any] | None = None,
    *,
    new_turn: bool = True,
) -> Turn:
    """Own-check and lock the thread, run ``check`` (it raises 409/422 before anything runs), then
    feed ``events()`` into a :class:`Turn` from a task of its own (the run finishes even if the
    client goes away); the lock is released when the run ends. ``new_turn``: the run starts a turn
    (a fork) and counts in the thread's ``turns``, rather than continuing one (a resume)."""
    await service.owned(user, thread_id)
    lease = await service.locks.acquire(thread_id, service.settings.thread_lock_timeout)
    try:
        if check is not None:
            await check()
        # the run sets the thread's state: the question the record kept is in it (a resume) or
        # branched away from (a fork), no longer a turn that may not have finished
        await service.store.settle_question(user, thread_id)
    except BaseException:
        await _release(lease)
        raise
    turn = Turn(thread_id=thread_id, user_id=user)

    async def run() -> None:
        final: dict[str, Any] | None = None
        try:
            async for event in events():
                if event.get("type") == "final":
                    final = event
                else:
                    turn.queue.put_nowait(event)
        except Exception as exc:
            logger.exception("run on thread %s failed outside the engine", thread_id)
            error = {
                "code": exc.code if isinstance(exc, CadenceError) else "internal_error",
                "message": exc.message if isinstance(exc, CadenceError) else f"{type(exc).__name__}: {exc}",
            }
            turn.queue.put_nowait({"type": "error", "error": error})
            final = {"type": "final", "response": "", "thread_id": thread_id, "trace": {}, "error": error}
        finally:
            with contextlib.suppress(Exception):
                await service.store.touch(user, thread_id, turn=new_turn)
            await _release(lease)
            if final is not None:
                turn.queue.put_nowait(final)
            turn.queue.put_nowait(None)

    task = asyncio.create_task(run(), name=f"cadence-run-{thread_id}")
    turn.task = task
    service._tasks.add(task)
    task.add_done_callback(service._tasks.discard)
    return turn


def check_decisions(chosen: Mapping[str, CallDecision]) -> None:
    """422 for a decision the checkpoint cannot store: a lone surrogate in a reject message or in edit
    arguments (``invalid_text``), a number in edit arguments that is not finite or beyond 64 bits, or
    arguments nested too deep (``invalid_decision``)."""
    for call_id, decision in chosen.items():
        if decision.message is not None:
            check_text(f"decisions.{call_id}.message", decision.message)
        if decision.arguments is not None:
            check_json(f"decisions.{call_id}.arguments", decision.arguments, code="invalid_decision")


def check_tool_results(tool_results: Mapping[str, Any] | None, max_chars: int) -> None:
    """422 for a fork's replacement tool result the thread should not take: a lone surrogate
    (``invalid_text``, as everywhere in the API), or longer than a tool's own result may be
    (``CADENCE_MAX_TOOL_RESULT_CHARS``; ``invalid_fork``)."""
    for call_id, text in (tool_results or {}).items():
        if not isinstance(text, str):
            continue  # the fork's own check names it
        check_text(f"tool_results.{call_id[:60]}", text)
        if len(text) > max_chars:
            raise ValidationError(
                f"The new result of call {call_id[:60]!r} has {len(text)} characters; a tool result may have "
                f"{max_chars} (CADENCE_MAX_TOOL_RESULT_CHARS).",
                code="invalid_fork",
            )


async def start_resume(
    service: ChatService, user: str, thread_id: str, decisions: Any, *, tokens: bool = True
) -> Turn:
    """Check the decisions against what the thread waits for (409 ``not_paused``, 422
    ``invalid_decision``) and that they can be stored (:func:`check_decisions`), then continue the
    paused turn as a :class:`Turn`."""
    engine = service.engine

    async def check() -> None:
        pending = await engine.pending(thread_id=thread_id, user_id=user)
        if not pending:
            raise ConflictError(
                f"Thread {thread_id!r} is not waiting for approval; there is nothing to resume.",
                code="not_paused",
            )
        chosen = parse_decisions(decisions, pending)
        check_decisions(chosen)
        check_edits(chosen, pending, engine.plugin_manager.bundles)  # an edit that could only fail

    def events() -> AsyncIterator[dict[str, Any]]:
        return engine.resume_stream(
            decisions, thread_id=thread_id, user_id=user, tokens=tokens, record_thread=False
        )  # the run's record is start_run's

    return await start_run(service, user, thread_id, events, check, new_turn=False)  # the paused turn goes on


@router.get(
    "/{thread_id}/approvals",
    response_model=PendingResponse,
    summary="The approvals a thread waits for",
    responses=ERRORS,
)
async def pending_approvals(
    thread_id: ThreadPath,
    user_id: UserQuery = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> PendingResponse:
    """The tool calls waiting for a decision (empty when the thread is not paused)."""
    user = resolve_user(principal, user_id, service.settings)
    validate_thread_id(thread_id, service.settings)
    await service.owned(user, thread_id)
    pending = await service.engine.pending(thread_id=thread_id, user_id=user)
    return PendingResponse(thread_id=thread_id, interrupted=bool(pending), approvals=pending)  # type: ignore[arg-type]


@router.post(
    "/{thread_id}/resume",
    response_model=ChatResponse,
    summary="Decide a paused turn's tool calls and continue it",
    responses={**RUN_RESPONSES, 200: {"content": CHAT_STREAM_CONTENT, "description": "JSON, or SSE."}},
)
async def resume(
    thread_id: ThreadPath,
    body: ResumeRequest,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> Any:
    """Approve, reject (the agent reads the message as the tool's result) or edit each pending call;
    the turn continues where it paused and answers like ``POST /api/v1/chat``."""
    user = resolve_user(principal, body.user_id, service.settings)
    validate_thread_id(thread_id, service.settings)
    turn = await start_resume(service, user, thread_id, body.decisions, tokens=body.stream)
    return stream_response(turn) if body.stream else await turn_response(turn)


@router.get(
    "/{thread_id}/history",
    response_model=HistoryResponse,
    summary="A thread's checkpoints (state snapshots)",
    responses=ERRORS,
)
async def history(
    thread_id: ThreadPath,
    user_id: UserQuery = None,
    limit: Annotated[int | None, Query(ge=1, description="At most this many (newest first).")] = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> Any:
    """Each checkpoint: id, parent, step, the node that wrote it, what runs next, the messages it
    added (tool calls and results) and the approvals pending there."""
    user = resolve_user(principal, user_id, service.settings)
    validate_thread_id(thread_id, service.settings)
    await service.owned(user, thread_id)
    entries = await service.engine.history(thread_id=thread_id, user_id=user, limit=limit)
    body = HistoryResponse.model_validate({"thread_id": thread_id, "checkpoints": entries})
    return JSONResponse(body.model_dump(mode="json"))


@router.post(
    "/{thread_id}/fork",
    response_model=ChatResponse,
    summary="Run a thread again from a checkpoint, with optional edits (time travel)",
    responses=RUN_RESPONSES,
)
async def fork(
    thread_id: ThreadPath,
    body: ForkRequest,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> Any:
    """The branch continues the thread from ``checkpoint_id`` (force a route, replace tool results);
    the answer is the branch's, and the thread's current state is the branch."""
    user = resolve_user(principal, body.user_id, service.settings)
    validate_thread_id(thread_id, service.settings)
    check_tool_results(body.tool_results, service.settings.max_tool_result_chars)
    engine = service.engine
    first: list[dict[str, Any]] = []

    def events() -> AsyncIterator[dict[str, Any]]:
        return _replay(first, stream)

    stream = engine.fork_stream(
        body.checkpoint_id,
        thread_id=thread_id,
        user_id=user,
        route=body.route,
        tool_results=body.tool_results,
        tokens=False,
        record_thread=False,  # start_run records it
    )

    async def check() -> None:
        # the fork's checks (checkpoint, route, results) run before its first event: 404/422 now
        first.append(await anext(stream))

    turn = await start_run(service, user, thread_id, events, check)
    return await turn_response(turn)


async def _replay(
    first: list[dict[str, Any]], rest: AsyncIterator[dict[str, Any]]
) -> AsyncIterator[dict[str, Any]]:
    for event in first:
        yield event
    async for event in rest:
        yield event


__all__ = ["router", "start_resume", "start_run"]
