"""The final-answer check: an answer must carry the results it rests on, and nothing else.

Every model, large or small, can write an answer that drops the number a tool
computed, states a number no tool returned, repeats itself until the length limit
or echoes its own instructions. :func:`check_answer` looks for exactly that,
generically (numbers, clock times and words, never particular sentences):

- **repetition**: a sentence said twice is cut (the answer is kept, cleaned);
- **prompt echo**: eight consecutive words of the node's instructions in the answer;
- **invented name**: the answer names something (a setting, a file, or a capitalised name inside
  a sentence: "… behind Denmark") that neither the question nor the results have;
- **contradiction**: the answer states a comparison ("A is … behind B", "A … more than B")
  the other way round from a result (names matched by their first word);
- **swapped values**: where one tool ran for several subjects, a statement of the answer gives
  the value one call returned to another call's subject (a contradiction too);
- **false equation**: the answer writes out a sum that is wrong ("176 - 300 = 176"), whoever
  computed what; the result's own number may be in it and still be misused;
- **misplaced difference**: when a result is a difference ("(12 - 3) = 9"), an answer giving an
  action of the question another amount than the question does ("Tom ate 9 cookies" when he ate 3:
  the 9 is what is left) is a contradiction too;
- **narration**: an answer about "the user" (in the third person) when neither the question
  nor the results speak of users: the model described its task instead of answering
  ("The user asked for a double of 200.");
- **false correction**: the answer apologises or corrects itself ("You're right, I should have said
  37.5") while the user's message corrects nothing (no "wrong", "mistake", "no,", ...): the model
  played out a conversation that did not happen;
- **missing result**: the turn's short tool results (values, not documents) state
  facts (numbers, clock times) that are not in the question, and the answer
  carries none of them (none of their clock times, when they lead with one: a
  date alone does not say the time), or none of one item's, for a result stating
  one value per item in sentences that open alike; otherwise the answer shares
  none of the results' content words;
- **invented number**: the answer states a number that is neither in the results,
  nor in the arguments the tools were called with, nor in the question. A turn
  whose tools all failed has no results, only their errors: an answer stating a
  number that is in neither the question nor the errors made it up (the tool that
  would have computed it failed), and so does one stating the question's numbers
  without saying that something failed (it gives them as the answer); either is
  replaced by :func:`failure_answer`, which says what failed;
- **ignored failure**: in such a turn, an answer of eight words or more that neither says
  something failed nor uses any word of the tools' names and errors (the question's aside)
  talks about something else
  ("As a math-focused AI...", made-up code): it is replaced by :func:`failure_answer` too.
- **invented persona**: in a turn without tool results, an answer telling experiences of the assistant's
  own ("I've been working on an environmental project", "in my kitchen", "(laughs)") that the question
  did not ask for: a model playing a person, not answering; it is replaced by :data:`PERSONA_ANSWER`.

When the check fails, :func:`faithful_answer` writes the answer from the results
themselves, in the requested tone, and the final-answer node flags it in the
answer's metadata (:data:`ANSWER_CHECK_KEY`) and the trace's notes.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from cadence.conventions import GraphNodeNames, plugin_of_node
from cadence.models.preroute import asks_previous_again, question_parts, without_style_request
from cadence.orchestration.approval import REJECTION_KEY, REJECTION_TEXT
from cadence.orchestration.compaction import split_at_last_human
from cadence.orchestration.safety import is_control_tool, message_text
from cadence.passages import (
    COMMON_WORDS,
    SENTENCE_RE,
    content_words,
    end_sentence,
    relevant_sentences,
)
from cadence.text import STOPWORDS, named_values, numbers_from_words

ANSWER_CHECK_KEY = "cadence_answer_check"
"""``response_metadata`` key of a final answer rewritten from the results: the failed check's reason."""

IGNORED_FAILURE_WORDS = 8
"""An answer after every tool failed is checked for talking past the failure from this many words."""
ECHO_WORDS = 8
"""Consecutive words shared with the instructions that count as an echo."""
SHORT_RESULT_CHARS = 400
"""Results up to this long state values an answer must carry; longer ones are documents."""
MAX_ITEM_CHARS = 60
"""Longest line counted as an item of a list result."""
GROUNDED_SHARE = 0.7
"""Share of an answer's own content words that must appear in document-like results."""

