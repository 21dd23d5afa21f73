"""Request and response models of the HTTP API (they also document the OpenAPI schema).

Cadence's own requests reject unknown fields (``extra="forbid"`` → 422); the
OpenAI-compatible request ignores them, because OpenAI clients send extras.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cadence.orchestration.tones import TONE_NAMES
from cadence.server.validation import LABEL_PATTERN, THREAD_ID_PATTERN, USER_ID_PATTERN, limit

ToneName = Literal["natural", "explanatory", "formal", "concise", "learning"]
assert set(TONE_NAMES) == set(ToneName.__args__), "ToneName must list every ResponseTone"  # type: ignore[attr-defined]


def sse_content(event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """An OpenAPI ``text/event-stream`` media type whose ``itemSchema`` describes one event
    (OpenAPI 3.2 style, as FastAPI's own SSE responses): ``event`` and ``data`` fields."""
    return {
        "text/event-stream": {
            "itemSchema": {
                "type": "object",
                "required": ["data"],
                "properties": {"event": event, "data": data, "id": {"type": "string"}},
            }
        }
    }


CHAT_STREAM_CONTENT = sse_content(
    {"type": "string", "description": "The event's type (same as data.type)."},
    {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}},
        "description": "The event as JSON.",
    },
)
"""``POST /api/v1/chat/stream``: ``event: <type>`` + ``data: <json>`` per event."""

COMPLETION_STREAM_CONTENT = sse_content(
    {"type": "string"},
    {"type": "string", "description": "A chat.completion.chunk (or an error) as JSON; the last is [DONE]."},
)
"""``POST /v1/chat/completions`` with ``stream=true``: OpenAI's ``data:`` chunks."""


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

    message: str = Field(
        min_length=1,
        description="The user's message (at most CADENCE_MAX_MESSAGE_CHARS; not blank).",
        json_schema_extra=limit("max_message_chars"),
    )
    thread_id: str | None = Field(
        None,
        pattern=THREAD_ID_PATTERN,
        description="Continue this thread (or name a new one).",
        json_schema_extra=limit("max_id_chars"),
    )
    user_id: str | None = Field(
        None,
        min_length=1,
        pattern=USER_ID_PATTERN,
        description="Act as this user (default: the key's user or default_user); no '::'.",
        json_schema_extra=limit("max_id_chars"),
    )
    tone: ToneName | None = Field(None, description="Tone of the answer (default natural).")
    mode: str | None = Field(
        None,
        max_length=40,
        description="Orchestration mode of this turn: coordinator or supervisor (default CADENCE_MODE).",
    )
    agent: str | None = Field(
        None,
        max_length=80,
        description="Talk to this one agent (plugin or Markdown agent) in the single mode; naming an agent "
        "implies mode single (default CADENCE_AGENT). 422 unknown_agent lists the agents.",
    )
    metadata: dict[str, Any] | None = Field(
        None,
        description="Free-form metadata passed to the turn (at most CADENCE_MAX_METADATA_BYTES as JSON, "
        "32 levels deep, 64-bit integers).",
    )
    org_id: str | None = Field(
        None,
        pattern=LABEL_PATTERN,
        description="Organisation recorded on a new thread.",
        json_schema_extra=limit("max_id_chars"),
    )
    project_id: str | None = Field(
        None,
        pattern=LABEL_PATTERN,
        description="Project recorded on a new thread.",
        json_schema_extra=limit("max_id_chars"),
    )


class ApprovalOut(BaseModel):
    """A tool call waiting for a human's decision."""

    id: str = Field(description="The tool call's id: decide by it.")
    thread: str | None = Field(None, description="The thread.")
    agent: str = Field(description="The plugin whose agent made the call.")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict, description="The call's arguments.")
    reason: str = Field(description="Why the call needs approval.")


