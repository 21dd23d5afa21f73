"""A plugin's graph nodes and edges, in one place: ``{name}_agent`` and ``{name}_tools``.

- ``{name}_agent`` runs one agent step (:func:`cadence.orchestration.agent_node.run_agent`
  through :meth:`BaseAgent.create_agent_node`);
- ``{name}_tools`` is a ``ToolNode`` over the plugin's contained tools plus ``back``:
  every execution runs synchronous tools in the plugin's thread pool, is logged,
  bounded by the tool timeout and the turn's deadline, and contained; the node
  counts tool hops and records the tools used in the plugin context;
- edges: the agent's conditional edge on the bundle's ``should_continue``
  (continue → ``{name}_tools``, back → coordinator) and ``{name}_tools`` → coordinator.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable, Callable, Collection
from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from cadence.conventions import BACK, CONTINUE, GraphNodeNames, is_control_tool
from cadence.orchestration.agent_node import agent_node_of, run_agent
from cadence.orchestration.approval import ApprovalOutcome, bundle_rules, review_tool_calls
from cadence.orchestration.events import emit_events, tools_events
from cadence.orchestration.recall import facts_prompt
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import plugin_context
from cadence.orchestration.tool_logging import logged_tool_call, tool_error_message, tool_records
from cadence.plugins.bundle import PluginBundle
from cadence.plugins.containment import run_tool_in_pool
from cadence.sdk.agent import AgentNode
from cadence.sdk.tools import UNREADABLE_ARGUMENTS_KEY

__all__ = [
    "agent_node",
    "async_should_continue",
    "graph_edges",
    "graph_nodes",
    "over_tool_limit",
    "takes_injected_arguments",
    "tool_node",
    "tools_node",
    "within_tool_limit",
]

logger = logging.getLogger(__name__)


def agent_node(bundle: PluginBundle) -> AgentNode:
    """The ``{name}_agent`` node (the user's recalled facts in its prompt: :func:`recall.facts_prompt`)."""
    return agent_node_of(bundle.agent, _run_agent_with_facts, bundle.agent_node_name)


async def _run_agent_with_facts(
    agent: Any, node_name: str, state: dict[str, Any], config: Any, runtime: Any
) -> dict[str, Any]:
    return await run_agent(agent, node_name, state, config, runtime, instructions=facts_prompt(state) or None)


def tool_node(bundle: PluginBundle) -> ToolNode:
    """The ``ToolNode`` over the bundle's contained tools (plus ``back``).

    The calls of one step run in parallel, at most ``CADENCE_MAX_PARALLEL_TOOLS`` at a time
    (one semaphore per step: the ToolNode hands every call of a step the same state object).
    """
    pool = bundle.thread_pool
    plugin = bundle.name
    steps: dict[int, tuple[asyncio.Semaphore, int]] = {}  # id(step state) -> (slots, calls using them)

    async def wrap_tool_call(
        request: ToolCallRequest,
        execute: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]],
    ) -> ToolMessage | Command:
        """Every execution: synchronous tools in the plugin's pool, logged, bounded, contained."""
        if UNREADABLE_ARGUMENTS_KEY in (request.tool_call.get("args") or {}):
            return await logged_tool_call(request, unreadable_arguments, plugin=plugin)
        if request.tool is not None:
            tool = run_tool_in_pool(request.tool, pool)
            if tool is not request.tool:
                request = request.override(tool=tool)
        key = id(request.state)
        slots, users = steps.get(key) or (asyncio.Semaphore(_parallel_limit(request)), 0)
        steps[key] = (slots, users + 1)
        try:
            async with slots:
                return await logged_tool_call(request, execute, plugin=plugin)
        finally:
            slots, users = steps[key]
            if users <= 1:
                del steps[key]
            else:
                steps[key] = (slots, users - 1)

    return ToolNode(
        bundle.contained_tools,
        name=bundle.tools_node_name,
        handle_tool_errors=tool_error_message,
        awrap_tool_call=wrap_tool_call,
    )


async def unreadable_arguments(request: ToolCallRequest) -> ToolMessage:
    """The result of a call whose arguments the model wrote unreadably: the tool does not run, the
    model reads why and how to call again."""
    call = request.tool_call
    name = call.get("name") or "the tool"
    why = (call.get("args") or {}).get(UNREADABLE_ARGUMENTS_KEY)
    return ToolMessage(
        content=f"Error: the arguments of this {name} call could not be read: {why}. Call {name} again "
        "with its arguments as one JSON object.",
        tool_call_id=call.get("id") or "",
        name=name,
        status="error",
    )


