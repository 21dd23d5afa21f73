"""OpenAI-compatible API: ``POST /v1/chat/completions`` (streamed or not), ``GET /v1/models`` and
``GET /v1/models/{model}``.

Point the official ``openai`` client at ``http://host:port/v1`` and it works unchanged:

- ``model``: ``"cadence"`` or ``"cadence:<tone>"`` (natural, explanatory, formal, concise, learning);
  a top-level ``tone`` (``extra_body={"tone": ...}``) overrides it. Other models → 404 ``model_not_found``.
- mode: ``"cadence:<mode>"`` or ``"cadence:<mode>:<tone>"`` (``cadence:supervisor``), or a top-level
  ``mode`` (``extra_body={"mode": "supervisor"}``, which wins); default ``CADENCE_MODE``; an unknown
  mode in ``mode`` → 422 ``unknown_mode``. A top-level ``agent`` talks to that one agent (the single mode).
- ``user``: the Cadence user id (subject to API-key binding).
- thread: header ``X-Cadence-Thread-Id``, or ``extra_body={"thread_id": ...}``, or ``metadata.thread_id``.
  With a thread id the server holds the history: only the last message (which must be the
  user's) is sent. Without one, a new thread is created and the request's messages are the
  conversation: the last user message is the question and earlier user/assistant messages
  seed the new thread's history (system messages are ignored: Cadence uses its own prompts).
- The thread id comes back in the ``X-Cadence-Thread-Id`` header and the ``thread_id`` field
  (of the completion, and of every stream chunk) so the client can continue the thread.
- Unknown request fields are ignored (OpenAI clients send extras such as ``temperature``).
- A turn paused for approval answers with an assistant message saying what waits for approval;
  on that thread the next user message ``approve`` (or ``yes``) runs the calls and
  ``reject <reason>`` (or ``no <reason>``) refuses them, the reason being what the agent reads;
  any other message gets the question again.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path
from fastapi.responses import StreamingResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from cadence.conventions import FINAL_NODES
from cadence.errors import NotFoundError, ValidationError
from cadence.orchestration.approval import approval_prompt
from cadence.orchestration.modes import mode_names
from cadence.orchestration.tones import TONE_NAMES, ResponseTone
from cadence.server import chat
from cadence.server.approvals import start_resume
from cadence.server.auth import Principal, get_principal, resolve_user
from cadence.server.chat import ERRORS, KEEPALIVE, THREAD_HEADER
from cadence.server.deps import get_service
from cadence.server.errors import JSONResponse, error_body, json_text, turn_error_headers, turn_error_status
from cadence.server.schemas import (
    COMPLETION_STREAM_CONTENT,
    ChatCompletion,
    ChatCompletionRequest,
    ErrorResponse,
    ModelCard,
    ModelList,
    OpenAIMessage,
)
from cadence.server.service import ChatService, Turn, TurnRequest
from cadence.server.validation import THREAD_ID_PATTERN, limit, validate_thread_id
from cadence.text import visible

router = APIRouter(prefix="/v1", tags=["openai"])

MODEL_ID = "cadence"
_CREATED = int(time.time())
_TEXT_PART = '{"type": "text", "text": "Hello"}'


def _text(content: str | list[dict[str, Any]] | None, field: str) -> str:
    """A message's text: the string, or its text parts joined (other parts, e.g. images, are ignored).

    422 for a text part whose ``text`` is not a string (``field`` names the message's content)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content:
        if part.get("type", "text") != "text":
            continue
        text = part.get("text")
        if not isinstance(text, str):
            raise ValidationError(
                f"{field}: a text part needs a string 'text', e.g. {_TEXT_PART}.",
                code="invalid_value",
            )
        texts.append(text)
    return "".join(texts)


def _model_options(model: str) -> tuple[str | None, str | None]:
    """``(tone, mode)`` named by ``model``: ``cadence``, ``cadence:<tone>``, ``cadence:<mode>`` or
    ``cadence:<mode>:<tone>`` (a suffix that is a mode's name is the mode; the other is the tone)."""
    name, *parts = model.strip().split(":")
    if name != MODEL_ID or len(parts) > 2:
        raise NotFoundError(
            f"The model {model[:60]!r} does not exist; "
            "use 'cadence', 'cadence:<tone>' or 'cadence:<mode>:<tone>' (see GET /v1/models).",
            code="model_not_found",
        )
    modes = [p for p in parts if p.strip().lower() in mode_names()]
    tones = [p for p in parts if p not in modes and p]
    if len(modes) > 1 or len(tones) > 1:
        kind = "modes" if len(modes) > 1 else "tones"
        raise ValidationError(
            f"The model {model[:60]!r} names two {kind}; use 'cadence:<mode>:<tone>' (see GET /v1/models).",
            code="invalid_model",
        )
    return (tones[0] if tones else None), (modes[0] if modes else None)


def _history(messages: list[OpenAIMessage]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i, msg in enumerate(messages):
        text = _text(msg.content, f"messages.{i}.content")
        if not visible(text):  # blank as the question's check counts it (zero-width spaces, BOM)
            continue
        if msg.role == "user":
            out.append(HumanMessage(content=text))
        elif msg.role == "assistant":
            out.append(AIMessage(content=text))
    return out


def _usage(trace: dict[str, Any]) -> dict[str, int]:
    usage = trace.get("usage") or {}
    inp, out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
    return {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out}


APPROVE_WORDS = frozenset({"approve", "approved", "yes", "y", "ok", "okay"})
"""Replies that approve a paused turn's calls on the OpenAI-compatible endpoint."""
REJECT_WORDS = frozenset({"reject", "rejected", "no", "n", "deny"})
"""First words of replies that reject them (the rest of the reply is the reason the agent reads)."""


def approval_decision(text: str) -> str | dict[str, str] | None:
    """A reply to a pause as a decision for every pending call: ``approve``, ``reject <reason>``, or None."""
    words = text.strip().split(maxsplit=1)
    if not words:
        return None
    first = words[0].lower().strip(".,!:;")
    if first in APPROVE_WORDS and len(words) == 1:
        return "approve"
    if first in REJECT_WORDS:
        reason = words[1].strip() if len(words) > 1 else ""
        return {"decision": "reject", "message": reason or "The user rejected this call."}
    return None


async def _approval_reply(service: ChatService, request: TurnRequest, *, tokens: bool) -> Turn | None:
    """On a paused thread, the user's message decides the pause (``approve`` / ``reject <reason>``);
    anything else gets the pause's question again (nothing runs). None when the thread is not paused.
    The message is checked like any other (422 before anything runs)."""
    if request.thread_id is None:
        return None
    pending = await service.engine.pending(thread_id=request.thread_id, user_id=request.user_id)
    if not pending:
        return None  # a turn: service.start checks the message
    service.validate(request)
    decision = approval_decision(request.message)
    if decision is not None:
        return await start_resume(service, request.user_id, request.thread_id, decision, tokens=tokens)
    await service.owned(request.user_id, request.thread_id)
    turn = Turn(thread_id=request.thread_id, user_id=request.user_id)
    text = "Still waiting for your decision. " + approval_prompt(pending)
    final = {"type": "final", "response": text, "thread_id": request.thread_id, "trace": {}, "error": None}
    turn.queue.put_nowait(final)
    turn.queue.put_nowait(None)
    return turn


@router.get("/models", response_model=ModelList, summary="List models (OpenAI-compatible)", responses=ERRORS)
async def list_models() -> ModelList:
    """``cadence``, one ``cadence:<tone>`` per tone and one ``cadence:<mode>`` per mode."""
    ids = [MODEL_ID, *(f"{MODEL_ID}:{t}" for t in TONE_NAMES), *(f"{MODEL_ID}:{m}" for m in mode_names())]
    return ModelList(data=[ModelCard(id=i, created=_CREATED) for i in ids])


@router.get(
    "/models/{model}",
    response_model=ModelCard,
    summary="Describe a model (OpenAI-compatible)",
    responses={**ERRORS, 404: {"model": ErrorResponse, "description": "No such model (model_not_found)."}},
)
async def retrieve_model(model: Annotated[str, Path(max_length=200)]) -> ModelCard:
    """Any model the chat endpoint accepts (``cadence:<mode>:<tone>`` too); 404 ``model_not_found``."""
    tone, _ = _model_options(model)
    try:
        ResponseTone.parse(tone)
    except ValidationError:
        raise NotFoundError(
            f"The model {model[:60]!r} does not exist: {(tone or '')[:40]!r} is neither a tone nor a mode "
            "(see GET /v1/models).",
            code="model_not_found",
        ) from None
    return ModelCard(id=model, created=_CREATED)


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    summary="Chat completion (OpenAI-compatible; stream or not)",
    responses={
        **ERRORS,
        200: {
            "content": COMPLETION_STREAM_CONTENT,
            "description": "A chat.completion; with stream=true, chat.completion.chunk SSE ending in [DONE].",
        },
        502: {
            "model": ErrorResponse,
            "description": "A model or tool failed (error.thread_id names the thread).",
        },
        504: {"model": ErrorResponse, "description": "The turn exceeded its deadline."},
    },
)
async def chat_completions(
    body: ChatCompletionRequest,
    x_cadence_thread_id: Annotated[
        str | None,
        Header(
            pattern=THREAD_ID_PATTERN,
            description="Continue this thread.",
            json_schema_extra=limit("max_id_chars"),
        ),
    ] = None,
    principal: Principal = Depends(get_principal),
    service: ChatService = Depends(get_service),
) -> Any:
    """Answer the last user message with Cadence, as an OpenAI chat completion."""
    limit = service.settings.max_openai_messages
    if len(body.messages) > limit:
        raise ValidationError(
            f"The request has {len(body.messages)} messages; the limit is {limit} "
            "(CADENCE_MAX_OPENAI_MESSAGES). Continue a thread (X-Cadence-Thread-Id) instead of "
            "resending the conversation.",
            code="too_many_messages",
        )
    model_tone, model_mode = _model_options(body.model)
    tone = body.tone or model_tone
    mode = body.mode or model_mode
    thread_id = x_cadence_thread_id or body.thread_id or (body.metadata or {}).get("thread_id")
    if thread_id is not None:
        if not isinstance(thread_id, str):
            raise ValidationError("metadata.thread_id must be a string.", code="invalid_value")
        validate_thread_id(thread_id, service.settings)
    last = body.messages[-1]
    if last.role != "user":
        raise ValidationError(
            "The last message must have role 'user': it is the question.", code="invalid_request"
        )
    metadata = {k: v for k, v in (body.metadata or {}).items() if k != "thread_id"} or None
    request = TurnRequest(
        message=_text(last.content, f"messages.{len(body.messages) - 1}.content"),
        user_id=resolve_user(principal, body.user, service.settings),
        thread_id=thread_id,
        tone=tone,
        mode=mode,
        agent=body.agent,
        metadata=metadata,
        history=_history(body.messages[:-1]),
    )
    decided = await _approval_reply(service, request, tokens=body.stream)
    # a JSON answer needs only the final event: the engine then runs without its event streams
    turn = (
        decided
        if decided is not None
        else await service.start(request, tokens=body.stream, events=body.stream)
    )
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    headers = {THREAD_HEADER: turn.thread_id}
    if body.stream:
        include_usage = bool((body.stream_options or {}).get("include_usage"))
        return StreamingResponse(
            _stream(turn, completion_id, body.model, include_usage),
            media_type="text/event-stream",
            headers={**headers, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    final = await turn.result()
    if final.get("error"):
        err = final["error"]
        status = turn_error_status(err["code"])
        return JSONResponse(
            error_body(err["code"], err["message"], status=status, openai=True, thread_id=turn.thread_id),
            status,
            headers={**headers, **turn_error_headers(status)},
        )
    completion = ChatCompletion(
        id=completion_id,
        created=int(time.time()),
        model=body.model,
        choices=[{"index": 0, "message": {"role": "assistant", "content": final["response"]}}],
        usage=_usage(final["trace"]),
        thread_id=turn.thread_id,
    )
    return JSONResponse(completion.model_dump(mode="json"), headers=headers)


async def _stream(turn: Turn, completion_id: str, model: str, include_usage: bool) -> AsyncIterator[str]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            "thread_id": turn.thread_id,
            **extra,
        }
        return f"data: {json_text(data)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    sent = ""
    async for event in turn.events_or_idle(chat.KEEPALIVE_S):
        if event is None:
            yield KEEPALIVE
            continue
        kind = event.get("type")
        if kind == "token" and event.get("text") and event.get("node") in FINAL_NODES:
            # the answer's tokens only: an agent's own answer (the supervisor mode streams its agents) is
            # not the turn's, and the content cannot be taken back
            sent += event["text"]
            yield chunk({"content": event["text"]})
        elif kind == "final":
            error = event.get("error")
            if error:
                body = error_body(
                    error["code"], error["message"], status=turn_error_status(error["code"]), openai=True,
                    thread_id=turn.thread_id,
                )  # fmt: skip
                yield f"data: {json_text(body)}\n\n"
                break
            response = event.get("response") or ""
            if response != sent and response.startswith(sent):
                yield chunk({"content": response[len(sent) :]})  # text the model did not stream
            elif " ".join(response.split()) != " ".join(sent.split()):
                # the final-answer check replaced the streamed draft (or no token was streamed):
                # the answer the thread keeps follows, so the client always ends with it
                yield chunk({"content": f"\n\n{response}" if sent.strip() else response})
            yield chunk({}, "stop")
            if include_usage:
                usage_chunk = {
                    "id": completion_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [],
                    "usage": _usage(event.get("trace") or {}),
                    "thread_id": turn.thread_id,
                }
                yield f"data: {json_text(usage_chunk)}\n\n"
    yield "data: [DONE]\n\n"