class ChatResponse(BaseModel):
    """The answer of one turn (or, when ``interrupted``, the approvals it waits for)."""

    response: str = Field(description="The answer; for a paused turn, what waits for approval.")
    thread_id: str
    trace: dict[str, Any] = Field(
        description="Routing history, hops, tools used, model calls, usage, timing, approvals."
    )
    interrupted: bool = Field(
        False, description="The turn paused: decide the approvals with POST /api/v1/threads/{id}/resume."
    )
    approvals: list[ApprovalOut] = Field(default_factory=list, description="The pending approvals.")


class ResumeRequest(_Strict):
    """The decisions about a paused turn's pending calls.

    ``decisions``: ``{call_id: decision}`` for every pending call, or one decision for all of them.
    A decision is ``"approve"``, ``"reject"``, ``{"decision": "reject", "message": "..."}`` (the agent
    reads the message as the tool's result) or ``{"decision": "edit", "arguments": {...}}``.
    """

    decisions: dict[str, Any] | str = Field(
        description='e.g. "approve", or {"call_1": "approve", "call_2": {"decision": "reject", '
        '"message": "not now"}}.'
    )
    user_id: str | None = Field(
        None,
        min_length=1,
        pattern=USER_ID_PATTERN,
        description="Act as this user (default: the key's user or default_user).",
        json_schema_extra=limit("max_id_chars"),
    )
    stream: bool = Field(False, description="Stream the continued turn as Server-Sent Events.")


class PendingResponse(BaseModel):
    """The approvals a thread waits for (empty when it is not paused)."""

    thread_id: str
    interrupted: bool
    approvals: list[ApprovalOut]


class CheckpointMessageOut(BaseModel):
    """A message a checkpoint added: its tool calls, or the call it answers."""

    id: str | None = None
    role: str
    name: str | None = None
    content: str
    tool_calls: list[ToolCallOut] | None = None
    tool_call_id: str | None = None
    status: str | None = None


class CheckpointOut(BaseModel):
    """One checkpoint of a thread (a state snapshot)."""

    checkpoint_id: str
    parent_id: str | None = None
    step: int | None = Field(None, description="LangGraph's step number (-1 for an input checkpoint).")
    source: str | None = Field(None, description="input, loop (a step ran), update or fork.")
    node: str | None = Field(None, description="What wrote it: the node(s) whose step ran, input or update.")
    next: list[str] = Field(description="What runs from it (empty at the end of a turn).")
    created_at: str | None = None
    mode: str | None = None
    messages: list[CheckpointMessageOut] = Field(description="The messages this checkpoint added.")
    message_count: int = Field(description="Messages in the thread at this checkpoint.")
    approvals: list[ApprovalOut] = Field(default_factory=list, description="Approvals pending here.")


class HistoryResponse(BaseModel):
    """A thread's checkpoints, newest first."""

    thread_id: str
    checkpoints: list[CheckpointOut]


