"""Request and response models of the HTTP API (they also document the OpenAPI schema).

Cadence's own requests reject unknown fields (``extra="forbid"`` → 422); the
OpenAI-compatible request ignores them, because OpenAI clients send extras.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cadence.orchestration.tones import TONE_NAMES

ToneName = Literal["natural", "explanatory", "formal", "concise", "learning"]
assert set(TONE_NAMES) == set(ToneName.__args__), "ToneName must list every ResponseTone"  # type: ignore[attr-defined]

THREAD_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$"
"""Thread ids: letters, digits, ``_``, ``.``, ``-``; no ``:`` (the engine joins user and thread by ``::``)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- errors -----------------------------------------------------------------------------
class ErrorDetail(BaseModel):
    """What went wrong: a stable machine-readable code and a human message."""

    code: str = Field(description="Machine-readable code, e.g. invalid_json, message_too_long, thread_busy.")
    message: str = Field(description="What went wrong and what to do about it.")
    thread_id: str | None = Field(None, description="The thread, when the error ended a turn on it.")
    details: list[dict[str, Any]] | None = Field(
        None, description="Per-field problems of a validation error."
    )


class ErrorResponse(BaseModel):
    """Every error response: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


# -- chat -------------------------------------------------------------------------------
class ChatRequest(_Strict):
    """One user message; omit ``thread_id`` to start a new conversation."""

    message: str = Field(min_length=1, description="The user's message (at most CADENCE_MAX_MESSAGE_CHARS).")
    thread_id: str | None = Field(None, pattern=THREAD_ID_PATTERN, description="Continue this thread.")
    user_id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="Act as this user (default: the key's user or default_user).",
    )
    tone: ToneName | None = Field(None, description="Tone of the answer (default natural).")
    metadata: dict[str, Any] | None = Field(None, description="Free-form metadata passed to the turn.")
    org_id: str | None = Field(None, max_length=200, description="Organisation recorded on a new thread.")
    project_id: str | None = Field(None, max_length=200, description="Project recorded on a new thread.")


class ChatResponse(BaseModel):
    """The answer of one turn."""

    response: str
    thread_id: str
    trace: dict[str, Any] = Field(
        description="Routing history, hops, tools used, model calls, usage, timing."
    )


class ChatErrorResponse(ErrorResponse):
    """A turn that failed part-way (model or tool failure, timeout): the thread stays usable."""

    thread_id: str
    response: str = Field(description="The fallback answer recorded in the thread.")
    trace: dict[str, Any]


# -- threads ----------------------------------------------------------------------------
class ThreadSummary(BaseModel):
    """A thread as listed: its title (the first message, truncated) and last activity."""

    thread_id: str
    user_id: str
    title: str
    created_at: datetime
    updated_at: datetime = Field(description="Last activity.")
    turns: int = Field(description="Turns completed through the API.")
    org_id: str | None = None
    project_id: str | None = None


class ThreadList(BaseModel):
    """A page of the user's threads, most recently active first."""

    threads: list[ThreadSummary]
    limit: int
    offset: int


class ToolCallOut(BaseModel):
    """A tool call requested by an assistant message."""

    id: str | None = None
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class MessageOut(BaseModel):
    """One message of a thread.

    ``internal`` marks the graph's own work (routing, agent steps, tool results);
    ``kind`` says which: ``message`` (user question or final answer), ``routing``,
    ``agent`` or ``tool``.
    """

    role: Literal["user", "assistant", "tool", "system"]
    content: str
    name: str | None = None
    kind: Literal["message", "routing", "agent", "tool"] = "message"
    internal: bool = False
    tool_calls: list[ToolCallOut] | None = None
    tool_call_id: str | None = None


class ThreadDetail(ThreadSummary):
    """A thread and its messages."""

    messages: list[MessageOut]


class DeleteResponse(BaseModel):
    """Result of deleting a thread."""

    thread_id: str
    deleted: bool


# -- plugins & health -------------------------------------------------------------------
class PluginStatusOut(BaseModel):
    """Outcome of loading one plugin candidate."""

    name: str
    status: str = Field(description="loaded | failed | overridden | disabled")
    source: str
    location: str
    version: str | None = None
    description: str | None = None
    reason: str | None = None


class PluginList(BaseModel):
    """Every plugin candidate and its status."""

    plugins: list[PluginStatusOut]


class HealthResponse(BaseModel):
    """Liveness."""

    status: Literal["ok"] = "ok"
    version: str


class ReadyResponse(BaseModel):
    """Readiness: the engine is loaded and the database answers."""

    status: Literal["ready", "not_ready"]
    checks: dict[str, str]


# -- OpenAI compatibility ---------------------------------------------------------------
class OpenAIMessage(BaseModel):
    """A chat message in OpenAI's format (content as text or a list of parts)."""

    model_config = ConfigDict(extra="ignore")

    role: str
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None


class ChatCompletionRequest(BaseModel):
    """OpenAI ``chat.completions`` request; unknown fields are ignored.

    Cadence extras (top level, e.g. the Python client's ``extra_body``): ``thread_id``, ``tone``.
    """

    model_config = ConfigDict(extra="ignore")

    model: str = Field(description='"cadence" or "cadence:<tone>".')
    messages: list[OpenAIMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    user: str | None = Field(None, description="The Cadence user id.")
    metadata: dict[str, Any] | None = Field(None, description="May carry thread_id; passed to the turn.")
    thread_id: str | None = Field(None, description="Continue this thread (or header X-Cadence-Thread-Id).")
    tone: ToneName | None = Field(None, description="Overrides the tone named by the model.")


class CompletionMessage(BaseModel):
    """The assistant's answer."""

    role: Literal["assistant"] = "assistant"
    content: str


class CompletionChoice(BaseModel):
    """The single choice of a completion."""

    index: int = 0
    message: CompletionMessage
    finish_reason: Literal["stop"] = "stop"


class CompletionUsage(BaseModel):
    """Token usage of the whole turn (every model call)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """OpenAI ``chat.completion`` plus ``thread_id`` (also in header X-Cadence-Thread-Id)."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: CompletionUsage
    thread_id: str
    system_fingerprint: str | None = None


class ModelCard(BaseModel):
    """One model: ``cadence`` or ``cadence:<tone>``."""

    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "cadence"


class ModelList(BaseModel):
    """OpenAI ``GET /v1/models``."""

    object: Literal["list"] = "list"
    data: list[ModelCard]
