"""Shared pieces of the built-in plugins: the tool error type and the agent prompt."""

from __future__ import annotations

from cadence.sdk import ToolException


class BuiltinToolError(ToolException):
    """A built-in tool was called with input it cannot handle; the message says how to fix it."""


def agent_prompt(role: str, rules: list[str]) -> str:
    """The system prompt of a built-in agent: its role, shared rules, then its own rules."""
    shared = [
        "Use your tools for every computation or lookup; never guess or compute in your head.",
        "If a tool returns an error, fix the input and call it again, or say what is missing.",
        "Answer briefly: state the result (with its source when there is one) and nothing more.",
    ]
    lines = "\n".join(f"- {rule}" for rule in [*shared, *rules])
    return f"{role}\n\nRules:\n{lines}"