class ForkRequest(_Strict):
    """Run a thread again from one of its checkpoints, with optional edits (time travel)."""

    checkpoint_id: str = Field(min_length=1, max_length=200, description="From the thread's history.")
    route: str | None = Field(
        None,
        max_length=80,
        description="Force the next decision: an agent's name or 'finalize' (at a checkpoint where the "
        "coordinator/supervisor decides next, or right after its decision).",
    )
    tool_results: dict[str, str] | None = Field(
        None, description="Replace tool results already in the checkpoint: {tool_call_id: new text}."
    )
    user_id: str | None = Field(
        None,
        min_length=1,
        pattern=USER_ID_PATTERN,
        description="Act as this user (default: the key's user or default_user).",
        json_schema_extra=limit("max_id_chars"),
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
    interrupted: bool = Field(
        False, description="A question whose turn never finished (the server stopped mid-turn)."
    )


class ThreadDetail(ThreadSummary):
    """A thread and its messages."""

    messages: list[MessageOut]


class DeleteResponse(BaseModel):
    """Result of deleting a thread."""

    thread_id: str
    deleted: bool


class ThreadRename(_Strict):
    """A thread's new title."""

    title: str = Field(
        min_length=1,
        max_length=80,
        description="The new title (at most 80 characters; control characters become spaces, "
        "whitespace is collapsed; not blank).",
    )


# -- modes and graphs (the web page's pickers and graph view) ---------------------------------
class ModeOut(BaseModel):
    """One orchestration mode a turn may ask for."""

    name: str
    description: str = Field(description="What the mode does, in one line.")
    entry: str = Field(description="The mode's first node.")
    default: bool = Field(description="Whether it is CADENCE_MODE (the mode of a request that names none).")


class ModesResponse(BaseModel):
    """The modes and tones a chat request may name."""

    modes: list[ModeOut]
    default_mode: str
    tones: list[ToneName]
    default_tone: ToneName


class GraphNodeOut(BaseModel):
    """A node of a compiled graph (``__start__`` and ``__end__`` included)."""

    id: str


class GraphEdgeOut(BaseModel):
    """An edge of a compiled graph; ``conditional`` when a decision picks it at run time."""

    source: str
    target: str
    conditional: bool = False
    label: str | None = None


class GraphResponse(BaseModel):
    """The compiled graph of one mode: nodes and edges (to draw), and the same as Mermaid text."""

    mode: str
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
    mermaid: str


# -- plugins & health -------------------------------------------------------------------
class PluginStatusOut(BaseModel):
    """Outcome of loading one plugin candidate."""

    name: str
    status: str = Field(description="loaded | failed | overridden | disabled")
    source: str = Field(description="builtin | entry_point | directory | registered | markdown")
    location: str
    version: str | None = None
    description: str | None = None
    reason: str | None = None
    health: str | None = Field(None, description="What the plugin's health_check() said (loaded plugins).")


class PluginList(BaseModel):
    """Every plugin candidate and its status."""

    plugins: list[PluginStatusOut]


class HealthResponse(BaseModel):
    """Liveness."""

    status: Literal["ok"] = "ok"
    version: str


class ReadyResponse(BaseModel):
    """Readiness: the engine is loaded and the database answers; ``degraded`` names saturated plugins."""

    status: Literal["ready", "degraded", "not_ready"]
    checks: dict[str, str]
    details: dict[str, Any] | None = Field(
        None, description="Operational details: embedded_model_workers [{model, pid, restarts}] if any run."
    )


# -- OpenAI compatibility ---------------------------------------------------------------
class OpenAIMessage(BaseModel):
    """A chat message in OpenAI's format (content as text or a list of parts)."""

    model_config = ConfigDict(extra="ignore")

    role: str
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None


class ChatCompletionRequest(BaseModel):
    """OpenAI ``chat.completions`` request; unknown fields are ignored.

    Cadence extras (top level, e.g. the Python client's ``extra_body``): ``thread_id``, ``tone``, ``mode``,
    ``agent``.
    """

    model_config = ConfigDict(extra="ignore")

    model: str = Field(description='"cadence" or "cadence:<tone>".')
    messages: list[OpenAIMessage] = Field(
        min_length=1,
        description="The conversation; the last message is the user's question "
        "(at most CADENCE_MAX_OPENAI_MESSAGES).",
        json_schema_extra=limit("max_openai_messages"),
    )
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    n: Literal[1] | None = Field(
        None,
        description="How many answers: Cadence gives one per request (omit, or 1; anything else is 422).",
    )
    user: str | None = Field(
        None,
        pattern=USER_ID_PATTERN,
        description="The Cadence user id (no '::').",
        json_schema_extra=limit("max_id_chars"),
    )
    metadata: dict[str, Any] | None = Field(
        None,
        description="May carry thread_id; passed to the turn (at most CADENCE_MAX_METADATA_BYTES as JSON).",
    )
    thread_id: str | None = Field(
        None,
        pattern=THREAD_ID_PATTERN,
        description="Continue this thread (or header X-Cadence-Thread-Id).",
        json_schema_extra=limit("max_id_chars"),
    )
    tone: ToneName | None = Field(None, description="Overrides the tone named by the model.")
    mode: str | None = Field(
        None,
        max_length=40,
        description="Orchestration mode (coordinator, supervisor, ...); overrides the model's mode.",
    )
    agent: str | None = Field(
        None,
        max_length=80,
        description="The single mode's agent (naming one implies mode single); 422 unknown_agent.",
    )


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
