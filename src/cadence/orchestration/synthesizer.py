"""The synthesizer (the seeds' finalizer): writes the final answer in the requested tone.

It answers the latest user question from what the agents and tools returned,
and nothing else. Its prompt carries the tone instruction and the used plugins'
response suggestions; its messages are compacted (see :mod:`compaction`); the
answer may carry structured data (see :mod:`structured`). If its model fails,
or replies without text (empty, or only a tool call), the turn still ends with a
clear model-free answer built from the gathered results, flagged in the answer's
metadata (:data:`FALLBACK_KEY`) and recorded in the trace's ``errors``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM
from langgraph.runtime import Runtime

from cadence.errors import CadenceError
from cadence.orchestration.answer_check import (
    ANSWER_CHECK_KEY,
    PERSONA_ANSWER,
    ToolResult,
    check_answer,
    conform_to_tone,
    failure_answer,
    faithful_answer,
    turn_agent_answers,
    turn_failures,
    turn_has_work,
    turn_outcomes,
    turn_results,
    with_failed_parts_said,
)
from cadence.orchestration.compaction import compact_messages, describe_work, split_at_last_human, with_system
from cadence.orchestration.model_call import call_model
from cadence.orchestration.prompts import SYNTHESIZER_INSTRUCTIONS, capabilities_prompt
from cadence.orchestration.recall import memory_evidence, memory_prompt, with_memory
from cadence.orchestration.response_context import ResponseContext, ResponseContextBuilder
from cadence.orchestration.safety import message_text
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.structured import StructuredResponseHandler
from cadence.orchestration.trimming import trim_history
from cadence.orchestration.turn import TurnContext
from cadence.orchestration.validation import (
    TurnEvidence,
    ValidationVerdict,
    record_validation,
    with_citations,
)
from cadence.sdk.metadata import PluginMetadata
from cadence.settings import Settings
from cadence.text import says_something, split_thought

logger = logging.getLogger(__name__)


CUT_SHORT_REASONS = frozenset({"length", "max_tokens"})
"""``finish_reason`` (OpenAI-style, the embedded model) or ``stop_reason`` (Anthropic) of a reply that
stopped at the model's output limit."""


def cut_short(message: BaseMessage) -> bool:
    """Whether ``message`` stopped at the model's output limit (it may end mid-sentence)."""
    meta = getattr(message, "response_metadata", None) or {}
    return meta.get("finish_reason") in CUT_SHORT_REASONS or meta.get("stop_reason") in CUT_SHORT_REASONS


def answer_pending_calls(messages: Sequence[BaseMessage], note: str) -> list[ToolMessage]:
    """Tool messages answering the last AI message's unanswered calls (keeps the history valid); the
    results already given after it are skipped over."""
    if not messages:
        return []
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    last = next((m for m in reversed(messages) if not isinstance(m, ToolMessage)), None)
    if not isinstance(last, AIMessage):
        return []
    return [
        ToolMessage(content=note, tool_call_id=c["id"], name=c["name"], status="error")
        for c in last.tool_calls or []
        if c.get("id") and c["id"] not in answered
    ]


def earlier_turns(prompt_messages: Sequence[BaseMessage]) -> list[str]:
    """The text of the earlier turns a final-answer model was given (questions and answers before the
    latest question): a follow-up's answer may restate them ("…, where it is 22:05" of the last turn)."""
    before, _, _ = split_at_last_human([m for m in prompt_messages if not isinstance(m, SystemMessage)])
    return [message_text(m) for m in before if isinstance(m, HumanMessage | AIMessage)]


FALLBACK_KEY = "cadence_fallback"
"""``response_metadata`` flag of a final answer written without a model."""

THOUGHT_KEY = "thought"
"""``response_metadata`` key of the reasoning a model wrote in a ``<think>`` block (never the answer)."""


def is_fallback(message: BaseMessage | None) -> bool:
    """Whether ``message`` is a model-free fallback answer."""
    return bool(message is not None and (message.response_metadata or {}).get(FALLBACK_KEY))


def fallback_answer(
    messages: Sequence[BaseMessage],
    problem: str,
    tone: str | None = None,
    records: Sequence[Mapping[str, Any]] = (),
) -> str:
    """A model-free answer: the problem in plain words and whatever results were gathered.

    Successful tool results are given as a faithful answer in the tone; otherwise the work is listed.
    Results kept out of ``messages`` (the supervisor mode's agents keep their tool calls to themselves)
    are read from the trace's tool ``records``.
    """
    question, results = turn_results(messages)
    if not results and records:
        results = [r for failed, r in turn_outcomes(messages, records) if not failed]
    _, _, after = split_at_last_human(messages)
    work = faithful_answer(question, results, tone) if results else describe_work(after)
    lines = [f"Sorry, I couldn't finish this answer: {problem}"]
    if work:
        lines += ["", "Here is what I found so far:", work]
    else:
        lines += ["", "Nothing was found yet."]
    lines += ["", "Please try again, or rephrase the question."]
    return "\n".join(lines)


