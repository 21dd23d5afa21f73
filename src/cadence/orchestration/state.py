"""The graph state (``AgentState``, the planner mode's ``PlannerState``) and the plugin context it carries."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class PluginContextFields:
    """Keys of ``AgentState.plugin_context``."""

    ROUTING_HISTORY = "routing_history"
    LAST_ROUTED_AGENT = "last_routed_agent"
    SAME_AGENT_CONSECUTIVE_ROUTES = "same_agent_consecutive_routes"
    TOOLS_USED = "tools_used"
    SUSPEND_REASON = "suspend_reason"
    NOTES = "notes"
    VALIDATION_FEEDBACK = "validation_feedback"
    VALIDATION_DRAFT = "validation_draft"
    SUPERVISOR_ANSWER = "supervisor_answer"
    APPROVALS = "approvals"


class PluginContext(TypedDict):
    """What the turn's nodes record for one another: ``AgentState.plugin_context``.

    The keys are also named in :class:`PluginContextFields`.

    Stored in the graph state (and so in checkpoints) as this plain dict; reset by the
    engine at the start of every turn.
    """

    routing_history: list[str]
    """The agents the coordinator routed to, in order (the trace's ``routing_history``)."""
    last_routed_agent: str | None
    """The agent of the latest route (for the consecutive-route guard)."""
    same_agent_consecutive_routes: int
    """Routes in a row to ``last_routed_agent``."""
    tools_used: list[dict[str, Any]]
    """One record per tool call of the turn (the trace's ``tools_used``)."""
    suspend_reason: dict[str, Any] | None
    """Set by a guard: the JSON form of a :class:`~cadence.orchestration.guards.SuspendReason`."""
    notes: list[str]
    """Remarks for the trace (e.g. why the coordinator finalized early)."""
    validation_feedback: str | None
    """A validation correction round in progress: what the answering agent is asked to fix."""
    validation_draft: dict[str, Any] | None
    """The failed verdict (``ValidationVerdict.to_dict``) of the answer being corrected."""
    supervisor_answer: str | None
    """The supervisor mode's own final answer (a text reply after agent work), written by ``forward``."""
    approvals: list[dict[str, Any]]
    """Human decisions about tool calls in this turn (id, agent, tool, arguments, decision, …)."""


class AgentState(TypedDict, total=False):
    """State of a conversation in the Cadence graph: what every mode's nodes share.

    ``messages`` accumulate across turns (``add_messages``); the counters and
    ``plugin_context`` are reset by the engine at the start of every turn. A mode with
    fields of its own extends it (:class:`PlannerState`); the others carry no more channels
    than these, since LangGraph pays for every channel at every step.
    """

    messages: Annotated[list[AnyMessage], add_messages]
    agent_hops: int
    tool_hops: int
    current_agent: str | None
    tone: str
    metadata: dict[str, Any]
    plugin_context: PluginContext
    memory: dict[str, Any]
    """The turn's long-term memory recall: ``adequacy``, ``routing_adequacy``, ``items`` (see ``recall``)."""


class PlannerState(AgentState, total=False):
    """The planner mode's state (seed 002): the shared state, the plan and its notes (in the trace)."""

    thought: str
    """The planner's and the root's reasoning (a ``<think>`` block is split off into it)."""
    scratchpad: str
    """Internal notes of the planner mode's nodes, errors included."""
    route: str | None
    """The planner's decision: ``researcher``, ``validator`` or ``end``."""
    planned_tools: list[dict[str, Any]]
    """The planner's tools: ``{"name", "args"}`` each."""
    tool_results: list[dict[str, Any]]
    """The tool results gathered this turn: ``{"name", "args", "content", "ok", "by"}`` each."""
    research_iterations: int
    """Tool rounds the researcher ran this turn."""


def new_plugin_context() -> PluginContext:
    """A fresh plugin context for a new turn."""
    return {  # type: ignore[return-value]
        PluginContextFields.ROUTING_HISTORY: [],
        PluginContextFields.LAST_ROUTED_AGENT: None,
        PluginContextFields.SAME_AGENT_CONSECUTIVE_ROUTES: 0,
        PluginContextFields.TOOLS_USED: [],
        PluginContextFields.SUSPEND_REASON: None,
        PluginContextFields.NOTES: [],
        PluginContextFields.VALIDATION_FEEDBACK: None,
        PluginContextFields.VALIDATION_DRAFT: None,
        PluginContextFields.SUPERVISOR_ANSWER: None,
        PluginContextFields.APPROVALS: [],
    }


def plugin_context(state: AgentState | dict[str, Any]) -> dict[str, Any]:
    """A copy of the state's plugin context with every field present."""
    ctx = new_plugin_context()
    ctx.update(dict(state.get("plugin_context") or {}))
    for key in (
        PluginContextFields.ROUTING_HISTORY,
        PluginContextFields.TOOLS_USED,
        PluginContextFields.NOTES,
        PluginContextFields.APPROVALS,
    ):
        ctx[key] = list(ctx.get(key) or [])
    return ctx