_FACT_RE = re.compile(
    r"(?<![\w.:/])(?P<fraction>-?(?:(?P<whole>\d+) )?(?P<top>\d+)/(?P<bottom>\d+))(?![\w/]|[.,]\d)"
    r"|(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.:])-?\d+(?::\d{2})?(?:\.\d+)?(?![\w:])"
)
"""A number: a fraction written without spaces ("5/4", "2 1/3": read as its value, not as two numbers),
a number (thousands separators allowed) or a clock time."""
FRACTION_DIGITS = 12
"""Decimals a fraction's value is written with when read as a fact (1/3: 0.333333333333)."""
_LIST_MARKER_RE = re.compile(r"(?mi)^\s*(?:[#>*_]+\s*)*(?:step\s+)?\d+\s*[.):–-](?=\s|\*|$)")
"""A numbered step or list item opening a line: ``1.``, ``2)``, ``### 3.``, ``**4.**``, ``**Step 5:**``,
``Step 6 -`` (its number is no fact)."""
_NARRATION_RE = re.compile(r"\bthe user\b", re.IGNORECASE)
_CORRECTION_RE = re.compile(
    r"\b(?:you(?:'re| are) (?:right|correct)"
    r"|I (?:should have|apologi[sz]e|stand corrected|made a mistake|was wrong)|my (?:mistake|apologies|bad)"
    r"|sorry (?:for|about) (?:the|my|any) (?:confusion|mistake|error))",
    re.IGNORECASE,
)
"""An answer correcting itself or apologising for a mistake."""
_CORRECTED_RE = re.compile(
    r"\b(?:wrong|mistake|incorrect|not right|not correct|that'?s not|isn'?t right|error|fix|typo)\b|^\s*no\b",
    re.IGNORECASE,
)
"""A user's message that points out a mistake (the answer may then say "you're right")."""
_USER_RE = re.compile(r"\busers?\b", re.IGNORECASE)
_PERSONA_RE = re.compile(
    r"\bI(?:'ve| have)\s+(?:been|just|recently)\s+(?:\w+ing|finished|made|read|seen|watched|cooked|baked|"
    r"visited|tried|written|started|returned|come back|got back|arrived|moved|completed)\b"
    r"|\b(?:in|from|at) my (?:kitchen|garden|home|house|family|office|job|life|spare time|free time"
    r"|childhood)\b"
    r"|\bmy (?:wife|husband|kids|children|son|daughter|mom|mum|dad|mother|father|boss|neighbou?r|dog|cat"
    r"|grandmother|grandma|girlfriend|boyfriend|partner)\b"
    r"|\bI\s+(?:live in|grew up|was born|went to|have visited|cooked|baked)\b"
    r"|\bwe(?:'ve| have)?\s+just\s+(?:completed|finished|launched|released|opened|moved)\b|\bour team\b"
    r"|\((?:laughs|smiles|giggles|sighs|winks|chuckles)\)",
    re.IGNORECASE,
)
"""An answer telling experiences of its own: a model playing a person ("I've been working on an environmental
project", "in my kitchen", "(laughs)")."""
PERSONA_ANSWER = (
    "I can't answer that reliably: it is outside what my tools look up or work out. Ask me something they "
    "can, or ask what I can do."
)
"""The answer that replaces one telling an invented persona's experiences (:func:`check_answer`)."""
_FAILURE_RE = re.compile(
    r"\b(?:could ?n[o']t|can ?n[o']t|cannot|unable|not able|failed|fails|error|went wrong|did ?n[o']t"
    r"|was ?n[o']t|were ?n[o']t|not run|rejected|refused|declined|denied)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ToolResult:
    """One work tool's successful result in the current turn."""

    name: str
    """The tool's name."""
    args: Mapping[str, Any]
    """The arguments it was called with."""
    content: str
    """What it returned."""
    rejected: bool = False
    """The call was not run: a reviewer rejected it (``content`` holds their message)."""
    agent: str = ""
    """The plugin whose agent made the call (empty when unknown)."""


@dataclass(frozen=True)
class AnswerVerdict:
    """The outcome of :func:`check_answer`."""

    answer: str
    """The answer, cleaned of repeated sentences."""
    problem: str | None = None
    """Why the answer cannot be shown as it is (``None``: it can)."""
    details: list[str] = field(default_factory=list)
    """Specifics: the missing or invented facts."""


def turn_results(messages: Sequence[BaseMessage]) -> tuple[str, list[ToolResult]]:
    """The latest question and the successful work tool results that followed it."""
    return _turn_tool_messages(messages, failed=False)


def turn_agent_answers(messages: Sequence[BaseMessage]) -> list[ToolResult]:
    """The answers the agents handed back after the latest question, as results named ``answer`` (what a
    final answer rests on when the agents' tool calls stay out of the shared history: the supervisor
    mode's ``last_message``)."""
    _, _, after = split_at_last_human(messages)
    out = []
    for m in after:
        node = plugin_of_node(m.name or "") if isinstance(m, AIMessage) else None
        text = message_text(m).strip() if node is not None and node[1] == "agent" else ""
        if node is not None and text:
            out.append(ToolResult(name="answer", args={}, content=text, agent=node[0]))
    return out


def turn_has_work(messages: Sequence[BaseMessage]) -> bool:
    """Whether an agent worked after the latest question: a tool call of its own (answered or not) or an
    answer it handed back. Routing decisions are no work."""
    _, _, after = split_at_last_human(messages)
    for m in after:
        if isinstance(m, ToolMessage):
            if not is_control_tool(m.name or ""):
                return True
        elif isinstance(m, AIMessage) and m.name not in _DECIDING_NODES:
            node = plugin_of_node(m.name or "")
            if node is not None or any(not is_control_tool(c["name"]) for c in m.tool_calls or []):
                return True
    return False


def turn_failures(messages: Sequence[BaseMessage]) -> list[ToolResult]:
    """The work tool calls after the latest question that failed, each with its error as ``content``."""
    return _turn_tool_messages(messages, failed=True)[1]


_DECIDING_NODES = frozenset({GraphNodeNames.COORDINATOR, GraphNodeNames.SUPERVISOR})
"""Nodes whose calls are routing decisions, never work: a work tool's name they call is a route they lack."""


def _turn_tool_messages(messages: Sequence[BaseMessage], *, failed: bool) -> tuple[str, list[ToolResult]]:
    outcomes = _turn_outcomes(messages)
    return answered_question(messages), [result for error, result in outcomes if error == failed]


def _turn_outcomes(messages: Sequence[BaseMessage]) -> list[tuple[bool, ToolResult]]:
    """The work tool results after the latest question in their order, each with whether it failed."""
    _, _, after = split_at_last_human(messages)
    calls: dict[str, tuple[str, Mapping[str, Any], str]] = {}
    routes: set[str] = set()
    out: list[tuple[bool, ToolResult]] = []
    for m in after:
        if isinstance(m, AIMessage):
            node = plugin_of_node(m.name or "")
            for c in m.tool_calls or []:
                calls[c.get("id") or ""] = (c["name"], c.get("args") or {}, node[0] if node else "")
                if m.name in _DECIDING_NODES:
                    routes.add(c.get("id") or "")
        elif isinstance(m, ToolMessage):
            name, args, agent = calls.get(m.tool_call_id, (m.name or "tool", {}, ""))
            if not is_control_tool(name) and m.tool_call_id not in routes:
                rejected = bool((m.response_metadata or {}).get(REJECTION_KEY))
                content = message_text(m).strip()
                result = ToolResult(name=name, args=args, content=content, rejected=rejected, agent=agent)
                out.append((m.status == "error", result))
    return out


def turn_outcomes(
    messages: Sequence[BaseMessage], records: Iterable[Mapping[str, Any]] = ()
) -> list[tuple[bool, ToolResult]]:
    """The turn's work tool results in their order, each with whether it failed: from its messages, else
    (an agent's work kept out of the shared history: the supervisor mode's) from the trace's ``tools_used``
    ``records``."""
    outcomes = _turn_outcomes(messages)
    if outcomes:
        return outcomes
    return [
        (
            bool(r.get("error")),
            ToolResult(
                name=str(r.get("name") or "tool"),
                args=dict(r.get("args") or {}),
                content=str(r.get("error") or r.get("result") or ""),
                agent=str(r.get("agent") or ""),
            ),
        )
        for r in records
        if r.get("error") is not None or r.get("result") is not None
    ]


def with_failed_parts_said(
    answer: str, question: str, outcomes: Sequence[tuple[bool, ToolResult]], tone: str | None = None
) -> str:
    """``answer`` with what failed said in words, when some calls of the turn succeeded and others failed
    with no later call of the same tool making them good: a tool's error the answer passes on as written
    ("The answer is 25. Error: UnknownLocationError: ...") is taken out, and, when the answer gives only the
    rest of a message asking several things ("What's 5 * 5 and what time is it in Xyzzyland?" had been
    answered "The answer is 25."), a line says what failed and why (:func:`failure_reasons`). An answer that
    speaks of a failed call's own words (the place it was asked about) is left as it is."""
    if all(error for error, _ in outcomes):
        return answer  # nothing or everything failed: the failure answer's business
    failed: list[ToolResult] = []
    for error, result in outcomes:
        failed = [f for f in failed if f.name != result.name]  # a later call of the same tool made it good
        if error:
            failed.append(result)
    if not failed:
        return answer
    kept, passed_on = answer, False
    for f in failed:
        error = f.content.strip()
        at = kept.find(error[:40]) if len(error) >= 20 else -1
        if at >= 0:  # the error as the tool wrote it: out of the answer
            cut = at + len(error) if kept[at:].startswith(error) else len(kept)
            kept, passed_on = f"{kept[:at].rstrip()} {kept[cut:].lstrip()}".strip(), True
    if not passed_on:
        if len(question_parts(question)) < 2:
            return answer
        answered = content_words(" ".join(called_with([r for error, r in outcomes if not error])))
        said = content_words(answer)
        failed = [f for f in failed if not ((content_words(called_with([f])) - answered) & said)]
        if not failed:
            return answer
    reasons = " ".join(failure_reasons(failed))
    tone = (tone or "natural").lower()
    if tone == "concise":
        note = f"Not answered: {reasons}"
    else:
        lead = "I could not" if tone == "formal" else "I couldn't"
        note = f"{lead} answer all of it: {reasons}"
    return f"{kept}\n\n{note}" if kept else note


def answered_question(messages: Sequence[BaseMessage]) -> str:
    """The question the turn answers: the latest user message, or the one before it when the latest only
    asks for that answer again (:func:`~cadence.models.preroute.asks_previous_again`: "Explain that in a
    formal tone", "How did you get that?"), so an explanation tells how *that* question was answered."""
    before, question, _ = split_at_last_human(messages)
    text = message_text(question) if question is not None else ""
    if text and asks_previous_again(text):
        _, earlier, _ = split_at_last_human(before)
        if earlier is not None and message_text(earlier).strip():
            return message_text(earlier)
    return text


def called_with(results: Sequence[ToolResult]) -> str:
    """The values the tools were called with, as text: "12 * 2" for ``calculate(expression="12 * 2")``.

    An answer may state them ("Doubling your 12 apples gives 24"): the tool's result is about them,
    and a follow-up's numbers often come from an earlier turn, not from its question.
    """
    return " \n".join(json.dumps(dict(r.args), ensure_ascii=False) for r in results if r.args)


def facts(text: str, *, fraction_parts: bool = False) -> list[str]:
    """Numbers and clock times written in ``text`` (normalised: no thousands separators); a fraction is
    read as its value, or as the numbers written in it with ``fraction_parts``."""
    return list(_facts(text, fraction_parts))


@functools.lru_cache(maxsize=32)
def _facts(text: str, fraction_parts: bool = False) -> tuple[str, ...]:
    """:func:`facts`, read once per text (a turn's evidence is read by the check and by validation)."""
    out: list[str] = []
    for m in _FACT_RE.finditer(text):
        if not m.group("fraction"):
            out.append(m.group(0).replace(",", ""))
        elif fraction_parts:
            out.extend(re.findall(r"-?\d+", m.group("fraction")))
        else:
            out.append(_fraction_value(m))
    return tuple(out)


def _fraction_value(m: re.Match[str]) -> str:
    """A fraction's value as a decimal number ("5/4": 1.25, "2 1/3": 2.333333333333); the text as written
    when it divides by zero."""
    top, bottom = int(m.group("top")), int(m.group("bottom"))
    if not bottom:
        return m.group("fraction")
    value = Fraction(int(m.group("whole") or 0) * bottom + top, bottom)
    if m.group("fraction").startswith("-"):
        value = -value
    text = f"{float(value):.{FRACTION_DIGITS}f}".rstrip("0").rstrip(".")
    return text or "0"


def _same_number(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` state the same number: equal, or one is the other rounded or cut to its
    decimals ("about 3.14" for 3.142857…; an integer is never read as a rounding)."""
    if ":" in a or ":" in b:
        return a.lstrip("-") == b.lstrip("-")
    try:
        if abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b))):
            return True
    except ValueError:
        return a == b
    return _rounds_to(b, a) or _rounds_to(a, b)


def _rounds_to(exact: str, short: str) -> bool:
    """Whether ``short`` is ``exact`` rounded (half up) or cut to ``short``'s decimals, one or more."""
    decimals = len(short.partition(".")[2])
    if not decimals or len(exact.partition(".")[2]) <= decimals:
        return False
    try:
        value, said = Decimal(exact), Decimal(short)
    except InvalidOperation:
        return False
    step = Decimal(1).scaleb(-decimals)
    return said in {value.quantize(step, ROUND_HALF_UP), value.quantize(step, ROUND_DOWN)}


LARGE_NUMBER = 1e9
"""From this size on, numbers a relative 1e-9 apart (the same number, for :func:`_same_number`) may lie
more than one unit apart: :class:`NumberPool` compares such numbers with every large one it holds."""


def _unit(value: str) -> int | None:
    """The integer part (floor) of a number's text; None for a text that is no finite number."""
    try:
        number = float(value)
    except ValueError:
        return None
    return math.floor(number) if math.isfinite(number) else None


class NumberPool:
    """Numbers and clock times indexed for :func:`_same_number`: a fact is compared with the few entries it
    could equal (the same clock time; a number within one unit of it, as a rounding or cut is), not with
    every entry. An answer listing 2,000 numbers checked against a result holding as many made 4 million
    comparisons: seconds on the event loop.
    """

    def __init__(self, facts: Iterable[str]) -> None:
        self.clocks: set[str] = set()
        """Clock times, without a leading minus (compared as text)."""
        self.texts: set[str] = set()
        """Entries that are no finite number (compared as text)."""
        self.units: dict[int, set[str]] = {}
        """Numbers by their integer part (each text once)."""
        self.large: set[str] = set()
        """Numbers of :data:`LARGE_NUMBER` or more (by size)."""
        for fact in facts:
            if ":" in fact:
                self.clocks.add(fact.lstrip("-"))
                continue
            unit = _unit(fact)
            if unit is None:
                self.texts.add(fact)
                continue
            self.units.setdefault(unit, set()).add(fact)
            if abs(unit) >= LARGE_NUMBER:
                self.large.add(fact)

    def has(self, fact: str) -> bool:
        """Whether an entry states the same number or clock time as ``fact`` (:func:`_same_number`)."""
        if ":" in fact:
            return fact.lstrip("-") in self.clocks
        unit = _unit(fact)
        if unit is None:
            return fact in self.texts
        if fact in self.units.get(unit, ()):
            return True
        near = (e for u in (unit - 1, unit, unit + 1) for e in self.units.get(u, ()))
        if any(_same_number(fact, e) for e in near):
            return True
        return abs(unit) >= LARGE_NUMBER and any(_same_number(fact, e) for e in self.large)


def _contains(pool: Sequence[str], fact: str) -> bool:
    return any(_same_number(fact, p) for p in pool)


_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Kana and Han: scripts written without spaces between words."""
_UNSPACED_RE = re.compile(f"[{_UNSPACED}]")
_SCRIPT_WORD_RE = re.compile(f"[^\\W\\d_{_UNSPACED}](?:[^\\W\\d{_UNSPACED}]|['-]){{3,}}")


def _script_words(text: str) -> set[str]:
    """:func:`content_words` in every script written with spaces (Cyrillic, Greek, accented Latin...)."""
    return {w.lower() for w in _SCRIPT_WORD_RE.findall(text)} - COMMON_WORDS


_PIECE_SEPARATOR_RE = re.compile(r"((?<=[.!?])[ \t]+|[ \t]*\n\s*)")
"""What ends a sentence or a line, kept (:func:`drop_repeats` keeps the answer's layout)."""


def drop_repeats(text: str) -> str:
    """``text`` with every sentence said a second time removed, and a cut-off last sentence dropped.

    The layout stays: lines, lists and code blocks are kept as written. A sentence counts when it has
    two words or more (a repeated ``}`` or list marker is not a repetition), and code blocks are left
    alone. The last sentence is cut off when it continues a paragraph without ending (the length
    limit stopped the model), not when it is a line of its own (a list item, "Sources: ...").
    """
    pieces = _PIECE_SEPARATOR_RE.split(text.strip())
    seen: set[str] = set()
    kept: list[tuple[str, str]] = []  # (sentence, the separator after it)
    in_code = False
    for i in range(0, len(pieces), 2):
        part, sep = pieces[i], pieces[i + 1] if i + 1 < len(pieces) else ""
        fence = part.strip().startswith("```")
        key = re.sub(r"\W+", " ", part.lower()).strip()
        if not (in_code or fence) and len(key.split()) >= 2:
            if key in seen:
                continue
            seen.add(key)
        if fence:
            in_code = not in_code
        kept.append((part, sep))
    if len(kept) > 1 and not in_code:
        last, before = kept[-1][0].strip(), kept[-2][1]
        if "\n" not in before and not _ends(last):
            kept.pop()  # cut off by the length limit
    return "".join(part + sep for part, sep in kept).strip()


_END_RE = re.compile(r"[.!?)\"'`*:。！？…»”’」』）\]\d]$|://\S+$")
"""How a finished sentence may end: its punctuation (in any script), a closing quote or bracket, a number
("2 + 2 = 4"), a link."""


def _ends(sentence: str) -> bool:
    """Whether ``sentence`` ends as written, not cut off: :data:`_END_RE`, or a symbol (an emoji, ✅)."""
    return bool(_END_RE.search(sentence)) or unicodedata.category(sentence[-1:] or "a") == "So"


def echoes(answer: str, instructions: str, n: int = ECHO_WORDS) -> bool:
    """Whether ``answer`` repeats ``n`` consecutive words of ``instructions``."""
    grams = _word_grams(instructions, n)
    said = re.findall(r"\w+", answer.lower())
    return any(" ".join(said[i : i + n]) in grams for i in range(len(said) - n + 1))


def _without(instructions: str, grounded: Sequence[str]) -> str:
    """``instructions`` without the grounded material quoted in them (the recalled memories a prompt lists):
    an answer restating what the user's memory holds repeats no instruction."""
    for text in grounded:
        if text and text in instructions:
            instructions = instructions.replace(text, " ")
    return instructions


@functools.lru_cache(maxsize=64)
def _word_grams(text: str, n: int) -> frozenset[str]:
    """The runs of ``n`` consecutive words of ``text`` (a node's prompt repeats from turn to turn)."""
    words = re.findall(r"\w+", text.lower())
    return frozenset(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))


_SIGN_IN_WORDS_RE = re.compile(
    r"\b(?:decrease[sd]?|drop(?:ped|s)?|fell|falls?|down|less|lower|loss|lost|behind|below|negative|minus)\b",
    re.IGNORECASE,
)
"""Words that say a number's minus sign ("a decrease of 20%" for a change of -20)."""


def check_answer(
    answer: str,
    *,
    question: str,
    results: Sequence[ToolResult],
    instructions: str = "",
    grounded: Sequence[str] = (),
    failures: Sequence[ToolResult] = (),
) -> AnswerVerdict:
    """Check ``answer`` against the turn's ``results`` (see the module docs).

    ``grounded``: other material the answer may rest on (the user's recalled memories): it counts
    as evidence for the invented-number, invented-name and word checks, but is never required.
    ``failures``: the turn's failed tool calls (:func:`turn_failures`), checked when no call succeeded.
    """
    cleaned = drop_repeats(answer)
    if not cleaned:
        return AnswerVerdict(cleaned, "empty")
    if cleaned.strip().endswith(":") and "\n" not in cleaned.strip():
        # one line that introduces nothing ("The answer to this question is:")
        return AnswerVerdict(cleaned, "unfinished")
    if instructions and echoes(cleaned, _without(instructions, grounded)):
        return AnswerVerdict(cleaned, "prompt_echo")
    if not results:
        if failures and _RAW_ERROR_RE.match(cleaned):
            # the tool's error passed on as written ("Error: UnknownLocationError: …"): the failure answer
            # says the same in a sentence, naming the tool
            return AnswerVerdict(cleaned, "raw_error", [error_reason(cleaned)[:80]])
        if failures:
            errors = " \n".join([*(f"{f.name.replace('_', ' ')} {f.content}" for f in failures), *grounded])
            known = facts(f"{question} \n{errors} \n{called_with(failures)}")
            stated = facts(_LIST_MARKER_RE.sub("", cleaned))
            known_pool = NumberPool(known)
            invented = [f for f in stated if not known_pool.has(f)]
            if invented:
                return AnswerVerdict(cleaned, "invented_number", invented)
            if stated and not _FAILURE_RE.search(cleaned):
                # the question's own numbers given as the answer: the tool that would have
                # computed it failed ("The answer is 4." to "How many legs do 4 dogs have?")
                return AnswerVerdict(cleaned, "invented_number", stated)
            if _narrates(cleaned, question, errors):
                return AnswerVerdict(cleaned, "narration")
            # an answer to a turn whose every tool failed must be about what failed: say that
            # something failed, or use the words of the tools and their errors
            said = content_words(cleaned) - content_words(question)
            talks = len(cleaned.split()) >= IGNORED_FAILURE_WORDS  # "It hung." is short and to the point
            # what went wrong, not the examples an error offers ("Name a city (e.g. 'Tokyo', 'Paris')"):
            # an answer built from those talks past the failure ("Paris is a city in Europe.")
            why = [f"{f.name.replace('_', ' ')} {error_reason(f.content)}" for f in failures]
            reasons = " \n".join([*why, *grounded])
            if talks and said and not _FAILURE_RE.search(cleaned) and not said & content_words(reasons):
                return AnswerVerdict(cleaned, "ignores_failure", sorted(said)[:5])
        persona = _PERSONA_RE.search(cleaned)
        if persona is not None and not failures and not _PERSONA_RE.search(" ".join([question, *grounded])):
            return AnswerVerdict(cleaned, "invented_persona", [persona.group(0)])
        return AnswerVerdict(cleaned)
    evidence = " \n".join([*(r.content for r in results), *grounded])
    if _narrates(cleaned, question, evidence):
        return AnswerVerdict(cleaned, "narration")
    corrects = _CORRECTION_RE.search(cleaned)
    if corrects and not _CORRECTED_RE.search(question):
        return AnswerVerdict(cleaned, "false_correction", [corrects.group(0)])
    # the numbers the question writes, a fraction as its value and as the numbers written in it ("What's
    # 3/4 plus 1/2?": 0.75, 0.5, 3, 4, 1, 2)
    written = facts(question, fraction_parts=True)
    asked = [*facts(question), *written]
    # Short results are values (a sum, a clock time): the answer must carry one. Long ones are
    # documents, which an answer summarises in words.
    short = [r.content for r in results if len(r.content) <= SHORT_RESULT_CHARS]
    # the question's own numbers are no answer ("What is 22/7?" asks for its value), unless a result lists
    # named values: the largest of the numbers asked about is one of them
    stated = [f for r in short for f in leading_facts(r) if named_values(r) or not _contains(asked, f)]
    if not stated:  # no new number: the value of a fraction the question writes is its answer
        stated = [f for r in short for f in leading_facts(r) if not _contains(written, f)]
    said = facts(_LIST_MARKER_RE.sub("", cleaned))
    if not stated and said:
        # the value is a number the question writes ("Convert -40 F to C": -40 °C): an answer stating
        # numbers states it (one stating none, "Sent.", is read by its words below)
        stated = [f for r in short for f in leading_facts(r)]
    # numbers written in words count too ("Sixty-five is ..."), "one" aside ("no one", "one of them")
    worded = [
        f for f in facts(numbers_from_words(_LIST_MARKER_RE.sub("", cleaned))) if f != "1" and f not in said
    ]
    # read once, not once per number said; the numbers a tool was given are what its result is about
    found = facts(f"{evidence} \n{called_with(results)}") if said or worded else []
    if worded:  # the question and the results may write them in words as well
        asked = [*asked, *facts(numbers_from_words(question))]
        found = [*found, *facts(numbers_from_words(evidence))]
    signed = _SIGN_IN_WORDS_RE.search(cleaned) is not None  # "a decrease of 20%" for -20: the sign in words
    if signed:
        found = [*found, *(f[1:] for f in found if f.startswith("-"))]
    worked = worked_numbers(cleaned) if said else []
    pools = [NumberPool(pool) for pool in (asked, found, worked)]
    invented = [f for f in [*said, *worded] if not any(pool.has(f) for pool in pools)]
    if invented:
        return AnswerVerdict(cleaned, "invented_number", invented)
    known = identifiers(evidence) | identifiers(question)
    named = sorted(identifiers(cleaned) - known)
    if not named:  # a proper name in mid-sentence that neither the question nor a result has
        seen = {w.lower() for w in re.findall(r"[^\W\d_]+", f"{question} {evidence}")}
        named = sorted({n for n in proper_names(cleaned) if n.lower() not in seen})
    if named:
        return AnswerVerdict(cleaned, "invented_name", named[:5])
    flipped = contradicted_orders(cleaned, evidence)
    if flipped:
        return AnswerVerdict(cleaned, "contradiction", flipped[:5])
    wrong = false_equations(cleaned)
    if wrong:
        return AnswerVerdict(cleaned, "false_equation", wrong[:5])
    moved = misplaced_differences(cleaned, question, results) or swapped_values(cleaned, question, results)
    if moved:
        return AnswerVerdict(cleaned, "contradiction", moved[:5])
    listed = [r for r in results if len(listed_items(r.content)) >= 2]
    for r in listed:
        items = listed_items(r.content)
        carried = [i for i in items if i.lower() in cleaned.lower()]
        if len(carried) * 2 < len(items):
            return AnswerVerdict(cleaned, "missing_result", items[:5])
    unsaid = unsaid_agents(cleaned, question, results)
    if unsaid:
        return AnswerVerdict(cleaned, "missing_result", unsaid[:5])
    if stated:
        date_asked = bool(_DATE_ASKED_RE.search(question))
        # "What day is it?": the result's weekday is an answer, though it is no number
        weekday = any(w in evidence.lower() and w in cleaned.lower() for w in _WEEKDAYS)
        said_pool = NumberPool([*said, *(f"-{f}" for f in said if signed and not f.startswith("-"))])
        if not any(said_pool.has(f) for f in stated) and not (date_asked and weekday):
            return AnswerVerdict(cleaned, "missing_result", stated[:5])
        # a result stating one thing per item ("The current time in Tokyo is … The current time in
        # Paris is …"): the answer carries each item's
        for r in short:
            for lead in parallel_facts(r)[1:]:
                wanted = [f for f in lead if not _contains(asked, f)]
                if wanted and not any(said_pool.has(f) for f in wanted):
                    return AnswerVerdict(cleaned, "missing_result", wanted[:5])
        # a clock time is what a result leading with one is about: the day's date alone does not carry it,
        # unless the question asks for the date (or the day) and not the time
        clocks = [f for f in stated if ":" in f]
        if date_asked and not _TIME_ASKED_RE.search(question):
            clocks = []
        if clocks and not any(said_pool.has(f) for f in clocks):
            return AnswerVerdict(cleaned, "missing_result", clocks[:5])
        # asked for the date: the answer carries the result's day (its number or its weekday)
        days = [f for f in stated if ":" not in f] if date_asked else []
        if days and not weekday and not any(said_pool.has(f) for f in days):
            return AnswerVerdict(cleaned, "missing_result", days[:5])
        return AnswerVerdict(cleaned)
    # Words only (documents): the answer's own words must mostly come from the results, in whatever
    # script; Chinese and Japanese are written without spaces, so they are not split into words
    said_lower = " ".join(cleaned.split()).lower()
    if any(" ".join(text.split()).lower().rstrip(" .") in said_lower for text in short if text.strip()):
        return AnswerVerdict(cleaned)  # a short result quoted whole ("Got it: you live in Madrid.")
    own = _script_words(_LEAD_IN_RE.sub("", cleaned)) - _script_words(question)
    if not own and _UNSPACED_RE.search(cleaned):
        return AnswerVerdict(cleaned)
    grounded = own & _script_words(evidence)
    if not grounded or len(grounded) < GROUNDED_SHARE * len(own):
        return AnswerVerdict(cleaned, "missing_result", sorted(own - grounded)[:5])
    return AnswerVerdict(cleaned)


_LEAD_IN_RE = re.compile(r"^\s*(?:got it|noted|ok(?:ay)?|sure|all right|alright)\s*[:,.!-]\s*", re.IGNORECASE)
"""A lead-in acknowledging what the user said ("Got it: you live in Madrid."): no word of a result."""

AGENT_WORDS = 2
"""Words of a document result (one found by words, not numbers) an answer drawing on several agents'
results must share with it to count as carrying it."""


def unsaid_agents(answer: str, question: str, results: Sequence[ToolResult]) -> list[str]:
    """The agents whose results ``answer`` leaves out, when the question asks several things ("What's 5*7
    and what time is it in Tokyo?", :func:`~cadence.models.preroute.question_parts`) and several agents
    answered (the tools, where the agent is unknown: the planner's researcher); else ``[]``.

    An agent's results are carried when the answer states one of the facts its short results lead with,
    or, for results without such facts (documents), shares :data:`AGENT_WORDS` of their words. Within
    one agent the answer may use any of its results (earlier ones can be steps towards the last).
    """
    groups: dict[str, list[ToolResult]] = {}
    for r in results:
        if r.content and not r.rejected:
            groups.setdefault(r.agent or r.name, []).append(r)
    if len(groups) < 2 or len(question_parts(question)) < 2:
        return []
    asked = facts(question)
    said = NumberPool(facts(_LIST_MARKER_RE.sub("", answer)))
    own = _script_words(answer) - _script_words(question)
    missing = []
    for agent, group in groups.items():
        short = [r.content for r in group if len(r.content) <= SHORT_RESULT_CHARS]
        wanted = [f for text in short for f in leading_facts(text) if not _contains(asked, f)]
        if wanted:
            if not any(said.has(f) for f in wanted):
                missing.append(agent)
        else:
            # a short result has fewer words of its own than that ("The capital of Peru is Lima." for "...
            # the capital of Peru?" adds one: Lima)
            new = _script_words(" ".join(r.content for r in group)) - _script_words(question)
            if len(own & new) < min(AGENT_WORDS, len(new)):
                missing.append(agent)
    return missing


_IDENTIFIER_RE = re.compile(r"\b[A-Za-z][\w-]*(?:[_.][A-Za-z0-9]+)+\b")


@functools.lru_cache(maxsize=32)
def identifiers(text: str) -> frozenset[str]:
    """Names written like code: settings, files, modules (``CADENCE_LLM``, ``overview.md``)."""
    found = (m.group(0) for m in _IDENTIFIER_RE.finditer(text))
    return frozenset(n.strip(".").lower() for n in found if "_" in n or re.search(r"\.[a-z]{1,5}$", n))


_NAME_RE = re.compile(r"(?<![.!?:\n]\s)(?<!^)(?<!\n)(?<![\w'’-])([A-Z][a-z]{3,})\b")
_LINE_OPENING_RE = re.compile(r"(?m)^[ \t#>]+")
"""Indentation, heading and quote markers: the word after them opens its line."""
_NOT_NAMES = frozenset(
    {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February"}
    | {"March", "April", "June", "July", "August", "September", "October", "November", "December"}
    | {"Note", "Sources", "Source", "Answer", "Result", "Results", "Here", "Sorry"}
)


def _narrates(answer: str, *context: str) -> bool:
    """Whether ``answer`` speaks of "the user" while none of ``context`` speaks of users."""
    return bool(_NARRATION_RE.search(answer)) and not any(_USER_RE.search(c) for c in context)


def proper_names(text: str) -> set[str]:
    """Capitalised words of four letters or more inside sentences (not opening one, nor a line, a
    numbered step or a heading): the names an answer mentions ("…behind Denmark"), days and months aside."""
    text = _LINE_OPENING_RE.sub("", _LIST_MARKER_RE.sub("", text).replace("**", "").replace("__", ""))
    return {m.group(1) for m in _NAME_RE.finditer(text) if m.group(1) not in _NOT_NAMES}


def listed_items(result: str) -> list[str]:
    """The items of a list result: the lines after a line ending with ``:`` (names without extensions)."""
    lines = [line.strip(" -*•\t") for line in result.splitlines()]
    for i, line in enumerate(lines):
        if line.endswith(":"):
            rest = [item for item in lines[i + 1 :] if item]
            if not rest or any(len(item) > MAX_ITEM_CHARS or item.endswith(":") for item in rest):
                return []  # prose follows, not a list
            return [re.sub(r"\.\w{1,5}$", "", item) for item in rest]
    return []


def leading_facts(result: str) -> list[str]:
    """The facts a result leads with: those of its first sentence outside brackets (all, if none).

    "New York is 3 hours ahead of Los Angeles. It is 21:23 in New York (UTC-05:00)..." leads with 3. A
    result listing named values ("count: 3; sum: 28; …; max: 17") leads with every value: a question
    asks for one of them ("the largest of 3, 17, 8").
    """
    if named_values(result):
        return facts(result)
    outside = _first_sentence(result)
    while True:  # brackets inside brackets, innermost first ("(read as ((-40 - 32) * 5 / 9))")
        outside, removed = re.subn(r"\([^()]*\)", " ", outside)
        if not removed:
            break
    lead = facts(outside)
    return lead or facts(result)


ORDER_SPAN_CHARS = 160
"""The most characters between a comparison's subject and its verb ("Miami, on the coast, is …"): the
pattern looks no further, so a text without sentence ends (a long history of results) is read in
linear time (an unbounded gap read every capitalised word against the whole rest of the text)."""

_ORDER_RE = re.compile(
    rf"\b([A-Z][\w'-]*)[^.;:!?\n]{{0,{ORDER_SPAN_CHARS}}}?\s(?:is|are|was|runs|sits|lies)\s"
    r"(?:[^.;:!?\n]{0,40}?\s)?"
    r"(ahead of|behind|later than|earlier than|more than|less than|greater than|smaller than)"
    r"\s(?:the\s)?([A-Z][\w'-]*)"
)
_OPPOSITE = {
    "ahead of": "behind", "later than": "behind", "more than": "less than", "greater than": "less than",
    "behind": "ahead of", "earlier than": "ahead of", "less than": "more than", "smaller than": "more than",
}  # fmt: skip
_SAME = {"later than": "ahead of", "earlier than": "behind", "greater than": "more than"} | {
    "smaller than": "less than"
}


@functools.lru_cache(maxsize=32)
def _orders(text: str) -> frozenset[tuple[str, str, str]]:
    """``(first, relation, second)`` of the comparisons ``text`` states ("Miami … is 6 hours behind Madrid"),
    each also as its converse ("Madrid ahead of Miami")."""
    found: set[tuple[str, str, str]] = set()
    for m in _ORDER_RE.finditer(text):
        a, rel, b = m.group(1).lower(), m.group(2).lower(), m.group(3).lower()
        if a == b:
            continue
        rel = _SAME.get(rel, rel)
        found |= {(a, rel, b), (b, _OPPOSITE[rel], a)}
    return frozenset(found)


def contradicted_orders(answer: str, evidence: str) -> list[str]:
    """The comparisons of ``answer`` the ``evidence`` states the other way round ("Rome is behind
    Bogotá" where a result says Bogotá is behind Rome)."""
    stated = _orders(evidence)
    if not stated:
        return []
    return sorted(
        f"{a} {rel} {b}"
        for a, rel, b in _orders(answer)
        if (a, _OPPOSITE[rel], b) in stated and (a, rel, b) not in stated
    )


_EQUATION_RE = re.compile(
    r"(?P<before>[\d)]\s*(?:\*\*|//|[-+*/×÷x^])\s*)?\(?\s*(?<![\d.,])(?P<a>-?\d[\d,]*(?:\.\d+)?)\s*(?P<op>[-+*/×÷x])\s*"
    r"(?P<b>\d[\d,]*(?:\.\d+)?)\s*\)?\s*=\s*(?P<c>-?\d[\d,]*(?:\.\d+)?)(?P<after>\s*[-+*/×÷x^(\d])?"
)
_OPERATIONS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "x": lambda a, b: a * b,
    "×": lambda a, b: a * b,
    "/": lambda a, b: a / b if b else None,
    "÷": lambda a, b: a / b if b else None,
}


def _equations(answer: str) -> list[tuple[re.Match[str], bool]]:
    """The equations of one operation written out in ``answer``, each with whether it holds.

    A result written rounded holds ("10 / 3 = 3.33"); a longer chain ("2 + 3 + 4 = 9") is not read.
    """
    out: list[tuple[re.Match[str], bool]] = []
    for m in _EQUATION_RE.finditer(answer):
        if m.group("before") or m.group("after"):
            continue  # part of a longer expression
        a, b, c = (float(m.group(k).replace(",", "")) for k in ("a", "b", "c"))
        value = _OPERATIONS[m.group("op")](a, b)
        if value is None:
            continue
        decimals = len(m.group("c").partition(".")[2])
        out.append((m, abs(value - c) <= 0.5 * 10**-decimals + 1e-9 * max(1.0, abs(value))))
    return out


_NUMBER = r"-?\d[\d,]*(?:\.\d+)?"
_PERCENT_CLAIM_RE = re.compile(
    rf"(?<![\d.,])(?P<p>{_NUMBER})\s*(?:%|percent\b|per cent\b) of \$?(?P<of>{_NUMBER})(?![\d,]*\.?\d)\s+"
    rf"(?:is|equals|=|comes to|gives)\s+(?:about\s+|exactly\s+)?\$?(?P<c>{_NUMBER})(?![\d,]*\.?\d)"
    rf"(?P<percent>\s*(?:%|percent\b|per cent\b)(?: of \$?(?P<d>{_NUMBER}))?)?"
)
"""A percentage stated with its value: "12% of 450 is 54", or said equal to another ("… is 54% of 450")."""


def _percent_claims(answer: str) -> list[tuple[str, bool]]:
    """The statements "P% of X is C" (or "… is Q% of Y") of ``answer``, each with whether it holds."""
    out: list[tuple[str, bool]] = []
    for m in _PERCENT_CLAIM_RE.finditer(answer):
        p, of, c = (float(m.group(k).replace(",", "")) for k in ("p", "of", "c"))
        value = p * of / 100
        if m.group("percent"):
            if m.group("d") is None:
                continue  # "15% of 80 is 12%": not read
            value, c = p * of, c * float(m.group("d").replace(",", ""))
            decimals = 0
        else:
            decimals = len(m.group("c").partition(".")[2])
        out.append((m.group(0).strip(), abs(value - c) <= 0.5 * 10**-decimals + 1e-9 * max(1.0, abs(value))))
    return out


def false_equations(answer: str) -> list[str]:
    """The equations of one operation written out in ``answer`` that do not hold ("176 - 300 = 176"), and
    the percentages stated wrong ("12% of 450 is 54% of 450", "10% of 80 is 9")."""
    wrong = [m.group(0).strip() for m, holds in _equations(answer) if not holds]
    return wrong + [claim for claim, holds in _percent_claims(answer) if not holds]


def worked_numbers(answer: str) -> list[str]:
    """The numbers of the equations ``answer`` writes out that hold ("15 * 20 = 300"): the working a
    step-by-step answer shows, not numbers it made up (its result is still checked against the tools')."""
    return [m.group(k).replace(",", "") for m, holds in _equations(answer) if holds for k in ("a", "b", "c")]


_AMOUNT_OF_RE = re.compile(r"\b([a-z]+)\s+[$€£]?(\d[\d,]*(?:\.\d+)?)(?![\d,.]*\d)", re.IGNORECASE)
"""A word and the amount after it ("ate 3", "sold 29", "spent $45")."""
_DIFFERENCE_RE = re.compile(r"^\(?\s*-?\d[\d,.]*\s*-\s*\d[\d,.]*\s*\)?\s*=\s*-?\d[\d,.]*\.?$")
_STATE_WORDS = frozenset({
    "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "having", "of", "and",
    "or", "to", "the", "a", "an", "in", "on", "at", "for", "with", "by", "from", "than", "about",
    "only", "now", "still", "left", "remain", "remains", "remaining", "total", "all", "altogether",
    "makes", "make", "made", "get", "gets", "got", "equals", "equal", "leaves", "leaving", "there",
    "them", "it", "that", "so", "plus", "minus", "times", "his", "her", "their", "its", "my", "our",
    "your", "these", "those", "last", "first", "next", "every", "each", "per", "just", "over", "under",
    "around", "nearly", "almost", "exactly",
})  # fmt: skip
"""Words whose amount may change between the question and the answer: states, totals, grammar."""


def _amount(text: str) -> float:
    return float(text.replace(",", ""))


def misplaced_differences(answer: str, question: str, results: Sequence[ToolResult]) -> list[str]:
    """Where a result is a difference, the actions of ``answer`` the question gives another amount
    ("ate 9" where the question says "ate 3 of his 12 cookies": 9 is what is left, not what was eaten)."""
    if not any(_DIFFERENCE_RE.match(r.content.strip()) for r in results):
        return []
    asked: dict[str, set[float]] = {}
    for word, amount in _AMOUNT_OF_RE.findall(question):
        if word.lower() not in _STATE_WORDS:
            asked.setdefault(word.lower(), set()).add(_amount(amount))
    return [
        f"{word} {amount}"
        for word, amount in _AMOUNT_OF_RE.findall(answer)
        if word.lower() in asked and _amount(amount) not in asked[word.lower()]
    ]


_CLAUSE_RE = re.compile(r"[.;!?,\n]\s|[;!?\n]|\b(?:and|while|but|whereas)\b", re.IGNORECASE)
"""Where one statement of an answer ends and the next begins (sentences, commas, "and", "while")."""


def swapped_values(answer: str, question: str, results: Sequence[ToolResult]) -> list[str]:
    """Values of one result given to another's subject: where one tool ran for several subjects (the
    time in Tokyo and in Paris), a statement of ``answer`` holding the value only one of them returned,
    naming another subject and not its own ("It is 14:05 in Tokyo" where 14:05 is Paris's time).

    A subject is a word of a call's arguments (four letters or more, not a function word: "york" of
    "New York") that no other call of the tool has; a value is a fact a
    result leads with that no other result of the tool states, nor the question.
    """
    asked = facts(question)
    by_tool: dict[str, list[ToolResult]] = {}
    for r in results:
        by_tool.setdefault(r.name, []).append(r)
    items: list[tuple[set[str], list[str], set[str]]] = []  # own subjects, own values, the others' subjects
    for group in by_tool.values():
        if len(group) < 2:
            continue
        words = [
            {w.lower() for v in r.args.values() if isinstance(v, str) for w in re.findall(r"[^\W\d_]{4,}", v)}
            - STOPWORDS
            for r in group
        ]
        values = [leading_facts(r.content) for r in group]
        for i in range(len(group)):
            others = set().union(*(w for j, w in enumerate(words) if j != i))
            shared = [f for j, v in enumerate(values) if j != i for f in v]
            own = [f for f in values[i] if not _contains(shared, f) and not _contains(asked, f)]
            if words[i] - others and own:
                items.append((words[i] - others, own, others - words[i]))
    if not items:
        return []
    swapped: list[str] = []
    for clause in _CLAUSE_RE.split(answer):
        said = facts(clause)
        named = {w.lower() for w in re.findall(r"[^\W\d_]{4,}", clause)}
        for subjects, values, others in items:
            if named & subjects or not named & others:
                continue
            swapped += [f"{f} for {sorted(named & others)[0]}" for f in values if _contains(said, f)]
    return swapped


def parallel_facts(result: str) -> list[list[str]]:
    """The leading facts of each sentence of ``result`` that opens like its first one (three words),
    first sentence included: a result listing one statement per item. [] when there is one."""
    sentences = [t.strip() for t in SENTENCE_RE.split(re.sub(r"[ \t]+", " ", result).strip()) if t.strip()]
    if len(sentences) < 2:
        return []
    opening = sentences[0].split()[:3]
    same = [t for t in sentences if len(opening) == 3 and t.split()[:3] == opening]
    if len(same) < 2:
        return []
    return [leading_facts(t) for t in same]


"""List markers (``-``, ``*``, ``4.``) and bold markers, dropped from quoted sentences."""


def _first_sentence(text: str) -> str:
    return SENTENCE_RE.split(re.sub(r"[ \t]+", " ", text).strip(), maxsplit=1)[0].strip()


def quotes_question(content: str, question: str) -> bool:
    """Whether a result is made of the question's own sentences (a summary of the text the user gave): the
    answer is then the whole result, never a sentence picked from it."""
    sentences = [s.strip() for s in SENTENCE_RE.split(" ".join(content.split())) if s.strip()]
    asked = " ".join(question.split())
    return len(sentences) > 1 and all(s in asked for s in sentences)


def _is_value(text: str) -> bool:
    return bool(re.fullmatch(r"-?[\d,]+(?:\.\d+)?(?:e-?\d+)?%?", text.strip()))


def _statement(result: ToolResult) -> str:
    """A result as a sentence: a bare value gets the expression or arguments it came from."""
    content = result.content
    if _is_value(content):
        values = [str(v) for v in result.args.values() if isinstance(v, str | int | float)]
        if len(values) == 1 and values[0].strip():
            return f"{values[0].strip()} = {content}"
        return f"The result is {content}"
    return content


def _args_text(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in args.items()) or "no arguments"


_WORKING_RE = re.compile(
    r"^(?P<expr>[^=\n]*\d[^=\n]*[-+*/^(][^=\n]*) = (?P<value>-?\d[\d.,e+-]*(?:/\d+)?)(?: \([^()=\n]*\))?\.?$"
    r"|\((?:exactly (?P<exact>[^=\n]+) = (?P<exact_value>-?\d[\d.,e+-]*)|read as (?P<read>[^\n]+))\)\.?$"
)
"""A result that shows its working: ``(18 / 100) * 275 = 49.5`` (or with the value as said after it:
``… = 64 ($64)``), or a conversion's ``(exactly … = …)`` or ``(read as …)``."""


_SHOWN_WORKING_RE = re.compile(r" \((?:exactly|read as) [^\n]+\)\.?$")
"""The working a result shows after its value: `` (read as (1 * 31622400 / 86400))``."""


def working(result: str) -> str | None:
    """The arithmetic a result shows it was worked out with ("(18 / 100) * 275 = 49.5"), or None."""
    match = _WORKING_RE.search(result.strip())
    if match is None:
        return None
    if match.group("expr"):
        return f"{match.group('expr').strip()} = {match.group('value')}"
    if match.group("exact"):
        return f"{match.group('exact').strip()} = {match.group('exact_value')}"
    stated = re.search(r" = (-?\d[\d.,e+-]*)", result)
    return match.group("read").strip() + (f" = {stated.group(1)}" if stated else "")


def as_asked(question: str) -> str:
    """``question`` as quoted back: without its request of style ("Explain step by step: what is 15% of
    240?" asked "What is 15% of 240?"), capitalized."""
    asked = without_style_request(question).strip()
    return asked[:1].upper() + asked[1:]


def explanation(question: str, results: Sequence[ToolResult]) -> str:
    """How the results were obtained, in words (the "why" an explanatory answer gives): the arithmetic a
    result shows, else the tool and its arguments."""
    shown = [w for r in results if (w := working(r.content))]
    question = as_asked(question)
    if shown and len(shown) == len(results):
        return f"How this was worked out: “{question}” reads as the arithmetic {'; '.join(shown)}."
    how = "; ".join(f"the {r.name} tool was used with {_args_text(r.args)}" for r in results)
    return (
        f"How this was worked out: to answer “{question}”, {how}, and the answer above is "
        "taken from what it returned, so it does not rest on guesswork."
    )


CONCISE_MAX_WORDS = 25
"""A concise answer longer than this is cut to its essentials."""
EXPLANATORY_MIN_WORDS = 25
"""An explanatory answer shorter than this gets the explanation of how it was obtained."""
_CONTRACTIONS = {
    "it's": "it is", "that's": "that is", "there's": "there is", "here's": "here is", "what's": "what is",
    "i'm": "I am", "you're": "you are", "we're": "we are", "they're": "they are", "isn't": "is not",
    "aren't": "are not", "don't": "do not", "doesn't": "does not", "didn't": "did not", "can't": "cannot",
    "won't": "will not", "couldn't": "could not", "wouldn't": "would not", "i'll": "I will",
    "you'll": "you will", "let's": "let us", "i've": "I have", "you've": "you have",
}  # fmt: skip
_CONTRACTION_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in _CONTRACTIONS) + r")\b", re.IGNORECASE)
_STEP_RE = _LIST_MARKER_RE


