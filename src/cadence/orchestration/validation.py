"""Validation: is the final answer relevant, and does it rest on the turn's tool results?

The validation role of seed 004 (DocMind), usable in every mode and with every model,
the embedded one included: the checks are rules, no model is asked.

- **relevance**: the answer is not empty, and shares a content word with the question (or
  carries one of the results' facts, or a word of a result about the question), unless the
  question has no content words at all;
- **grounding**: the final-answer check of :mod:`cadence.orchestration.answer_check`
  (:func:`~cadence.orchestration.answer_check.check_answer`: no invented number or name, the
  results' values carried, a document answer's words mostly from the documents), reused, not copied;
- **citations**: every ``[path]`` (or ``[path:line]``) the answer cites names a document the
  turn retrieved (:func:`retrieved_sources`), and an answer resting on retrieved documents
  cites at least one of them.

The public function is :func:`validate_answer` (question, answer, tool results → a
:class:`ValidationVerdict`); :func:`validate_turn` reads the question and the results from a
turn's messages. ``CADENCE_VALIDATION`` decides what the final-answer nodes do with a verdict:
``off`` (nothing), ``flag`` (a :class:`ValidationRecord` in the trace's ``validation``),
``correct`` (one correction round back to the answering node with :meth:`ValidationVerdict.feedback`,
then the corrected answer is validated and recorded).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from langchain_core.messages import BaseMessage

from cadence.models.preroute import is_small_talk
from cadence.orchestration.answer_check import (
    ToolResult,
    check_answer,
    facts,
    failure_answer,
    is_an_error,
    turn_results,
)
from cadence.orchestration.state import PluginContextFields as F

logger = logging.getLogger(__name__)

ValidationMode = Literal["off", "flag", "correct"]
"""The values of ``CADENCE_VALIDATION``."""

VALIDATION_MODES: tuple[str, ...] = ("off", "flag", "correct")
"""The values of ``CADENCE_VALIDATION``, in order of what they do."""

DOC_TOOLS = frozenset({"search_docs", "read_doc"})
"""Tools whose results are retrieved documents (the docs plugin's)."""

_CITATION_RE = re.compile(r"\[([^\[\]\s]+?\.[A-Za-z][A-Za-z0-9]{0,7})(?::\d+(?:-\d+)?)?\](?:\([^()\s]*\))?")
"""``[path]`` or ``[path:line]``, and its link target when written as a Markdown link (``[path](path)``);
a path's extension starts with a letter (``[3.14]`` and ``[1.5,2.5]`` are numbers, not citations)."""
_HIT_RE = re.compile(r"(?m)^\[\d+\]\s+(\S+?):\d+(?:\s|$)")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
_QUESTION_WORDS = frozenset(
    {"what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "did", "tell",
     "explain", "give", "show", "please", "can", "could", "would", "should", "about", "the", "and",
     "are", "was", "for", "from", "that", "this", "with", "will", "you", "your", "its"}
)  # fmt: skip
"""Question and function words: they say nothing about what a question is about."""


@dataclass(frozen=True)
class ValidationVerdict:
    """The outcome of :func:`validate_answer` (a typed record; :meth:`to_dict` for JSON)."""

    ok: bool
    """Whether the answer passed every check."""
    relevant: bool
    """Whether the answer is about the question."""
    grounded: bool
    """Whether the answer rests on the tool results (always true without results)."""
    problems: list[str] = field(default_factory=list)
    """Codes of the failed checks: ``empty``, ``irrelevant``, ``invented_number``, ``invented_name``,
    ``missing_result``, ``unknown_citation``, ``missing_citation``."""
    details: list[str] = field(default_factory=list)
    """Specifics: the missing or invented facts, the unknown citations."""
    citations: list[str] = field(default_factory=list)
    """The document paths the answer cites, in order."""
    sources: list[str] = field(default_factory=list)
    """The document paths the turn retrieved (what a citation may refer to)."""

    def feedback(self) -> str:
        """The correction request for the answering node: what is wrong and what to do, in plain words."""
        if self.ok:
            return ""
        lines = ["Your answer did not pass validation. Write it again, once:"]
        for problem in self.problems:
            lines.append(f"- {_ADVICE.get(problem, problem)}")
        if self.details:
            lines.append(f"Specifics: {', '.join(self.details[:8])}.")
        if self.sources:
            lines.append(f"Documents you may cite: {', '.join(f'[{s}]' for s in self.sources)}.")
        lines.append("Answer the question only with what the tool results say.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the trace's ``validation`` record carries it)."""
        return {
            "ok": self.ok,
            "relevant": self.relevant,
            "grounded": self.grounded,
            "problems": list(self.problems),
            "details": list(self.details),
            "citations": list(self.citations),
            "sources": list(self.sources),
        }


_ADVICE = {
    "empty": "the answer was empty; answer the question.",
    "irrelevant": "the answer is not about the question; answer what was asked.",
    "invented_number": "it states numbers that no tool returned; use only the results' numbers.",
    "invented_name": "it names things no tool returned; use only names from the results.",
    "missing_result": "it leaves out what the tools returned; state the results.",
    "unknown_citation": "it cites documents that were not retrieved; cite only retrieved ones as [path].",
    "missing_citation": "it uses the documents without citing them; cite each source as [path].",
}


@dataclass(frozen=True)
class ValidationRecord:
    """What validation did in a turn (one per validated final answer; the trace's ``validation``)."""

    node: str
    """The node whose answer was validated (``synthesizer``, ``forward``, ...)."""
    mode: str
    """``flag`` or ``correct``."""
    verdict: dict[str, Any]
    """:meth:`ValidationVerdict.to_dict` of the answer as shown."""
    corrected: bool = False
    """Whether a correction round ran (``correct`` only)."""
    draft_problems: list[str] = field(default_factory=list)
    """The problems of the model's first answer (empty: it passed), before any correction or rewrite."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "node": self.node,
            "mode": self.mode,
            "verdict": dict(self.verdict),
            "corrected": self.corrected,
            "draft_problems": list(self.draft_problems),
        }


def citations(answer: str) -> list[str]:
    """The document paths ``answer`` cites as ``[path]`` or ``[path:line]``, in order, once each."""
    seen: list[str] = []
    for match in _CITATION_RE.finditer(answer):
        path = match.group(1).strip("`'\"")
        if path not in seen:
            seen.append(path)
    return seen


def retrieved_sources(results: Sequence[ToolResult]) -> list[str]:
    """The document paths the turn retrieved: the hits of ``search_docs`` and the files ``read_doc`` read."""
    found: list[str] = []
    for result in results:
        paths: list[str] = []
        if result.name == "search_docs":
            paths = _HIT_RE.findall(result.content)
        elif result.name == "read_doc":
            value = str(result.args.get("path") or "").strip().strip("'\"`")
            paths = [re.sub(r":\d+$", "", value)] if value else []
        for path in paths:
            if path and path not in found:
                found.append(path)
    return found


def _content_words(text: str) -> set[str]:
    words = {w.lower().strip("'-") for w in _WORD_RE.findall(text)}
    return {_stem(w) for w in words if w not in _QUESTION_WORDS and len(w) > 2}


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def is_relevant(question: str, answer: str, results: Sequence[ToolResult] = ()) -> bool:
    """Whether ``answer`` is about ``question``: a shared content word, one of the results' facts, or a
    content word of a result that is about the question (it, or its call, shares a word with the question:
    "William Shakespeare." answers "Who wrote Hamlet?" from "Hamlet was written by William Shakespeare.").

    A question without content words ("what is 2+2?") makes any non-empty answer relevant, and so does
    small talk (:func:`~cadence.models.preroute.is_small_talk`: "hey, anything new with you?" shares no
    word with "Hello! What would you like to know?").
    """
    if not answer.strip():
        return False
    asked = _content_words(question)
    if not asked or (not results and is_small_talk(question)):
        return True
    said = _content_words(answer)
    if asked & said:
        return True
    stated = set(facts(answer))
    if any(stated & set(facts(r.content)) for r in results):
        return True
    for result in results:
        found = _content_words(" ".join([result.content, *(str(v) for v in result.args.values())]))
        if said & found and asked & found:
            return True
    return False


def validate_answer(
    question: str,
    answer: str,
    results: Sequence[ToolResult] = (),
    *,
    sources: Iterable[str] | None = None,
    grounded: Sequence[str] = (),
) -> ValidationVerdict:
    """Validate ``answer`` to ``question`` against the turn's tool ``results`` (rules only, no model).

    ``results`` are :class:`~cadence.orchestration.answer_check.ToolResult` records (name,
    args, content), e.g. from :func:`~cadence.orchestration.answer_check.turn_results`;
    ``sources`` are the documents a citation may refer to (default: :func:`retrieved_sources`
    of ``results``); ``grounded``: other material the answer may rest on (the final-answer check's:
    recalled memories, a suspended turn's reason). Returns a :class:`ValidationVerdict`; ``verdict.ok``
    is the short answer.

    The check is a pure function of its inputs, and a supervisor's answer that stands is checked
    twice in a row with the same ones (may it stand, then the forward step's verdict): the last
    call's verdict is reused when the inputs are equal.
    """
    global _last_verdict
    inputs = (question, answer, list(results), None if sources is None else list(sources), list(grounded))
    last = _last_verdict
    if last is not None and last[0] == inputs:
        return last[1]
    verdict = _validate(*inputs)
    _last_verdict = (inputs, verdict)
    return verdict


_last_verdict: tuple[tuple[Any, ...], ValidationVerdict] | None = None
"""The inputs and verdict of the last :func:`validate_answer` call (see there)."""


def _validate(
    question: str,
    answer: str,
    results: Sequence[ToolResult],
    sources: Iterable[str] | None,
    support: Sequence[str] = (),
) -> ValidationVerdict:
    """:func:`validate_answer` without the reuse of the last verdict."""
    problems: list[str] = []
    details: list[str] = []
    text = answer or ""
    known = list(sources) if sources is not None else retrieved_sources(results)
    cited = citations(text)
    relevant = is_relevant(question, text, results)
    if not text.strip():
        problems.append("empty")
    elif not relevant:
        problems.append("irrelevant")
    grounded = True
    if text.strip() and results:
        # the citations are checked below; the grounding check sees the answer without them
        evidence = [_passages(r) for r in results]
        verdict = check_answer(
            _CITATION_RE.sub(" ", text), question=question, results=evidence, grounded=support
        )
        if verdict.problem is not None:
            grounded = False
            problems.append(verdict.problem)
            details.extend(verdict.details)
    unknown = [c for c in cited if not _known(c, known)]
    if unknown:
        problems.append("unknown_citation")
        details.extend(unknown)
    doc_results = [r for r in results if r.name in DOC_TOOLS]
    if text.strip() and known and doc_results and not cited:
        problems.append("missing_citation")
    return ValidationVerdict(
        ok=not problems,
        relevant=relevant,
        grounded=grounded,
        problems=problems,
        details=details,
        citations=cited,
        sources=known,
    )


def _passages(result: ToolResult) -> ToolResult:
    """A ``search_docs`` result without its header and source lines (what the passages say)."""
    if result.name != "search_docs":
        return result
    lines = result.content.splitlines()
    body = [line for line in lines[1:] if line.strip() and not _HIT_RE.match(line)]
    return replace(result, content="\n".join(body) or result.content)


def _known(cited: str, known: Sequence[str]) -> bool:
    """A citation refers to a retrieved document: the same path, or its file name when unique."""
    cited = cited.removeprefix("./")
    if cited in known:
        return True
    base = cited.rsplit("/", 1)[-1]
    return sum(1 for k in known if k.rsplit("/", 1)[-1] == base) == 1 and "/" not in cited


def results_from_records(records: Iterable[Mapping[str, Any]], *, failed: bool = False) -> list[ToolResult]:
    """The successful work results among the trace's ``tools_used`` records (results clipped as recorded).

    ``failed``: the failed calls instead, each with its error as ``content``.
    """
    key = "error" if failed else "result"
    return [
        ToolResult(
            name=str(r.get("name") or "tool"),
            args=dict(r.get("args") or {}),
            content=str(r[key]),
            agent=str(r.get("agent") or ""),
        )
        for r in records
        if bool(r.get("error")) == failed and r.get(key) is not None
    ]


def explained_error(
    text: str, results: Sequence[ToolResult], records: Iterable[Mapping[str, Any]], tone: str | None
) -> str | None:
    """The answer saying what failed, when ``text`` only passes a tool's error on as written and no call of
    the turn succeeded (``results`` empty; ``records``: the trace's ``tools_used``); None otherwise.

    Shared by the final nodes that forward an agent's answer (the supervisor's and the single mode's).
    """
    if results:
        return None
    failed = results_from_records(records, failed=True)
    return failure_answer(failed, tone) if failed and is_an_error(text, failed) else None


def turn_evidence(state: Mapping[str, Any]) -> tuple[str, list[ToolResult]]:
    """The turn's question and tool results, from its messages, else from its ``tools_used`` records.

    An agent's work may stay out of the shared history (the supervisor mode's ``last_message``);
    the plugin context's ``tools_used`` records then carry its results.
    """
    question, results = turn_results(list(state.get("messages") or []))
    if not results:
        records = (state.get("plugin_context") or {}).get("tools_used") or []
        results = results_from_records(records)
    return question, results


@dataclass
class TurnEvidence:
    """A turn's question and tool results, read from its state once for all the answer's checks.

    ``message_results``: the results in the turn's messages (:func:`turn_results`); ``results``:
    those, else the ``tools_used`` records' (:func:`turn_evidence`); ``sources``: the documents
    they retrieved (:func:`retrieved_sources`).
    """

    question: str
    message_results: list[ToolResult]
    results: list[ToolResult]
    sources: list[str]

    @classmethod
    def of(cls, state: Mapping[str, Any]) -> TurnEvidence:
        """The evidence of the turn in ``state``."""
        question, in_messages = turn_results(list(state.get("messages") or []))
        results = in_messages
        if not results:
            records = (state.get("plugin_context") or {}).get("tools_used") or []
            results = results_from_records(records)
        return cls(question, in_messages, results, retrieved_sources(results))

    def validate(self, answer: str, grounded: Sequence[str] = ()) -> ValidationVerdict:
        """:func:`validate_answer` of ``answer`` against this evidence (as :func:`validate_state`);
        ``grounded``: other material it may rest on."""
        return validate_answer(self.question, answer, self.results, sources=self.sources, grounded=grounded)


def validate_turn(messages: Sequence[BaseMessage], answer: str) -> ValidationVerdict:
    """:func:`validate_answer` with the question and tool results read from a turn's ``messages``."""
    question, results = turn_results(messages)
    return validate_answer(question, answer, results)


def record_validation(
    context: Any,
    node: str,
    mode: str,
    verdict: ValidationVerdict,
    draft: ValidationVerdict | None = None,
    corrected: bool = False,
) -> ValidationRecord:
    """Record ``verdict`` of ``node``'s final answer in the turn's trace (``context.trace.validation``).

    ``draft`` is the verdict of the model's first answer (its problems are kept when it failed);
    ``corrected``: a correction round replaced it. ``context`` is the turn's
    :class:`~cadence.orchestration.turn.TurnContext` (None: returned, not recorded).
    """
    record = ValidationRecord(
        node=node,
        mode=mode,
        verdict=verdict.to_dict(),
        corrected=corrected,
        draft_problems=list(draft.problems) if draft is not None else [],
    )
    if context is not None:
        context.trace.validation.append(record)
    if not verdict.ok:
        logger.info("final answer fails validation", extra={"node": node, "problems": verdict.problems})
    return record


def validate_state(state: Mapping[str, Any], answer: str) -> ValidationVerdict:
    """:func:`validate_answer` with the question and tool results of :func:`turn_evidence`."""
    question, results = turn_evidence(state)
    return validate_answer(question, answer, results)


def with_citations(answer: str, sources: Sequence[str]) -> str:
    """``answer`` with a ``Sources:`` line citing ``sources`` as ``[path]``, unless it already cites one."""
    if not sources or citations(answer):
        return answer
    return f"{answer.rstrip()}\n\nSources: {' '.join(f'[{s}]' for s in sources)}"


def correct_or_record(
    ctx: dict[str, Any], context: Any, node: str, mode: str, verdict: ValidationVerdict
) -> bool:
    """A forwarded answer's validation step; True: it goes back to its author for the one correction round.

    With ``mode`` ``correct``, a failing answer that is not already the correction (no draft in the
    plugin context ``ctx``) keeps its verdict as the draft and the feedback for its author, and
    nothing is recorded yet. Otherwise the verdict is recorded (:func:`record_validation`), with the
    draft's problems when this answer is the correction.
    """
    draft = ctx.get(F.VALIDATION_DRAFT)
    if not verdict.ok and mode == "correct" and draft is None:
        ctx[F.VALIDATION_DRAFT] = verdict.to_dict()
        ctx[F.VALIDATION_FEEDBACK] = verdict.feedback()
        return True
    first = ValidationVerdict(**draft) if draft is not None else verdict
    record_validation(context, node, mode, verdict, first, corrected=draft is not None)
    return False


__all__ = [
    "DOC_TOOLS",
    "VALIDATION_MODES",
    "TurnEvidence",
    "ValidationMode",
    "ValidationRecord",
    "ValidationVerdict",
    "citations",
    "correct_or_record",
    "is_relevant",
    "record_validation",
    "results_from_records",
    "retrieved_sources",
    "turn_evidence",
    "validate_answer",
    "validate_state",
    "validate_turn",
    "with_citations",
]
