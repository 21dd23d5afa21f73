"""The graph state (``AgentState``) and the plugin context it carries."""

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


class AgentState(TypedDict, total=False):
    """State of a conversation in the Cadence graph.

    ``messages`` accumulate across turns (``add_messages``); the counters and
    ``plugin_context`` are reset by the engine at the start of every turn.
    """

    messages: Annotated[list[AnyMessage], add_messages]
    agent_hops: int
    tool_hops: int
    current_agent: str | None
    tone: str
    metadata: dict[str, Any]
    plugin_context: dict[str, Any]


def new_plugin_context() -> dict[str, Any]:
    """A fresh plugin context for a new turn."""
    return {
        PluginContextFields.ROUTING_HISTORY: [],
        PluginContextFields.LAST_ROUTED_AGENT: None,
        PluginContextFields.SAME_AGENT_CONSECUTIVE_ROUTES: 0,
        PluginContextFields.TOOLS_USED: [],
        PluginContextFields.SUSPEND_REASON: None,
        PluginContextFields.NOTES: [],
    }


def plugin_context(state: AgentState | dict[str, Any]) -> dict[str, Any]:
    """A copy of the state's plugin context with every field present."""
    ctx = new_plugin_context()
    ctx.update(dict(state.get("plugin_context") or {}))
    for key in (
        PluginContextFields.ROUTING_HISTORY,
        PluginContextFields.TOOLS_USED,
        PluginContextFields.NOTES,
    ):
        ctx[key] = list(ctx.get(key) or [])
    return ctx
