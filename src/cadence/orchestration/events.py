"""Stream events, in one module: what ``Cadence.astream`` yields, and how graph output becomes events.

Every event is a JSON-ready dict with a ``type``; the typed records below document
each one (the server sends them as SSE/WebSocket messages as they are, the CLI
renders them). Plugin code adds its own events with :func:`cadence.sdk.emit`
(``custom`` stream mode); they pass through unchanged.

Events are emitted where they happen (:func:`emit_events`, LangGraph's ``custom`` stream):

- the coordinator → ``suspend`` + ``node`` (suspend), or ``agent_start`` + ``node`` (the
  agent), or ``node`` (synthesizer) (:func:`coordinator_events`);
- ``{name}_agent`` → ``tool_start`` per work-tool call + ``node`` (its tools) (:func:`agent_events`);
- ``{name}_tools`` → ``tool_end`` per result + ``agent_end`` + ``node`` (coordinator) (:func:`tools_events`);
- plugins' own ``emit`` events likewise.

:func:`events_from_chunk` turns LangGraph's stream into events: ``custom`` chunks pass
through, ``messages`` chunks of the final-answer nodes become ``token``. A model's reasoning in
``<think>…</think>`` blocks is never an answer token (the final-answer nodes keep it apart as
``thought``): a :class:`ThinkFilter`, one per streamed turn, drops it chunk by chunk, even when a
tag is split across chunks. It also keeps a model call retried after streaming part of its answer
from streaming a second answer after the first one's beginning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from langchain_core.messages import AIMessageChunk, ToolMessage

from cadence.conventions import (
    BACK_TOOL_NAME,
    FINAL_NODES,
    FORWARD_TOOL,
    GraphNodeNames,
    agent_node_name,
    message_text,
    plugin_of_node,
    tools_node_name,
)
from cadence.orchestration.state import PluginContextFields as F
from cadence.sdk.events import emit

MAX_RESULT_CHARS_IN_EVENT = 2000
"""A ``tool_end`` event carries at most this many characters of the result."""


class NodeEvent(TypedDict):
    """A node starts working."""

    type: Literal["node"]
    node: str
    """The node's name (``coordinator``, ``{name}_agent``, ``{name}_tools``, ``synthesizer``, ``suspend``)."""


class AgentStartEvent(TypedDict):
    """The coordinator routed to an agent."""

    type: Literal["agent_start"]
    agent: str
    """The plugin's normalised name."""
    hop: int
    """The turn's agent hop count after this route."""


class AgentEndEvent(TypedDict):
    """An agent's tools ran; control goes back to the coordinator."""

    type: Literal["agent_end"]
    agent: str
    """The plugin's normalised name."""


class ToolStartEvent(TypedDict):
    """An agent called one of its work tools."""

    type: Literal["tool_start"]
    agent: str
    """The plugin's normalised name."""
    name: str
    """The tool's name."""
    args: Any
    """The call's arguments."""
    id: str | None
    """The call's id: its ``tool_end`` has the same (two calls of one tool pair up by it)."""


class ToolEndEvent(TypedDict):
    """A work tool returned."""

    type: Literal["tool_end"]
    agent: str
    """The plugin's normalised name."""
    name: str
    """The tool's name."""
    result: str
    """The result's text (at most :data:`MAX_RESULT_CHARS_IN_EVENT` characters)."""
    error: bool
    """Whether the result is an error result."""
    duration_ms: float | None
    """How long the tool ran (None when unknown)."""
    id: str | None
    """The call's id, as in its ``tool_start``."""


class SuspendEvent(TypedDict):
    """A guard stopped the turn; the suspend node writes the answer."""

    type: Literal["suspend"]
    reason: dict[str, Any]
    """The suspend reason's JSON form (:meth:`cadence.orchestration.guards.SuspendReason.to_dict`)."""


class TokenEvent(TypedDict):
    """Answer text as the final-answer node generates it."""

    type: Literal["token"]
    node: str
    """``synthesizer`` or ``suspend``."""
    text: str
    """The new piece of text."""


class ErrorEvent(TypedDict):
    """The turn failed (or part of it did); the final event follows."""

    type: Literal["error"]
    error: dict[str, Any]
    """``{"code", "message"}``."""