def _expand(match: re.Match[str]) -> str:
    word = match.group(0)
    full = _CONTRACTIONS[word.lower().replace("’", "'")]
    return full[0].upper() + full[1:] if word[0].isupper() else full


def conform_to_tone(
    answer: str, tone: str | None, question: str, results: Sequence[ToolResult]
) -> tuple[str, bool]:
    """``answer`` brought in line with the tone's measurable traits, and whether it changed.

    Concise: at most :data:`CONCISE_MAX_WORDS` words (the results, or :func:`concise_lead`);
    explanatory: says how the results were obtained; learning: numbered steps; formal: no
    contractions or exclamation marks. Models, small ones above all, often ignore a tone; these
    traits are what a reader notices first.
    """
    tone = (tone or "natural").lower()
    words = len(answer.split())
    shaped = answer
    if tone == "concise" and words > CONCISE_MAX_WORDS:
        shaped = faithful_answer(question, results, "concise") if results else concise_lead(answer)
    elif tone == "explanatory" and words < EXPLANATORY_MIN_WORDS and results:
        shaped = f"{end_sentence(answer)}\n\n{explanation(question, results)}"
    elif tone == "learning" and len(_STEP_RE.findall(answer)) < 2 and results:
        shaped = faithful_answer(question, results, "learning")
    elif tone == "formal":
        shaped = _outside_code(answer, _formal)
    return shaped, shaped != answer