def _parallel_limit(request: ToolCallRequest) -> int:
    """``CADENCE_MAX_PARALLEL_TOOLS`` of the turn (3 outside a turn)."""
    context = getattr(request.runtime, "context", None)
    settings = getattr(context, "settings", None)
    return int(getattr(settings, "max_parallel_tools", 3) or 3)


NextNode = Callable[[dict[str, Any], dict[str, Any], Runtime[Any]], str]
"""``next_node(state, update, runtime)`` → where a tools step goes (a mode's own routing)."""


def tools_node(bundle: PluginBundle, next_node: NextNode | None = None) -> Callable[..., Any]:
    """The ``{name}_tools`` node: runs the ToolNode, counts tool hops, records the tools used.

    Without ``next_node`` the step returns its update (the graph's edge goes on); with it, the
    step returns ``Command(goto=next_node(state, update, runtime), update=...)``.

    The step starts with the approval step (:func:`cadence.orchestration.approval.review_tool_calls`):
    calls that need a human's approval pause the turn before anything runs.
    """
    node = tool_node(bundle)
    agent_name = bundle.name
    given_state = {t.name for t in bundle.contained_tools if takes_injected_arguments(t)}

    async def plugin_tools_node(
        state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]
    ) -> dict[str, Any] | Command:
        settings = getattr(getattr(runtime, "context", None), "settings", None)
        rules = bundle_rules(bundle, settings) if settings is not None else {}
        hops = int(state.get("tool_hops") or 0)
        over = over_tool_limit(state, hops, settings.max_tool_hops) if settings is not None else set()
        # may pause; calls that will not run (over the limit) are not put to a human
        approval = review_tool_calls(state, agent=agent_name, rules=rules, runtime=runtime, not_asked=over)
        if settings is not None:
            approval = within_tool_limit(approval, hops, settings.max_tool_hops, over)
        if approval.to_run:
            run_state = approval.run_state
            if given_state and any(c.get("name") in given_state for c in approval.to_run):
                run_state = copy.deepcopy(
                    run_state
                )  # a tool given the state changes its copy, not the thread
            ran, changes = tool_node_output(await node.ainvoke(run_state, config))
        else:
            ran, changes = [], {}
        new_messages = approval.messages(ran)
        last_ai = approval.edited_message or next(
            (m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None
        )
        hops, records = tool_records(agent_name, [*([last_ai] if last_ai else []), *new_messages])
        hops -= len(approval.rejected)  # a rejected call never ran: not a tool hop
        ctx = plugin_context(state)
        ctx[F.TOOLS_USED].extend(records)
        if approval.decisions:
            ctx[F.APPROVALS] = [*list(ctx.get(F.APPROVALS) or []), *approval.decisions]
        update = {
            **changes,
            "messages": new_messages,
            "tool_hops": int(state.get("tool_hops") or 0) + hops,
            "plugin_context": ctx,
        }
        if next_node is None:
            emit_events(tools_events(agent_name, update))
            return update
        target = next_node(state, update, runtime)
        emit_events(tools_events(agent_name, update, target))
        return Command(goto=target, update=update)

    plugin_tools_node.__name__ = bundle.tools_node_name
    return plugin_tools_node


TOOL_STATE_KEYS = frozenset({"metadata"})
"""State a tool may change on purpose by returning ``Command(update=...)``, besides the messages (its result);
the counters, the plugin context and the rest are the orchestration's."""


def tool_node_output(result: Any) -> tuple[list[BaseMessage], dict[str, Any]]:
    """The ``ToolNode``'s output as (messages, other state changes): a dict, or, when a tool returned a
    ``Command``, a list of updates (LangGraph's ``_combine_tool_outputs``); a ``Command``'s ``goto`` is
    not followed (the graph routes), and state other than :data:`TOOL_STATE_KEYS` is left alone."""
    messages: list[BaseMessage] = []
    changes: dict[str, Any] = {}

    def take(update: Any) -> None:
        items = (
            update.items() if isinstance(update, dict) else update if isinstance(update, list | tuple) else []
        )
        for key, value in items:
            if key == "messages":
                messages.extend(value if isinstance(value, list | tuple) else [value])
            elif key in TOOL_STATE_KEYS:
                changes[key] = value
            else:
                logger.warning("a tool's state update was ignored", extra={"key": str(key)})

    for item in [result] if isinstance(result, dict) else list(result or []):
        if isinstance(item, Command):
            if item.goto:
                logger.warning("a tool's Command goto was ignored", extra={"goto": str(item.goto)})
            take(item.update or {})
        elif isinstance(item, dict):
            take(item)
        elif isinstance(item, list | tuple):
            messages.extend(m for m in item if isinstance(m, BaseMessage))
        elif isinstance(item, BaseMessage):
            messages.append(item)
    return messages, changes


def takes_injected_arguments(tool: BaseTool) -> bool:
    """Whether the ToolNode hands ``tool`` arguments the model does not write (``InjectedState``,
    ``InjectedStore``, ``ToolRuntime``, ``InjectedToolCallId``): those tools may see the graph's state."""
    try:
        given = set(tool.get_input_schema().model_fields) - set(tool.tool_call_schema.model_fields)
    except Exception:  # a schema that cannot be read: assume the worst
        return True
    return bool(given)


def over_tool_limit(state: dict[str, Any], hops: int, limit: int) -> set[str]:
    """Ids of the latest AI message's work calls beyond what the turn's tool limit leaves, in order."""
    message = next((m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None)
    work = [c for c in getattr(message, "tool_calls", None) or [] if not is_control_tool(c.get("name"))]
    return {str(c.get("id") or "") for c in work[max(limit - hops, 0) :]}


def within_tool_limit(
    outcome: ApprovalOutcome, hops: int, limit: int, over_ids: Collection[str] = ()
) -> ApprovalOutcome:
    """``outcome`` with no more work calls to run than the turn's tool limit leaves (``limit - hops``).

    One agent message may ask for any number of calls; the ones beyond what is left of
    ``CADENCE_MAX_TOOL_HOPS`` are not run but answered as such (an error result each, not a tool
    hop), so the limit bounds what runs, not just what comes after; the guard then suspends the turn.
    ``over_ids`` (:func:`over_tool_limit`, computed before the approval step, which did not ask about
    them) are never run, even where a rejected call left room.
    """
    left = max(limit - hops, 0)
    work = [c for c in outcome.to_run if not is_control_tool(c.get("name"))]
    kept = [c for c in work if str(c.get("id") or "") not in over_ids]
    if len(kept) == len(work) <= left:
        return outcome
    over = {id(c) for c in work if str(c.get("id") or "") in over_ids} | {id(c) for c in kept[left:]}
    note = (
        f"Not run: this answer may run {limit} tool calls (CADENCE_MAX_TOOL_HOPS) and had used {hops}; "
        "answer with the results you have."
    )
    skipped = [
        ToolMessage(
            content=note, tool_call_id=str(c.get("id") or ""), name=str(c.get("name")), status="error"
        )
        for c in outcome.to_run
        if id(c) in over
    ]
    to_run = [c for c in outcome.to_run if id(c) not in over]
    messages = list(outcome.run_state.get("messages") or [])
    index = max(i for i, m in enumerate(messages) if isinstance(m, AIMessage))
    messages[index] = messages[index].model_copy(update={"tool_calls": to_run})
    logger.warning(
        "tool calls over the turn's limit not run", extra={"skipped": len(skipped), "limit": limit}
    )
    return replace(
        outcome,
        run_state={**outcome.run_state, "messages": messages},
        to_run=to_run,
        rejected=[*outcome.rejected, *skipped],
    )


def graph_nodes(bundle: PluginBundle) -> dict[str, AgentNode | Callable[..., Any]]:
    """The bundle's nodes by name: ``{name}_agent`` and ``{name}_tools``."""
    return {bundle.agent_node_name: agent_node(bundle), bundle.tools_node_name: tools_node(bundle)}


def async_should_continue(bundle: PluginBundle) -> Callable[[dict[str, Any]], Awaitable[str]]:
    """The bundle's ``should_continue`` as a coroutine function.

    LangGraph runs a synchronous edge function in the default thread pool (a hop off the event
    loop and back per agent step); this one runs on the loop. Same decision, same containment.
    """

    async def should_continue(state: dict[str, Any]) -> str:
        return bundle.should_continue(state)

    should_continue.__name__ = f"{bundle.name}_should_continue"
    return should_continue


def graph_edges(bundle: PluginBundle) -> dict[str, Any]:
    """Conditional edge on ``should_continue`` and the direct edge tools → coordinator."""
    return {
        "conditional_edges": {
            bundle.agent_node_name: {
                "condition": async_should_continue(bundle),
                "mapping": {CONTINUE: bundle.tools_node_name, BACK: GraphNodeNames.COORDINATOR},
            }
        },
        "direct_edges": [(bundle.tools_node_name, GraphNodeNames.COORDINATOR)],
    }
