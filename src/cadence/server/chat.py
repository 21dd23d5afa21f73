"""Chat routes: JSON ``POST /api/v1/chat``, SSE ``POST /api/v1/chat/stream``, WebSocket ``/api/v1/ws``."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pydantic
from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect
from fastapi.responses import StreamingResponse

from cadence.errors import CadenceError
from cadence.server.auth import Principal, get_principal, resolve_user
from cadence.server.deps import get_service
from cadence.server.errors import (
    JSONResponse,
    error_body,
    json_text,
    turn_error_headers,
    turn_error_status,
    validation_code,
)
from cadence.server.limits import REQUEST_TOO_LARGE, too_large_message
from cadence.server.schemas import (
    CHAT_STREAM_CONTENT,
    ChatErrorResponse,
    ChatRequest,
    ChatResponse,
    ErrorResponse,
)
from cadence.server.service import ChatService, Turn, TurnRequest

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/api/v1", tags=["chat"])

THREAD_HEADER = "X-Cadence-Thread-Id"

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Malformed JSON."},
    401: {"model": ErrorResponse, "description": "Missing or wrong API key."},
    403: {"model": ErrorResponse, "description": "The key may not act as this user."},
    404: {"model": ErrorResponse, "description": "No such thread for this user."},
    409: {"model": ErrorResponse, "description": "The thread is busy with another request."},
    422: {"model": ErrorResponse, "description": "Invalid request (unknown field, tone, message too long)."},
}


def _turn_request(body: ChatRequest, principal: Principal, service: ChatService) -> TurnRequest:
    return TurnRequest(
        message=body.message,
        user_id=resolve_user(principal, body.user_id, service.settings),
        thread_id=body.thread_id,
        tone=body.tone,
        mode=body.mode,
        agent=body.agent,
        metadata=body.metadata,
        org_id=body.org_id or None,  # empty: none (a project's thread keeps its project)
        project_id=body.project_id or None,
    )


@router.post(
    "/chat",
    response_model=ChatResponse,
    summary="Send a message and get the answer",
    responses={
        **ERRORS,
        502: {"model": ChatErrorResponse, "description": "A model or tool failed; the thread stays usable."},
        504: {"model": ChatErrorResponse, "description": "The turn exceeded its deadline."},
    },
)
async def chat(
    body: ChatRequest,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> Any:
    """Run one turn. Omit ``thread_id`` to start a conversation; the answer names the thread."""
    turn = await service.start(_turn_request(body, principal, service), tokens=False, events=False)
    return await turn_response(turn)


async def turn_response(turn: Turn) -> JSONResponse:
    """A run's JSON answer as ``POST /api/v1/chat`` gives it (errors with their status)."""
    final = await turn.result()
    headers = {THREAD_HEADER: turn.thread_id}
    if final.get("error"):
        error = final["error"]
        content = error_body(error["code"], error["message"], thread_id=turn.thread_id)
        content.update(thread_id=turn.thread_id, response=final["response"], trace=final["trace"])
        status = turn_error_status(error["code"])
        return JSONResponse(content, status, headers={**headers, **turn_error_headers(status)})
    body = ChatResponse(
        response=final["response"],
        thread_id=turn.thread_id,
        trace=final["trace"],
        interrupted=bool(final.get("interrupted")),
        approvals=final.get("approvals") or [],
    )
    return JSONResponse(body.model_dump(mode="json"), headers=headers)