CONCISE_MIN_WORDS = 5
"""A concise answer cut to its lead keeps sentences until it has this many words ("Sure!" says nothing)."""
_ITEM_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")


def concise_lead(answer: str) -> str:
    """The lead of an answer without tool results, for the concise tone: its first sentences, whole,
    until they hold :data:`CONCISE_MIN_WORDS` words, the layout kept.

    A sentence that introduces what follows ("You have three options:") keeps it (the list under it,
    whole, or the next sentence); an answer with a code block is left as it is (code is not cut).
    """
    if "```" in answer:
        return answer
    pieces = _PIECE_SEPARATOR_RE.split(answer.strip())
    kept: list[str] = []
    words = 0
    in_list = False
    for i in range(0, len(pieces), 2):
        part, sep = pieces[i], pieces[i + 1] if i + 1 < len(pieces) else ""
        item = bool(_ITEM_RE.match(part))
        introduced = bool(kept) and (kept[-2].rstrip().endswith(":") or (in_list and item))
        if kept and words >= CONCISE_MIN_WORDS and not introduced:
            break
        in_list = (in_list and item) or part.rstrip().endswith(":")
        kept += [part, sep]
        words += len(part.split())
    text = "".join(kept).strip()
    return text if text.endswith(":") else end_sentence(text)


