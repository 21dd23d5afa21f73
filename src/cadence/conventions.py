"""The graph's naming conventions and message helpers, in one place.

Everything that builds or parses a name the graph relies on lives here: the core
node names, a plugin's ``{name}_agent`` and ``{name}_tools`` nodes, the
coordinator's ``goto_{name}_agent`` and ``goto_finalize`` routing tools, the
supervisor's ``transfer_to_{name}`` handoff tools, the agents' ``back`` tool, and
how a control tool (one that steers the graph and does no work) is recognised.
A history keeps only tool names, and one thread may hold turns of both modes, so
the recognisers (:func:`is_route_tool`, :func:`route_core`, :func:`agent_from_route`,
:func:`is_control_tool`) accept both namings. The few message helpers that every
layer needs (the text of a message, the split around the latest question) live here
too, so the models package can follow the graph's conventions without importing the
orchestration.

This module sits just above the SDK: it imports only ``cadence.sdk`` (for the
``back`` tool's name, which plugin authors see) and LangChain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage

from cadence.sdk.routing import ROUTE_TEXT_METADATA_KEY
from cadence.sdk.tools import BACK_TOOL_NAME, CONTROL_METADATA_KEY
from cadence.text import says_something, split_thought


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
"""Every routing tool of the coordinator starts with this prefix (``goto_finalize`` too, in both modes)."""
HANDOFF_PREFIX = "transfer_to_"
"""Every handoff tool of the supervisor starts with this prefix: ``transfer_to_{name}``
(langgraph-supervisor's naming)."""
RouteNaming = Literal["goto", "transfer"]
"""How the tools that route to an agent are named: ``goto`` → ``goto_{name}_agent`` (the coordinator),
``transfer`` → ``transfer_to_{name}`` (the supervisor's handoff tools)."""
GOTO_NAMING: RouteNaming = "goto"
"""The coordinator's naming of its routing tools: ``goto_{name}_agent``."""
HANDOFF_NAMING: RouteNaming = "transfer"
"""The supervisor's naming of its handoff tools: ``transfer_to_{name}``."""
FINALIZE = "finalize"
"""The route (and the ``goto_finalize`` tool's result) that ends the work and goes to the synthesizer."""
FINALIZE_TOOL = f"{GOTO_PREFIX}{FINALIZE}"
"""The routing tool that finishes the turn: ``goto_finalize``."""
ROUTE_DESCRIPTION_PREFIX = "Hand the conversation to the "
"""How every agent route's description starts, in either naming (the embedded model's prompt drops it)."""
CAPABILITIES_HEADER = "WHAT YOU CAN HELP WITH"
"""Opens the list of what the assistant can do in the synthesizer's prompt on a turn without agent work
(the embedded model's policy reads the list from there)."""
FINAL_REPLY_NOTICE = "Your reply is the final answer the user reads; nobody rewrites it."
"""Opens an agent's instructions when its reply is the turn's final answer (the single mode): the embedded
model's policy then answers from the results instead of handing them back as they are."""
FORWARDED_REPLY_NOTICE = "Your answer may reach the user as it is"
"""Opens the supervisor mode's instructions to an agent (its answer may be forwarded verbatim): the embedded
model's policy then answers from the results, as for :data:`FINAL_REPLY_NOTICE`."""
TONE_NOTICE = "The user asked for answers in this tone"
"""Opens the supervisor's note of the turn's tone when it is not natural: an agent's answer is forwarded only
when written that way (the embedded model's policy, which cannot tell, then lets the synthesizer write it)."""
TOLD_FACTS_HEADER = "WHAT THE USER TOLD YOU ABOUT THEMSELVES EARLIER"
"""Opens the recalled facts the user stated, in an agent's prompt (the embedded model's policy reads them
to fill "where I live" or "my favorite number" in a tool's arguments)."""

FORGOTTEN_PREFIX = "I've forgotten"
"""Opens the reply to a request to forget what the user told ("I've forgotten this: You're 34 years old."):
what the conversation said of the user before it no longer answers a question about them."""

FORWARD_TOOL = "forward_message"
"""The supervisor's tool that passes an agent's last answer to the user verbatim (a control tool)."""
MEMORY_TOOL = "recall_memory"
"""The name memory is given under when it reaches a model as a tool result."""

CONTINUE = "continue"
"""An agent's edge label: its tool calls go to its tools node."""
BACK = "back"
"""An agent's edge label: control goes back to the coordinator."""

__all__ = [
    "AGENT_SUFFIX",
    "BACK",
    "BACK_TOOL_NAME",
    "CAPABILITIES_HEADER",
    "CONTINUE",
    "CONTROL_METADATA_KEY",
    "FINALIZE",
    "FINALIZE_TOOL",
    "FINAL_NODES",
    "FORGOTTEN_PREFIX",
    "FORWARD_TOOL",
    "GOTO_NAMING",
    "GOTO_PREFIX",
    "HANDOFF_NAMING",
    "HANDOFF_PREFIX",
    "ROUTE_DESCRIPTION_PREFIX",
    "ROUTE_TEXT_METADATA_KEY",
    "TOOLS_SUFFIX",
    "GraphNodeNames",
    "RouteNaming",
    "agent_from_route",
    "agent_node_name",
    "answer_text",
    "handoff_tool_name",
    "has_answer",
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
def handoff_tool_name(plugin: str) -> str:
    """The supervisor's handoff tool of a plugin: ``transfer_to_{name}``."""
    return f"{HANDOFF_PREFIX}{plugin}"


def route_tool_name(plugin: str, naming: RouteNaming = GOTO_NAMING) -> str:
    """The tool that routes to a plugin's agent: ``goto_{name}_agent`` (the coordinator's routing tool),
    or with ``naming="transfer"`` ``transfer_to_{name}`` (the supervisor's handoff tool)."""
    if naming == HANDOFF_NAMING:
        return handoff_tool_name(plugin)
    if naming != GOTO_NAMING:
        raise ValueError(f"unknown route naming {naming!r}; use {GOTO_NAMING!r} or {HANDOFF_NAMING!r}")
    return f"{GOTO_PREFIX}{plugin}{AGENT_SUFFIX}"


def _route_target(name: str) -> str | None:
    """The plugin an agent route names, in either naming; None for anything else (``goto_finalize`` too)."""
    if name.startswith(HANDOFF_PREFIX):
        return name[len(HANDOFF_PREFIX) :] or None
    if name.startswith(GOTO_PREFIX) and name.endswith(AGENT_SUFFIX):
        return name[len(GOTO_PREFIX) : -len(AGENT_SUFFIX)] or None
    return None


def is_route_tool(name: str | None) -> bool:
    """Whether ``name`` is a routing tool: the coordinator's ``goto_*`` (``goto_finalize`` included) or the
    supervisor's ``transfer_to_*`` handoff tools (both: a history keeps only names)."""
    return bool(name) and str(name).startswith((GOTO_PREFIX, HANDOFF_PREFIX))


def route_core(name: str) -> str:
    """The plugin part of a route name, in either naming: ``goto_{name}_agent`` and ``transfer_to_{name}``
    give ``{name}`` (``goto_finalize`` gives ``finalize``); ``name`` itself when it is not a route name."""
    target = _route_target(name)
    if target is not None:
        return target
    return name[len(GOTO_PREFIX) :] if name.startswith(GOTO_PREFIX) else name


def agent_from_route(tool_name: str | None, known: Iterable[str]) -> str | None:
    """The plugin a ``goto_{name}_agent`` or ``transfer_to_{name}`` call routes to, or None (finalize,
    unknown or malformed). Both namings: a history keeps only names."""
    name = _route_target(tool_name) if tool_name else None
    return name if name is not None and name in set(known) else None


def is_control_tool(name: str | None) -> bool:
    """Routing (``goto_*``, ``transfer_to_*``), ``back`` and ``forward_message`` tools steer the graph; they
    do no work. By name, for histories (a tool object carries ``metadata``:
    :func:`is_control_tool_object`)."""
    return is_route_tool(name) or name in (BACK_TOOL_NAME, FORWARD_TOOL)


def is_control_tool_object(tool: Any) -> bool:
    """Whether a tool object is marked as a control tool (``metadata``, not its name)."""
    return bool((getattr(tool, "metadata", None) or {}).get(CONTROL_METADATA_KEY))


def is_reserved_tool_name(name: str) -> bool:
    """Names a plugin's own tools may not take: ``back``, ``forward_message``, ``goto_*`` and
    ``transfer_to_*`` are the graph's."""
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


def answer_text(msg: BaseMessage) -> str:
    """The text a reply gives as an answer: its text without ``<think>`` blocks, trimmed."""
    return str(split_thought(message_text(msg))[0]).strip()


def has_answer(msg: BaseMessage) -> bool:
    """Whether a reply gives an answer: text that says something (:func:`cadence.text.says_something`: not
    only punctuation) outside ``<think>``."""
    return says_something(answer_text(msg))


def split_at_last_human(
    messages: Sequence[BaseMessage],
) -> tuple[list[BaseMessage], HumanMessage | None, list[BaseMessage]]:
    """``(before, question, after)`` around the last human message."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            return list(messages[:i]), messages[i], list(messages[i + 1 :])  # type: ignore[return-value]
    return list(messages), None, []
