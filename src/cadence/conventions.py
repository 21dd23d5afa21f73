"""The graph's naming conventions and message helpers, in one place.

Everything that builds or parses a name the graph relies on lives here: the core
node names, a plugin's ``{name}_agent`` and ``{name}_tools`` nodes, the
coordinator's ``goto_{name}_agent`` and ``goto_finalize`` routing tools, the
agents' ``back`` tool, and how a control tool (one that steers the graph and does
no work) is recognised. The few message helpers that every layer needs (the text
of a message, the split around the latest question) live here too, so the models
package can follow the graph's conventions without importing the orchestration.

This module sits just above the SDK: it imports only ``cadence.sdk`` (for the
``back`` tool's name, which plugin authors see) and LangChain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from cadence.sdk.tools import BACK_TOOL_NAME, CONTROL_METADATA_KEY


class GraphNodeNames:
    """Names of the core nodes."""

    COORDINATOR = "coordinator"
    CONTROL_TOOLS = "control_tools"
    SUSPEND = "suspend"
    SYNTHESIZER = "synthesizer"
    SUPERVISOR = "supervisor"
    """The supervisor mode's deciding node (it takes the coordinator's place)."""
    FORWARD = "forward"
    """The supervisor mode's node that passes an agent's answer through verbatim (``forward_message``)."""
    PLANNER = "planner"
    """The planner mode's first node: recalls memory and plans (``researcher`` | ``validator`` | ``end``)."""
    RESEARCHER = "researcher"
    """The planner mode's multi-shot tool loop."""
    VALIDATOR = "validator"
    """The planner mode's consistency check of the gathered results."""
    ROOT = "root"
    """The planner mode's final node: runs planned tools not yet run, writes the answer, ingests memory."""


FINAL_NODES: frozenset[str] = frozenset(
    {GraphNodeNames.SYNTHESIZER, GraphNodeNames.SUSPEND, GraphNodeNames.FORWARD, GraphNodeNames.ROOT}
)
"""Nodes that write the turn's final answer."""

AGENT_SUFFIX = "_agent"
"""A plugin's agent node is ``{name}_agent``."""
TOOLS_SUFFIX = "_tools"
"""A plugin's tools node is ``{name}_tools``."""
GOTO_PREFIX = "goto_"
"""Every routing tool of the coordinator starts with this prefix."""
FINALIZE = "finalize"
"""The route (and the ``goto_finalize`` tool's result) that ends the work and goes to the synthesizer."""
FINALIZE_TOOL = f"{GOTO_PREFIX}{FINALIZE}"
"""The routing tool that finishes the turn: ``goto_finalize``."""
ROUTE_DESCRIPTION_PREFIX = "Hand the conversation to the "
"""How every ``goto_{name}_agent`` description starts (the embedded model's prompt drops it)."""
ROUTE_TEXT_METADATA_KEY = "cadence_route_text"
"""``tool.metadata[ROUTE_TEXT_METADATA_KEY]``: a routing tool's full routing text (the plugin's description
and capabilities), for a model that routes lexically in-process; the schema sent to providers stays short."""

FORWARD_TOOL = "forward_message"
"""The supervisor's tool that passes an agent's last answer to the user verbatim (a control tool)."""

CONTINUE = "continue"
"""An agent's edge label: its tool calls go to its tools node."""
BACK = "back"
"""An agent's edge label: control goes back to the coordinator."""

__all__ = [
    "AGENT_SUFFIX",
    "BACK",
    "BACK_TOOL_NAME",
    "CONTINUE",
    "CONTROL_METADATA_KEY",
    "FINALIZE",
    "FINALIZE_TOOL",
    "FINAL_NODES",
    "FORWARD_TOOL",
    "GOTO_PREFIX",
    "ROUTE_DESCRIPTION_PREFIX",
    "ROUTE_TEXT_METADATA_KEY",
    "TOOLS_SUFFIX",
    "GraphNodeNames",
    "agent_from_route",
    "agent_node_name",
    "has_text",
    "is_control_tool",
    "is_control_tool_object",
    "is_reserved_tool_name",
    "is_route_tool",
    "message_text",
    "plugin_of_node",
    "route_core",
    "route_tool_name",
    "split_at_last_human",
    "tools_node_name",
]


