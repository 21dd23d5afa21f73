"""Inspection and time travel over a thread's checkpoints (LangGraph's state history).

- :func:`history_entries`: the checkpoints as JSON-ready records (id, step, the node that wrote
  it, what runs next, the messages it added with their tool calls and results, pending approvals);
- :func:`plan_fork`: how to run a thread again from one of its checkpoints with edits (force a
  route, replace tool results), as an ``update_state`` to apply and the config to run from.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.types import Command

from cadence.conventions import (
    FINALIZE,
    FINALIZE_TOOL,
    GOTO_NAMING,
    GraphNodeNames,
    RouteNaming,
    message_text,
    route_tool_name,
)
from cadence.errors import NotFoundError, ValidationError
from cadence.orchestration.approval import pending_approvals
from cadence.orchestration.hops import reset_route_counters, update_consecutive_routes
from cadence.orchestration.modes import ENTRY_NODES, ROUTE_NAMINGS
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import plugin_context

MAX_CONTENT_CHARS = 4000
"""A message's content in the history is clipped to this many characters."""
OVERRIDE_KEY = "cadence_override"
"""``response_metadata`` flag of a message a reviewer wrote in a fork (a replaced result, a forced route)."""


def message_record(msg: BaseMessage) -> dict[str, Any]:
    """One message as the history shows it: id, role, name, content, tool calls or the call it answers."""
    text = message_text(msg)
    out: dict[str, Any] = {
        "id": msg.id,
        "role": _role(msg),
        "name": msg.name,
        "content": text if len(text) <= MAX_CONTENT_CHARS else text[:MAX_CONTENT_CHARS] + "…",
    }
    if isinstance(msg, AIMessage) and msg.tool_calls:
        out["tool_calls"] = [
            {"id": c.get("id"), "name": c["name"], "args": c.get("args") or {}} for c in msg.tool_calls
        ]
    if isinstance(msg, ToolMessage):
        out["tool_call_id"] = msg.tool_call_id
        out["status"] = msg.status
    return out


def _role(msg: BaseMessage) -> str:
    if isinstance(msg, HumanMessage):
        return "user"
    if isinstance(msg, ToolMessage):
        return "tool"
    if isinstance(msg, SystemMessage):
        return "system"
    return "assistant"


def _checkpoint_id(snapshot: Any) -> str | None:
    return ((getattr(snapshot, "config", None) or {}).get("configurable") or {}).get("checkpoint_id")


def history_entries(snapshots: Sequence[Any], limit: int) -> list[dict[str, Any]]:
    """JSON-ready records of ``snapshots`` (``StateSnapshot``, newest first), at most ``limit``.

    Each record: ``checkpoint_id``, ``parent_id``, ``step``, ``source`` (``input``, ``loop``,
    ``update``, ``fork``), ``node`` (what wrote it: the node(s) that ran, ``input`` or ``update``),
    ``next`` (what runs from it), ``created_at``, ``messages`` (the messages it added, with tool
    calls and results), ``message_count`` and ``approvals`` (pending at that checkpoint).
    """
    entries: list[dict[str, Any]] = []
    for i, snap in enumerate(snapshots[:limit]):
        parent = snapshots[i + 1] if i + 1 < len(snapshots) else None
        meta = snap.metadata or {}
        source = meta.get("source")
        messages = list((snap.values or {}).get("messages") or [])
        before = {m.id for m in (parent.values or {}).get("messages") or []} if parent is not None else set()
        parent_msgs = (
            {m.id: m for m in (parent.values or {}).get("messages") or []} if parent is not None else {}
        )
        added = [m for m in messages if m.id not in before or parent_msgs.get(m.id) != m]
        parent_id = ((getattr(snap, "parent_config", None) or {}).get("configurable") or {}).get(
            "checkpoint_id"
        )
        if source == "loop" and parent is not None and _checkpoint_id(parent) == parent_id:
            node: str | None = ", ".join(parent.next) or None
        elif source == "input":
            node = "input"
        else:
            node = source
        entries.append(
            {
                "checkpoint_id": _checkpoint_id(snap),
                "parent_id": parent_id,
                "step": meta.get("step"),
                "source": source,
                "node": node,
                "next": list(snap.next or ()),
                "created_at": snap.created_at,
                "mode": meta.get("cadence_mode"),
                "messages": [message_record(m) for m in added],
                "message_count": len(messages),
                "approvals": pending_approvals(snap, meta.get("cadence_thread")),
            }
        )
    return entries