_CODE_RE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.DOTALL)
"""Code blocks and inline code: a tone never rewrites them."""
_EXCLAMATION_RE = re.compile(r"(?<=\w)!(?=\s|$)(?!\s*[=+\-*/×÷^(\d])")
"""An exclamation mark ending a sentence (not ``!=``, ``![image]``, nor a factorial: ``5! = 120``)."""


def _formal(text: str) -> str:
    """Contractions spelt out, exclamations made statements."""
    return _EXCLAMATION_RE.sub(".", _CONTRACTION_RE.sub(_expand, text.replace("’", "'")))


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to everything but its code."""
    out, end = [], 0
    for m in _CODE_RE.finditer(text):
        out += [change(text[end : m.start()]), m.group(0)]
        end = m.end()
    return "".join([*out, change(text[end:])])


_DATE_ASKED_RE = re.compile(r"\b(?:date|what day|which day|day of the week|day is it)\b", re.IGNORECASE)
"""A question asking for the date or the day."""
_TIME_ASKED_RE = re.compile(r"\b(?:time|clock|hour)\b", re.IGNORECASE)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RAW_ERROR_RE = re.compile(r"\s*(?:[Ee]rror\s*:|[A-Z]\w*(?:Error|Exception)\s*:)")
"""An answer opening as a tool's error does (``Error:``, ``UnknownLocationError:``)."""
_ERROR_PREFIX_RE = re.compile(r"^\s*(?:error\s*:\s*)?(?:\w*(?:Error|Exception)\s*:\s*)?", re.IGNORECASE)
"""``Error: CalculationError: `` before a tool error's message."""