def _tool_records(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The trace's records of the turn's tool calls (``tools_used``) in a node's view of the state."""
    return list((view.get("plugin_context") or {}).get(F.TOOLS_USED) or [])


def unusable_reply(message: BaseMessage) -> str | None:
    """Why a final-answer model reply cannot be shown, or None: no text that says anything once its
    ``<think>`` blocks are set aside (blank, zero-width or control characters, or punctuation alone: ".",
    an empty code fence), or only a tool call."""
    if says_something(split_thought(message_text(message))[0]):
        return None
    if getattr(message, "tool_calls", None) or getattr(message, "invalid_tool_calls", None):
        return "the language model replied with a tool call instead of an answer"
    return "the language model returned an empty answer"


class FinalAnswerNode:
    """Shared machinery of the synthesizer and suspend nodes."""

    node_name = "synthesizer"
    check_answers = False
    """Whether answers go through the final-answer check (see :meth:`checked`) and validation."""
    checks_agent_answers = False
    """Whether, with no tool result in the history, an answer drawing on several agents is checked
    against their answers (see :meth:`checked`)."""
    correct_answers = True
    """Whether ``CADENCE_VALIDATION=correct`` may send a draft failing validation back to the model once."""

    def __init__(
        self, model: BaseChatModel, plugins: Mapping[str, PluginMetadata], settings: Settings
    ) -> None:
        self.model = model
        self.settings = settings
        self.context_builder = ResponseContextBuilder(plugins)
        self.capabilities = capabilities_prompt(
            [meta.description for meta in plugins.values() if meta.description]
        )
        """What the assistant can do, for a turn without agent work (:func:`capabilities_prompt`)."""

    def system_prompt(self, state: Mapping[str, Any], rc: ResponseContext) -> str:
        """The node's system prompt (overridden by subclasses)."""
        raise NotImplementedError

    def build_messages(
        self, state: Mapping[str, Any], settings: Settings, rc: ResponseContext | None = None
    ) -> list[BaseMessage]:
        """System prompt plus the compacted conversation, earlier turns trimmed to
        ``CADENCE_MODEL_INPUT_MAX_TOKENS`` (:func:`~cadence.orchestration.trimming.trim_history`).

        ``rc`` is the response context already built for ``state`` (built here when omitted), so a
        node builds it once.
        """
        if rc is None:
            rc = self.context_builder.build(state)
        compacted = compact_messages(
            list(state.get("messages") or []),
            settings.synthesizer_compaction,
            settings.synthesizer_compaction_max_chars,
        )
        # earlier turns within the budget of every model call (the current turn, compacted, stays whole)
        trimmed = trim_history(compacted.messages, settings.model_input_max_tokens)
        return with_system(self.system_prompt(state, rc), replace(compacted, messages=trimmed))

    async def __call__(
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> dict[str, Any]:
        """Write the final answer."""
        context = runtime.context if runtime is not None else None
        settings = context.settings if context is not None else self.settings
        messages = list(state.get("messages") or [])
        pending = answer_pending_calls(messages, self.pending_note(state))
        view = {**state, "messages": self.conversation([*messages, *pending], state, settings)}
        rc = self.context_builder.build(view)
        prompt_messages = self.build_messages(view, settings, rc)
        handler = StructuredResponseHandler(
            settings.structured_response, settings.structured_response_retries
        )
        structured = None
        fallback = False
        thought = ""
        rewritten: str | None = None
        try:
            result = await handler.respond(
                self.model,
                prompt_messages,
                self.context_builder.response_schemas(rc.used_plugins),
                node=self.node_name,
                context=context,
                config=config,
            )
            content, thought = split_thought(result.message.content)
            structured = result.structured
            usage = result.message.usage_metadata
            unusable = unusable_reply(result.message)
            if unusable is not None:
                content = self.fallback(
                    view["messages"],
                    context,
                    "empty_answer",
                    unusable,
                    self.problem_text(unusable),
                    state.get("tone"),
                    _tool_records(view),
                )
                structured, fallback = None, True
            elif isinstance(content, str) and self.check_answers:
                mode = settings.validation
                evidence = TurnEvidence.of(view)  # the turn's question and results, read once
                grounded = [*self.grounding(view), *earlier_turns(prompt_messages)]
                draft = evidence.validate(content, grounded) if mode != "off" else None
                drafted, corrected = content, False
                if (
                    draft is not None
                    and not draft.ok
                    and mode == "correct"
                    and structured is None
                    and self.correct_answers
                ):
                    content = await self.corrected(content, draft, prompt_messages, context, config)
                    corrected = True
                content, rewritten = self.checked(
                    view, content, prompt_messages, context, evidence, grounded, cut=cut_short(result.message)
                )
                if rewritten is not None and structured is not None:
                    # the data came with the answer the check replaced: it carries the same mistake
                    structured = None
                    if context is not None:
                        context.trace.notes.append(
                            f"{self.node_name}: structured data dropped with the rewritten answer"
                        )
                records = _tool_records(view)
                said = with_failed_parts_said(
                    content, evidence.question, turn_outcomes(view["messages"], records), state.get("tone")
                )
                if said != content and context is not None:  # a part failed; the answer gave only the rest
                    context.trace.notes.append(f"{self.node_name}: what failed of the question said")
                content = said
                content = self.cited(view, content, evidence)
                if draft is not None:  # the answer as shown (the draft's verdict when it stands as it was)
                    final = draft if content == drafted else evidence.validate(content, grounded)
                    record_validation(context, self.node_name, mode, final, draft, corrected)
        except CadenceError as exc:
            content = self.fallback(
                view["messages"],
                context,
                exc.code,
                str(exc),
                self.problem_text(f"the language model failed ({exc.message})"),
                state.get("tone"),
                _tool_records(view),
            )
            usage = None
            fallback = True
        extra = self.trailing_note(state, context)
        if extra and isinstance(content, str):
            content = f"{content}\n\n{extra}"
        if context is not None and structured is not None:
            context.trace.structured = structured
        metadata: dict[str, Any] = {"structured": structured} if structured is not None else {}
        if thought:
            metadata[THOUGHT_KEY] = thought
        if fallback:
            metadata[FALLBACK_KEY] = True
        if rewritten is not None:
            metadata[ANSWER_CHECK_KEY] = rewritten
        answer = AIMessage(
            content=content, name=self.node_name, usage_metadata=usage, response_metadata=metadata
        )
        return {"messages": [*pending, answer]}

    def fallback(
        self,
        messages: Sequence[BaseMessage],
        context: TurnContext | None,
        code: str,
        detail: str,
        problem: str,
        tone: str | None = None,
        records: Sequence[Mapping[str, Any]] = (),
    ) -> str:
        """The model-free answer, recorded in the trace's errors (the one place answers fall back); the
        trace's tool ``records`` give the results the messages do not hold.

        The answer message is flagged with :data:`FALLBACK_KEY`; callers never match its text.
        """
        logger.warning(
            "final answer falls back", extra={"node": self.node_name, "code": code, "error": detail}
        )
        if context is not None:
            context.trace.errors.append({"node": self.node_name, "code": code, "message": detail})
        return fallback_answer(messages, problem, tone, records)

    def checked(
        self,
        state: Mapping[str, Any],
        answer: str,
        prompt_messages: Sequence[BaseMessage],
        context: TurnContext | None,
        evidence: TurnEvidence | None = None,
        grounded: Sequence[str] | None = None,
        *,
        cut: bool = False,
    ) -> tuple[str, str | None]:
        """The answer after the final-answer check, and the failed check's reason when it was rewritten.

        An answer that drops or contradicts the turn's tool results, or that the model cut short at
        its output limit (``cut``: it may end mid-sentence), is replaced by one built from
        the results themselves (see :mod:`answer_check`), noted in the trace. ``evidence`` and
        ``grounded`` (:meth:`grounding`): the turn's, when the caller has read them already.
        """
        evidence = evidence or TurnEvidence.of(state)
        question, results = evidence.question, evidence.message_results
        if not results and self.checks_agent_answers:
            # the agents' tool calls stayed out of the history (supervisor, last_message): an answer
            # drawing on several agents is checked against their answers (it must carry each one)
            answers = turn_agent_answers(list(state.get("messages") or []))
            # one agent: its tool results, as the trace recorded them (an answer is never unchecked)
            results = answers if len({a.agent for a in answers}) > 1 else evidence.results
        instructions = "\n".join(message_text(m) for m in prompt_messages if isinstance(m, SystemMessage))
        failures = [] if results else turn_failures(list(state.get("messages") or []))
        verdict = check_answer(
            answer,
            question=question,
            results=results,
            instructions=instructions,
            grounded=self.grounding(state) if grounded is None else grounded,
            failures=failures,
        )
        if verdict.problem is None and cut and results:
            # the model stopped at its output limit: the answer ends mid-sentence
            verdict = replace(verdict, problem="cut_short")
        if verdict.problem is None:
            shaped, changed = self.shaped(verdict.answer, state.get("tone"), question, results)
            if changed and context is not None:
                context.trace.notes.append(f"{self.node_name}: answer shaped to the {state.get('tone')} tone")
            return shaped, None
        if results:
            rewrite = faithful_answer(question, results, state.get("tone"))
        elif verdict.problem == "invented_persona":
            rewrite = PERSONA_ANSWER
        else:
            rewrite = failure_answer(failures, state.get("tone"))
        if not rewrite:
            return verdict.answer or answer, None
        rewrite = self.rewritten(state, rewrite)
        source = "tool results" if results else "tool errors"
        note = f"{self.node_name}: answer rewritten from the {source} ({verdict.problem})"
        logger.info("final answer rewritten", extra={"node": self.node_name, "reason": verdict.problem})
        if context is not None:
            context.trace.notes.append(note)
        return rewrite, verdict.problem

    def grounding(self, state: Mapping[str, Any]) -> list[str]:
        """Material besides the tool results an answer may rest on (never required): the recalled memories."""
        return memory_evidence(state)

    def shaped(
        self, answer: str, tone: str | None, question: str, results: Sequence[ToolResult]
    ) -> tuple[str, bool]:
        """An answer that passed the check, brought in line with the tone (:func:`conform_to_tone`)."""
        return conform_to_tone(answer, tone, question, results)

    def rewritten(self, state: Mapping[str, Any], rewrite: str) -> str:
        """The answer built from the results (or the failures) that replaces one failing the check."""
        return rewrite

    async def corrected(
        self,
        answer: str,
        verdict: ValidationVerdict,
        prompt_messages: Sequence[BaseMessage],
        context: TurnContext | None,
        config: RunnableConfig,
    ) -> str:
        """``CADENCE_VALIDATION=correct``: the one correction round of a draft that failed validation.

        The model gets its prompt, its draft and the verdict's :meth:`~ValidationVerdict.feedback`,
        once; a failed or empty correction keeps the draft (the final-answer check still applies).
        """
        logger.info(
            "answer fails validation; correcting",
            extra={"node": self.node_name, "problems": verdict.problems},
        )
        messages = [*prompt_messages, AIMessage(content=answer), HumanMessage(content=verdict.feedback())]
        # not streamed: the draft's tokens were (a second answer's would run on after them as one text);
        # the final event carries the answer kept
        quiet: RunnableConfig = {**config, "tags": [*(config.get("tags") or []), TAG_NOSTREAM]}
        try:
            reply = await call_model(self.model, messages, node=self.node_name, context=context, config=quiet)
        except CadenceError as exc:
            logger.warning(
                "correction failed; keeping the draft", extra={"node": self.node_name, "error": str(exc)}
            )
            return answer
        text = message_text(reply)
        return text if text.strip() else answer

    def cited(self, state: Mapping[str, Any], answer: str, evidence: TurnEvidence | None = None) -> str:
        """``answer`` citing the documents the turn retrieved (``[path]``) when it cites none."""
        evidence = evidence or TurnEvidence.of(state)
        return with_citations(answer, evidence.sources)

    def conversation(
        self, messages: list[BaseMessage], state: Mapping[str, Any], settings: Settings
    ) -> list[BaseMessage]:
        """The conversation the answer is written and checked from (the synthesizer adds memory)."""
        return messages

    def pending_note(self, state: Mapping[str, Any]) -> str:
        """Content of tool messages that answer calls left pending when this node runs."""
        return "Not executed: the conversation moved on to the final answer."

    def problem_text(self, cause: str) -> str:
        """Plain-words explanation for the fallback answer, from the model problem's ``cause``."""
        return cause

    def trailing_note(self, state: Mapping[str, Any], context: TurnContext | None) -> str:
        """A note appended to the answer (e.g. when the turn's deadline cut it short)."""
        ctx = state.get("plugin_context") or {}
        reason = (ctx.get(F.SUSPEND_REASON) or {}).get("code")
        if reason == "deadline" or (context is not None and context.expired()):
            return "(Note: this answer was cut short because the time allowed for it ran out.)"
        return ""


class Synthesizer(FinalAnswerNode):
    """The synthesizer node."""

    node_name = "synthesizer"
    check_answers = True
    checks_agent_answers = True

    def system_prompt(self, state: Mapping[str, Any], rc: ResponseContext) -> str:
        """SYNTHESIZER_INSTRUCTIONS with the tone and the plugins' suggestions; on a turn without agent
        work (a greeting, "what can you do?") what the assistant can do, from the plugins' descriptions."""
        prompt = SYNTHESIZER_INSTRUCTIONS.format(
            tone_instruction=rc.tone_instruction, plugin_suggestions=rc.suggestions_text
        )
        if self.capabilities and not turn_has_work(state.get("messages") or []):
            prompt += self.capabilities
        return prompt + memory_prompt(state, self.settings)

    def conversation(
        self, messages: list[BaseMessage], state: Mapping[str, Any], settings: Settings
    ) -> list[BaseMessage]:
        """The conversation with the memory that answers the question given as a ``recall_memory`` result."""
        return with_memory(messages, state, settings)