# -- forks --------------------------------------------------------------------------------------------
@dataclass
class ForkPlan:
    """How to run a fork: the checkpoint to start from, the edit to apply there, what runs first."""

    mode: str
    config: dict[str, Any]
    """The checkpoint's config (thread + checkpoint id)."""
    update: Any = None
    """The ``update_state`` values (a dict, or a ``Command`` for nodes that route by ``Command``)."""
    as_node: str | None = None
    first_node: str = GraphNodeNames.COORDINATOR
    question: HumanMessage = field(default_factory=lambda: HumanMessage(content=""))
    notes: list[str] = field(default_factory=list)
    tool_calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The checkpoint's tool calls by id (``name``, ``args``, ``id``): a fork that runs a tools step again
    sends their ``tool_start`` before their results."""


def _mode_of(engine: Any, snapshot: Any) -> str:
    mode = (snapshot.metadata or {}).get("cadence_mode")
    if mode in engine.modes:
        return str(mode)
    if GraphNodeNames.SUPERVISOR in (snapshot.next or ()):
        return "supervisor"
    return engine.mode


def _routes_by_command(engine: Any, mode: str, node: str) -> bool:
    """Whether ``node`` of ``mode``'s graph has no edge of its own (it routes with ``Command``)."""
    builder = engine.graph_for(mode).builder
    has_edge = any(source == node for source, _ in builder.edges) or bool(builder.branches.get(node))
    return not has_edge