_REASON_END_RE = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<=[.!?])\s+(?=[A-Z(\[])|\n+")
"""Where a sentence of an error ends: before a capital letter, not after "e.g." (an example follows), nor
inside a quoted question ("Malformed expression 'what is 3*7? 日本'")."""


def error_reason(error: str) -> str:
    """What a tool error says went wrong, in its first sentence, without its ``Error: …Error:`` prefix.

    A sentence that introduces what follows (ending with ``:``, "… with error:") goes on with the
    next one, which holds the reason ("expression: Field required"); a suggestion the error makes ("Did you
    mean 'France'?") follows it.
    """
    pieces = [p.strip() for p in _REASON_END_RE.split(_ERROR_PREFIX_RE.sub("", error).strip()) if p.strip()]
    reason = pieces[0] if pieces else ""
    rest = pieces[1:]
    while rest and reason.endswith(":"):
        reason = f"{reason} {rest.pop(0)}"
    # a suggestion goes with it ("... Did you mean 'France'?"): what the user can answer yes to
    suggested = next((piece for piece in rest if piece.startswith("Did you mean")), None)
    return f"{reason} {suggested}" if suggested else reason


def is_an_error(text: str, failed: Sequence[ToolResult]) -> bool:
    """Whether ``text`` is nothing but the errors of ``failed``: all of them joined, or (the start of) one
    (an agent passing a tool's error on as its answer)."""
    said = " ".join(text.split()).rstrip(" .;")
    errors = [" ".join(f.content.split()) for f in failed]
    return bool(said) and (said == " ".join(errors).rstrip(" .;") or any(e.startswith(said) for e in errors))


def failure_answer(failures: Sequence[ToolResult], tone: str | None) -> str:
    """The answer of a turn whose tools all failed: what failed and why, shaped by the tone."""
    reasons = failure_reasons(failures)
    if not reasons:
        return ""
    tone = (tone or "natural").lower()
    if tone == "concise":
        return f"No answer: {reasons[0]}"
    lead = "I could not find the answer" if tone == "formal" else "I couldn't find the answer"
    if all(f.rejected for f in failures):  # rephrasing would not help: the reviewer decides
        return f"{lead}: {' '.join(reasons)}"
    return f"{lead}: {' '.join(reasons)} Please rephrase the question or try again."


def failure_reasons(failures: Sequence[ToolResult]) -> list[str]:
    """What failed and why, one sentence per distinct failure ("the calculate tool failed: ...")."""
    reasons: list[str] = []
    for f in failures:
        if f.rejected:  # not a fault: the reviewer said no, and why
            said = f.content.removeprefix(REJECTION_TEXT).strip()
            line = f"the {f.name} call was not run: a reviewer rejected it" + (
                f" ({said.rstrip(' .')})." if said else "."
            )
        else:
            reason = error_reason(f.content)
            line = f"the {f.name} tool failed" + (f": {end_sentence(reason)}" if reason else ".")
        if line not in reasons:
            reasons.append(line)
    return reasons


def faithful_answer(question: str, results: Sequence[ToolResult], tone: str | None) -> str:
    """An answer made of the results themselves, shaped by the tone (natural when unknown)."""
    used = [r for r in results if r.content]
    statements = [
        " ".join(r.content.split())
        if quotes_question(r.content, question)
        else relevant_sentences(r.content, question)
        if len(r.content) > SHORT_RESULT_CHARS
        else _statement(r)
        for r in used
    ]
    if not statements:
        return ""
    tone = (tone or "natural").lower()
    if tone == "concise":
        pairs = zip(used, statements, strict=True)
        short = [
            s
            if quotes_question(r.content, question)
            else r.content
            if _is_value(r.content)
            else _first_sentence(s)
            for r, s in pairs
        ]
        return " ".join(end_sentence(s) for s in short if s)
    if tone == "formal":
        if len(statements) == 1:
            return f"In response to your question: {end_sentence(statements[0])}"
        return "In response to your question:\n" + "\n".join(f"- {end_sentence(s)}" for s in statements)
    if tone == "explanatory":
        # the working a result shows after its value ("(read as …)", "(exactly …)") is the explanation's
        shown = [_SHOWN_WORKING_RE.sub("", s) if working(s) else s for s in statements]
        return "\n\n".join([*(end_sentence(s) for s in shown), explanation(question, used)])
    if tone == "learning":
        steps = [f"1. The question: {as_asked(question)}"]
        worked = False
        for i, r in enumerate(results, start=2):
            shown = working(r.content)
            worked = worked or shown is not None
            if shown is not None:
                steps.append(f"{i}. Write it as arithmetic and work it out: {shown}.")
            else:
                steps.append(f"{i}. Use the {r.name} tool with {_args_text(r.args)}.")
        steps.append(f"{len(results) + 2}. Read the result: {end_sentence(' '.join(statements))}")
        source = "the arithmetic worked out" if worked else "the tool's result"
        steps.append(f"Recap: the answer comes straight from {source}.")
        steps.append("Try next: ask a follow-up that builds on this result.")
        return "\n".join(steps)
    if len(statements) == 1:
        return end_sentence(statements[0])
    return "Here is what I found:\n" + "\n".join(f"- {end_sentence(s)}" for s in statements)


__all__ = [
    "ANSWER_CHECK_KEY",
    "AnswerVerdict",
    "ToolResult",
    "check_answer",
    "conform_to_tone",
    "drop_repeats",
    "echoes",
    "facts",
    "failure_answer",
    "faithful_answer",
    "quotes_question",
    "turn_agent_answers",
    "turn_failures",
    "turn_has_work",
    "turn_results",
]