# -- node names ---------------------------------------------------------------------------
def agent_node_name(plugin: str) -> str:
    """The agent node of a plugin: ``{name}_agent``."""
    return f"{plugin}{AGENT_SUFFIX}"


def tools_node_name(plugin: str) -> str:
    """The tools node of a plugin: ``{name}_tools``."""
    return f"{plugin}{TOOLS_SUFFIX}"


def plugin_of_node(node: str) -> tuple[str, str] | None:
    """``(plugin, "agent" | "tools")`` for a plugin's node, None for a core node or anything else."""
    if node in (
        GraphNodeNames.COORDINATOR,
        GraphNodeNames.CONTROL_TOOLS,
        GraphNodeNames.SUSPEND,
        GraphNodeNames.SYNTHESIZER,
        GraphNodeNames.SUPERVISOR,
        GraphNodeNames.FORWARD,
        GraphNodeNames.PLANNER,
        GraphNodeNames.RESEARCHER,
        GraphNodeNames.VALIDATOR,
        GraphNodeNames.ROOT,
    ):
        return None
    if node.endswith(AGENT_SUFFIX) and len(node) > len(AGENT_SUFFIX):
        return node[: -len(AGENT_SUFFIX)], "agent"
    if node.endswith(TOOLS_SUFFIX) and len(node) > len(TOOLS_SUFFIX):
        return node[: -len(TOOLS_SUFFIX)], "tools"
    return None


# -- routing and control tools ------------------------------------------------------------
def route_tool_name(plugin: str) -> str:
    """The routing tool of a plugin: ``goto_{name}_agent``."""
    return f"{GOTO_PREFIX}{plugin}{AGENT_SUFFIX}"


def is_route_tool(name: str | None) -> bool:
    """Whether ``name`` is one of the coordinator's routing tools (``goto_*``, finalize included)."""
    return bool(name) and str(name).startswith(GOTO_PREFIX)


def route_core(name: str) -> str:
    """The plugin part of ``goto_{name}_agent`` (``name`` itself when it is not a routing tool name)."""
    core = name
    if core.startswith(GOTO_PREFIX):
        core = core[len(GOTO_PREFIX) :]
        if core.endswith(AGENT_SUFFIX):
            core = core[: -len(AGENT_SUFFIX)]
    return core


def agent_from_route(tool_name: str | None, known: Iterable[str]) -> str | None:
    """The plugin a ``goto_{name}_agent`` call routes to, or None (finalize, unknown or malformed)."""
    if not tool_name or not tool_name.startswith(GOTO_PREFIX) or not tool_name.endswith(AGENT_SUFFIX):
        return None
    name = tool_name[len(GOTO_PREFIX) : -len(AGENT_SUFFIX)]
    return name if name in set(known) else None


def is_control_tool(name: str | None) -> bool:
    """Routing (``goto_*``), ``back`` and ``forward_message`` tools steer the graph; they do no work."""
    return is_route_tool(name) or name in (BACK_TOOL_NAME, FORWARD_TOOL)


def is_control_tool_object(tool: Any) -> bool:
    """Whether a tool object is marked as a control tool (``metadata``, not its name)."""
    return bool((getattr(tool, "metadata", None) or {}).get(CONTROL_METADATA_KEY))


def is_reserved_tool_name(name: str) -> bool:
    """Names a plugin's own tools may not take: ``back`` and ``goto_*`` are the graph's."""
    return is_control_tool(name)


# -- messages -----------------------------------------------------------------------------
def message_text(msg: BaseMessage) -> str:
    """The plain text of a message whose content may be a string or a list of parts.

    Unlike ``BaseMessage.text`` this keeps string parts and ``text`` fields of parts of
    any type (a provider's ``output_text`` parts included), joined without separators.
    """
    content = msg.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "".join(parts)


def has_text(msg: BaseMessage) -> bool:
    """Whether a message carries any non-blank text."""
    content = msg.content
    if isinstance(content, str):
        return bool(content.strip())
    return any(
        (isinstance(part, str) and part.strip()) or (isinstance(part, dict) and part.get("text"))
        for part in content
    )


def split_at_last_human(
    messages: Sequence[BaseMessage],
) -> tuple[list[BaseMessage], HumanMessage | None, list[BaseMessage]]:
    """``(before, question, after)`` around the last human message."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            return list(messages[:i]), messages[i], list(messages[i + 1 :])  # type: ignore[return-value]
    return list(messages), None, []