async def plan_fork(
    engine: Any,
    config: dict[str, Any],
    checkpoint_id: str,
    *,
    route: str | None = None,
    tool_results: Mapping[str, str] | None = None,
) -> ForkPlan:
    """The :class:`ForkPlan` of a fork from ``checkpoint_id`` (see :meth:`Cadence.fork_stream`).

    :class:`NotFoundError`: ``thread_not_found`` when the thread has no checkpoint at all,
    ``checkpoint_not_found`` when it lacks this one."""
    at = {**config, "configurable": {**config["configurable"], "checkpoint_id": checkpoint_id}}
    graph = await engine.thread_graph(at)
    snapshot = await graph.aget_state(at)
    if not snapshot.values or _checkpoint_id(snapshot) != checkpoint_id:
        latest = {"configurable": {**config["configurable"], "checkpoint_ns": ""}}
        if await engine.checkpointer.aget_tuple(latest) is None:  # no such thread: say so, as the API does
            thread = (config.get("metadata") or {}).get("cadence_thread", "")
            raise NotFoundError(f"No thread {thread!r} for this user.", code="thread_not_found")
        raise NotFoundError(
            f"No checkpoint {checkpoint_id!r} in this thread; list them with the thread's history.",
            code="checkpoint_not_found",
        )
    mode = _mode_of(engine, snapshot)
    decider = ENTRY_NODES.get(mode, GraphNodeNames.COORDINATOR)
    plan = ForkPlan(mode=mode, config=_at(snapshot.config), question=_question(snapshot.values))
    values = dict(snapshot.values)
    messages = list(values.get("messages") or [])
    plan.tool_calls = {
        str(c.get("id")): dict(c) for m in messages if isinstance(m, AIMessage) for c in m.tool_calls
    }
    replaced: list[BaseMessage] = []
    for call_id, text in (tool_results or {}).items():
        old = next((m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id), None)
        if old is None:
            raise ValidationError(
                f"No tool result for call {call_id!r} at checkpoint {checkpoint_id!r}; pick a checkpoint "
                "after the tool ran (the history lists each checkpoint's tool calls and results).",
                code="invalid_fork",
            )
        if not isinstance(text, str):
            raise ValidationError(f"The new result of call {call_id!r} must be text.", code="invalid_fork")
        replaced.append(
            old.model_copy(
                update={
                    "content": text,
                    "status": "success",
                    "response_metadata": {**(old.response_metadata or {}), OVERRIDE_KEY: True},
                }
            )
        )
        plan.notes.append(f"fork: the result of tool call {call_id} was replaced by a reviewer")

    if route is not None:
        if mode not in ROUTE_NAMINGS:  # the planner plans tools, the single mode has one agent
            raise ValidationError(
                f"A route can be forced only in a mode whose deciding node routes to agents "
                f"({', '.join(sorted(ROUTE_NAMINGS))}); this turn ran in the {mode} mode. Fork without "
                "a route, or with new tool results.",
                code="invalid_fork",
            )
        if tuple(snapshot.next or ()) != (decider,) and snapshot.parent_config:
            # right after the decision (its routing step or the node it routed to next): decide
            # again from the checkpoint before it
            earlier = await graph.aget_state(snapshot.parent_config)
            if tuple(earlier.next or ()) == (decider,):
                snapshot, values = earlier, dict(earlier.values)
                plan.config = _at(earlier.config)
        if tuple(snapshot.next or ()) != (decider,):
            raise ValidationError(
                f"A route can be forced only where the {decider} decides next (this checkpoint runs "
                f"{', '.join(snapshot.next) or 'nothing'}); pick such a checkpoint from the history "
                "(step checkpoints need CADENCE_CHECKPOINT_DURABILITY=async or sync).",
                code="invalid_fork",
            )
        naming = ROUTE_NAMINGS[mode]
        plan.update, plan.as_node = _forced_route(
            engine, values, decider, route.strip().lower(), replaced, naming
        )
        if _routes_by_command(engine, mode, decider):  # the routing step answers the forced call
            plan.update = Command(update=plan.update, goto=GraphNodeNames.CONTROL_TOOLS)
        plan.first_node = GraphNodeNames.CONTROL_TOOLS
        plan.notes.append(f"fork: route {route!r} forced by a reviewer (guards not consulted)")
        return plan

    if not snapshot.next:
        raise ValidationError(
            f"Checkpoint {checkpoint_id!r} ends a turn: nothing runs from it. Pick a checkpoint whose "
            "'next' is not empty (step checkpoints need CADENCE_CHECKPOINT_DURABILITY=async or sync).",
            code="invalid_fork",
        )
    plan.first_node = snapshot.next[0]
    if replaced:
        writer = await _writer_of(snapshot, graph)
        if writer is None:
            raise ValidationError(
                f"Cannot tell which node wrote checkpoint {checkpoint_id!r}; edit a checkpoint "
                "written by a step of the graph.",
                code="invalid_fork",
            )
        update: Any = {"messages": replaced}
        if _routes_by_command(engine, mode, writer):
            update = Command(update=update, goto=list(snapshot.next))
        plan.update, plan.as_node = update, writer
    return plan


def _at(config: Mapping[str, Any]) -> dict[str, Any]:
    """A checkpoint's config, ready for ``update_state`` (the root namespace spelled out)."""
    configurable = {"checkpoint_ns": "", **dict(config.get("configurable") or {})}
    return {**dict(config), "configurable": configurable}


async def _writer_of(snapshot: Any, graph: Any) -> str | None:
    """The node whose step wrote ``snapshot`` (the parent's single ``next``), if it is one node."""
    meta = snapshot.metadata or {}
    if meta.get("source") != "loop" or not snapshot.parent_config:
        return None
    parent = await graph.aget_state(snapshot.parent_config)
    nodes = tuple(parent.next or ())
    return nodes[0] if len(nodes) == 1 else None


