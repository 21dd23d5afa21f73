"""The suspend node: ends a turn that hit a guard, kindly and without jargon.

It explains (in the requested tone) that it had to stop, what was accomplished,
the best answer from what was gathered, and never invents the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cadence.orchestration.guards import suspend_reason
from cadence.orchestration.prompts import SUSPEND_INSTRUCTIONS, SUSPEND_REASONS, UNKNOWN_SUSPEND_REASON
from cadence.orchestration.response_context import ResponseContext
from cadence.orchestration.synthesizer import FinalAnswerNode


def suspend_reason_text(state: Mapping[str, Any]) -> str:
    """The guard that stopped the turn, in plain words."""
    reason = suspend_reason(state.get("plugin_context"))
    if reason is None:
        return UNKNOWN_SUSPEND_REASON
    return SUSPEND_REASONS[reason.code].format(current=reason.current, maximum=reason.maximum)


class SuspendNode(FinalAnswerNode):
    """The suspend node."""

    node_name = "suspend"

    def system_prompt(self, state: Mapping[str, Any], rc: ResponseContext) -> str:
        """SUSPEND_INSTRUCTIONS with the reason, tone and suggestions."""
        return SUSPEND_INSTRUCTIONS.format(
            reason=suspend_reason_text(state),
            tone_instruction=rc.tone_instruction,
            plugin_suggestions=rc.suggestions_text,
        )

    def pending_note(self, state: Mapping[str, Any]) -> str:
        """Dangling routes are answered with the reason they did not run."""
        return f"Not executed: stopped because {suspend_reason_text(state)}."

    def problem_text(self, cause: str) -> str:
        """Explain both the early stop and the model problem."""
        return f"I had to stop early, and then {cause}"
