"""The suspend node: ends a turn that hit a guard, kindly and without jargon.

It explains (in the requested tone) that it had to stop, what was accomplished,
the best answer from what was gathered, and never invents the rest. Its answer goes
through the final-answer check like the synthesizer's (the reason's own counts are
evidence it may state); one rebuilt from the results keeps saying that the turn
stopped early (:data:`SUSPEND_NOTICE`), and no correction round is spent: the turn is
out of steps or time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cadence.orchestration.answer_check import ToolResult, conform_to_tone
from cadence.orchestration.guards import suspend_reason
from cadence.orchestration.prompts import (
    SUSPEND_INSTRUCTIONS,
    SUSPEND_NOTICE,
    SUSPEND_REASONS,
    UNKNOWN_SUSPEND_REASON,
)
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
    check_answers = True
    correct_answers = False

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

    def grounding(self, state: Mapping[str, Any]) -> list[str]:
        """The memories, the stop's reason (its counts, "5/5 steps", are true, not invented) and the words
        of saying so (:data:`SUSPEND_NOTICE`: a short document answer is mostly about stopping)."""
        return [*super().grounding(state), suspend_reason_text(state), SUSPEND_NOTICE]

    def shaped(
        self, answer: str, tone: str | None, question: str, results: Sequence[ToolResult]
    ) -> tuple[str, bool]:
        """Only the formal tone's in-place edits: the others' shaping rebuilds or cuts the answer, and
        would drop its explanation of the early stop (the model was asked for the tone)."""
        if (tone or "").lower() != "formal":
            return answer, False
        return conform_to_tone(answer, tone, question, results)

    def rewritten(self, state: Mapping[str, Any], rewrite: str) -> str:
        """The rebuilt answer, opened by the plain-words notice that the turn stopped early."""
        return f"{SUSPEND_NOTICE}\n\n{rewrite}"
