"""Shared pieces of the built-in plugins: the tool error type and the agent prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cadence.sdk import ToolException
from cadence.text import ACTION_REQUEST_RE


class BuiltinToolError(ToolException):
    """A built-in tool was called with input it cannot handle; the message says how to fix it."""


def check_question(
    question: object, error: type[BuiltinToolError], *, kind: str, examples: str, max_chars: int
) -> None:
    """Raise ``error`` for a ``kind`` question ("date", "clock") that is empty or longer than ``max_chars``,
    saying what to ask instead (``examples``)."""
    if not isinstance(question, str) or not question.strip():
        raise error(f"No {kind} question given; ask {examples}")
    if len(question) > max_chars:
        raise error(
            f"The question is too long ({len(question)} characters, max {max_chars}); ask one {kind} "
            f"question, {examples}"
        )


def agent_prompt(role: str, rules: list[str]) -> str:
    """The system prompt of a built-in agent: its role, shared rules, then its own rules."""
    shared = [
        "Use your tools for every computation or lookup; never guess or compute in your head.",
        "If a tool returns an error, fix the input and call it again, or say what is missing.",
        "Answer briefly: state the result (with its source when there is one) and nothing more.",
    ]
    lines = "\n".join(f"- {rule}" for rule in [*shared, *rules])
    return f"{role}\n\nRules:\n{lines}"


def listed(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (empty for none): parts of an answer said as a list."""
    if len(parts) < 2:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def capitalized(sentence: str) -> str:
    """``sentence`` with its first letter upper-case ("the United States is ..." → "The United ...")."""
    return sentence[:1].upper() + sentence[1:]


def not_an_action(reader: Callable[[str], Any]) -> Callable[[str], Any]:
    """``reader`` refusing a request to do something in the world (:data:`cadence.text.ACTION_REQUEST_RE`:
    "Set a timer for 5 minutes", "Remind me to call mom at 5pm"): a clock or a calculator reads its minutes
    and hours, but no built-in tool sets timers, sends messages or plays music."""

    def read(text: str) -> Any:
        return False if isinstance(text, str) and ACTION_REQUEST_RE.search(text) else reader(text)

    read.__doc__ = reader.__doc__
    return read