def stream_response(turn: Turn) -> StreamingResponse:
    """A run's events as Server-Sent Events, as ``POST /api/v1/chat/stream`` gives them."""
    return StreamingResponse(
        _sse(turn),
        media_type="text/event-stream",
        headers={THREAD_HEADER: turn.thread_id, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def sse_event_name(event: dict[str, Any]) -> str:
    """The SSE ``event:`` name of an event: its type, or ``message`` when it has none that can be one
    (a plugin's own event may have no type, or one with a line break that would end the field)."""
    kind = event.get("type")
    if isinstance(kind, str) and kind and not any(c in kind for c in "\r\n"):
        return kind
    return "message"


KEEPALIVE_S = 15.0
"""A stream that has sent nothing for this many seconds (a long model call) sends an SSE comment, so a
proxy between the server and the client (nginx closes an idle response after 60 s) keeps it open."""
KEEPALIVE = ": keep-alive\n\n"
"""The SSE comment line: clients ignore it (EventSource, the openai client, the web page)."""


async def _sse(turn: Turn) -> AsyncIterator[str]:
    async for event in turn.events_or_idle(KEEPALIVE_S):
        if event is None:
            yield KEEPALIVE
            continue
        yield f"event: {sse_event_name(event)}\ndata: {json_text(event)}\n\n"


@router.post(
    "/chat/stream",
    summary="Send a message and stream the turn (Server-Sent Events)",
    response_class=StreamingResponse,
    responses={
        **ERRORS,
        200: {
            "content": CHAT_STREAM_CONTENT,
            "description": "SSE: `event: <type>` + `data: <json>` for node, agent_start, agent_end, "
            "tool_start, tool_end, suspend, token, interrupt, error, plugins' own events, and a last "
            "`final` event (response, thread_id, trace, error).",
        },
    },
)
async def chat_stream(
    body: ChatRequest,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> StreamingResponse:
    """Same request as ``/chat``; the turn's events arrive as they happen."""
    turn = await service.start(_turn_request(body, principal, service))
    return stream_response(turn)


def _reject(status: int, code: str, message: str, **extra: Any) -> str:
    return json_text({"type": "error", "status": status, **error_body(code, message, status=status, **extra)})


@router.websocket("/ws")
async def chat_ws(websocket: WebSocket) -> None:
    """WebSocket chat: send ChatRequest JSON objects, receive event objects.

    Each request ends with a ``final`` event, or with one ``error`` event that has a
    ``status`` when it was rejected before the turn started (400, 403, 404, 409, 413, 422; 500 for an
    unexpected failure).
    Requests on one connection run one after another.
    """
    await websocket.accept()
    principal = await get_principal(websocket)
    service = await get_service(websocket)
    while True:
        try:
            message = await websocket.receive()
        except WebSocketDisconnect:
            return
        if message.get("type") == "websocket.disconnect":
            return
        raw = message.get("text")
        if raw is None and message.get("bytes") is not None:
            raw = message["bytes"].decode("utf-8", errors="replace")
        limit = service.settings.max_request_bytes
        if raw is not None and len(raw) > limit // 4 and len(raw.encode("utf-8", "surrogatepass")) > limit:
            await websocket.send_text(_reject(413, REQUEST_TOO_LARGE, too_large_message(limit)))
            continue
        try:
            body = ChatRequest.model_validate(json.loads(raw or ""))
        except pydantic.ValidationError as exc:  # first: it is a ValueError too
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first.get("loc", ()))
            code = validation_code(field, str(first.get("type", "")))
            await websocket.send_text(_reject(422, code, f"{field or 'body'}: {first.get('msg')}"))
            continue
        except (ValueError, RecursionError) as exc:  # a JSONDecodeError, or an integer of 4300+ digits
            await websocket.send_text(_reject(400, "invalid_json", f"The message is not valid JSON ({exc})."))
            continue
        try:
            turn = await service.start(_turn_request(body, principal, service))
        except CadenceError as exc:
            await websocket.send_text(
                _reject(exc.status_code, exc.code, exc.message, thread_id=body.thread_id)
            )
            continue
        except Exception as exc:  # a bug or an unexpected failure: an HTTP request gets a 500, not a cut
            logger.exception("websocket request failed before its turn started")
            message = f"Internal error ({type(exc).__name__}); see the server log."
            await websocket.send_text(_reject(500, "internal_error", message, thread_id=body.thread_id))
            continue
        try:
            async for event in turn.events():
                await websocket.send_text(json_text(event))
        except Exception:  # the client went away (disconnect / closed-connection errors vary by server)
            logger.info("websocket closed during a turn on thread %s; the turn finishes in the background",
                        turn.thread_id)  # fmt: skip
            return