class FinalEvent(TypedDict):
    """The last event of every turn."""

    type: Literal["final"]
    response: str
    """The final answer's text."""
    thread_id: str
    """The conversation's thread id."""
    trace: dict[str, Any]
    """The turn's trace (see :class:`cadence.orchestration.turn.TraceRecord`)."""
    error: dict[str, Any] | None
    """``{"code", "message"}`` when the turn failed, else None."""


StreamEvent = (
    NodeEvent
    | AgentStartEvent
    | AgentEndEvent
    | ToolStartEvent
    | ToolEndEvent
    | SuspendEvent
    | TokenEvent
    | ErrorEvent
    | FinalEvent
    | dict[str, Any]
)
"""Any event ``Cadence.astream`` yields (plugins' own ``emit`` events are plain dicts)."""


def node_event(node: str) -> NodeEvent:
    """``node``: ``node`` starts working."""
    return {"type": "node", "node": node}


def error_event(error: dict[str, Any]) -> ErrorEvent:
    """``error``: the turn failed."""
    return {"type": "error", "error": error}


def final_event(
    response: str, thread_id: str, trace: dict[str, Any], error: dict[str, Any] | None
) -> FinalEvent:
    """``final``: the answer, the thread, the trace and the error (if any)."""
    return {"type": "final", "response": response, "thread_id": thread_id, "trace": trace, "error": error}


THINK_OPEN = "<think>"
"""Opens a model's reasoning block (closed by :data:`THINK_CLOSE`; an unclosed one runs to the end)."""
THINK_CLOSE = "</think>"


def _held_back(text: str, tag: str) -> int:
    """How many trailing characters of ``text`` may be the start of ``tag`` (case-insensitive)."""
    lowered, tag = text.lower(), tag.lower()
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(lowered[-size:]):
            return size
    return 0


@dataclass
class _ThinkState:
    inside: bool = False
    pending: str = ""
    """Text held back: it may be the start of a tag that the next chunk completes."""
    thought: bool = False
    """A think block was seen."""
    started: bool = False
    """Answer text was let through."""


@dataclass
class ThinkFilter:
    """Drops ``<think>…</think>`` blocks from streamed answer text, chunk by chunk, per message.

    The same rule as the final answer's (:func:`cadence.text.split_thought`): blocks anywhere are
    dropped, an unclosed block runs to the end, whitespace between a block and the answer is not
    answer text. Text that may be the start of a tag ("<thi") is held back until the next chunk
    of the message tells; the message's last chunk releases it.
    """

    _streams: dict[str, _ThinkState] = field(default_factory=dict)
    _open: dict[str, str] = field(default_factory=dict)
    """Per node, the message whose answer text is being streamed (until its last chunk)."""
    _retried: set[str] = field(default_factory=set)
    """Messages not streamed: a call retried after its first attempt streamed text and failed."""

    def retried(self, node: str, key: str, *, last: bool) -> bool:
        """Whether message ``key`` of ``node`` is a retried call's answer, not to be streamed.

        A model call that fails after streaming part of its answer is retried (the model-call
        retries): the new attempt is a new message of the same node while the node's streamed one
        never got its last chunk. Its tokens would run on after the cut-short text as one answer;
        the ``final`` event carries the answer instead (as after a rewrite).
        """
        if key in self._retried:
            if last:
                self._retried.discard(key)
            return True
        cut = self._open.get(node)
        if cut is None or cut == key:
            return False
        del self._open[node]
        self._streams.pop(cut, None)
        if not last:
            self._retried.add(key)
        return True

    def streamed(self, node: str, key: str, *, last: bool) -> None:
        """Note that answer text of message ``key`` of ``node`` was streamed (``last``: it ended)."""
        if last:
            if self._open.get(node) == key:
                del self._open[node]
        else:
            self._open[node] = key

    def feed(self, key: str, text: str, *, last: bool = False) -> str:
        """The answer text among ``text``, the next piece of message ``key``; ``last``: its end."""
        state = self._streams.setdefault(key, _ThinkState())
        buffer, out = state.pending + text, []
        while buffer:
            tag = THINK_CLOSE if state.inside else THINK_OPEN
            found = buffer.lower().find(tag)
            if found >= 0:
                if not state.inside:
                    out.append(buffer[:found])
                else:
                    state.thought = True
                buffer = buffer[found + len(tag) :]
                state.inside = not state.inside
                continue
            keep = _held_back(buffer, tag)
            if not state.inside:
                out.append(buffer[: len(buffer) - keep])
            buffer = buffer[len(buffer) - keep :]
            break
        state.pending = buffer
        if last:
            if not state.inside:
                out.append(state.pending)
            del self._streams[key]
        answer = "".join(out)
        if not state.started and (state.thought or state.inside):
            answer = answer.lstrip()
        if answer:
            state.started = True
        return answer