def _question(values: Mapping[str, Any] | None) -> HumanMessage:
    found = next(
        (m for m in reversed((values or {}).get("messages") or []) if isinstance(m, HumanMessage)), None
    )
    return found if found is not None else HumanMessage(content="")


def _forced_route(
    engine: Any,
    values: Mapping[str, Any],
    decider: str,
    route: str,
    replaced: list[BaseMessage],
    naming: RouteNaming = GOTO_NAMING,
) -> tuple[dict[str, Any], str]:
    """The update of a decision a reviewer makes in the decider's place: the routing call (of the
    decider's own tool, named by ``naming``) and its bookkeeping (hops, routing history, consecutive
    routes), as the decider itself would record them."""
    agents = [b.name for b in engine.plugin_manager.bundles.values()]
    ctx = plugin_context(values)
    update: dict[str, Any] = {}
    if route == FINALIZE:
        tool = FINALIZE_TOOL
        reset_route_counters(ctx)
    elif route in agents:
        tool = route_tool_name(route, naming)
        update_consecutive_routes(ctx, route)
        ctx[F.ROUTING_HISTORY].append(route)
        update["current_agent"] = route
        update["agent_hops"] = int(values.get("agent_hops") or 0) + 1
    else:
        raise ValidationError(
            f"Unknown route {route!r}; use one of: {', '.join([*agents, FINALIZE])}.", code="invalid_fork"
        )
    ctx[F.NOTES].append(f"route {route!r} forced by a reviewer")
    decision = AIMessage(
        content="",
        tool_calls=[
            {"name": tool, "args": {}, "id": f"call_fork_{uuid.uuid4().hex[:12]}", "type": "tool_call"}
        ],
        name=decider,
        response_metadata={OVERRIDE_KEY: True},
    )
    update["messages"] = [*replaced, decision]
    update["plugin_context"] = ctx
    return update, decider


# -- threads ------------------------------------------------------------------------------------------
SCAN_LIMIT = 20_000
""":func:`list_threads` reads at most this many checkpoints to find threads started outside the API."""


async def list_threads(engine: Any, user: str, limit: int, *, key_prefix: str) -> list[dict[str, Any]]:
    """The user's threads, newest first: the thread records (``engine.thread_store``) and the threads
    found only in the checkpoints (started before the engine wrote records), each with its title, last
    activity, message count and whether it is paused for approval. ``key_prefix``: the user's
    checkpoint-key prefix."""
    from cadence.persistence.threads import make_title

    rows: dict[str, dict[str, Any]] = {}
    for record in await engine.thread_store.list(user, limit=limit):
        rows[record.thread_id] = {
            "thread_id": record.thread_id,
            "title": record.title,
            "updated_at": record.updated_at.isoformat(),
        }
    prefix = key_prefix
    scanned = 0
    async for saved in engine.checkpointer.alist(None):
        scanned += 1
        if scanned > SCAN_LIMIT or len(rows) >= limit * 4:
            break
        configurable = saved.config.get("configurable") or {}
        key = str(configurable.get("thread_id") or "")
        if configurable.get("checkpoint_ns") or not key.startswith(prefix):
            continue
        thread = key[len(prefix) :]
        rows.setdefault(thread, {"thread_id": thread, "title": None, "updated_at": saved.checkpoint["ts"]})
    out = sorted(rows.values(), key=lambda r: str(r["updated_at"]), reverse=True)[:limit]
    for row in out:
        config = {"configurable": {"thread_id": f"{prefix}{row['thread_id']}"}}
        snapshot = await (await engine.thread_graph(config)).aget_state(config)
        messages = list((snapshot.values or {}).get("messages") or [])
        row["messages"] = len(messages)
        row["paused"] = bool(pending_approvals(snapshot))
        if not row["title"]:
            first = next((m for m in messages if isinstance(m, HumanMessage)), None)
            row["title"] = make_title(message_text(first)) if first is not None else row["thread_id"]
    return out


__all__ = ["OVERRIDE_KEY", "ForkPlan", "history_entries", "list_threads", "message_record", "plan_fork"]
