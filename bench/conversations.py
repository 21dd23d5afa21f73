"""The scripted conversations, written once and adapted to each framework's tool names.

A conversation is a list of abstract steps; :func:`cadence_script` and
:func:`peer_script` turn it into the scripted model responses each framework needs
to produce the same turn (same agents, same tool calls, same final answer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AgentStep:
    """One agent's work in a turn: the tool it calls and the short answer it reports."""

    agent: str
    tool: str
    args: dict[str, Any]
    report: str


@dataclass(frozen=True)
class Conversation:
    """A user message, the agent steps that answer it, and the final answer."""

    key: str
    title: str
    message: str
    steps: tuple[AgentStep, ...]
    answer: str


ONE_AGENT = Conversation(
    key="one_agent",
    title="one-agent tool turn",
    message="Calculate 15 * 23",
    steps=(AgentStep("math", "calculate", {"expression": "15 * 23"}, "15 * 23 = 345"),),
    answer="15 * 23 = 345",
)

TWO_AGENT = Conversation(
    key="two_agent",
    title="two-agent turn",
    message="Search for Python async programming info and calculate years since Python 3.7 release",
    steps=(
        AgentStep(
            "docs",
            "search_docs",
            {"query": "Python async programming"},
            "Python 3.7 was released in 2018 and made async and await reserved keywords.",
        ),
        AgentStep("math", "calculate", {"expression": "2026 - 2018"}, "2026 - 2018 = 8"),
    ),
    answer="Python 3.7 (2018) made async/await reserved keywords; that was 8 years ago.",
)

CONVERSATIONS: tuple[Conversation, ...] = (ONE_AGENT, TWO_AGENT)
AGENTS: tuple[str, ...] = ("math", "docs")
"""The plugins both frameworks get (Cadence: ``builtin_plugins``; the peer: two react agents)."""


def _call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": dict(args or {})}]}


def cadence_script(conv: Conversation) -> list[dict[str, Any]]:
    """Cadence: coordinator → agent → tool → coordinator … → goto_finalize → synthesizer.

    A Cadence agent's tool result goes straight back to the coordinator, so an agent
    step costs one agent call; the synthesizer writes the answer.
    """
    items: list[dict[str, Any]] = []
    for step in conv.steps:
        items.append(_call(f"goto_{step.agent}_agent"))
        items.append(_call(step.tool, step.args))
    items.append(_call("goto_finalize"))
    items.append({"content": conv.answer})
    return items


def peer_script(conv: Conversation) -> list[dict[str, Any]]:
    """langgraph-supervisor: supervisor → transfer_to_X → react agent (tool, then report) → supervisor.

    A react agent needs a second model call to read its tool result and answer; the
    supervisor's last call writes the final answer.
    """
    items: list[dict[str, Any]] = []
    for step in conv.steps:
        items.append(_call(f"transfer_to_{step.agent}_agent"))
        items.append(_call(step.tool, step.args))
        items.append({"content": step.report})
    items.append({"content": conv.answer})
    return items