def _is_last_chunk(msg: AIMessageChunk) -> bool:
    return getattr(msg, "chunk_position", None) == "last" or bool(
        (msg.response_metadata or {}).get("finish_reason")
    )


def events_from_chunk(
    mode: str, chunk: Any, subgraph: bool = False, think: ThinkFilter | None = None
) -> list[StreamEvent]:
    """The events one chunk of LangGraph's stream (``stream_mode`` ``mode``) stands for.

    ``subgraph``: the chunk comes from a subgraph (an agent subgraph of the supervisor mode),
    whose agent's tokens are streamed too (``token`` events naming the agent's node).
    ``think``: the turn's :class:`ThinkFilter` (one per stream, so a ``<think>`` tag split across
    chunks is recognised); without one, only blocks within a single chunk are dropped.
    """
    events: list[StreamEvent] = []
    if mode == "custom" and isinstance(chunk, dict):
        events.append(chunk)
    elif mode == "messages":
        msg, meta = chunk
        node = (meta or {}).get("langgraph_node")
        agent_token = subgraph and (plugin_of_node(node or "") or ("", ""))[1] == "agent"
        if (node in FINAL_NODES or agent_token) and isinstance(msg, AIMessageChunk):
            text = message_text(msg)
            last = _is_last_chunk(msg)
            if text or last:
                key = f"{node}:{msg.id or ''}"
                if think is not None and think.retried(node, key, last=last):
                    return events
                text = (think or ThinkFilter()).feed(key, text, last=last or think is None)
                if think is not None and (text or last):
                    think.streamed(node, key, last=last)
            if text:
                events.append(TokenEvent(type="token", node=node, text=text))
    elif mode == "updates" and isinstance(chunk, dict):
        for node, update in chunk.items():
            if isinstance(update, dict):
                events.extend(events_from_update(node, update))
    return events


def coordinator_events(update: dict[str, Any]) -> list[StreamEvent]:
    """What a coordinator (or supervisor) step stands for: ``suspend`` + ``node`` suspend, ``agent_start`` +
    ``node`` agent, ``node`` forward (``forward_message``), or ``node`` synthesizer."""
    ctx = update.get("plugin_context") or {}
    reason = ctx.get(F.SUSPEND_REASON)
    if reason:
        return [SuspendEvent(type="suspend", reason=reason), node_event(GraphNodeNames.SUSPEND)]
    if update.get("current_agent") and update.get("agent_hops"):
        agent = update["current_agent"]
        return [
            AgentStartEvent(type="agent_start", agent=agent, hop=update["agent_hops"]),
            node_event(agent_node_name(agent)),
        ]
    calls = [c for m in update.get("messages") or [] for c in getattr(m, "tool_calls", None) or []]
    if any(c.get("name") == FORWARD_TOOL for c in calls):  # the supervisor passes an answer on
        return [node_event(GraphNodeNames.FORWARD)]
    return [node_event(GraphNodeNames.SYNTHESIZER)]


def agent_events(agent: str, update: dict[str, Any], next_node: str | None = None) -> list[StreamEvent]:
    """What an agent step stands for: ``tool_start`` per work-tool call, then ``node`` ``next_node``.

    ``next_node`` defaults to the agent's tools node (where every mode but ``single`` goes next);
    another node means the agent is done: ``agent_end`` comes first.
    """
    events: list[StreamEvent] = []
    for msg in update.get("messages") or []:
        for call in getattr(msg, "tool_calls", None) or []:
            if call["name"] != BACK_TOOL_NAME:
                events.append(tool_start_event(agent, call))
    if next_node is not None and next_node != tools_node_name(agent):
        events.append(AgentEndEvent(type="agent_end", agent=agent))
    events.append(node_event(next_node or tools_node_name(agent)))
    return events


def tool_start_event(agent: str, call: Mapping[str, Any]) -> ToolStartEvent:
    """The ``tool_start`` of one of ``agent``'s tool calls (``name``, ``args``, ``id``)."""
    return ToolStartEvent(
        type="tool_start", agent=agent, name=call["name"], args=call.get("args") or {}, id=call.get("id")
    )


