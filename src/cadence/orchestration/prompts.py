"""System prompts of the core nodes: coordinator, synthesizer, suspend."""

from __future__ import annotations

from cadence.conventions import CAPABILITIES_HEADER

COORDINATOR_INSTRUCTIONS = """Pick who works next on the user's latest request. Agents, by their tools:
{plugin_descriptions}
Call one tool per step (the same agent again while it still fits); goto_finalize once the conversation holds \
the answer, or when no agent fits. Never do an agent's work yourself."""
"""The coordinator's system prompt (``plugin_descriptions``: one line per agent, its routing tool and description).

Short on purpose: it is sent with every coordinator call, and the routing tools' own descriptions
are one line each (the embedded model's pre-router reads the plugins' full routing text from the
tools' metadata, not from this prompt)."""

SYNTHESIZER_INSTRUCTIONS = """Write the final answer to the user's latest question from the agents' results \
only: add no facts of your own; if they found nothing useful, say so plainly. Use earlier conversation only as \
context. Never mention agents, tools or routing.
RESPONSE STYLE: {tone_instruction}
{plugin_suggestions}"""
"""The synthesizer's system prompt; ``RESPONSE STYLE:`` marks the tone (the embedded model's policy reads it)."""

CAPABILITIES_SECTION = """
{header} (tell the user when they greet you or ask what you can do; offer nothing else):
{capabilities}
"""
"""Added to the synthesizer's prompt on a turn without agent work (greetings, questions about the
assistant), so that it answers them from the plugins it has instead of inventing skills."""


def capabilities_prompt(descriptions: list[str]) -> str:
    """:data:`CAPABILITIES_SECTION` listing the plugins' ``descriptions`` (empty without any)."""
    if not descriptions:
        return ""
    lines = "\n".join(f"- {' '.join(d.split())}" for d in descriptions)
    return CAPABILITIES_SECTION.format(header=CAPABILITIES_HEADER, capabilities=lines)


SUSPEND_INSTRUCTIONS = """You are writing the final answer of a conversation that had to stop early: {reason}.

**What you should do:**
1. Say, in a friendly way and without jargon (never mention limits, hops, agents, tools or the system), that \
you had to stop before finishing.
2. Explain what was accomplished, based only on the results in the conversation.
3. Give the best possible answer with that information.
4. If the answer is incomplete, say what is missing and suggest continuing the chat to finish it.

**IMPORTANT**: never make up an answer when the information gathered is not enough.
**RESPONSE STYLE**: {tone_instruction}
{plugin_suggestions}"""

SUSPEND_NOTICE = (
    "I had to stop before finishing, so this answer may be incomplete; continue the chat to finish it."
)
"""Opens a suspend answer the final-answer check rebuilt from the results (the model's own answer said why it stopped)."""

UNKNOWN_SUSPEND_REASON = "it needed more steps than one answer may take"
"""The suspend node's reason when the state holds none it knows."""

SUSPEND_REASONS: dict[str, str] = {
    "max_agent_hops": "it needed more steps ({current}/{maximum}) than one answer may take",
    "max_tool_hops": "it ran as many lookups and calculations ({current}/{maximum}) as one answer may use",
    "consecutive_agent_routes": "it kept asking the same helper ({current} times in a row) without progress",
    "deadline": "it ran out of time",
}
"""Each suspend code (:class:`cadence.orchestration.guards.SuspendCode`) in plain words."""

SUPERVISOR_INSTRUCTIONS = """You supervise agents, each reached by its transfer tool ({tool_options}); an agent \
works with its own tools until it answers, then hands back. Then call forward_message with its name when its answer \
answers the question as it stands, write the answer yourself when the agents' answers must be combined, or call \
goto_finalize when no agent fits. One tool call at a time; never do an agent's work yourself."""
"""The supervisor's system prompt (``tool_options``: its handoff tools, ``transfer_to_{name}``, joined by ``|``)."""