class ToolStartPairing:
    """Keeps a stream that continues work begun in another one (a resumed pause, a fork) true to "every
    ``tool_end`` follows a ``tool_start`` of the same call in the same stream".

    :meth:`announce` sends the ``tool_start`` of the calls about to run again; :meth:`pair` passes an
    event on, preceded by a ``tool_start`` when it is a ``tool_end`` this stream announced no start for
    (its call from ``calls``, by id: ``name``, ``args``; else named by the ``tool_end`` itself).
    """

    def __init__(self, calls: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.calls = dict(calls or {})
        self.started: set[Any] = set()

    def announce(self, starts: Iterable[ToolStartEvent]) -> list[StreamEvent]:
        """``starts``, marked as sent."""
        out: list[StreamEvent] = []
        for start in starts:
            self.started.add(start.get("id"))
            out.append(start)
        return out

    def pair(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """``event``, after the ``tool_start`` it lacks (if it is a ``tool_end`` without one)."""
        kind = event.get("type")
        if kind == "tool_start":
            self.started.add(event.get("id"))
        elif kind == "tool_end" and event.get("id") not in self.started:
            self.started.add(event.get("id"))
            call = self.calls.get(str(event.get("id"))) or {"name": event.get("name"), "id": event.get("id")}
            return [dict(tool_start_event(str(event.get("agent")), call)), event]
        return [event]


def tools_events(
    agent: str, update: dict[str, Any], next_node: str = GraphNodeNames.COORDINATOR
) -> list[StreamEvent]:
    """What a tools step stands for: ``tool_end`` per result, ``agent_end``, then ``node`` ``next_node``
    (``suspend`` first when a guard fired and the turn goes to the suspend node).

    When ``next_node`` is the agent's own node (an agent looping over its tools, as in the
    supervisor mode) the agent has not ended: there is no ``agent_end``.
    """
    events: list[StreamEvent] = []
    for msg in update.get("messages") or []:
        # results only: a resumed step that ran edited calls also returns the agent's rewritten message
        if isinstance(msg, ToolMessage) and msg.name and msg.name != BACK_TOOL_NAME:
            events.append(
                ToolEndEvent(
                    type="tool_end",
                    agent=agent,
                    name=msg.name,
                    result=message_text(msg)[:MAX_RESULT_CHARS_IN_EVENT],
                    error=getattr(msg, "status", "success") == "error",
                    duration_ms=(msg.response_metadata or {}).get("duration_ms"),
                    id=getattr(msg, "tool_call_id", None),
                )
            )
    if next_node != agent_node_name(agent):
        events.append(AgentEndEvent(type="agent_end", agent=agent))
    reason = (update.get("plugin_context") or {}).get(F.SUSPEND_REASON)
    if next_node == GraphNodeNames.SUSPEND and reason:  # a guard fired after the tools (single mode)
        events.append(SuspendEvent(type="suspend", reason=reason))
    events.append(node_event(next_node))
    return events


def emit_events(events: list[StreamEvent]) -> None:
    """Send ``events`` to the turn's stream from inside the node where they happen (no-op unstreamed)."""
    for event in events:
        emit(event)  # type: ignore[arg-type]


def events_from_update(node: str, update: dict[str, Any]) -> list[StreamEvent]:
    """The events a node's state update stands for (the nodes emit these themselves as they happen)."""
    if node == GraphNodeNames.COORDINATOR:
        return coordinator_events(update)
    plugin_node = plugin_of_node(node)
    if plugin_node is None:
        return []
    agent, kind = plugin_node
    return tools_events(agent, update) if kind == "tools" else agent_events(agent, update)


__all__ = [
    "MAX_RESULT_CHARS_IN_EVENT",
    "THINK_CLOSE",
    "THINK_OPEN",
    "AgentEndEvent",
    "AgentStartEvent",
    "ErrorEvent",
    "FinalEvent",
    "NodeEvent",
    "StreamEvent",
    "SuspendEvent",
    "ThinkFilter",
    "TokenEvent",
    "ToolEndEvent",
    "ToolStartEvent",
    "ToolStartPairing",
    "agent_events",
    "coordinator_events",
    "emit_events",
    "error_event",
    "events_from_chunk",
    "events_from_update",
    "final_event",
    "node_event",
    "tool_start_event",
    "tools_events",
]
