"""The small-model policy: what each call of the embedded model is asked and allowed to say.

A 135M model cannot follow tool-calling instructions on its own, so whenever tools
are bound every call uses **constrained decoding** (a GBNF grammar) and a few
documented, generic policies:

Coordinator (every bound tool is a routing tool: ``goto_*``, or ``transfer_to_*``)
    The output is always exactly one routing tool name. With ``preroute`` on
    (``settings.local_preroute``): when this turn already holds agent work (a tool
    result other than a control tool's, or an agent's text after the latest
    user message) the grammar allows only ``goto_finalize`` — the flow is
    agent → tools → coordinator, so work after the question means the answer is
    ready, unless every tool the turn's agents called failed and the lexical
    shortlist of the question (below) holds an agent not routed to yet in this turn:
    the route is then fixed to the best-ranked such agent (the model chose one of
    the candidates and its tools could not take the question: "how many hours apart
    are London and Chicago" ranks the calculator first, whose tool rejects it, then
    the world clock). A message asking several things (:func:`question_parts`: "What's 5*7 and
    what time is it in Tokyo?") goes on, after each agent's work, to the best-ranked agent of a part
    no agent was routed to yet this turn, then finalizes: the synthesizer answers every part.
    Otherwise :class:`~cadence.models.preroute.PreRouter` ranks the
    routing tools lexically against the question; the grammar allows the
    shortlist (candidates within 75% of the best score), or only
    ``goto_finalize`` when nothing overlaps (no agent fits: greetings,
    chit-chat, topics no plugin describes; a question matched by its numbers
    alone that writes fewer than two is a statement, "I'm 30 years old"). With ``preroute`` off the model
    chooses freely among all routes plus ``goto_finalize``.

Supervisor (its handoff tools ``transfer_to_*``, ``goto_finalize`` and ``forward_message``)
    No free generation either. Before any agent work in the turn it routes like the
    coordinator (the lexical shortlist, constrained to one route name, ``forward_message``
    excluded); a message asking several things visits the agent of each part, as the
    coordinator does, and then goes to the synthesizer (forwarding one agent's answer would drop
    the others'). Once an agent has handed back: when that agent's last answer has text other
    than the tool results the supervisor sees (with ``full_history``; ``last_message`` shows
    it none), the decision is fixed to ``forward_message(from_agent=<that agent>)``; otherwise
    it is fixed to ``goto_finalize`` (the synthesizer writes the answer from the results), or,
    when every tool the agents called failed, to the next shortlisted agent as for the coordinator.

Agent (any other tools)
    First step of a turn (no tool result after the latest user message): the
    output is forced to be one tool call, ``{"name": ..., "arguments": {...}}``,
    among the agent's real tools (``back`` excluded), shortlisted lexically
    (tools within 90% of the best score, ignoring words every tool has — "docs"
    among documentation tools — and never preferring a tool matched by the
    question's numbers alone over one matching its words; all tools when nothing
    overlaps). The question must give a candidate something to work on: a tool
    whose only argument locates something (its name says path, file, url, … or its
    format is ``uri``) is dropped unless the question names a path, file or URL —
    which is then the argument — and, when no tool matched, so is a tool taking
    no input if the question has words of its own; if no shortlisted tool remains,
    the other tools compete. Among the remaining candidates the tools needing the
    fewest arguments win. In a message asking several things the agent works on the part its
    tools match best (:func:`part_for`): its tools read no words meant for another agent. What the
    message says of the user that the user stated earlier (the recalled facts in the agent's
    prompt) is written out first (:func:`resolve_told`: "where I live" → "in Lisbon", "my favorite
    number" → 7).
    Argument values follow the tool's JSON schema: numbers,
    integers, booleans, enums, arrays of those, and strings — a number must be one
    the question writes (in digits or words: "ten" is offered as ``10``, and the
    model is shown the question with its numbers in digits), a string a span of words
    copied from the user's latest message (a 135M model copies reliably
    but cannot be trusted to write free text that ends). Only required
    arguments are produced. Once the turn has a tool result the agent answers in
    plain text (which the agent node turns into ``back``) from a compact
    "answer from these results" prompt. ``tool_choice`` can
    override: ``"none"`` → text, ``"auto"`` → text or a call, ``"any"``/
    ``"required"``/a tool name → a call.

Final answer (no tools bound)
    From tool results: results already in whole sentences are the answer as they are (natural
    tone); a message asking several things gets one line per result; otherwise the model writes
    one sentence from a compact "answer from these results" prompt. Without results, small talk is
    not left to the model (it invents a persona and skills): a greeting, thanks, a goodbye or a
    question about what the assistant can do is answered from the capabilities the final-answer
    prompt lists (:func:`small_talk_reply`); other chat is a short free reply.
"""

from __future__ import annotations

import difflib
import json
import logging
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from cadence.conventions import (
    BACK_TOOL_NAME,
    CAPABILITIES_HEADER,
    FINAL_REPLY_NOTICE,
    FINALIZE_TOOL,
    FORGOTTEN_PREFIX,
    FORWARD_TOOL,
    FORWARDED_REPLY_NOTICE,
    MEMORY_TOOL,
    ROUTE_DESCRIPTION_PREFIX,
    TOLD_FACTS_HEADER,
    TONE_NOTICE,
    is_control_tool,
    is_route_tool,
    message_text,
    plugin_of_node,
    route_core,
    split_at_last_human,
)
from cadence.errors import TOOL_ERROR_PREFIX
from cadence.models.local.grammar import (
    NUMBER_RE,
    build_route_grammar,
    build_tool_grammar,
    distinct_argument_grammar,
    repeated_argument,
)
from cadence.models.preroute import (
    ABOUT_ASSISTANT_RE,
    ABOUT_PERSONA_RE,
    ACKNOWLEDGE_RE,
    CORRECTION_RE,
    DISMISS_RE,
    FOLLOW_UP_RE,
    GOODBYE_RE,
    GREETING_RE,
    HOW_ARE_YOU_RE,
    LIMITS_ASKED_RE,
    NO_ALONE_RE,
    NO_INPUT_COVERAGE,
    OWN_RE,
    PLEASANTRY_RE,
    PRAISE_RE,
    REFERENCE_RE,
    THANKS_RE,
    PreRouter,
    as_follow_up,
    asks_previous_again,
    each_sentence,
    is_follow_up,
    is_small_talk,
    may_be_read,
    question_parts,
    readable_routes,
    reads_surely,
    stem,
    tokenize,
    tool_function,
    tool_name,
    without_style_request,
)
from cadence.passages import cites_passages, end_sentence, relevant_sentences
from cadence.sdk.routing import ArgumentReader, Reader
from cadence.text import (
    ACTION_REQUEST_RE,
    ASKED_BEFORE_RE,
    BIRTH_YEAR_ASKED_RE,
    FEELING_RE,
    FORGET_RE,
    SELF_TOPIC_WORDS,
    STOPWORDS,
    WHAT_IS_KNOWN_RE,
    named_values,
    numbers_from_words,
    sentences,
)

logger = logging.getLogger(__name__)

ANSWER_FROM_RESULTS = "Answer the user's question in one sentence, using only the results given."
"""System prompt of a text answer once the turn has tool results."""
TOOL_SHORTLIST_RATIO = 0.9
"""Agent tools kept for the model to choose from: those within 90% of the best lexical score."""
DEFAULT_MAX_TOKENS = 160
"""Tokens a call may produce when ``max_tokens`` is not set."""

Mode = Literal["route", "call", "auto", "text"]
"""How a call's output is read: a route name, a tool call, a tool call or text, or text."""


def current_turn(messages: Sequence[BaseMessage]) -> tuple[str, list[BaseMessage]]:
    """The latest user message's text and the messages after it (``""`` and all messages without one)."""
    before, question, after = split_at_last_human(messages)
    if question is None:
        return "", before
    # a correction ("No, I meant 15%") is the follow-up it stands for ("what about 15%?"); a yes to a
    # suggestion ("Did you mean 'France'?") the previous question with it
    if not before:
        return message_text(question), after
    text = message_text(question)
    return accepted_suggestion(text, before) or as_follow_up(text), after


_YES_RE = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|y|sure|correct|right|exactly|that'?s (?:it|right|the one)|i did|i do)"
    r"(?:[ ,!.]+(?:please|thanks|thank you|i did|i do|that one))*[\s!.]*$",
    re.IGNORECASE,
)
"""A yes alone ("Yes", "Yeah, that one", "Correct")."""
_SUGGESTED_RE = re.compile(r"Did you mean ['\"‘“]([^'\"’”]+)['\"’”]")
"""A suggestion an earlier answer made ("Did you mean 'France'?")."""


def accepted_suggestion(text: str, before: Sequence[BaseMessage]) -> str | None:
    """The previous question with the place or word an answer suggested, when ``text`` says yes to it ("yes"
    after "... No country or city found ... Did you mean 'France'?" asks "What is the capital of France?"):
    the word of the question closest to the suggestion is replaced. None otherwise."""
    if not _YES_RE.match(text):
        return None
    _, asked, after = split_at_last_human(before)
    if asked is None:
        return None
    said = next((m for m in reversed(after) if isinstance(m, AIMessage) and not m.tool_calls), None)
    suggestion = _SUGGESTED_RE.search(message_text(said)) if said is not None else None
    if suggestion is None:
        return None
    previous, meant = message_text(asked), suggestion.group(1).split(",")[0].strip()
    words = list(re.finditer(r"[^\W\d_][\w'-]*", previous))
    if not words:
        return None

    def likeness(word: re.Match[str]) -> float:
        return difflib.SequenceMatcher(None, word.group(0).lower(), meant.lower()).ratio()

    closest = max(words, key=likeness)
    if likeness(closest) < 0.6:
        return None
    return previous[: closest.start()] + meant + previous[closest.end() :]


def _tool_names_by_id(messages: Sequence[BaseMessage]) -> dict[str, str]:
    names: dict[str, str] = {}
    for m in messages:
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                if call.get("id"):
                    names[str(call["id"])] = call["name"]
    return names


def tool_results(messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
    """``(tool name, result)`` of the non-control tool results among ``messages``."""
    names = _tool_names_by_id(messages)
    out = []
    for m in messages:
        if isinstance(m, ToolMessage):
            name = m.name or names.get(m.tool_call_id, "")
            if not is_control_tool(name):
                out.append((name or "tool", message_text(m)))
    return out


def said_results(turn: Sequence[BaseMessage], results: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``results`` (:func:`tool_results` of ``turn``) with a bare value returned for arithmetic written out
    said with it (:func:`_with_written_arithmetic`: ``ln(e) = 1``), as an answer says it."""
    args = [
        json.dumps(call.get("args") or {}, ensure_ascii=False)
        for m in turn
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if not is_control_tool(call["name"])
    ]
    if len(args) != len(results):  # calls and results not one to one: as they are
        return list(results)
    return [
        (name, _with_written_arithmetic(value, a)) for (name, value), a in zip(results, args, strict=True)
    ]


def turn_has_agent_work(messages: Sequence[BaseMessage]) -> bool:
    """Whether, after the latest user message, an agent produced a tool result or an answer text."""
    _, turn = current_turn(messages)
    return _has_agent_work(turn, tool_results(turn))


def _has_agent_work(turn: Sequence[BaseMessage], results: Sequence[tuple[str, str]]) -> bool:
    """:func:`turn_has_agent_work` of a turn whose :func:`tool_results` are known."""
    if results:
        return True
    for m in turn:
        is_agent_text = isinstance(m, AIMessage) and m.name != "coordinator" and bool(message_text(m).strip())
        if is_agent_text and not any(is_route_tool(c["name"]) for c in m.tool_calls):  # type: ignore[union-attr]
            return True
    return False


def work_failed(turn: Sequence[BaseMessage]) -> bool:
    """Whether the turn's agent work is failed tool calls only: at least one work tool result, every
    one an error (``status="error"``), and no agent text but copies of those errors (an agent handing
    its results back verbatim)."""
    names = _tool_names_by_id(turn)
    errors = []
    for m in turn:
        if isinstance(m, ToolMessage) and not is_control_tool(m.name or names.get(m.tool_call_id, "")):
            if m.status != "error":
                return False
            errors.append(message_text(m))
    if not errors:
        return False
    copied = copies_of(errors)
    for m in turn:
        text = (
            " ".join(message_text(m).split()) if isinstance(m, AIMessage) and m.name != "coordinator" else ""
        )
        if text and text not in copied and not any(is_route_tool(c["name"]) for c in m.tool_calls):  # type: ignore[union-attr]
            return False
    return True


def own_calls_failed(turn: Sequence[BaseMessage], names: Sequence[str]) -> bool:
    """Whether the agent's own tool calls (those of ``names``) in ``turn`` all failed: its answer is then
    the error handed back as it is, for the deciding node to try another agent or explain it."""
    own = [m for m in turn if isinstance(m, ToolMessage) and m.name in names]
    return bool(own) and all(m.status == "error" for m in own)


def copies_of(values: Sequence[str]) -> set[str]:
    """What an agent handing ``values`` back verbatim says: one of them, or all joined (spacing aside)."""
    return {" ".join(v.split()) for v in values} | {" ".join("\n".join(values).split())}


def route_visits(turn: Sequence[BaseMessage]) -> Counter[str]:
    """How many times each agent (its route core: ``math`` of ``goto_math_agent``) was routed to in
    ``turn``."""
    return Counter(
        route_core(call["name"])
        for m in turn
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if is_route_tool(call["name"]) and call["name"] != FINALIZE_TOOL
    )


def turn_routes(turn: Sequence[BaseMessage]) -> set[str]:
    """The agents (route cores: ``math`` of ``goto_math_agent``) routed to among ``turn``."""
    return set(route_visits(turn))


def refers_back(question: str, messages: Sequence[BaseMessage]) -> bool:
    """Whether ``question`` may lean on what was said before: an earlier turn (there is one, and the
    question is a follow-up or names something said: "What is the square root of that?") or what the user
    told of themselves, in this conversation or remembered (a question about the user when there is
    either: "How much do I earn a week?" after "I work 38 hours a week at $22 an hour"). Read alone, it is
    not what an agent will read (the agent puts the earlier result or the told numbers in their place)."""
    earlier = previous_question(messages) is not None
    told = earlier_questions(messages, 1)
    if told and told[0].strip() and question.startswith(told[0].strip()):
        return False  # what it leaned on is written out before it ("I have 3 kids. If each gets $20, ...")
    if _ACTS_ON_TEXT_RE.search(question) and _TEXT_GIVEN_RE.search(question):
        return False  # the text it acts on is in it ("Now reverse 'I love sunny days'", "Summarize: ...")
    # "I sleep 8 hours a night. How many hours do I sleep in a week?": what it says of the user first, with
    # its numbers, is what it leans on (a remembered "You sleep 8 hours a night." had answered it)
    tells_its_own = (
        _TOLD_ABOUT_SELF_RE.match(question) is not None
        and bool(numbers_in(question))
        and len(sentences(question)) > 1
    )
    if OWN_RE.search(question) and not tells_its_own and (earlier or told_facts(_system_text(messages))):
        return True
    if not earlier:
        return False
    return (
        is_follow_up(question)
        or REFERENCE_RE.search(question) is not None
        or _ITS_TAIL_RE.search(question) is not None  # "What's the sum of its digits?"
    )


def best_route(router: PreRouter, text: str) -> str | None:
    """The best-ranked candidate for ``text`` that a word of it matches, or that two of its numbers do
    (one number and no word of any candidate is a statement, not a sum); None when nothing fits."""
    ranked = router.rank(text)
    shortlist = PreRouter.shortlisted(ranked)
    if not shortlist or (ranked[0].number_only and len(numbers_in(text)) < 2):
        return None
    return shortlist[0]


def part_for(
    question: str,
    tools: Sequence[Mapping[str, Any]],
    answered: Sequence[str] = (),
    asked: Collection[str] = (),
) -> str:
    """The part of a question asking several (:func:`question_parts`) that an agent's ``tools`` answer
    best (a word match before numbers alone), or the whole question when it asks one thing or no part
    fits better: the agent of "what is 5*7" in "What's 5*7 and what time is it in Tokyo?" is given
    that part, its tool then reads no words meant for another agent.

    A part whose numbers all stand in an answer ``answered`` this turn (another agent's) is done: "Convert
    10 miles to km, and also what weekday is 4 March 2027?" after "10 miles = 16.09 km" leaves the
    weekday to the calendar, however well "convert" fits a clock tool. A part a call of this turn asked
    already (``asked``: :func:`asked_texts`) is done too: "What's the currency in Japan and how many people
    live there?" asks the currency on the agent's second visit. "there" and "its" are read as the place
    named before (:func:`parts_asked`)."""
    parts = parts_asked(question)
    if len(parts) < 2 or not tools:
        return question
    said = worked_on(answered)
    open_parts = [
        p
        for p in parts
        if not (numbers_in(p) and set(numbers_in(p)) <= said)
        and not any(" ".join(p.split()) in a for a in asked)
    ]
    parts = open_parts or parts
    router = PreRouter.from_tool_schemas(tools)
    scored = [(order, part) for i, part in enumerate(parts) if (order := _part_order(router, part, i))]
    return max(scored)[1] if scored else question


def _part_order(router: PreRouter, part: str, index: int) -> tuple[bool, bool, float, int] | None:
    """How well an agent's tools (``router``) fit one part of a question, comparable between parts (None:
    nothing fits): a word match first; then a part giving numbers to work on ("What's 14.5% of 620"
    before "the time in Oslo right now?" for a calculator whose text says "right triangle"); then how
    much the part is the agent's business, what all its tools find in it by words (a percent part fits
    calculate and the percent tools, "the date two weeks from today" only calculate's durations); then
    the earlier part."""
    ranked = router.rank(part)
    if not ranked or ranked[0].score <= 0:
        return None
    fit = sum(r.score for r in ranked if not r.number_only)
    return (not ranked[0].number_only, bool(numbers_in(part)), fit, -index)


def parts_asked(question: str) -> list[str]:
    """The parts of a question asking several (:func:`question_parts`), "there" read as the place named
    before it ("What's the currency in Japan and how many people live there?": "how many people live in
    Japan?", as the agent asks it), "its" or "their" as that place's ("... and what's its capital?"), and
    "it" of a distance from one place as that place ("... and how far is it from Paris?")."""
    place = place_before_there(question)
    parts = question_parts(resolve_place(question, place) if place else question)
    out = parts[:1]
    for part in parts[1:]:
        # "What's the population of Canada and what's its capital?": the capital of the place named before
        named = [p for earlier in out for p in _IN_PLACE_RE.findall(earlier)]
        if named and _POSSESSIVE_RE.search(part) and not _IN_PLACE_RE.search(part):
            part = _POSSESSIVE_RE.sub(f"{named[-1]}'s", part, count=1)
        elif named and _FAR_IS_IT_RE.search(part):
            # "What's the capital of Germany, and how far is it from Paris?": the distance of Germany
            part = _FAR_IS_IT_RE.sub(lambda m, n=named[-1]: f"{m.group('lead')}{n}", part, count=1)
        else:
            part = _with_earlier_text(part, out)
        out.append(part)
    return out


_COUNT_OF_NO_TEXT_RE = re.compile(
    r"^\W*(?:and\s+)?how\s+many(?:\s+of\s+them\s+are)?\s+(?P<what>[a-z]{1,12}(?:'s|’s)?)(?:\s+(?:are\s+there|does\s+it"
    r"\s+have|has\s+it))?\s*[?.!]*$",
    re.IGNORECASE,
)
"""A later part counting something of a text it does not give ("and how many r's?", "how many vowels?",
"how many of them are s?")."""


def _with_earlier_text(part: str, earlier: Sequence[str]) -> str:
    """``part`` with the text an earlier part quoted, when it counts something of a text and gives none
    ("How many letters are in "strawberry" and how many r's?": "how many r's in "strawberry"?"; "... and how
    many of them are s?": "how many s's in ..."), else ``part``."""
    counted = _COUNT_OF_NO_TEXT_RE.match(part)
    if counted is None:
        return part
    quoted = next(
        (
            q
            for text in reversed(earlier)
            if _ACTS_ON_TEXT_RE.search(text) and (q := _QUOTED_TEXT_RE.search(text))
        ),
        None,
    )
    if quoted is None:
        return part
    what = counted.group("what")
    if len(what) == 1:  # "how many of them are s?": the letter s
        what = f"{what}'s"
    return f"how many {what} are in {quoted.group(0)}?"


_FAR_IS_IT_RE = re.compile(
    r"(?P<lead>\bhow\s+far\s+(?:away\s+)?is\s+)it(?=\s+(?:from|to)\s+[A-Z][^,;]*$)(?![^?]*\bfrom\b[^?]*\bto\b)",
    re.IGNORECASE,
)
"""A distance asked of "it" from one place ("how far is it from Paris?"; not "how far is it from Paris to
Lyon?", where "it" is the trip)."""


def next_own_part(
    question: str,
    tools: Sequence[Mapping[str, Any]],
    turn: Sequence[BaseMessage],
    readers: Mapping[str, Any] | None = None,
) -> str | None:
    """The part of a question asking several (:func:`question_parts`) that an agent's ``tools`` fit by their
    words and that no call of this turn asked yet, or None: "What's the time in Hobart, and how many days
    until 1 February 2027?" is two calls of the info agent, where one answered and the other half was
    dropped. A part is asked when a call's argument is that part, or when a result already states all its
    numbers; a part another agent's tools fit (matched here by its numbers alone) is left to it, unless one
    of ``tools`` surely reads it (``readers``: each tool's reader by name; "how many consonants are in
    'banana'?" shares no word with the text tool's description); a part none of them may read is not
    theirs."""
    parts = parts_asked(question)
    if len(parts) < 2 or not tools:
        return None
    parts = with_earlier_parts_values(parts, turn)
    router = PreRouter.from_tool_schemas(tools)
    unasked = unasked_parts(parts, turn)
    scored = []
    for index, part in enumerate(parts):
        if part not in unasked:
            continue
        if readers and not any(may_be_read(readers.get(tool_name(t)), part) for t in tools):
            continue  # "what time is it in Australia?" of the geo agent: its words fit, its tool reads none
        order = _part_order(router, part, index)
        if order is not None and order[0]:  # matched by words, not by its numbers alone
            scored.append((order, part))
        elif readers and any(reads_surely(readers.get(tool_name(t)), part) for t in tools):
            scored.append(((True, False, 0.0, -index), part))
    return max(scored)[1] if scored else None


def with_earlier_parts_values(parts: Sequence[str], turn: Sequence[BaseMessage]) -> list[str]:
    """``parts`` with a part working on the one before it ("What's 15% of 200, and what's 200 minus that?")
    given the value the call that asked that one worked out ("what's 200 minus 30?"); a part whose earlier
    part is not answered yet, or was answered with a fact ("What's the population of Canada and what's its
    capital?": the country's), stays as it is."""
    answered: dict[str, str] = {}
    for m in turn:
        if isinstance(m, ToolMessage) and m.status != "error":
            answered[m.tool_call_id] = message_text(m)
    asked = [
        (" ".join(str(v).split()), answered[call["id"]])
        for m in turn
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if call.get("id") in answered
        for v in (call.get("args") or {}).values()
        if isinstance(v, str)
    ]
    out = list(parts[:1])
    for part in parts[1:]:
        earlier = " ".join(out[-1].split())
        result = next((r for text, r in asked if earlier in text), None)
        # a worked-out value ("12 ** 2 = 144"); not a fact about a place ("its capital" is the country's)
        worked = result is not None and " = " in result
        value = result_value(result) if worked and _part_refers_back(part) else None
        out.append(resolve_reference(part, value) if value is not None else part)
    return out


_IMPERSONAL_IT_RE = re.compile(
    r"\b(?:what|which|how|when|where)\b[^?,.;]{0,40}?\b(?:is|was|will) it\b"
    r"|\bit(?:'s| is) (?:raining|snowing|sunny|cloudy|cold|hot|warm|late|early)\b",
    re.IGNORECASE,
)
"""An "it" that stands for no result ("what time is it in Oslo", "how far is it", "it's raining")."""


def _part_refers_back(part: str) -> bool:
    """Whether a later part of a question works on an earlier part's result ("what's 200 minus that?", "is it
    even?", "and its square root?"), not an "it" of its own (:data:`_IMPERSONAL_IT_RE`)."""
    return bool(REFERENCE_RE.search(_IMPERSONAL_IT_RE.sub(" ", part)) or _ITS_TAIL_RE.search(part))


def asked_texts(turn: Sequence[BaseMessage]) -> set[str]:
    """The text arguments of the tool calls of ``turn``, spaces normalized (what was asked of the tools)."""
    return {
        " ".join(str(v).split())
        for m in turn
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        for v in (call.get("args") or {}).values()
        if isinstance(v, str)
    }


def worked_on(results: Sequence[str]) -> set[str]:
    """The numbers results worked on: of a line ``expression = value`` its expression's ("6 * 7 = 42" worked
    on 6 and 7, so "is 42 even?" is still to ask), of any other line all of them."""
    found: set[str] = set()
    for line in "\n".join(results).splitlines():
        found.update(numbers_in(line.split(" = ", 1)[0]))
    return found


def unasked_parts(parts: Sequence[str], turn: Sequence[BaseMessage]) -> list[str]:
    """The ``parts`` of a question no call of ``turn`` asked yet: a part is asked when a call's argument is
    that part, when a result (or an agent's answer: the supervisor mode's agents keep their calls to
    themselves) already states all its numbers and a word of it, or works out its arithmetic ("3 * 3" of
    "- 3 * 3 = 9."), or when an agent's answer has every word of a part without numbers ("the capital of
    Japan" of "... The capital of Japan is Tokyo.")."""
    asked = asked_texts(turn)
    answers = [
        message_text(m)
        for m in turn
        if isinstance(m, AIMessage)
        and plugin_of_node(getattr(m, "name", None) or "")
        and message_text(m).strip()
    ]
    results = [*(value for _, value in tool_results(turn)), *answers]
    said, words = worked_on(results), _content_words(" ".join([*asked, *results]))
    answered = _content_words(" ".join(answers))
    worked = {
        re.sub(r"\s+", "", line.split(" = ", 1)[0])
        for line in "\n".join(results).splitlines()
        if " = " in line
    }
    return [
        part
        for part in parts
        if not any(" ".join(part.split()) in a for a in asked)
        and not ((numbers := set(numbers_in(part))) and numbers <= said and _content_words(part) & words)
        and not ((sum_ := _arithmetic_of(part)) and any(sum_ in w for w in worked))
        and not (not numbers_in(part) and (own := _content_words(part)) and own <= answered)
    ]


_ARITHMETIC_OF_RE = re.compile(r"-?\d[\d.]*(?:\s*[-+*/x×÷^]\s*-?\d[\d.]*)+")
"""The arithmetic a part writes ("3 * 3" of "what's 3 * 3?")."""


def _arithmetic_of(part: str) -> str | None:
    """The arithmetic ``part`` writes, without spaces ("3*3"), or None."""
    found = _ARITHMETIC_OF_RE.search(digits_written(part))
    return re.sub(r"\s+", "", found.group(0)) if found else None


def _content_words(text: str) -> set[str]:
    """The words of ``text`` that say what is asked (no stop words, no numbers), lower case."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS and len(w) > 2}


def turn_answers(messages: Sequence[BaseMessage]) -> list[str]:
    """The texts of the agents' answers after the latest question (their tool calls aside)."""
    _, _, after = split_at_last_human(messages)
    return [
        message_text(m)
        for m in after
        if isinstance(m, AIMessage) and not m.tool_calls and plugin_of_node(getattr(m, "name", None) or "")
    ]


def last_agent_answer(turn: Sequence[BaseMessage]) -> tuple[str, str] | None:
    """``(plugin, text)`` of the last agent answer with text among ``turn`` (None without one)."""
    for m in reversed(turn):
        node = plugin_of_node(getattr(m, "name", None) or "")
        if isinstance(m, AIMessage) and node is not None and node[1] == "agent" and message_text(m).strip():
            return node[0], message_text(m).strip()
    return None


def listed_under(system: str, header: str) -> list[str]:
    """The ``- item`` lines right after the line of ``system`` that opens with ``header`` ([] without it)."""
    lines = system.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(header)), None)
    if start is None:
        return []
    out = []
    for line in lines[start + 1 :]:
        if not line.startswith("- "):
            break
        out.append(line[2:].strip())
    return out


def told_facts(system: str) -> list[str]:
    """The facts about themselves the user stated earlier, as an agent's prompt lists them ("You live in
    Lisbon.", "Your favorite number is 7.")."""
    return listed_under(system, TOLD_FACTS_HEADER)


_OWN_VALUE_RE = re.compile(
    r"^Your (?P<what>[\w' -]{1,40}?) (?:is|are|was|were) (?P<value>.+?)[.!]?$", re.IGNORECASE
)
_OWN_PLACE_RE = re.compile(
    r"^You(?:'re| are| live| work| stay| reside| come| were born)?"
    r"(?: (?:now|currently|still|actually|just|recently))?(?: (?:living|staying|based|located))?"
    r" (?:in|from|at|(?:have |'ve )?(?:moved|relocated) to)"
    r" (?P<place>[A-Z][\w'.-]*(?:(?:,? | )[A-Z][\w'.-]*)*)"
)
_WHERE_I_RE = re.compile(
    r"\b(?:where I (?:live|am living|stay|reside|am from|come from|work|am based|am)|where I'm(?: from)?"
    r"|my (?:place|home|location|area|home ?town|city|town|country)|(?:at|back) home|here(?=\s*[?.!]*$)"
    r"|(?<=between )here(?= and\b))\b",
    re.IGNORECASE,
)


_OWN_RATE_RE = re.compile(
    r"^You (?P<said>(?:make|earn|get paid|are paid|get|save|put away|spend|pay) [$€£]?\d[\d,.]*"
    r"(?: (?:dollars|euros|pounds))? (?:an?|per|each|every) (?:hour|day|week|fortnight|month|year)"
    r"|work \d[\d.]* hours? (?:an?|per|each|every) (?:day|week|fortnight|month) (?:at|for) [$€£]?\d[\d,.]*"
    r"(?: (?:dollars|euros|pounds))? (?:an?|per) hour)\b",
    re.IGNORECASE,
)
"""A told amount per unit of time ("You make $28 an hour.", "You save 150 a month.", "You work 38 hours a
week at $22 an hour.")."""
_ASKS_OWN_RATE_RE = re.compile(
    r"\b(?:do|would|will|did|can|could|should) I (?:earn|make|get paid|get|save|put away|spend|pay)\b"
    r"|\bmy (?:pay|salary|wage|wages|earnings|income|savings|spending)\b",
    re.IGNORECASE,
)
"""A question about what the user earns, saves or spends ("How much do I earn in a 40-hour week?")."""
_PERIODIC_RE = re.compile(
    r"^Your (?P<period>monthly|weekly|yearly|annual|daily|hourly) (?P<what>[\w' -]{1,30}?) (?:is|are|was) "
    r"(?P<value>[$€£]?\d[\d,]*(?:\.\d+)?(?: ?(?:dollars|euros|pounds|[A-Z]{3}))?)[.!]?$",
    re.IGNORECASE,
)
_AMOUNT_GIVEN_RE = re.compile(r"[$€£]\s?\d|\d[\d,.]*\s*(?:dollars|euros|pounds|bucks)\b", re.IGNORECASE)
_PER = {
    "monthly": "month",
    "weekly": "week",
    "yearly": "year",
    "annual": "year",
    "daily": "day",
    "hourly": "hour",
}


_PAY_RE = re.compile(r"(?:pay|rate|pay rate|wage|wages|salary|income|earnings)", re.IGNORECASE)
"""What a told amount per period is when it is what the user makes ("Your hourly rate is $45.")."""


_PER_PERIOD_RE = re.compile(
    r"^Your (?P<what>[\w' -]{1,30}?) (?:is|are|was) (?P<value>[$€£]?\d[\d,]*(?:\.\d+)?"
    r"(?: ?(?:dollars|euros|pounds|[A-Z]{3}))?) (?:an?|per|each|every) (?P<per>hour|day|week|month|year)"
    r"[.!]?$",
    re.IGNORECASE,
)
"""A told amount per period said after it ("Your salary is $4,000 a month.")."""


def _periodic_amount(fact: str, question: str) -> str | None:
    """A told amount per period the question asks about, as the user would say it ("My rent is 1,250 euros a
    month." of "Your monthly rent is 1,250 euros." or "Your salary is $4,000 a month." for "how much rent do
    I pay in a year?", "how much do I earn in a year?"), else None."""
    match = _PERIODIC_RE.match(fact)
    after = _PER_PERIOD_RE.match(fact) if match is None else None
    if after is not None:
        match = after
    if match is None or not re.search(r"\b(?:I|my|me)\b", question, re.IGNORECASE):
        return None
    what = match.group("what")
    pay = _PAY_RE.fullmatch(what) is not None and _ASKS_OWN_RATE_RE.search(question) is not None
    if not pay and not re.search(rf"\b{re.escape(what.split()[-1])}\b", question, re.IGNORECASE):
        return None  # "how much do I make in 8 hours?" asks about an hourly rate or pay, not rent
    per = match.group("per").lower() if after is not None else _PER[match.group("period").lower()]
    return f"My {what} is {match.group('value')} {'an' if per == 'hour' else 'a'} {per}."


_CLOCK_WORD_RE = re.compile(
    r"\b(?:time|times|clock|hours?|date|day|morning|evening|night|ahead|behind)\b", re.I
)
_ME_AS_PLACE_RE = re.compile(
    r"\b[Ff]or me\b|(?<=\bbetween )me\b|\bme(?= and [A-Z])|(?<=\bahead of )me\b|(?<=\bbehind )me\b"
)
"""The user as a place in a question about the clock ("what time is it for me?", "between me and Tokyo",
"how far ahead of me is London?"); "for me" only when the question names no place ("the time in Oslo for
me" is Oslo's)."""
_NAMES_A_PLACE_RE = re.compile(r"\b(?:in|at) [A-Z]")
_AM_I_RE = re.compile(r"\s+am I(?=\s*[?.!]*$)", re.IGNORECASE)
_PREPOSITION_END_RE = re.compile(r"\b(?:of|in|at|from|to|and|for|between|is)\s+$", re.IGNORECASE)


_FOUND_VALUE_RE = re.compile(
    r"(?:^|(?<=[.!?] ))The (?P<what>[a-z][\w' -]*? of (?:the )?[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*) is "
    r"(?:(?:about |around |roughly )?(?P<shown>[^()]*?\d[^()]*?)(?: \((?P<exact>\d[\d,]*(?:\.\d+)?)\))?"
    r"|(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,3}))(?:[,.](?=\s|$)|$)",
)
"""A fact a result states with its value ("The population of Canada is about 37.1 million (37,058,856), by
...": the population of Canada is 37058856; "The capital of France is Paris.": Paris)."""


def resolve_found(question: str, results: Sequence[str]) -> str:
    """``question`` with a fact a result of this turn states written as its value ("What's 10% of the
    population of Canada?" after "The population of Canada is about 37.1 million (37,058,856)" asks "What's
    10% of 37058856?"; "How many letters are in the capital of France?" after "The capital of France is
    Paris." asks "How many letters are in Paris?"), exact figures first; unchanged when no result states a
    fact it names."""
    resolved = question
    for result in successful_results(results):
        for fact in _FOUND_VALUE_RE.finditer(result):
            shown = fact.group("shown") or ""
            exact = fact.group("exact") or (numbers_in(shown) or [""])[0] if shown else fact.group("name")
            if not exact:
                continue
            named = re.compile(rf"\b(?:the )?{re.escape(fact.group('what'))}\b", re.IGNORECASE)
            resolved = named.sub(exact.replace(",", ""), resolved, count=1)
    return resolved


_HOW_MUCH_RE = re.compile(
    r"^\W*(?:(?:if|when|after)\s+[^,?.!]{1,80},\s*)?how (?:much|many|far|long)\b", re.IGNORECASE
)
"""A question of how much or how many, maybe after its condition ("If I get 2 more cats, how many ...")."""


_UNITS_IN_RE = re.compile(
    r"^\W*how\s+many\s+[a-z]+\s+(?:are\s+)?(?:there\s+)?(?:in|per)\s+(?:a|an|one|\d[\d.,]*)\s+[a-z]+\W*$",
    re.IGNORECASE,
)
"""A conversion asked on its own ("How many minutes are there in 2.5 hours?"): it leans on nothing told."""


def _told_context(question: str, facts: Sequence[str]) -> str | None:
    """The one told fact holding a number that shares a content word with a question asking how much or
    how many with at most one number of its own and no name, said as the user said it ("My car uses 7
    liters per 100 km." for "How much fuel for 350 km?"); None otherwise."""
    if not _HOW_MUCH_RE.match(question) or len(numbers_in(question)) > 1 or _UNITS_IN_RE.match(question):
        return None
    if re.search(r"(?<!^)(?<![.?!] )\b[A-Z][a-z]", question.strip()):
        return None  # "how much is the bill in Paris?" is about Paris, not the user's weekly bill
    asked = {w for w in re.findall(r"[a-z]+", question.lower()) if w not in STOPWORDS and len(w) > 1}
    sharing = [
        f
        for f in facts
        if numbers_in(f) and asked & {w for w in re.findall(r"[a-z]+", f.lower()) if w not in STOPWORDS}
    ]
    if len(sharing) != 1 or not re.match(r"^Your?\b", sharing[0]):
        return None
    return _first_person(sharing[0])


def _first_person(fact: str) -> str:
    """A told fact as the user said it ("Your car uses ..." → "My car uses ...", "You're" → "I'm")."""
    said = re.sub(r"^Your\b", "My", re.sub(r"^You(?:'re| are)\b", "I'm", fact))
    return re.sub(r"^You\b", "I", said)


_WHAT_IS_LEFT_RE = re.compile(r"\bhow\s+much\b[^?]*\b(?:left|remains?|remaining|over)\b", re.IGNORECASE)
"""A question for what is left of an amount ("how much is left", "how much will I have left over")."""
_OWN_FUNDS_RE = re.compile(
    r"^(?:(?:Your|My|Our) (?:total )?(?:budget|balance|savings|allowance) (?:is|was)"
    r"|(?:You|I|We) (?:have|had|saved|set aside)) "
    r"[$€£]?\d[\d,.]*(?: (?:dollars|euros|pounds))?[.!]?$",
    re.IGNORECASE,
)
"""Money the user told they have ("Your budget is $2,000.", "You have $500.", as told: "I have $500.")."""


def _told_funds(question: str, facts: Sequence[str]) -> str | None:
    """The one told amount of money the user has, said as the user said it, for a question asking what is
    left of it that gives no amount to start from ("If the hotel is $150 a night for 5 nights, how much is
    left?" after "My budget is $2,000."); None otherwise."""
    if not _WHAT_IS_LEFT_RE.search(question):
        return None
    funds = [f for f in facts if _OWN_FUNDS_RE.match(f)]
    return _first_person(funds[0]) if len(funds) == 1 else None


_TOLD_AGE_RE = re.compile(r"^You(?:'re| are) (?P<n>\d{1,3})(?: years?(?: old)?)?[.!]?$", re.IGNORECASE)
"""A told age ("You're 30 years old.")."""
_AGE_LATER_RE = re.compile(r"\bhow old will I be\b", re.IGNORECASE)
"""A question for the user's own age in a later year."""
_BORN_ON_RE = re.compile(
    r"^(?:You were born (?P<on>on|in)|Your (?:birthday|date of birth|birth ?date) (?:is|was)(?: on)?)"
    r" (?P<day>[^.!]*\d[^.!]*?)[.!]?$",
    re.IGNORECASE,
)
"""A told birthday or year of birth ("You were born on 12 May 1990.", "You were born in 1990.", "Your
birthday is June 3, 1990.": with its year, "Your birthday is June 3." says no age)."""
_OWN_AGE_RE = re.compile(r"\bhow old am I\b|\b(?:what(?:'s| is)|tell me) my age\b|\bmy age\b", re.IGNORECASE)
"""A question for the user's own age ("How old am I?")."""


def resolve_told(question: str, facts: Sequence[str]) -> str:
    """``question`` with what it says of the user that the user stated earlier written out: "my favorite
    number" becomes 7 ("Your favorite number is 7."), "where I live" becomes "in Lisbon" ("You live in
    Lisbon."). A tool reads a value or a place, not a reference to one it cannot know."""
    resolved = question
    born = [
        f"{(m.group('on') or 'on').lower()} {m.group('day')}"
        for fact in facts
        if (m := _BORN_ON_RE.match(fact)) and (m.group("on") or re.search(r"\b\d{4}\b", m.group("day")))
    ]
    if len(born) == 1 and _OWN_AGE_RE.search(question):
        # "How old am I?" after "I was born on 12 May 1990.": the age of someone born that day
        return f"How old is someone born {born[0]}?"
    for fact in facts:
        own = _OWN_VALUE_RE.match(fact)
        if own is not None:
            mine = re.compile(rf"\bmy {re.escape(own.group('what'))}\b", re.IGNORECASE)
            resolved = mine.sub(lambda _m, v=own.group("value"): v, resolved, count=1)
    ages = [m.group("n") for fact in facts if (m := _TOLD_AGE_RE.match(fact))]
    if len(ages) == 1 and _AGE_LATER_RE.search(question):
        # "How old will I be in 2040?" after "I'm 30 years old.": the age said first, the age asked for
        resolved = f"I'm {ages[0]} years old. {_AGE_LATER_RE.sub('What age will I be', resolved, count=1)}"
    elif len(ages) == 1 and BIRTH_YEAR_ASKED_RE.search(question):
        # "In what year was I born?" after "I'm 34 years old.": the age said first
        resolved = f"I'm {ages[0]} years old. {resolved}"
    rates = [m.group("said") for fact in facts if (m := _OWN_RATE_RE.match(fact))]
    if len(rates) == 1 and _ASKS_OWN_RATE_RE.search(question) and not re.search(r"[$€£]\s?\d", question):
        # "How much do I earn in a 40-hour week?" after "I make $28 an hour.": the rate is said first,
        # as the user would have said it in one message
        resolved = f"I {rates[0]}. {resolved}"
    periodic = [said for fact in facts if (said := _periodic_amount(fact, question))]
    if len(periodic) == 1 and not rates and not _AMOUNT_GIVEN_RE.search(resolved):
        # "how much rent do I pay in a year?" after "My monthly rent is 1,250 euros." (the told sentence
        # first, after any value of the question's own was written out)
        resolved = f"{periodic[0]} {resolved}"
    if _AM_I_RE.search(resolved) and _COMPARES_RE.search(resolved):
        # "How many hours ahead of London am I?": the user's place is compared
        resolved = _AM_I_RE.sub(" is where I am", resolved, count=1)
    said = _WHERE_I_RE.search(resolved)
    if said is None and _CLOCK_WORD_RE.search(resolved):
        # "what time is it for me?", "the time difference between me and Tokyo": the user's place
        said = _ME_AS_PLACE_RE.search(resolved)
        if said is not None and said.group(0).lower() == "for me" and _NAMES_A_PLACE_RE.search(resolved):
            said = None
    if said is not None:
        places = [(fact, m.group("place")) for fact in facts if (m := _OWN_PLACE_RE.match(fact))]
        # the same verb first ("where I work" is "You work in ..."), else any place the user gave
        words = set(re.findall(r"[a-z]+", said.group(0).lower())) - {
            "where",
            "i",
            "am",
            "my",
            "m",
            "me",
            "for",
        }
        if not words and "my" not in said.group(0).lower():  # "where I am": where the user is
            words = {"are"}
        if words == {"here"}:  # "here": where the user is ("You're based in …"), else any place told
            words = {"are"}

        def fits(fact: str) -> bool:
            told = set(re.findall(r"[a-z]+", fact.lower().replace("'re", " are")))
            return bool(words & told) and ("from" in words or "from" not in told)

        same = [place for fact, place in places if fits(fact)]
        place = (same or [place for _, place in places] or [None])[0]
        if place is not None:
            before = resolved[: said.start()]
            # after a preposition ("ahead of where I live", "in my city") the place alone
            lead = "" if _PREPOSITION_END_RE.search(before) or said.group(0).lower() == "me" else "in "
            resolved = f"{before}{lead}{place.rstrip('.')}{resolved[said.end() :]}"
    context = (
        (_told_context(question, facts) or _told_funds(question, facts)) if resolved == question else None
    )
    if context is not None:
        # "How much fuel for 350 km?" after "My car uses 7 liters per 100 km.": the told fact said first
        return f"{context} {question}"
    return resolved


def _system_text(messages: Sequence[BaseMessage]) -> str:
    return "\n\n".join(message_text(m) for m in messages if isinstance(m, SystemMessage)).strip()


def _describe_tool(schema: Mapping[str, Any]) -> str:
    function = tool_function(schema)
    props = (function.get("parameters") or {}).get("properties") or {}
    params = ", ".join(f"{k}: {v.get('type', 'string')}" for k, v in props.items())
    desc = str(function.get("description") or "").strip().split("\n")[0]
    return f"- {function.get('name')}({params}): {desc}"


@dataclass
class Plan:
    """What one call generates: its prompt, grammar and how to parse the output."""

    mode: Mode
    """How the output is parsed."""
    messages: list[dict[str, str]]
    """The chat messages (role/content) given to the model."""
    grammar: str | None
    """The GBNF grammar constraining the output, if any."""
    options: list[Mapping[str, Any]]
    """The tool schemas a call may name (``call``/``auto``)."""
    route_names: list[str]
    """The routing tool names a route may name (``route``)."""
    max_tokens: int
    """Tokens the call may produce."""
    fixed: str | None = None
    """The output, when the policy already decided it (one allowed route, a call with no free choice,
    results handed back verbatim): no generation is run."""
    repeat_penalty: float = 1.0
    """llama.cpp's repeat penalty (1.0 = none: a penalty makes the model alter numbers it should copy)."""
    note: str = ""
    """Text added after a generated answer (:data:`OWN_ANSWER_NOTE`), never to a decided one."""


def distinct_arguments_plan(plan: Plan, message: AIMessage) -> Plan | None:
    """A second call when ``message`` filled two arguments of its tool from one place of the message.

    The first copy stays; the repeated argument is generated again from the rest of the
    user's message (:func:`~cadence.models.local.grammar.distinct_argument_grammar`). None
    when the call is fine, was decided without the model, or the message offers nothing else.
    """
    if plan.mode not in ("call", "auto") or plan.fixed is not None or len(message.tool_calls) != 1:
        return None
    if not plan.messages:
        return None
    call = message.tool_calls[0]
    schema = next((t for t in plan.options if tool_name(t) == call["name"]), None)
    if schema is None:
        return None
    source = plan.messages[-1]["content"]
    key = repeated_argument(call["args"], tool_function(schema).get("parameters") or {}, source)
    if key is None:
        return None
    grammar = distinct_argument_grammar(schema, call["args"], key, source)
    if grammar is None:
        return None
    return Plan("call", plan.messages, grammar, [schema], [], plan.max_tokens)


_ASKS_RE = re.compile(
    r"(?:what|how|which|who|whom|whose|when|where|why|is|are|was|were|can|could|would|will|do|does|did|"
    r"tell|show|give|please|calculate|compute|find|in|at|for|thanks?|thank you|ok|okay|yes|no)\b",
    re.IGNORECASE,
)
"""A follow-up starting like this asks something of its own (it does not only say what to do next)."""
_VALUE_RE = re.compile(r"(?:^|=|\bis)\s*(-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)\s*%?\.?\s*$", re.IGNORECASE)
"""A result that *is* a value: a bare number, ``expr = number`` or ``... is number``."""


def previous_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages of the turn before the latest user message (its question excluded)."""
    before, question, _ = split_at_last_human(messages)
    if question is None:
        return []
    _, _, earlier = split_at_last_human(before)
    return earlier


_PLACE_PARAMETER_RE = re.compile(r"(?:^|_)(?:location|place|city|country|zone|timezone|where)(?:_|$)")
"""Argument names that hold a place (``location``, ``from_location``, ``city``)."""


def previous_question(messages: Sequence[BaseMessage]) -> str | None:
    """The user's message of the previous turn, or None."""
    asked = earlier_questions(messages, limit=1)
    return asked[0] if asked else None


def asked_again(question: str, messages: Sequence[BaseMessage]) -> str:
    """The previous question when ``question`` only asks for what was said again (:func:`asks_previous_again`:
    "Explain that in a formal tone", "Say it again briefly", "How did you get that?": the tone it asks for is
    the turn's, the question the one before), else ``question``."""
    if not asks_previous_again(question):
        return question
    return previous_question(messages) or question


MAX_FOLLOW_UP_CHAIN = 5
"""Earlier questions read to resolve a chain of follow-ups ("What's 25% of 80?", "What about 30%?", "And
of 120?")."""


def earlier_questions(
    messages: Sequence[BaseMessage], limit: int = MAX_FOLLOW_UP_CHAIN, *, literal: bool = False
) -> list[str]:
    """The user's messages before the latest one, newest first, at most ``limit``, as the questions they
    asked: a yes to a suggestion is the question it accepted (:func:`accepted_suggestion`), and an
    acknowledgement ("OK"), thanks or a request to say the previous answer again ("Make it formal") asks
    nothing new, so it is passed over for the question before it. With ``literal``, every message as
    written."""
    before, question, _ = split_at_last_human(messages)
    asked: list[str] = []
    while question is not None and len(asked) < limit:
        before, earlier, _ = split_at_last_human(before)
        if earlier is None:
            break
        text = message_text(earlier)
        if not literal:
            text = accepted_suggestion(text, before) or text
            if asks_previous_again(text) or _passes_a_turn(text):
                continue
        asked.append(text)
    return asked


def _passes_a_turn(text: str) -> bool:
    """Whether ``text`` is only an acknowledgement or thanks ("OK", "Got it, thanks", "Thanks!"): small talk
    that passes a turn by, asking nothing (the small-talk patterns of :mod:`cadence.models.preroute`)."""
    return any(
        each_sentence(text, first, ACKNOWLEDGE_RE, THANKS_RE, PRAISE_RE, PLEASANTRY_RE)
        for first in (ACKNOWLEDGE_RE, THANKS_RE)
    )


def previous_asked(messages: Sequence[BaseMessage]) -> str | None:
    """The previous question as it was asked in full: a follow-up giving another number, amount or
    preposition's object is the question before it with that ("What about 30%?" after "What's 25% of 80?"
    asked "What's 30% of 80?"), over up to :data:`MAX_FOLLOW_UP_CHAIN` earlier questions; None when there
    is no previous question."""
    asked = earlier_questions(messages)
    if not asked:
        return None
    resolved = asked[-1]
    for text in reversed(asked[:-1]):
        # a correction ("No, I meant 15%") is its follow-up ("what about 15%?") of the question before it
        again = with_another_number(as_follow_up(text), resolved)
        if again is None and in_unit_asked(text, resolved) != text:
            again = in_unit_asked(text, resolved)  # "In miles?" after "How many km is a marathon?"
        named = _IN_PLACE_RE.findall(resolved)
        if again is None and named and _THERE_RE.search(text):
            again = resolve_place(text, named[-1])  # "And the date there?" after the time in Paris
        resolved = again or text
    called = previous_call_text(messages)
    if (
        called
        and REFERENCE_RE.search(resolved)
        and not REFERENCE_RE.search(called)
        and set(numbers_in(called)) - set(numbers_in(resolved))
    ):
        # "Convert that back to Celsius." was asked of the value before it: as its tool read it, with that
        # value ("Convert 77 °F back to Celsius."), so "And to Kelvin?" converts that value
        return called
    return resolved


def previous_place(messages: Sequence[BaseMessage], *, latest: bool = False) -> str | None:
    """The place the previous turn's last tool call was about (:func:`call_places`), else the place
    the latest earlier question naming one named after "in" ("What time is it in Berlin?": the supervisor's
    agents do not see their earlier calls), or None. With ``latest``, only the previous question counts
    (what "its" refers to is the previous turn's subject, not an older one's), or the one before it when the
    previous question referred back to it ("What's its population?")."""
    for m in reversed(previous_turn(messages)):
        if isinstance(m, AIMessage):
            for call in reversed(m.tool_calls):
                places = call_places(call)
                if places:
                    return places[-1]
    # "Is it the weekend there?" after "And the date there?"
    for asked in earlier_questions(messages, limit=MAX_FOLLOW_UP_CHAIN):
        named = _IN_PLACE_RE.findall(asked)
        if named:
            return named[-1]
        if latest and not (_POSSESSIVE_RE.search(asked) or _THEY_RE.search(asked)):
            break  # with ``latest``, an older question counts only through one referring back to it
    return None


_PLACE_ANSWER_RE = re.compile(
    r"^The (?:(?:[a-z]+est|most populous|least populous) )?"
    r"(?:capital(?: city)?|city|town|country|nation|state|province|region|place) (?:of|in|on) [^.]*? is "
    r"(?P<place>[A-Z][\w.'-]*(?:,? [A-Z][\w.'-]*)*)"
    r"|^(?P<subject>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*) is a (?:city|town|country) in\b"
)
"""A result whose answer is a place ("The capital of Italy is Rome.", "The largest country in Africa is
Algeria (…)"), or that is about one ("Paris is a city in France (Europe). The population of Paris is …")."""


def answered_place(messages: Sequence[BaseMessage]) -> str | None:
    """The place the previous turn's last result gave as its answer (:data:`_PLACE_ANSWER_RE`), or its answer
    where the turn holds no result (the supervisor's agents see earlier answers, not earlier calls): what
    "there" refers to after "What's the capital of Italy?" (Rome, not Italy); None when it is no place."""
    turn = previous_turn(messages)
    said = [m for m in turn if isinstance(m, ToolMessage)] or [
        m for m in turn if isinstance(m, AIMessage) and not m.tool_calls
    ]
    if not said:
        return None
    match = _PLACE_ANSWER_RE.match(str(said[-1].content).strip())
    return (match.group("place") or match.group("subject")).rstrip(".") if match else None


def there_place(question: str, messages: Sequence[BaseMessage]) -> str | None:
    """The place "there" refers to: the one the question names before it, else the place the previous turn
    answered with (:func:`answered_place`), else the place it was about (:func:`previous_place`), else the
    place the previous question named when no tool answered it ("What's the weather in London?", then "What
    time is it there?")."""
    found = place_before_there(question) or answered_place(messages) or previous_place(messages)
    if found is not None:
        return found
    earlier = earlier_questions(messages, 1)
    named = _IN_PLACE_RE.search(earlier[0]) if earlier else None
    return named.group(1) if named is not None else None


_NAME_WORD = r"(?:(?:[A-Z]\.){2,}|[A-Z](?:[\w-]{0,1}\.(?!\w)|[\w-]*(?:\.\w[\w-]*)*))"
"""A capitalised word of a name: a short abbreviation keeps its period ("St.", "Mt."), a longer word not
the period ending a sentence ("Tell me about Japan." names Japan). A name is at most six such words (the
patterns below are bounded so, and read a long message in linear time)."""
_IN_PLACE_RE = re.compile(rf"\b(?:in|at|for|to|of|about) ({_NAME_WORD}(?:,? {_NAME_WORD}){{0,5}})(?![\w'])")
"""A place a question names: capitalised words after "in", "at", "for", "to", "of" or "about" ("in New
York", "in Paris, Texas", "a trip to Tokyo", "the capital of Peru"; not someone's: "to Bob's party")."""

_POSSESSIVE_RE = re.compile(r"\b(?:its|their)\b(?=\s+[a-z])", re.IGNORECASE)
"""A possessive referring back ("And its population?", "What is their currency?")."""
_THEY_RE = re.compile(
    r"\bthey\b(?=\s+(?:use|speak|pay|spend|have|call|drive|eat|celebrate|live)\b)(?!.*\b(?:in|at)\s+[A-Z])",
    re.IGNORECASE,
)
"""The people of the place talked about ("What currency do they use?", "What language do they speak?")."""
_WHICH_ONE_RE = re.compile(
    r"^(?P<lead>\W*(?:and\s+)?(?:which|what)(?:\s+one|\s+of\s+(?:them|the\s+two|those|these|both))?\s+"
    r"(?:is|has)\s+(?:the\s+)?(?:more\s+|fewer\s+|less\s+)?[a-z]+(?:\s+people)?)\s*(?P<end>[?.!]*)\s*$",
    re.IGNORECASE,
)
"""Which of the two places talked about ("Which one is bigger?", "Which of them has more people?")."""
_PEOPLE_ASKED_RE = re.compile(r"\b(?:populations?|populous|people|inhabitants)\b", re.IGNORECASE)
_BIGGER_RE = re.compile(r"\b(?:bigger|larger|greater|smaller)\b", re.IGNORECASE)
_BY_PEOPLE = {"bigger": "more populous", "larger": "more populous", "greater": "more populous",
              "smaller": "less populous"}  # fmt: skip
"""How "bigger" reads after populations were asked ("Which is bigger?" after two populations)."""
_FAR_IT_RE = re.compile(r"\b(?P<far>how far|how many (?:km|kilomet(?:er|re)s|miles)) is it\b", re.IGNORECASE)
"""A distance from the place talked about ("How far is it from Lisbon?" after the time in Madrid)."""


_ELIDED_PLACE_RE = re.compile(
    r"^(?P<ask>\W*(?i:and|what about|how about|and what about|what of)\s+(?i:the)\s+)"
    r"(?!.*\b(?:after|before|next|previous|last|first|same|other|rest|one|ones|result|answer|total)\b)"
    r"(?P<what>[a-z]+(?: [a-z]+){0,2})\s*(?P<end>[?.!]*)\s*$"
)
"""A follow-up naming only a thing of a place, which it leaves out ("And the population?", "What about the
currency?"; not "And the day after?" or "And the other one?")."""
_IN_WORDS_RE = re.compile(r"\b(?:time|date|day|hour|weather|weekend|timezone|time zone)s?$", re.IGNORECASE)
"""Things said to be *in* a place rather than *of* it ("And the time?": in Rome)."""


_BETWEEN_THEM_RE = re.compile(
    r"\b(?P<prep>between|of|from)\s+(?:them|the two|these two|those two|both)\b", re.I
)
"""Two places talked about, referred to together ("What's the time difference between them?")."""
_ARE_THEY_RE = re.compile(
    r"\b(?P<verb>are|were)\s+(?:they|the two(?: of them)?|both(?: of them)?|these two|those two)\b"
    r"(?=.*\b(?:apart|time|hours?|ahead|behind|zones?|differ\w*)\b)",
    re.IGNORECASE,
)
"""Two places talked about, as the subject of a question of their time ("How far apart are they in time?",
"Are they in the same time zone?")."""
_BARE_DIFFERENCE_RE = re.compile(
    r"^\W*(?:and\s+)?(?:what(?:'s|\s+is)|how\s+big\s+is|tell\s+me)\s+the\s+time\s+(?:difference|gap)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A time difference asked of no place ("What's the time difference?"): the two places talked about."""


_OWNING_PLACE_RE = re.compile(rf"(?<=\w )({_NAME_WORD}(?: {_NAME_WORD}){{0,5}})['’]s\b")
"""A place named as an owner inside a question ("What's Canada's population?")."""
_FAR_SUBJECT_RE = re.compile(
    r"\b(?i:how far (?:away )?is) ([A-Z][\w.-]*(?:,? [A-Z][\w.-]*){0,4}) (?i:from)\b"
)
"""The place a distance is asked of ("How far is Tokyo from London?": Tokyo, the subject)."""


def call_places(call: Mapping[str, Any]) -> list[str]:
    """The places a tool call is about: the place its ``question`` argument names ("how many people live in
    Spain?", "there" already read), then its place arguments in order, each the place it names when it is a
    whole question ("What time is it in Berlin?") — the last is the call's own place."""
    args = call.get("args") or {}
    asked = args.get("question")
    named = (
        (_IN_PLACE_RE.findall(asked) or _OWNING_PLACE_RE.findall(asked) or _FAR_SUBJECT_RE.findall(asked))[
            -1:
        ]
        if isinstance(asked, str)
        else []
    )
    for key, value in args.items():
        if isinstance(value, str) and value and _PLACE_PARAMETER_RE.search(key):
            within = _IN_PLACE_RE.findall(value)
            named.append(within[-1] if within else value)
    return named


_PLACE_ALONE_RE = re.compile(
    rf"^\W*(?i:and|what about|how about|and what about)\s+"
    rf"({_NAME_WORD}(?:,? {_NAME_WORD}){{0,5}})\s*[?.!]*\s*$"
)
"""A follow-up naming only a place ("And France?", "What about New York?")."""


def places_talked_about(messages: Sequence[BaseMessage], limit: int = 2) -> list[str]:
    """The last ``limit`` different places the conversation before the latest question was about, newest
    first: the place arguments of tool calls (or the place their ``question`` argument names), else the
    places the user's questions name."""
    before, _, _ = split_at_last_human(messages)
    found: list[str] = []
    for m in reversed(before):
        named: list[str] = []
        if isinstance(m, AIMessage):
            for call in reversed(m.tool_calls):
                named.extend(call_places(call))
        elif isinstance(m, HumanMessage):
            text = message_text(m)
            alone = _PLACE_ALONE_RE.match(text)
            named.extend([alone.group(1)] if alone else _IN_PLACE_RE.findall(text)[-1:])
        for place in named:
            if place and place.lower() not in (f.lower() for f in found):
                found.append(place)
            if len(found) >= limit:
                return found
    return found


def with_possessive_place(question: str, messages: Sequence[BaseMessage]) -> str:
    """``question`` with "its"/"their" written as the place the previous question was about ("And its
    population?" after "What is the capital of Peru?" asks "And Peru's population?"), the place a
    follow-up naming only a thing leaves out ("And the population?" after the time in Rome asks "And
    the population of Rome?"), and "it" of a distance as that place ("How far is it from Lisbon?" after
    the time in Madrid), and "them" as the two places talked about last ("the time difference between them"
    after the time in Tokyo, then in Sydney); unchanged when the previous turn named no place ("What's its
    square root?" after "What's 12 squared?")."""
    which = _WHICH_ONE_RE.match(question)
    if which is not None:  # "Which one is bigger?" after the populations of Canada and Mexico
        two = places_talked_about(messages)
        if len(two) == 2:
            lead = which.group("lead")
            if any(_PEOPLE_ASKED_RE.search(asked) for asked in earlier_questions(messages, 2)):
                # "Which is bigger?" after their populations: bigger by the figure talked about
                lead = _BIGGER_RE.sub(lambda m: _BY_PEOPLE[m.group(0).lower()], lead)
            return f"{lead}, {two[1]} or {two[0]}{which.group('end') or '?'}"
    both = _BETWEEN_THEM_RE.search(question)
    if both is not None:  # "the time difference between them" after the time in Tokyo, then in Sydney
        two = places_talked_about(messages)
        if len(two) == 2:
            joined = f"{both.group('prep')} {two[1]} and {two[0]}"
            return question[: both.start()] + joined + question[both.end() :]
    pair = _ARE_THEY_RE.search(question)
    bare = _BARE_DIFFERENCE_RE.match(question)
    if pair is not None or bare is not None:  # "How far apart are they in time?" after Rome, then Cairo
        two = places_talked_about(messages)
        if len(two) == 2 and pair is not None:
            joined = f"{pair.group('verb')} {two[1]} and {two[0]}"
            return question[: pair.start()] + joined + question[pair.end() :]
        if len(two) == 2:
            return f"{question.rstrip(' ?.!')} between {two[1]} and {two[0]}?"
    they = _THEY_RE.search(question)
    if they is not None:  # "What currency do they use?" after the capital of Egypt
        place = previous_place(messages, latest=True)
        if place:
            return question[: they.start()] + f"people in {place}" + question[they.end() :]
    possessive, far = _POSSESSIVE_RE.search(question), _FAR_IT_RE.search(question)
    tail = _ITS_TAIL_RE.search(question)
    if possessive and tail and _OF_A_NUMBER_RE.search(tail.group("what")):
        possessive = None  # "What's its square root?" after the population of Japan: the number's
    named = _IN_PLACE_RE.findall(question[: far.start()]) if far else []
    if named:  # "What's the capital of Germany, and how far is it from Paris?": Germany, not the last turn's
        return _FAR_IT_RE.sub(lambda m: f"{m.group('far')} is {named[-1]}", question, count=1)
    elided = None if possessive or far or _THERE_RE.search(question) else _ELIDED_PLACE_RE.match(question)
    place = previous_place(messages, latest=True) if possessive or far or elided else None
    if not place:
        return question
    if far:  # "How far is it from Stockholm?" after "The capital of Norway is Oslo.": Oslo
        place = answered_place(messages) or place
        return _FAR_IT_RE.sub(lambda m: f"{m.group('far')} is {place}", question, count=1)
    if elided:
        what = elided.group("what")
        preposition = "in" if _IN_WORDS_RE.search(what) else "of"
        return f"{elided.group('ask')}{what} {preposition} {place}{elided.group('end') or '?'}"
    return _POSSESSIVE_RE.sub(f"{place}'s", question, count=1)


_THERE_RE = re.compile(
    r"\bthere\b(?=(?:\s+(?:right now|now|currently|today|at the moment|then))?\s*[?.!]*$)", re.IGNORECASE
)
_IS_IT_RE = re.compile(r"\b(?P<verb>is|are) (?:it|that)(?=\s*[?.!]*$)", re.IGNORECASE)
_COMPARES_RE = re.compile(r"\b(?:ahead|behind|earlier|later|difference|apart|than)\b", re.IGNORECASE)


def place_before_there(question: str) -> str | None:
    """The place a message names before its closing "there" ("What's the capital of Canada and what time is
    it there?": Canada), which "there" refers to before any earlier turn's place; None when it names none."""
    there = _THERE_RE.search(question)
    named = _IN_PLACE_RE.findall(question[: there.start()]) if there else []
    if there and not named and not re.search(r"(?<!^)\b[A-Z]", question.strip()):
        # written all in lower case ("whats the capital of japan and what time is it there?"): a place that
        # ends the part before a second question
        named = (
            _IN_LOWER_PLACE_RE.findall(question[: there.start()]) if _THERE_ASKED_RE.search(question) else []
        )
    return named[-1] if named else None


_IN_LOWER_PLACE_RE = re.compile(
    r"\b(?:in|at|for|to|of|about) (?!(?:the|a|an|my|your|our|their|this|that|it|me|you|us|them)\b)"
    r"([a-z][a-z.-]+(?: (?!(?:and|or|but|then|what|how|is|are)\b)[a-z][a-z.-]+)?)(?=\s*(?:,|\?|\band\b))"
)
"""A place a message written all in lower case names before a second question ("of japan and", "in new
york,"), for its "there"."""
_THERE_ASKED_RE = re.compile(
    r"(?:\band|,)\s+(?:what|how|when|which|who|is|are|does|do)\b[^,]{0,80}\bthere\W*$", re.IGNORECASE
)
"""A second question closing with "there" ("..., and what time is it there?")."""


def resolve_place(question: str, place: str | None) -> str:
    """``question`` with a place it refers back to written out: "there" at its end is "in {place}"
    ("and what time is it there?"), a comparison's closing "is it" is "is {place}" ("and how far
    ahead of New York is it?" after the time in Berlin), a comparison of one place is with {place}
    ("How many hours ahead is London?"), and a difference with one place is between {place} and it ("and
    the time difference with New York?")."""
    if not place:
        return question
    resolved = _THERE_RE.sub(f"in {place}", question, count=1)
    if resolved == question and _COMPARES_RE.search(question):
        resolved = _IS_IT_RE.sub(lambda m: f"{m.group('verb')} {place}", question, count=1)
    one = _AHEAD_OF_ONE_RE.match(question) if resolved == question else None
    if one is not None and one.group("place").lower() != place.lower():
        # "How many hours ahead is London?" after the time in New York: ahead of New York
        link = {"ahead": " of", "behind": ""}.get(one.group("lead").split()[-1].lower(), " than")
        resolved = f"{one.group('lead')}{link} {place} is {one.group('place')}{one.group('end') or '?'}"
    if resolved == question and place.lower() not in question.lower():
        # "and the time difference with New York?" after the time in Madrid: between the two
        resolved = _DIFFERENCE_WITH_RE.sub(f"difference between {place} and ", question, count=1)
    if resolved == question and _SPAN_FROM_NOW_RE.search(question) and not _IN_PLACE_RE.search(question):
        # "What's 3 hours later?" after the time in Tokyo: in Tokyo
        resolved = f"{question.rstrip(' ?!.')} in {place}{question[len(question.rstrip(' ?!.')) :].strip()}"
    return resolved


_AHEAD_OF_ONE_RE = re.compile(
    r"^(?P<lead>\W*(?:[Aa]nd\s+)?[Hh]ow\s+(?:many\s+hours|much|far)\s+(?:ahead|behind|earlier|later))\s+is\s+"
    r"(?P<place>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})(?P<end>\s*[?.!]*)\s*$"
)
"""A comparison of one place's clock ("How many hours ahead is London?"): with the place talked about."""
_SPAN_FROM_NOW_RE = re.compile(
    r"\b\d+(?:\.\d+)?\s*(?:hours?|hrs?|minutes?|mins?)\s+(?:later|earlier|from now|ago)\b", re.IGNORECASE
)
"""A span of hours or minutes counted from now ("3 hours later", "90 minutes from now")."""


_DIFFERENCE_WITH_RE = re.compile(r"\bdifference\s+(?:with|to|from|and|vs\.?|versus)\s+(?=[A-Z])")
"""A difference with one place named ("the time difference with New York"): the other is the previous one."""


def previous_route(messages: Sequence[BaseMessage]) -> str | None:
    """The last agent route (``goto_{name}_agent`` or ``transfer_to_{name}``) of the previous turn."""
    for m in reversed(previous_turn(messages)):
        if isinstance(m, AIMessage):
            for call in reversed(m.tool_calls):
                if is_route_tool(call["name"]) and call["name"] != FINALIZE_TOOL:
                    return call["name"]
    return None


def same_route(route: str | None, names: Sequence[str]) -> str | None:
    """The route among ``names`` that goes to the agent ``route`` goes to, in either naming, or None."""
    if route is None:
        return None
    core = route_core(route)
    return next((n for n in names if n != FINALIZE_TOOL and is_route_tool(n) and route_core(n) == core), None)


def previous_result(messages: Sequence[BaseMessage]) -> tuple[str, str] | None:
    """``(tool name, result)`` of the previous turn's last work tool result."""
    results = tool_results(previous_turn(messages))
    return results[-1] if results else None


_CLOCK_FORMAT_ASKED_RE = re.compile(
    r"\b(?:in|to|into|as)\s+(?:the\s+)?"
    r"(?:(?:12|24|twelve|twenty[- ]four)[- ]?hour\b|am\s*/\s*pm\b|military time\b)",
    re.IGNORECASE,
)
"""A clock format asked ("in 12-hour format", "in 24-hour time", "in am/pm")."""
_CLOCK_TIME_RE = re.compile(r"(?<![\d:+−-])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:])")
"""A clock time written in a result ("03:11"; not an offset: "UTC+09:00")."""
_INSTEAD_RE = re.compile(r"\s*\binstead\b(?:\s+of\s+(?:that|it|this))?", re.IGNORECASE)
"""A follow-up's "instead" ("what about times 3 instead?"): it takes the place of the previous step."""
_OPERATOR = r"(?:plus|minus|times|multiplied\s+by|divided\s+by|over|[-+*/x×÷])"
_OPERATION_ONLY_RE = re.compile(rf"^{_OPERATOR}\s*-?\d[\d.]*%?\s*[?!.]*$", re.IGNORECASE)
"""A follow-up that is only an operation and its number ("times 3", "+ 20")."""
_LAST_OPERATION_RE = re.compile(rf"{_OPERATOR}\s*-?\d[\d.]*%?(?!.*{_OPERATOR}\s*-?\d)", re.IGNORECASE)
"""The last operation and its number of an arithmetic question ("* 4" of "What is 15 * 4?")."""
_MAKE_THAT_RE = re.compile(r"^(?:make|change|do)\s+(?:that|it|this)(?:\s+(?:to|into))?\s+", re.IGNORECASE)
"""The opening of a follow-up changing the previous step ("Make that divided by 5 instead")."""
_CONTINUED_RE = re.compile(r"^(?P<value>[^,]+), then (?P<step>.+)$")
"""A follow-up continuing from a value, as resolved (:func:`resolve_reference`: "60, then plus 20")."""


def previous_call_text(messages: Sequence[BaseMessage]) -> str | None:
    """The text the previous turn's last work tool was called with (its one string argument), or None."""
    for m in reversed(previous_turn(messages)):
        if not isinstance(m, AIMessage):
            continue
        for call in reversed(m.tool_calls):
            if is_control_tool(call["name"]) or is_route_tool(call["name"]):
                continue
            texts = [v for v in call["args"].values() if isinstance(v, str)]
            return texts[0] if len(texts) == 1 else None
    return None


def _turn_value(messages: Sequence[BaseMessage]) -> str | None:
    """The value the turn before the latest question's came to (its last result, or its agent's answer)."""
    earlier = previous_result(messages)
    stated = earlier[1] if earlier is not None else previous_own_answer(messages)
    return result_value(stated) if stated is not None else None


def with_operation_instead(question: str, messages: Sequence[BaseMessage]) -> str | None:
    """The previous arithmetic with its last step replaced by the one a follow-up gives "instead" ("what
    about times 3 instead?" after "What is 15 * 4?", then "and plus 20?", is 60 times 3; after "What is
    15 * 4?" alone, 15 times 3), or None."""
    if not _INSTEAD_RE.search(question):
        return None
    rest = FOLLOW_UP_RE.sub("", _INSTEAD_RE.sub("", question)).strip(" ,.;:?!")
    rest = _MAKE_THAT_RE.sub("", rest)
    if not _OPERATION_ONLY_RE.match(digits_written(rest)):
        return None
    called = previous_call_text(messages)
    continued = _CONTINUED_RE.match(called.strip()) if called else None
    if continued is not None:  # the previous step went on from a value: this one does so instead
        return f"{continued.group('value')}, then {rest}"
    asked = previous_asked(messages)
    step = FOLLOW_UP_RE.sub("", asked or "").strip(" ,.;:?!")
    if asked and _OPERATION_ONLY_RE.match(digits_written(step)):
        # the previous question was a step from the value before it, whose call is not in this view (a
        # supervisor's agent sees answers only): that value, read from the turn before
        before, previous, _ = split_at_last_human(split_at_last_human(messages)[0])
        value = _turn_value([*before, previous]) if previous is not None else None
        return f"{value}, then {rest}" if value is not None else None
    text = digits_written(asked) if asked else ""
    last = _LAST_OPERATION_RE.search(text)
    if last is None:
        return None
    return text[: last.start()] + rest + text[last.end() :]


def previous_own_answer(messages: Sequence[BaseMessage]) -> str | None:
    """The previous turn's last agent answer, for a follow-up to it (None without one).

    With the supervisor's ``output_mode=last_message`` an agent's tool results stay out of the
    shared history while its answer (``{name}_agent``) stays. When this turn's handoff is in view,
    only that agent's answer counts. The answer stands in for "that" or "the result" and is
    continued by a follow-up that only says what to do next. A bare "it" counts only as the
    object of an operation ("now double it", "add 5 to it"), not after a form of "be" or "do"
    ("what time is it", "does it rain"), where it is too often no reference at all.
    """
    question, turn = current_turn(messages)
    said = list(REFERENCE_RE.finditer(question))
    if (
        said
        and all(m.group(0).lower() == "it" and not _is_object(question, m) for m in said)
        and not _NUMBER_PROPERTY_RE.search(question)
    ):
        return None
    routes = [c["name"] for m in turn if isinstance(m, AIMessage) for c in m.tool_calls]
    routes = [r for r in routes if is_route_tool(r) and r != FINALIZE_TOOL]
    wanted = route_core(routes[-1]) if routes else None
    for m in reversed(previous_turn(messages)):
        node = plugin_of_node(getattr(m, "name", None) or "")
        if isinstance(m, AIMessage) and node is not None and node[1] == "agent" and wanted in (None, node[0]):
            text = message_text(m).strip()
            if text:
                return text
    return None


_NUMBER_PROPERTY_RE = re.compile(
    r"\b(?:is|was) it (?:an? )?(?:prime|even|odd|divisible|a multiple|a perfect square|a square|positive"
    r"|negative|whole|an integer)\b"
    r"|\bhow many (?:digits|zeros|zeroes|factors|divisors) (?:does|did) it have\b",
    re.IGNORECASE,
)
"""A question whether the previous result has a property ("Is it prime?") or how many digits it has ("How
many digits does it have?"): there "it" is that result."""
_AUXILIARIES = frozenset(
    {"is", "was", "are", "were", "be", "been", "'s", "does", "did", "do", "will", "would", "can", "could"}
    | {"should", "shall", "might", "may", "must", "isn't", "wasn't", "doesn't", "didn't", "won't", "can't"}
)
"""Words after which "it" is a subject or a dummy ("what time is it"), not the object of an operation."""


def _is_object(question: str, match: re.Match[str]) -> bool:
    """Whether the "it" at ``match`` follows a word that can take an object ("double it", "add 5 to it")."""
    before = re.findall(r"[\w']+", question[: match.start()])
    after = question[match.end() :]
    if not before or re.match(r"'s\b|\s+(?:is|was)\b", after, re.IGNORECASE):
        return False
    return before[-1].lower() not in _AUXILIARIES


_COUNTED_RE = re.compile(r"^There (?:are|is|were|was) (\d[\d,.]* [a-z]+) (?:between|from|until|since|in)\b")
"""A result counting something ("There are 160 days between …"): its value is the count with its unit."""


_FIGURE_STATED_RE = re.compile(
    r"^[A-Z][^.()]*?\b(?:is about|is|covers|covers about) (?P<n>\d[\d,]*(?:\.\d+)?) "
    r"(?P<unit>km²|km|miles|m|ft)(?= \(| from\b| in\b|[.,])"
)
"""A result stating one figure with its unit ("Rome, Italy is about 1,107 km (688 miles) from Paris, ...",
"Italy covers 301,230 km² (116,306 square miles).")."""


_ANSWER_IN_UNIT_RE = re.compile(
    r"^The answer is (?P<n>-?\d[\d,]*(?:\.\d+)?) (?P<unit>[^\W\d][\w/²³]*(?: [^\W\d][\w/²³]*)?)\.$"
)
"""An answer said in a unit ("The answer is 6 dollars.": what a supervisor's agent sees of the turn
before)."""
_JUDGED_NUMBER_RE = re.compile(r"^(?:Yes|No)[,:]\s+(?P<n>-?\d[\d,]*(?:\.\d+)?)\s+(?:is|isn't|has)\b")
"""A yes or no said of one number ("Yes, 56 is even.", "No, 91 is not a prime number ...")."""


def result_value(result: str) -> str | None:
    """The value a result states (``"345"``, ``"12 * 12 = 144"`` → ``"144"``; a quantity with its unit,
    exactly: ``"10 km = 6.21 miles (exactly … = 6.21371192237)"`` → ``"6.21371192237 miles"``), or None."""
    counted = _COUNTED_RE.match(result.strip())
    if counted is not None:
        return counted.group(1)
    judged = _JUDGED_NUMBER_RE.match(result.strip())
    if judged is not None:  # "Yes, 56 is even.": what it said of 56
        return judged.group("n").replace(",", "")
    worked = _VALUE_IN_UNIT_RE.match(" ".join(result.split()))
    if worked is not None and _OPERATION_RE.search(worked.group("expr")):
        # "(12 / 100) * 50 = 6 dollars": 6 dollars; "(12 * 25) = 300 cents (3.00 dollars)": 300 cents
        value, _, unit = worked.group("said").partition(" (")[0].partition(" ")
        return f"{value.replace(',', '')} {unit}"
    answered = _ANSWER_IN_UNIT_RE.match(result.strip())
    if answered is not None:  # "The answer is 6 dollars.": what a supervisor's agent saw of the turn before
        return f"{answered.group('n').replace(',', '')} {answered.group('unit')}"
    measured = _MEASURED_RE.match(" ".join(result.split()))
    if measured is not None:
        shown = measured.group("value")
        number = re.match(r"-?\d[\d.,e+-]*", shown)
        exact = re.search(r"= (-?\d[\d.e+-]*)\)$", result.strip())
        if number is not None and exact is not None:
            return f"{exact.group(1)}{shown[number.end() :]}"
        return shown
    said = _MEASURED_SENTENCE_RE.match(" ".join(result.split()))
    if said is not None:
        return said.group("value")
    match = _VALUE_RE.search(_ABOUT_RE.sub("", result.strip()))
    if match:
        return match.group(1).replace(",", "")
    # a fact stated with its figure: "The population of Japan is about 126.5 million (126,529,100), ...",
    # "Rome, Italy is about 1,107 km (688 miles) from Paris, ...", "Italy covers 301,230 km² (...)"
    found = [f for f in _FOUND_VALUE_RE.finditer(result) if f.group("shown")]
    if len(found) == 1:
        exact = found[0].group("exact") or (numbers_in(found[0].group("shown")) or [""])[0]
        return exact.replace(",", "") or None
    figure = _FIGURE_STATED_RE.match(" ".join(result.split()))
    return f"{figure.group('n').replace(',', '')} {figure.group('unit')}" if figure else None


_DATE_IN_RESULT_RE = re.compile(
    r"\b(\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December) \d{4})\b"
)
_DAY_ASKED_RE = re.compile(r"\b(?:weekday|day of the week|what day|which day|date)\b", re.IGNORECASE)


def result_date(result: str) -> str | None:
    """The date a result arrives at, its last one ("… is Saturday, 27 February 2027." → "27 February 2027"),
    or None: what "that" is in a follow-up asking about a day ("and what weekday is that?")."""
    found = _DATE_IN_RESULT_RE.findall(result)
    return found[-1] if found else None


_ABOUT_RE = re.compile(r"\s+\((?:about [^)]*|-?[$€£¥][\d,.]+)\)$")
"""An approximation or an amount in cents after a result's value ("= 39.675 (about $39.68)", "= 9.1
($9.10)"): the value is the exact one."""


_ANOTHER_NUMBER_RE = re.compile(
    r"^(?:(?:for|with)\s+)?(?P<n>-?\d[\d,]*(?:\.\d+)?)\s*(?P<pct>%|percent\b|per ?cent\b)?\s*[?.!]*$", re.I
)
"""A follow-up that is only another number ("what about 80?", "and 22%?", "and for 20%?"): the previous
question again."""


_FRACTION_RE = re.compile(r"(?<![\d./])\d+\s*/\s*\d+(?![\d./])")
"""A fraction written with a slash ("3/4")."""
_FRACTION_ONLY_RE = re.compile(r"^(?P<f>\d+\s*/\s*\d+)\s*[?.!]*$")
"""A follow-up that is only a fraction ("and 5/8?")."""


def with_another_number(question: str, previous: str | None) -> str | None:
    """The previous question asked again with the one number a follow-up gives instead of its own ("what
    about 80?" after "convert 50 miles to km" is "convert 80 miles to km"; "and 22%?" after "what's 18% of
    245?" replaces the percent), or None when the follow-up is more than a number or the previous question
    has no single number of that kind."""
    rest = FOLLOW_UP_RE.sub("", _INSTEAD_RE.sub("", question)).strip(" ,.;:")
    if not previous or not is_follow_up(question) or is_small_talk(question):
        return None  # "Thanks!" is no place to ask the previous question of
    fraction = _FRACTION_ONLY_RE.match(rest)
    written = list(_FRACTION_RE.finditer(previous))
    if fraction is not None and len(written) == 1:  # "And 5/8?" after "What's 3/4 as a percentage?"
        return previous[: written[0].start()] + fraction.group("f") + previous[written[0].end() :]
    given = _ANOTHER_NUMBER_RE.match(rest)
    if given is None:
        return (
            _same_words_another_number(rest, previous)
            or _in_another_unit(rest, previous)
            or _another_amount(rest, previous)
            or _another_day(rest, previous)  # "And in a week?" is a day, not the place of "in Paris"
            or _same_preposition(rest, previous)
            or _another_operation(rest, previous)
            or _another_place(rest, previous)
            or _another_text(rest, previous)
        )
    percent = given.group("pct") is not None
    text = digits_written(previous)
    kinds = [
        m for m in NUMBER_RE.finditer(text)
        if bool(re.match(r"\s*(?:%|percent\b|per ?cent\b)", text[m.end():], re.I)) == percent
    ]  # fmt: skip
    if len(kinds) > 1:  # a rate the previous question gave stays ("Convert 100 USD to EUR at 0.92")
        kinds = [m for m in kinds if not _GIVEN_RATE_RE.search(text[: m.start()])]
    if len(kinds) != 1:
        return None
    number = given.group("n").replace(",", "")
    return text[: kinds[0].start()] + number + text[kinds[0].end() :]


_GIVEN_RATE_RE = re.compile(
    r"\b(?:at|rate\s+of|rate)\s*(?:an?\s+)?(?:exchange\s+rate\s+of\s+)?[$€£]?$", re.IGNORECASE
)
"""The words before a rate a question gives ("at 0.92", "at a rate of 1.1")."""


_DAY_WORD_RE = re.compile(r"\b(?:today|tomorrow|yesterday|tonight)\b", re.IGNORECASE)
"""A day said relative to today."""


_DAYS_AHEAD_RE = re.compile(
    r"in\s+(?:a|one|two|three|four|five|six|seven|ten|\d{1,3})\s+(?:days?|weeks?|months?)"
    r"|(?:a|one|two|\d{1,3})\s+(?:days?|weeks?)\s+from\s+(?:now|today)",
    re.IGNORECASE,
)
"""A day a span ahead of today ("in a week", "in 3 days", "two weeks from now")."""


def _another_day(rest: str, previous: str) -> str | None:
    """The previous question asked of another day, when a day is all a follow-up gives: "tomorrow?" after
    "When is sunset in Paris?" asks "When is sunset in Paris tomorrow?" (its "today" replaced, if it said
    one); None otherwise."""
    wanted = rest.strip(" ?!.").lower()
    if _DAY_WORD_RE.fullmatch(wanted) is None and _DAYS_AHEAD_RE.fullmatch(wanted) is None:
        return None
    if _DAY_WORD_RE.search(previous):
        return _DAY_WORD_RE.sub(wanted, previous, count=1)
    body = previous.rstrip(" ?!.")
    return f"{body} {wanted}{previous[len(body) :] or '?'}"


_OPERATION_FAMILIES = (
    re.compile(r"\b(?:squared|cubed)\b", re.IGNORECASE),
    re.compile(r"\b(?:square|cube) root\b", re.IGNORECASE),
    re.compile(r"\b(?:doubled|tripled|halved)\b", re.IGNORECASE),
    re.compile(r"\b(?:double|triple|half)\b", re.IGNORECASE),
    re.compile(r"\b(?:gcd|lcm|gcf|hcf)\b", re.IGNORECASE),
    re.compile(r"\b(?:mean|median|mode|average|sum|product)\b", re.IGNORECASE),
)
"""Operations that replace one another in a follow-up ("And cubed?" after "What's 12 squared?")."""


def _another_operation(rest: str, previous: str) -> str | None:
    """The previous question with another operation of the same kind, when that is all a follow-up gives:
    "cubed" after "What's 12 squared?" asks "What's 12 cubed?", "the cube root?" after "the square root of
    64"; None otherwise ("squared" alone after a sum continues from its result)."""
    wanted = re.sub(r"^(?:the|its)\s+", "", rest.strip(" ?!.").lower())
    for family in _OPERATION_FAMILIES:
        said = family.fullmatch(wanted)
        found = family.search(previous)
        if said and found and found.group(0).lower() != wanted:
            return previous[: found.start()] + wanted + previous[found.end() :]
    return None


_ANOTHER_UNIT_RE = re.compile(r"^(?:in|into|to|as)\s+(?P<unit>[a-z][a-z ]{0,24}?)\s*[?!.]*$", re.IGNORECASE)
"""A follow-up that is only a unit ("and in feet?", "what about in kilograms?")."""
_ASKED_UNIT_RE = re.compile(r"\b(?P<word>in|into|to)\s+(?P<unit>[a-z][a-z ]{0,24}?)\s*[?!.]*$", re.IGNORECASE)
"""The unit a conversion asks for, at the end of a question ("What's 5 km in miles?")."""


def _in_another_unit(rest: str, previous: str) -> str | None:
    """The previous conversion asked again in the unit a follow-up names ("and in feet?" after "What's 5 km
    in miles?" is "What's 5 km in feet?": from the amount asked about, not from the rounded result); None
    unless the previous question ends asking for a unit and holds a number."""
    given = _ANOTHER_UNIT_RE.match(rest)
    asked = _ASKED_UNIT_RE.search(previous.rstrip())
    if given is None or asked is None or not NUMBER_RE.search(previous[: asked.start()]):
        return None
    return f"{previous[: asked.start('unit')]}{given.group('unit')}?"


_RELATIVE_PERIOD = r"(?:this|next|last|the\s+following|the\s+previous|the\s+next)\s+(?:year|month|week)"
_PERIOD_ONLY_RE = re.compile(rf"^(?:for\s+|in\s+)?(?P<period>{_RELATIVE_PERIOD})\s*[?.!]*$", re.IGNORECASE)
_PERIOD_SAID_RE = re.compile(rf"\b(?:{_RELATIVE_PERIOD}|(?:in\s+)?(?:19|20)\d{{2}})\b", re.IGNORECASE)


def with_another_period(question: str, previous: str | None) -> str | None:
    """The previous question asked of the period a follow-up names instead ("And next year?" after "What day
    is Christmas this year?" asks "What day is Christmas next year?"; after "When is Easter?", "When is
    Easter next year?"), or None when the follow-up is not only a period."""
    rest = FOLLOW_UP_RE.sub("", question).strip(" ,.;:")
    given = _PERIOD_ONLY_RE.match(rest)
    if not previous or given is None or not FOLLOW_UP_RE.match(question):
        return None
    period = given.group("period")
    if _PERIOD_SAID_RE.search(previous):
        return _PERIOD_SAID_RE.sub(period, previous, count=1)
    return f"{previous.rstrip(' ?!.')} {period}?"


_ORDER_ONLY_RE = re.compile(
    r"^(?:in\s+)?(?:(?P<order>descending|ascending|reverse|decreasing|increasing)(?:\s+order)?)\s*[?!.]*$",
    re.IGNORECASE,
)
"""A follow-up that is only an order ("Now descending", "in reverse order?")."""
_ORDER_WORD_RE = re.compile(r"\b(?:descending|ascending|reverse|decreasing|increasing)\b", re.IGNORECASE)
"""An order a question asks its list in: a follow-up naming another replaces it."""


def in_unit_asked(question: str, previous: str | None) -> str:
    """The previous question asked in the unit a follow-up names, when the follow-up is only that and the
    previous result was no value to convert ("In miles?" after "How far is Berlin from Paris?" asks "How
    far is Berlin from Paris in miles?"), or in the order it names ("Now descending" after "Sort 5, 2, 8"),
    else ``question``. A capitalized name is a place ("And in Paris?"), and a previous question asking a unit
    already is :func:`with_another_number`'s."""
    rest = FOLLOW_UP_RE.sub("", question).strip(" ,.;:")
    order = _ORDER_ONLY_RE.match(rest)
    if previous and order is not None:
        # "Now descending" after "Sort 5, 2, 8": the sort in that order (in place of the one it asked)
        wanted = order.group("order").lower()
        if _ORDER_WORD_RE.search(previous):
            return _ORDER_WORD_RE.sub(wanted, previous, count=1)
        return f"{previous.rstrip(' ?!.')} in {wanted} order?"
    given = _ANOTHER_UNIT_RE.match(rest)
    if not previous or given is None or not given.group("unit")[0].islower():
        return question
    if _ASKED_UNIT_RE.search(previous.rstrip()) or _DAYS_AHEAD_RE.fullmatch(rest.strip(" ?!.")):
        return question  # "And in a week?" is a day (:func:`_another_day`), no unit
    counted = _HOW_MANY_UNIT_RE.match(previous)
    if counted is not None:  # "In miles?" after "How many km is a marathon?": how many miles
        return f"{counted.group('lead')}{given.group('unit')}{counted.group('rest')}"
    return f"{previous.rstrip(' ?!.')} in {given.group('unit')}?"


_HOW_MANY_UNIT_RE = re.compile(
    r"^(?P<lead>\W*how\s+many\s+)(?P<unit>[a-z]+)(?P<rest>\s+(?:is|are|in|make|does|do)\b.*)$", re.IGNORECASE
)
"""A question of how many of a unit something is ("How many km is a marathon?")."""


_AMOUNT_ONLY_RE = re.compile(
    r"^(?P<n>-?\d[\d,]*(?:\.\d+)?)\s*(?P<unit>[^\W\d][\w/]*(?: [^\W\d][\w/]*)?)\s*[?!.]*$"
)
"""A follow-up that is only an amount of a unit ("and 26.2 miles?", "what about 50 kg?")."""


def _same_second_word(written: str, given: str) -> bool:
    """Whether the word after a unit agrees: "2 hours earlier" is no other amount of "3 hours later"."""
    a, b = written.split()[1:2], given.split()[1:2]
    return not b or a == b


def _another_amount(rest: str, previous: str) -> str | None:
    """The previous question with the amount a follow-up gives in place of its amount of the same unit ("and
    26.2 miles?" after "Convert 10 miles to km" is "Convert 26.2 miles to km"), or None."""
    given = _AMOUNT_ONLY_RE.match(digits_written(rest))
    if given is None:
        return None
    unit = given.group("unit").lower()
    text = digits_written(previous)
    same = [
        m
        for m in NUMBER_RE.finditer(text)
        if (after := re.match(r"\s*([^\W\d][\w/]*(?: [^\W\d][\w/]*)?)", text[m.end() :]))
        and _same_unit(after.group(1).lower(), unit)
        and _same_second_word(after.group(1).lower(), unit)
    ]
    if len(same) != 1:
        return None
    return text[: same[0].start()] + given.group("n").replace(",", "") + text[same[0].end() :]


_PREPOSITION_ONLY_RE = re.compile(
    r"^(?P<prep>until|till|since|before|after|of|for|in|from|to)\s+(?P<what>[^?!.]+?)\s*[?!.]*$",
    re.IGNORECASE,
)
"""A follow-up that is only what comes after a preposition ("and until New Year?", "and of 500?")."""


_ONE_WORD_OR_NAME_RE = re.compile(r"[^\W\d_][\w'-]*(?: \d{4})?|[A-Z][\w.'-]*(?:,? [A-Z][\w.'-]*)*(?: \d{4})?")
"""One word ("strawberry") or a name of capitalized words ("New York", "Paris, Texas"), maybe with a year
("January 2027")."""


def _same_preposition(rest: str, previous: str) -> str | None:
    """The previous question with what follows its one such preposition replaced by the follow-up's ("and
    until New Year?" after "How many days until Christmas?"; "and of 500?" after "What's 15% of 200?"; "and
    in raspberry?" after "How many r's in strawberry?", "in" only of a word or a name; "and to Berlin?" after
    "the distance from London to Paris", "to" only of a place), or None."""
    given = _PREPOSITION_ONLY_RE.match(rest)
    if given is None:
        return None
    found = list(re.finditer(rf"\b{given.group('prep')}\s+(?P<what>[^?!.,;]+)", previous, re.IGNORECASE))
    if not found and given.group("prep").lower() == "to":
        # "And to Vienna?" after "How far is Madrid from Rome?": the other end of the distance
        found = list(re.finditer(r"\bfrom\s+(?P<what>[^?!.,;]+)", previous, re.IGNORECASE))
    if len(found) != 1:
        return None
    what = found[0]
    if given.group("prep").lower() in ("in", "from") and not _ONE_WORD_OR_NAME_RE.fullmatch(
        what.group("what").strip()
    ):
        return None  # "in" and "from" only of a word or a name ("How many r's in strawberry?", "in New York")
    if given.group("prep").lower() == "to" and not (
        _PLACE_ONLY_RE.match(given.group("what")) and _PLACE_ONLY_RE.match(what.group("what").strip())
    ):
        return None  # "to" only of a place for a place ("And to Berlin?" after "from London to Paris")
    return previous[: what.start("what")] + given.group("what") + previous[what.end("what") :]


_PLACE_ONLY_RE = re.compile(r"^(?P<name>(?:the\s+)?[A-Z][\w.'-]*(?:,? [A-Z][\w.'-]*)*)\s*[?!.]*$")
"""A follow-up that is only a place's name ("And the USA?", "What about New York?")."""


_NAME_INSIDE_RE = re.compile(r"(?<=\w )([A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*)")
"""A name of capitalized words inside a question, not its first word ("Which countries border Spain?")."""


_TEXT_ALONE_RE = re.compile(
    r"^(?:(?:in|of|for|with|on)\s+)?(?P<q>['\"“‘])(?P<text>[^'\"”’]+)['\"”’]\s*[?.!]*$", re.IGNORECASE
)
"""A follow-up that is only another quoted text ('in "world"?')."""


def _another_text(rest: str, previous: str) -> str | None:
    """The previous question asked of another text, when a quoted text is all a follow-up gives: 'And in
    "world"?' after 'How many letters in "hello"?' asks 'How many letters in "world"?'; None otherwise (or
    when the previous question quoted no text, or several)."""
    given = _TEXT_ALONE_RE.match(rest.strip())
    quoted = list(_QUOTED_TEXT_RE.finditer(previous))
    if given is None or len(quoted) != 1:
        return None
    old = quoted[0]
    return f"{previous[: old.start() + 1]}{given.group('text')}{previous[old.end() - 1 :]}"


def _another_place(rest: str, previous: str) -> str | None:
    """The previous question about the place a follow-up names instead of its one place ("And the USA?"
    after "What's the population of Canada?" asks "What's the population of the USA?"), or of the first of
    its two, or None."""
    given = _PLACE_ONLY_RE.match(rest.strip())
    found = list(_IN_PLACE_RE.finditer(previous)) or list(_NAME_INSIDE_RE.finditer(previous))
    if given is None or re.search(rf"\b{re.escape(given.group('name'))}\b", previous):
        return None  # a place the question names already ("And London?" after "from London to Paris")
    if len(found) == 2:
        # two places compared ("How far ahead is Dubai from London?"): the follow-up's takes the first's
        # place ("What about Singapore?" asks how far ahead Singapore is from London)
        found = found[:1]
    if len(found) != 1:
        return None
    return previous[: found[0].start(1)] + given.group("name") + previous[found[0].end(1) :]


def _same_unit(written: str, unit: str) -> bool:
    """Whether the words after a number (``written``) start with ``unit``, singular or plural."""
    word, name = written.split()[0].rstrip("s"), unit.split()[0].rstrip("s")
    return bool(word) and word == name


def _same_words_another_number(rest: str, previous: str) -> str | None:
    """The previous question with another number where a follow-up repeats its words around one ("and
    split five ways?" after "How much is 480 split four ways?"; "and minus 25%?" after "2,500 minus 15%"):
    a parallel question, not one about the previous result. The number must stand between words or
    before a percent sign ("and times 4?" goes on from the result)."""
    text = digits_written(rest).rstrip(" ?!.")
    found = list(NUMBER_RE.finditer(text))
    if len(found) != 1:
        return None
    before, after = text[: found[0].start()].strip(), text[found[0].end() :].strip()
    if not before or not (after and (after.startswith("%") or re.match(r"[a-z]", after, re.I))):
        return None
    pattern = (
        r"\b"
        + r"\s+".join(map(re.escape, before.split()))
        + r"\s+(?P<n>-?\d[\d,]*(?:\.\d+)?)\s*"
        + r"\s+".join(map(re.escape, after.split()))
        + (r"\b" if after[-1].isalnum() else "")
    )
    asked = digits_written(previous)
    matches = list(re.finditer(pattern, asked, re.IGNORECASE))
    if not matches:
        return None
    match = matches[-1]  # the question's own number comes last ("a recipe for 4 ... for 10 people?")
    return asked[: match.start("n")] + found[0].group(0) + asked[match.end("n") :]


_ITS_TAIL_RE = re.compile(r"\bits\s+(?P<what>[a-z]+(?:\s+[a-z]+){0,2})\s*[?.!]*\s*$", re.IGNORECASE)
"""A question ending in what the previous result has ("What's its square root?", "and its cube?")."""
_OF_A_NUMBER_RE = re.compile(
    r"\b(?:square|cube|root|roots|factors?|digits?|double|half|triple|reciprocal|inverse|log|logarithm|"
    r"factorial|sum|product|remainder|percent|percentage|value|negative|opposite|multiples?|divisors?|"
    r"sine|cosine|tangent|binary|hex|hexadecimal|roman|words?|parity)\b",
    re.IGNORECASE,
)
"""What a number has ("its square root", "its factors"), unlike a place ("its capital", "its area")."""


def number_asked_of(question: str, previous: str | None) -> str | None:
    """The one number ``previous`` asked of, when ``question`` refers back to it ("its factors", "the next
    prime after it") and writes no number of its own, with the word it measures when ``previous`` stated it
    ("80 kg" of "I weigh 80 kg."); else None."""
    if not previous or numbers_in(question):
        return None
    if not (_ITS_TAIL_RE.search(question) or REFERENCE_RE.search(question)):
        return None
    asked = numbers_in(previous)
    if len(asked) != 1:
        return None
    if not previous.rstrip().endswith("?"):
        # a statement: the number with the word it measures ("I weigh 80 kg." → "80 kg"); a rate stays in its
        # statement, which the question is read with (:func:`with_told_before`: "$1,200 a month")
        if _RATE_TOLD_RE.search(previous):
            return None
        unit = re.search(rf"(?<![\w.]){re.escape(asked[0])}\s*([^\W\d_][\w/°]*)", digits_written(previous))
        if unit is not None and unit.group(1).lower() not in STOPWORDS:
            return f"{asked[0]} {unit.group(1)}"
    return asked[0]


_EACH_ALONE_RE = re.compile(
    r"\beach(?:\s+(?:one|of\s+(?:them|those|these|us|you)|person|people|guest|child|kid|friend|player|student"
    r"|member|ticket|item|box|bag))?\s+(?:gets?|costs?|pays?|needs?|has|have|is|receives?|owes?|"
    r"eats?|earns?|takes?|uses?|weighs?|will|would|should|must|can)\b"
    r"|^\W*how\s+(?:much|many)\s+(?:is\s+(?:that\s+)?|for\s+)?each(?:\s+(?:one|person))?\s*[?.!]*$",
    re.IGNORECASE,
)
""""each" standing alone, or with the kind of thing, for things counted before ("If each gets $20", "each
costs 4 dollars", "each person pays", "What does each of us owe?", "How much each?")."""
_COUNT_OF_THINGS_RE = re.compile(r"(?<![\w.])\d+\s+[a-z]")
"""A number of things ("3 kids", "12 eggs")."""


_HOW_MUCH_ASKED_RE = re.compile(r"\bhow (?:much|many|far|long)\b", re.IGNORECASE)
"""A quantity asked ("how much do I make", "how far do I run")."""
_MESSAGE_ASKS_RE = re.compile(
    r".*\?\s*$|^\W*(?:what|how|which|who|whom|whose|when|where|why|is|are|can|could|would|will|do|does|did"
    r"|tell|show|give|find|calculate|compute|convert|work out|search|list|explain|please)\b",
    re.IGNORECASE | re.DOTALL,
)
"""A message that asks (a question mark, or a question's or an order's first word): no statement told."""
_THAT_RE = re.compile(r"\b(?:that|this)\b(?!\s+(?:is|was)\b)", re.IGNORECASE)
"""A reference to what was told ("What time is that in London?")."""
_RATE_TOLD_RE = re.compile(
    r"\b(?:an?|per|each|every)\s+(?:\d[\d,.]*\s+)?(?:hour|day|week|month|year|night|km|kilometer|mile"
    r"|minute)s?\b"
    r"|\b(?:hourly|daily|weekly|monthly|yearly|annually)\b",
    re.IGNORECASE,
)
"""A rate the user told ("$25 an hour", "5 km every day", "$1,200 a month")."""
_CLOCK_TOLD_RE = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b\d{1,2}:\d{2}\b", re.I)
"""A time of day told ("at 3pm", "at 14:30")."""
_UNIT_AFTER_NUMBER_RE = re.compile(r"(?<![\w.])\d[\d,.]*\s*([a-z]{1,12})\b", re.IGNORECASE)
"""The word after a number ("450 km", "6 liters")."""


_HOW_MANY_RE = re.compile(r"\bhow many\b", re.IGNORECASE)
"""A question for a count ("How many pets do I have?")."""


_WHEN_ASKED_RE = re.compile(
    r"^\W*(?:so\s+|and\s+)?(?:when|(?:at\s+)?what\s+time)\s+(?:do|does|did|will|would|should|is|am|are)\b",
    re.IGNORECASE,
)
"""A question asking when something the user told happens ("When do I land?", "What time does it end?")."""


def with_told_before(question: str, messages: Sequence[BaseMessage]) -> str:
    """``question`` after the user's previous message when that message told, with its numbers, what the
    question leans on: the things its "each" stands for, the question naming no count of its own ("I have 3
    kids." then "If each gets $20, how much do I spend?"); the money what is left is asked of ("My budget is
    $2,000." then "If the hotel is $150 a night for 5 nights, how much is left?"); what its "that" is
    ("I have a meeting at 3pm in New York." then "What time is that in London?"); a rate of the user's that
    a "how much" of theirs counts ("I earn $25 an hour." then "How much do I make in a 40 hour week?"), or
    the unit both say ("My car uses 6 liters per 100 km." then "How much fuel for 450 km?"); the counts a
    "how many" with no number of its own adds up ("I have 3 cats and 2 dogs." then "How many pets do I
    have?"); the time of day a "when" asks of ("My flight leaves at 10:30 and takes 3 hours." then "When do I
    land?"). The agents' readers read the two together. Else ``question``."""
    earlier = earlier_questions(messages, 1)
    previous = earlier[0].strip() if earlier else ""
    given = numbers_in(previous)
    if not previous or _MESSAGE_ASKS_RE.match(previous) or not (given or _CLOCK_TOLD_RE.search(previous)):
        return question
    told = f"{previous if previous[-1] in '.!' else previous + '.'} {question}"
    counted = _EACH_ALONE_RE.search(question) and not _COUNT_OF_THINGS_RE.search(digits_written(question))
    if counted or _WHAT_IS_LEFT_RE.search(question):
        if len(given) > 2 or (len(given) != 1 and not counted):
            return question
        if counted and _COUNT_OF_THINGS_RE.search(digits_written(previous)) is None:
            return question
        if not counted and not _OWN_FUNDS_RE.match(previous):
            return question
        return told
    if len(given) >= 2 and _HOW_MANY_RE.search(question) and not numbers_in(question):
        return told  # "How many pets do I have?" after "I have 3 cats and 2 dogs.": the counts told
    if _WHEN_ASKED_RE.match(question) and not numbers_in(question) and _CLOCK_TOLD_RE.search(previous):
        return told  # "When do I land?" after "My flight leaves at 10:30 and takes 3 hours."
    if not _HOW_MUCH_ASKED_RE.search(question) and not _THAT_RE.search(question):
        return question
    if _THAT_RE.search(question) and not numbers_in(question):
        return told  # "What time is that in London?" after "I have a meeting at 3pm in New York."
    if _THAT_RE.search(question) and _RATE_TOLD_RE.search(previous):
        return told  # "How much is that for a 40 hour week?" after "I earn $25 an hour.": that rate
    if not _RATE_TOLD_RE.search(previous) or told_facts(_system_text(messages)):
        # what a "how much" counts with is a rate told ("$25 an hour", "per 100 km"); remembered, the told
        # facts put it in the question already (:func:`resolve_told`)
        return question
    mine = OWN_RE.search(question) and OWN_RE.search(previous)
    units = {m.group(1).lower().rstrip("s") for m in _UNIT_AFTER_NUMBER_RE.finditer(digits_written(previous))}
    shared = any(m.group(1).lower().rstrip("s") in units for m in _UNIT_AFTER_NUMBER_RE.finditer(question))
    # "How much do I make in a 40 hour week?" after "I earn $25 an hour."; "How much fuel for 450 km?"
    # after "My car uses 6 liters per 100 km."
    return told if mine or shared else question


def routing_question(question: str, messages: Sequence[BaseMessage]) -> str:
    """The question a route is decided on: what the user told of themselves, or the previous number, that it
    refers to written out ("How old am I?" after a birthday asks the age of someone born that day; "the next
    prime after it" after "Is 221 prime?" asks it of 221; "If each gets $20, ..." after "I have 3 kids." is
    read with it), and a follow-up asking the previous question another way as that question ("Now in
    descending order" after a sort)."""
    told = resolve_told(with_told_before(question, messages), told_facts(_system_text(messages)))
    referred = referred_question(told, messages)
    if referred == question and is_follow_up(question):
        # "Now in descending order" after "Sort 5, 3, 9, 1": the previous question asked that way ("now"
        # alone is the world clock's word)
        return in_unit_asked(question, previous_asked(messages))
    return referred


def _previous_value(messages: Sequence[BaseMessage]) -> str | None:
    """The value the previous turn's result states (:func:`result_value`), or None."""
    earlier = previous_result(messages)
    return result_value(earlier[1]) if earlier is not None else None


_TIME_ADDED_RE = re.compile(
    r"^\W*(?:(?:and|now|ok|okay|so|then)[ ,]+)?(?:(?:add|plus)\s+|\+\s*|(?:and\s+)?in\s+)"
    r"(?P<span>\d+(?:\.\d+)?\s*(?:hours?|hrs?|minutes?|mins?)(?:\s+and\s+\d+\s*(?:minutes?|mins?))?)"
    r"(?:\s+(?:to\s+(?:it|that|this)|later|from\s+now))?\s*[?.!]*$",
    re.IGNORECASE,
)
"""A follow-up adding a span of time ("Add 5 hours.", "And in 90 minutes?")."""


_TIME_NOW_SAID_RE = re.compile(r"^The current time in\b")
"""An answer telling the time now somewhere, as the clock says it."""


def with_time_added(question: str, messages: Sequence[BaseMessage]) -> str | None:
    """The time a span later where the previous turn told the time now ("Add 5 hours." after the time in
    London asks "What time will it be in London in 5 hours?"), or None."""
    added = _TIME_ADDED_RE.match(question)
    if added is None:
        return None
    calls = [
        c["name"]
        for m in previous_turn(messages)
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if not (is_control_tool(c["name"]) or is_route_tool(c["name"]))
    ]
    said = [message_text(m) for m in previous_turn(messages) if isinstance(m, AIMessage) and message_text(m)]
    # the time now was told by the clock, or in an agent's answer forwarded as it was (the supervisor's view,
    # its calls out of sight)
    by_the_clock = bool(calls) and calls[-1] == "current_time"
    in_an_answer = not calls and bool(said) and _TIME_NOW_SAID_RE.match(said[-1].strip()) is not None
    if not (by_the_clock or in_an_answer):
        return None
    place = previous_place(messages, latest=True)
    return f"What time will it be{f' in {place}' if place else ''} in {added.group('span')}?"


def read_in_context(question: str, messages: Sequence[BaseMessage]) -> str:
    """``question`` as it reads with what was said before (:func:`routing_question`), a follow-up giving
    another number, period or thing to count as the previous question asked with it ("And of 300?" after
    "What's 18% of 250?" is "What's 18% of 300?")."""
    routed = with_possessive_place(routing_question(question, messages), messages)  # "And its population?"
    if _THERE_RE.search(routed):  # "And the date there?" after the time in Paris: in Paris
        routed = resolve_place(routed, there_place(routed, messages))
    if routed == question and REFERENCE_RE.search(question) and numbers_in(question):
        # "Now add 10 to that." after 20: the previous result written out, "Now add 10 to 20."
        value = _previous_value(messages)
        routed = resolve_reference(question, value) if value else question
    if not is_follow_up(question):
        return routed
    before = previous_asked(messages)
    return (
        with_time_added(question, messages)
        or with_another_number(question, before)
        or with_another_period(question, before)
        or with_text_referred(question, messages)
        or routed
    )


_QUOTED_TEXT_RE = re.compile(r"['\"“‘][^'\"”’]{2,}['\"”’]")
"""A text quoted in a question ("'I love sunny days'")."""
_TEXT_GIVEN_RE = re.compile(r":\s*(?P<text>[^\d\s][^:]*?)\s*$|['\"“‘](?P<quoted>[^'\"”’]{2,})['\"”’]")
"""The text a question gave: after its colon ("Count the words in: I love sunny days") or quoted."""
_ACTS_ON_TEXT_RE = re.compile(
    r"\b(?:reverse|backwards?|upper ?case|lower ?case|title ?case|capitali[sz]e|spell|count|letters|words"
    r"|vowels|characters|syllables|palindrome|summari[sz]e|alphabeti[sz]e|sort)\b",
    re.IGNORECASE,
)
"""What is done to a text ("reverse it", "count its letters"): a reference then is to the text asked of."""


_COUNTED_ALONE_RE = re.compile(
    r"^\W*(?:(?:and|what about|how about|now)\s+)?(?:the\s+|its\s+)?"
    r"(?P<what>letters|words|vowels|consonants|characters|syllables|sentences)\s*[?.!]*$",
    re.IGNORECASE,
)
"""A follow-up naming only what to count ("And the vowels?")."""


def with_text_referred(question: str, messages: Sequence[BaseMessage]) -> str | None:
    """``question`` with the text the previous question gave, when it does something to a text and gives
    none: its reference written out ("Now reverse it" after "Count the words in: I love sunny days" is "Now
    reverse 'I love sunny days'"), or the text added to a follow-up ("And how many letters?" after the words
    of a quoted text are counted: "... in 'to be or not to be'?"; "And the vowels?": "How many vowels are in
    '...'?"); else None."""
    refers = REFERENCE_RE.search(question) is not None
    if not _ACTS_ON_TEXT_RE.search(question) or not (refers or is_follow_up(question)):
        return None
    if not refers and _TEXT_GIVEN_RE.search(question):
        return None  # a text of its own
    given = None
    for asked in earlier_questions(messages):  # "And the vowels?" after "And how many letters?": that text
        given = _TEXT_GIVEN_RE.search(asked)
        if given is not None or not (is_follow_up(asked) and _ACTS_ON_TEXT_RE.search(asked)):
            break
    if given is None:
        return None
    text = (given.group("text") or given.group("quoted")).strip()
    if refers:
        return REFERENCE_RE.sub(f"'{text}'", question, count=1)
    alone = _COUNTED_ALONE_RE.match(question)
    if alone is not None:
        return f"How many {alone.group('what').lower()} are in '{text}'?"
    return f"{question.strip().rstrip('?.!')} in '{text}'?"


def _owned_by_a_place(question: str, messages: Sequence[BaseMessage]) -> bool:
    """Whether ``question`` asks what the place talked about has ("What's its capital?" after the population
    of Italy), not what a number has ("its square root", :data:`_OF_A_NUMBER_RE`)."""
    owned = _ITS_TAIL_RE.search(question)
    if owned is None or _OF_A_NUMBER_RE.search(owned.group("what")):
        return False
    return previous_place(messages, latest=True) is not None


def referred_question(question: str, messages: Sequence[BaseMessage]) -> str:
    """``question`` with a reference to the previous turn's number written out, for routing ("What's the next
    prime after it?" after "Is 221 prime?" is routed as "… after 221?"), else ``question``."""
    refers = _ITS_TAIL_RE.search(question) or REFERENCE_RE.search(question) or _STEP_ALONE_RE.match(question)
    if numbers_in(question) or not refers:
        return question
    on_text = with_text_referred(question, messages)
    if on_text is not None:
        return on_text
    if _owned_by_a_place(question, messages):
        return question  # "What's its capital?" after the population of Italy: Italy's (not 60431283's)
    value = _previous_value(messages) or number_asked_of(question, previous_asked(messages))
    return resolve_reference(question, value) if value else question


_STEP_ALONE_RE = re.compile(
    r"^\W*(?:please\s+)?(?:round(?:\s+(?:it|that|this|the (?:result|answer)))?(?:\s+(?:off|up|down))?"
    r"(?:\s+to\b|\s*[?.!]*$)|(?:take\s+)?(?:the\s+)?(?:square|cube)\s+root\s*[?.!]*$)",
    re.IGNORECASE,
)
"""A step alone, on the previous result ("Round to the nearest whole number", "Take the square root")."""


_IT_AHEAD_RE = re.compile(
    r"\b(?:will|would) it be\b(?=[^?.!]{0,40}?\b(?:(?:in|after) \S+ (?:days?|weeks?|months?|years?|hours?"
    r"|minutes?)|from now)\b)",
    re.IGNORECASE,
)
"""An "it" of a time counted ahead ("What day of the week will it be in 100 days?"), no result referred to."""
_IT_OF_TIME_RE = re.compile(
    r"\b(?:what|which)\s+(?:time|day|date|year|month|hour|season)(?:\s+of\s+the\s+(?:week|month|year))?"
    r"\s+(?:is|was|will)\s+it\b|\bhow\s+(?:late|early)\s+is\s+it\b"
    r"|\bhow\s+far\s+(?:away\s+)?is\s+it\b",
    re.IGNORECASE,
)
"""The "it" of a time asked ("What time is it there?", "What day of the week is it in Tokyo?") or of a place
a distance is asked from ("How far is it from Paris?"): no result referred to."""


def resolve_reference(question: str, value: str) -> str:
    """``question`` with its first reference to the previous result replaced by ``value`` ("its square
    root" is the square root of it).

    A follow-up without a reference that only says what to do next ("now take away 2", "and
    times 4?", "squared") continues from the value: ``"<value>, then <what to do>"``. One that asks
    something of its own (a question word, or two numbers: "and what is 3 + 4?", "now 7 * 8") is
    left as it is.
    """
    owned = _ITS_TAIL_RE.search(question)
    if owned:  # "What's its square root?" after 144: the square root of 144
        return f"{question[: owned.start()]}the {owned.group('what')} of {value}?"
    if _IT_AHEAD_RE.search(question) or _IT_OF_TIME_RE.search(question):
        return question  # "What day will it be in 100 days?", "What time is it there?": no result's "it"
    resolved = REFERENCE_RE.sub(value, question, count=1)
    if resolved != question or not (is_follow_up(question) or _STEP_ALONE_RE.match(question)):
        return resolved
    rest = FOLLOW_UP_RE.sub("", question).strip(" ,.;:")
    if re.match(r"(?:in|into|to|as)\s+\D+$", rest, re.IGNORECASE) and re.search(r"\d\s*\D+$", value):
        return f"{value} {rest.rstrip('?')}"  # a quantity asked in another unit: "and in Fahrenheit?"
    if not rest or _ASKS_RE.match(rest) or len(NUMBER_RE.findall(digits_written(rest))) > 1:
        return question  # two numbers, repeats counted ("between 1 June and 1 September"): its own question
    if _OWN_NUMBER_RE.match(digits_written(rest)):
        return question  # an operation of one number on a number it writes ("Double 12"): its own question
    return f"{value}, then {rest}"


_OWN_NUMBER_RE = re.compile(
    r"^(?:please\s+)?(?:double|triple|quadruple|halve|half\s+of|square|cube|convert|round|negate"
    r"|(?:the\s+)?(?:square|cube)\s+root\s+of|sqrt(?:\s+of)?|(?:the\s+)?factorial\s+of|log\s+of)\s+-?\$?\d",
    re.IGNORECASE,
)
"""An operation of one number written on its number ("Double 12", "Convert 10 km to miles"): no step
from the previous result, which a binary operation's one number is ("and plus 20?", "divide by 2")."""


def numbers_in(text: str) -> list[str]:
    """The numbers written in ``text``, in digits or in words ("ten" → ``10``), in order, without repeats."""
    found = NUMBER_RE.findall(digits_written(text))
    return list(dict.fromkeys(found))


_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")


def digits_written(text: str) -> str:
    """``text`` with its numbers in digits: number words read ("ten" → 10), thousands separators
    dropped ("1,450" → 1450: a small model copies "1" and "450")."""
    return _THOUSANDS_RE.sub("", numbers_from_words(text))


_STYLE_RE = re.compile(r"RESPONSE STYLE\W*(.+)", re.IGNORECASE)


def style_instruction(system: str) -> str:
    """The first sentence of a node prompt's response-style instruction ("" when it has none)."""
    match = _STYLE_RE.search(system)
    if not match:
        return ""
    first = re.split(r"(?<=[.!?:])\s", match.group(1).strip(), maxsplit=1)[0]
    return first.rstrip(":").strip()


_WORK_LINE_RE = re.compile(
    r"^\[[^\]]+\] (?:(?P<tool>[\w.-]+)(?:\((?P<args>.*?)\))? (?:result|error): |said: )(?P<text>.*)$"
)
"""A line of folded work: ``[agent] tool({args}) result: ...`` (or ``tool result:``), ``[agent] said:``."""
_CALL_LINE_RE = re.compile(r"^\[[^\]]+\] called ")
"""A call of folded work left without a result: ``[agent] called tool({args})``."""


ORDER_TOKENS = 12
"""Words and numbers of a result's opening looked up in the question to place the result
(:func:`in_question_order`)."""


def in_question_order(results: Sequence[str], question: str) -> list[str]:
    """``results`` in the order the question asks for them: by where the first of their numbers or names
    the question writes stands in it ("Convert 10 km to miles and 5 kg to pounds": 10 km first, though the
    agent asked the pounds first); a result sharing none takes the place of the first part of the question
    no other result stands for ("What's 25% of 80 and the capital of Peru?" answered "The capital of Peru is
    Lima." and "The answer is 20.": 20 first), else its place after them."""
    text = question.lower()

    def place(result: str) -> int:
        tokens = re.findall(r"-?\d[\d.,]*|[^\W\d_]{3,}", result.split(" = ")[0].lower())
        found = [
            at
            for token in tokens[:ORDER_TOKENS]
            if token not in STOPWORDS and (at := _token_at(text, token)) >= 0
        ]
        return min(found) if found else -1

    starts = sorted(at for part in question_parts(question) if (at := text.find(part.lower())) >= 0)
    starts = starts if len(starts) > 1 else []
    placed = [place(result) for result in results]

    def part_of(at: int) -> int:
        return max((i for i, start in enumerate(starts) if start <= at), default=0)

    free = [i for i in range(len(starts)) if all(at < 0 or part_of(at) != i for at in placed)]
    for index, at in enumerate(placed):
        if at < 0:
            placed[index] = starts[free.pop(0)] if free else len(text)
    order = sorted(range(len(results)), key=lambda i: placed[i])
    return [results[i] for i in order]


def _token_at(text: str, token: str) -> int:
    """Where ``token`` stands in ``text`` as a whole word or number, or -1."""
    match = re.search(rf"(?<![\w.]){re.escape(token)}(?![\w])", text)
    return match.start() if match else -1


def result_tools(name: str, value: str) -> set[str]:
    """The tools a result came from: those of its lines of folded agent work, else its own ``name``."""
    lines = (_WORK_LINE_RE.match(line) for line in value.splitlines())
    return {m.group("tool") for m in lines if m is not None and m.group("tool")} or {name}


_BARE_VALUE_RE = re.compile(r"^-?\d[\d.,]*(?:e[+-]?\d+)?$")
_WRITTEN_ARITHMETIC_RE = re.compile(
    r"^(?=.*(?:\d|[a-z]\())(?=.*[-+*/^%!×÷√(])"
    r"(?:[\d\s.,+\-*/^%!()×÷√π]|[a-z]+(?=\()|\b(?:pi|e|tau)\b)+$"
)
"""Arithmetic written in symbols and functions only ("ln(e)", "12÷4", "2(3+4)")."""


def _with_written_arithmetic(result: str, args: str | None) -> str:
    """A bare value a tool returned for arithmetic written out (its one argument), said with it: ``ln(e) = 1``
    (a small model had written "approximately 1.0000000000001111..." around a bare ``1``); else ``result``."""
    if not args or not _BARE_VALUE_RE.match(result.strip()):
        return result
    try:
        parsed = json.loads(args)
    except ValueError:
        return result
    values = list(parsed.values()) if isinstance(parsed, dict) else []
    if (
        len(values) != 1
        or not isinstance(values[0], str)
        or not _WRITTEN_ARITHMETIC_RE.match(values[0].strip())
    ):
        return result
    return f"{values[0].strip()} = {result.strip()}"


def plain_results(text: str) -> str:
    """Folded agent work (``[agent] tool result: ...`` lines) reduced to what was found.

    Call lines and headers are dropped: a small model copies them into the answer. A result of several
    lines (search passages) keeps its lines: they follow its work line.
    """
    lines = text.splitlines()
    if not any(_WORK_LINE_RE.match(line) for line in lines):
        return text
    kept: list[str] = []
    inside = False  # the lines after a work line belong to its result, up to the next line of work
    for line in lines:
        work = _WORK_LINE_RE.match(line)
        if work is not None:
            kept.append(_with_written_arithmetic(work.group("text"), work.group("args")))
            inside = True
        elif _CALL_LINE_RE.match(line):
            inside = False
        elif inside:
            kept.append(line)
    return "\n".join(kept).strip()


def successful_results(values: Sequence[str]) -> list[str]:
    """The successful results among ``values``: tool results and the result lines of folded agent work
    (``[agent] tool(...) result: ...``), not the errors."""
    out: list[str] = []
    for value in values:
        lines = value.splitlines()
        if not any(_WORK_LINE_RE.match(line) for line in lines):
            if not value.startswith(TOOL_ERROR_PREFIX):
                out.append(value)
            continue
        entries: list[list[str]] = []  # a result of several lines goes on under its work line
        for line in lines:
            match = _WORK_LINE_RE.match(line)
            if match is not None:
                failed = " error: " in match.group(0)[: match.start("text")]
                entries.append(
                    [] if failed else [_with_written_arithmetic(match.group("text"), match.group("args"))]
                )
            elif entries and entries[-1] and not _CALL_LINE_RE.match(line):
                entries[-1].append(line)
        out += ["\n".join(entry) for entry in entries if entry]
    return out


EXPLAIN_SHAPE = "Give the answer, then explain it in two or three sentences, using only the results given."
"""The instruction of an explanatory answer from results."""
STEPS_SHAPE = "Explain the answer in short numbered steps, using only the results given."
"""The instruction of an answer in steps (the learning tone) from results."""
_SHAPES: tuple[tuple[tuple[str, ...], str, int], ...] = (
    (("brief", "concise", "few words"), "Answer with the result only, in a few words.", 24),
    (("step", "teach"), STEPS_SHAPE, 140),
    (("detailed", "educational", "explain"), EXPLAIN_SHAPE, 120),
    (("professional", "formal"), "Answer in one complete, formal sentence without contractions, using only "
     "the results given.", 60),
)  # fmt: skip
"""Response styles a small model can follow: words of the style instruction, instruction, token budget."""


STATEMENT_MAX_CHARS = 600
"""Results up to this length that are whole sentences are the answer as they are (:func:`is_statement`)."""
_SENTENCE_END_RE = re.compile(r"[.!?][)\"']?$")


def is_statement(text: str) -> bool:
    """Whether ``text`` is a short answer in whole sentences already: it starts with a capital letter (or a
    digit or a quote, in one result of one line: "09:15 on Monday in New York is 19:45 in Bangalore.",
    "'elephant' (8 letters) is longer than 'giraffe' (7 letters)."),
    ends a sentence, has six words or more (four when it says what something is: "0.7 is bigger than
    0.65.") and at most :data:`STATEMENT_MAX_CHARS` characters (a value such as ``345`` or a listing is
    not; a document's passages are longer)."""
    one_line = "\n" not in text.strip()
    text = " ".join(text.split())
    words = text.split()
    return (
        0 < len(text) <= STATEMENT_MAX_CHARS
        and (text[0].isupper() or ((text[0].isdigit() or text[0] in "'\"‘“") and one_line))
        and bool(_SENTENCE_END_RE.search(text))
        and (len(words) >= 6 or (len(words) >= 4 and one_line and _SAYS_WHAT_IS_RE.search(text) is not None))
    )


_SAYS_WHAT_IS_RE = re.compile(r"\w \b(?:is|are|was|were|has|have)\b \w", re.IGNORECASE)
"""A verb saying what something is or has, between two words ("0.7 is bigger than 0.65.")."""


ONE_SENTENCE_MAX_WORDS = 30
"""Longest result (in words) a brief or formal answer gives as it is (:func:`is_one_sentence`)."""
_CONTRACTION_RE = re.compile(r"\w['’](?:s|t|re|ve|ll|d|m)\b", re.IGNORECASE)


def is_one_sentence(text: str) -> bool:
    """Whether ``text`` is one short sentence (:func:`is_statement`, one line, a single sentence end, at
    most :data:`ONE_SENTENCE_MAX_WORDS` words) without contractions: a brief and a formal answer as it is."""
    flat = " ".join(text.split())
    return (
        is_statement(text)
        and "\n" not in text.strip()
        and len(flat.split()) <= ONE_SENTENCE_MAX_WORDS
        and not re.search(r"[.!?]\s+[A-Z]", flat)
        and not _CONTRACTION_RE.search(flat)
    )


_UNIT_WORDS = r"[^\W\d][^\s=(]*(?: [^\W\d][^\s=(]*){0,2}"
"""A unit of up to three words ("km", "square meters", "miles per hour")."""
_AMOUNT = rf"(?P<amount>-?\d[\d.,]*(?:/\d+)?(?: ?{_UNIT_WORDS}| ?°[CFK])(?: -?\d[\d.,]* ?[^\W\d][^\s=]*)?)"
_QUANTITY = rf"(?P<value>-?\d[\d.,e+-]*(?: ?{_UNIT_WORDS}| ?°[CFK]| K)(?: \d[\d.,]* ?{_UNIT_WORDS})?)"
_MEASURED_RE = re.compile(rf"^{_AMOUNT} = {_QUANTITY}(?: \((?:exactly|read as) [^\n]*\))?$")
"""A result that gives one quantity in another unit: ``72 °F = 22.22 °C (exactly …)``, ``5 ft 9 in =
175.26 cm (read as …)``, ``1.75 m = 5 ft 8.9 in (exactly …)``, ``3/4 cup = 12 tablespoons (read as …)``."""
_MEASURED_SENTENCE_RE = re.compile(rf"^{_AMOUNT} is {_QUANTITY}\.$")
"""The same said as :func:`measured_statement` says it ("300 K is 26.85 °C.")."""


_FRACTION_RESULT_RE = re.compile(
    r"^[^=\n]+ = (?:-?\d+/\d+(?: = -?\d+ \d+/\d+)?|-?\d+ \d+/\d+|-?\d+ \(a whole number: -?\d+/1\))"
    r"(?: \((?:about )?-?\d+(?:\.\d+)?\))?$"
)
"""A calculator result that is a fraction, exact ("0.75 = 3/4", "12/8 = 3/2 = 1 1/2", "1/3 + 1/4 = 7/12"),
maybe with its decimal value ("2/5 + 1/10 = 1/2 (about 0.5)")."""


_READ_AS_RE = re.compile(rf"^(?P<said>[^=\n(]{{0,60}}?\d[^=\n(]{{0,60}}?) = {_QUANTITY} \(read as [^\n]*\)$")
"""A result giving a quantity for what the question said, as the calculator read it: ``5 km every day for 3
weeks = 105 km (read as (5 * 3 * 7))``."""


_NUMBER_WORD_RE = re.compile(
    r"^(?P<said>\d[\d.,]* (?:dozen|score|gross|pairs?|couples?|half a dozen)) = (?P<value>[\d,.]+)$"
)
"""A number said with a word for so many ("3 dozen = 36")."""


def measured_statement(text: str) -> str | None:
    """A result stating a quantity in another unit as a sentence ("72 °F is 22.22 °C."), or a quantity for
    what the question said ("5 km every day for 3 weeks is 105 km."); else ``None``."""
    flat = " ".join(text.split())
    match = _MEASURED_RE.match(flat)
    if match is not None:
        return f"{match.group('amount')} is {match.group('value')}."
    read = _READ_AS_RE.match(flat) or _NUMBER_WORD_RE.match(flat)
    return None if read is None else f"{read.group('said').strip()} is {read.group('value')}."


_ARITHMETIC_RE = re.compile(
    r"^(?P<expr>[^=\n]*(?:\d|[a-z]\()[^=\n]*) = (?P<value>-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)"
    r"(?: \((?P<about>about )?(?P<money>-?[$€£¥][\d,.]+)\))?\.?$"
)
_NOTED_ARITHMETIC_RE = re.compile(r"^[^=\n]*[-+*/^%(×÷√][^=\n]* = -?\d[\d.,]*(?:e[+-]?\d+)? \([^$€£¥\n]+\)$")
"""Arithmetic with a note beside its value, not an amount of money: ``log(100) = 4.60517018599 (the natural
logarithm; in base 10, log10(100) = 2)``."""
_OPERATION_RE = re.compile(
    r"[-+*/^%(×÷√]|\b(?:sqrt|log|ln|exp|sin|cos|tan|factorial|round|floor|ceil|abs|pi)\b"
)
_PERCENT_ASKED_RE = re.compile(
    r"\b(?:what|which|how many)(?:'s|\s+is|\s+was)?\s+(?:(?:my|the|your|his|her|their|our)\s+)?"
    r"(?:per ?cent(?:age)?|%)"
    r"|\b(?:as|in|into|to)\s+(?:an?\s+)?(?:per ?cent(?:age)?\b|%)"
    r"|\bper ?cent(?:age)?\s+(?:change|increase|decrease|difference|rise|drop|growth|gain|loss|is|was|of)\b"
    r"|\bby (?:what|how much)\b",
    re.IGNORECASE,
)
"""A question asking for a percentage ("What percent is 30 of 120?", "3/4 as a percentage", "the percent
change", "By what percent did it fall?"); not one that only gives one ("What is 30% of 30% of 100?": 9)."""
_TIMES_100_RE = re.compile(r"\*\s*100\s*\)*\s*$")
SHOWN_DECIMALS = 4
"""A result with more decimals is said rounded to two, its exact value beside it (not a value rounded as the
question asked: "pi to 5 decimal places" is 3.14159)."""
_ROUNDED_AS_ASKED_RE = re.compile(r"^round\(.*,\s*\d+\)$")
"""A result rounded as asked (``round(pi, 5)``): said with the decimals asked for."""


_MONEY_RATE_RE = re.compile(
    r"^[\d,.]+ (?P<rate>a (?:hour|day|night|week|month|year)) \((?P<money>[$€£¥][\d,.]+)\)$"
)
"""A value in money at a rate, as the calculator says it: ``1500 a month ($1,500)``."""
_VALUE_IN_UNIT_RE = re.compile(
    r"^(?P<expr>[^=\n]*\d[^=\n]*) = (?P<said>-?\d[\d,]*(?:\.\d+)? [^\W\d][\w/]*(?: [^\W\d][\w/]*)?"
    r"(?: \([^()=\n]{1,60}\))?)\.?$"
)
"""A calculator result in a unit, maybe with the value in another ("(12 * 25) = 300 cents (3.00 dollars)")."""


def arithmetic_statement(result: str, question: str) -> str | None:
    """A calculator result (``expression = value``) said as an answer: "The answer is 144.", a value of
    many decimals rounded ("The answer is about 14.31 (415 / 29 = 14.3103448276)."), an amount of money
    in cents ("That comes to about $39.68 (…)."), a percentage asked for with its sign ("The answer is
    76%."), a value in a unit ("The answer is 300 cents (3.00 dollars)."); ``None`` for any other result."""
    match = _ARITHMETIC_RE.match(" ".join(result.split()))
    if match is None:
        unit = _VALUE_IN_UNIT_RE.match(" ".join(result.split()))
        rate = _MONEY_RATE_RE.match(unit.group("said")) if unit is not None else None
        if rate is not None and _OPERATION_RE.search(unit.group("expr")):  # type: ignore[union-attr]
            # "(30 / 100) * 5000 = 1500 a month ($1,500)": money at a rate
            working = _unwrapped(unit.group("expr").strip())  # type: ignore[union-attr]
            return f"That comes to {rate.group('money')} {rate.group('rate')} ({working})."
        if unit is not None and _OPERATION_RE.search(unit.group("expr")):
            value, _, rest = unit.group("said").partition(" ")
            if len(value.partition(".")[2]) > SHOWN_DECIMALS:  # "50.2654824574 cm²": about 50.27 cm²
                working = _unwrapped(unit.group("expr").strip())
                return f"The answer is about {_two_decimals(value)} {rest} ({working})."
            return f"The answer is {unit.group('said')}."
        return None
    if not _OPERATION_RE.search(match.group("expr")):
        return None
    expression, value = _unwrapped(match.group("expr").strip()), match.group("value")
    decimals = len(value.partition(".")[2]) if "e" not in value else 0
    # the working, and the exact value only when it is short: ten decimals are noise to a reader
    exact = f"{expression} = {value}" if decimals <= MONEY_EXACT_DECIMALS else expression
    each = " each" if _SHARE_ASKED_RE.search(question) and _DIVIDED_LAST_RE.search(expression) else ""
    if match.group("money") and match.group("about"):
        return f"That comes to about {match.group('money')}{each} ({exact})."
    if match.group("money"):  # cents exactly: "That comes to $9.10 (45.50 * 20 / 100)."
        return f"That comes to {match.group('money')}{each} ({expression})."
    percent = "%" if _PERCENT_ASKED_RE.search(question) and _TIMES_100_RE.search(expression) else ""
    about = ""
    if decimals > SHOWN_DECIMALS and not _ROUNDED_AS_ASKED_RE.match(expression):
        about, value = "about ", _two_decimals(value)
    working = f" ({exact})" if about else ""
    if percent and value.startswith("-") and _FALL_ASKED_RE.search(question):
        # "By what percent did it fall?": by 16%, not by -16%
        return f"The answer is a decrease of {about}{value[1:]}%{working}."
    return f"The answer is {about}{value}{percent}{working}."


_SHARE_ASKED_RE = re.compile(
    r"\b(?:split|share[sd]?|divided?|divvy)\b[^.?!]*\b(?:among|between|amongst|evenly|equally|ways)\b"
    r"|\b(?:each|every)\s+(?:one|person|of\s+(?:us|them|you))\b|\bper\s+(?:person|head|people)\b"
    r"|\bdoes\s+each\b|\beach\s+(?:pay|owes?|gets?|get|put\s+in)\b",
    re.IGNORECASE,
)
"""A question asking one person's share of an amount ("Split a $85 bill among 3 people", "How much does each
person pay?"): money worked out by a division last is said "each"."""
_DIVIDED_LAST_RE = re.compile(r"/\s*\d+(?:\.\d+)?\s*\)*\s*$")
"""Arithmetic whose last step divides by a number (an amount shared: "(180 / 4)")."""
_FALL_ASKED_RE = re.compile(
    r"\b(?:fall|fell|fallen|drop|dropped|decrease|decreased|decline|declined|shrink|shrank|shrunk|go down|"
    r"went down|gone down|lose|lost|cheaper|reduced|cut)\b",
    re.IGNORECASE,
)
"""A question asking by how much something went down: its percent change is said without a minus."""


def _as_said(value: str) -> str:
    """A number as people say it: more than :data:`SHOWN_DECIMALS` decimals rounded ("about 2.14")."""
    decimals = len(value.partition(".")[2]) if re.fullmatch(r"-?[\d,]+\.\d+", value) else 0
    return value if decimals <= SHOWN_DECIMALS else f"about {_two_decimals(value)}"


def _two_decimals(value: str) -> str:
    """``value`` rounded to two decimals, trailing zeros dropped ("14.3103448276" → "14.31")."""
    return f"{float(value.replace(',', '')):,.2f}".rstrip("0").rstrip(".")


MONEY_EXACT_DECIMALS = 4
"""A value with at most this many decimals is shown exactly next to its rounding ("about $39.68 (… =
39.675)"); a longer one only as its expression ("about 63.62 (pi * 4.5 ** 2)")."""


def _unwrapped(expression: str) -> str:
    """``expression`` without a pair of parentheses around all of it ("(415 / 29)" → "415 / 29")."""
    while expression.startswith("(") and expression.endswith(")"):
        depth = 0
        for i, char in enumerate(expression):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and i < len(expression) - 1:
                return expression  # "(a) * (b)": the first pair closes early
        expression = expression[1:-1].strip()
    return expression


ONE_SENTENCE_MAX_TOKENS = 60
"""Styled answer shapes with at most this budget are one sentence (brief, formal), as the plain one is; the
others explain."""


def answer_shape(style: str) -> tuple[str, int]:
    """The instruction and token budget of an answer from results, for a node's response style.

    A 135M model cannot follow a paragraph about tone, but it can follow one short instruction
    and a length budget; the final-answer check still guards the content.
    """
    lowered = style.lower()
    for words, instruction, budget in _SHAPES:
        if any(w in lowered for w in words):
            return instruction, budget
    return ANSWER_FROM_RESULTS, ANSWER_MAX_TOKENS


def required_parameters(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A tool's required arguments (those its schema describes), in order: name → JSON schema."""
    params = tool_function(schema).get("parameters") or {}
    props: Mapping[str, Any] = params.get("properties") or {}
    return {k: props[k] or {} for k in params.get("required") or [] if k in props}


def sole_string_parameter(schema: Mapping[str, Any]) -> str | None:
    """The parameter name when a tool takes exactly one required argument and it is a string."""
    required = required_parameters(schema)
    if len(required) != 1:
        return None
    (name, spec), *_ = required.items()
    return name if spec.get("type", "string") == "string" else None


def sole_number_list_parameter(schema: Mapping[str, Any]) -> str | None:
    """The parameter name when a tool takes exactly one required argument and it is a list of numbers
    (``statistics(numbers)``)."""
    required = required_parameters(schema)
    if len(required) != 1:
        return None
    (name, spec), *_ = required.items()
    items = spec.get("items") or {}
    return name if spec.get("type") == "array" and items.get("type") in ("number", "integer") else None


MAX_RANGE_NUMBERS = 1000
"""The longest run of whole numbers a range in words ("from 1 to 100") is read as, for a list argument."""
_RANGE_RE = re.compile(
    r"(?:\b(?:from|of)\s+)(?P<a>\d+)\s*(?:to|through|thru|till|until|[-–])\s*(?P<b>\d+)\b(?![.,]\d)"
    r"|\b(?P<c>\d+)\s+(?:through|thru)\s+(?P<d>\d+)\b(?![.,]\d)",
    re.IGNORECASE,
)
"""A range of whole numbers in words: "the sum of 1 through 10", "the numbers from 1 to 100"."""
_OF_A_RANGE_RE = re.compile(
    r"\b(?:sum|total|add(?:ed)?(?:\s+up)?|average|mean|median|numbers|integers)\b", re.IGNORECASE
)
"""Words that make a range in words the data ("the sum of 1 to 10"), not two ends ("from 1 to 100 km")."""


def listed_numbers(question: str) -> list[int | float]:
    """Every number of ``question`` in order, repeats kept ("the mode of 3, 7, 7, 2" is 3, 7, 7, 2): a
    list argument a small model would copy without its repeats or with one left out. A range of whole
    numbers in words that a sum or an average is asked of ("the sum of 1 through 10", "the average of the
    numbers from 1 to 100") is every number of it, up to :data:`MAX_RANGE_NUMBERS` of them."""
    written = digits_written(question)
    match = _RANGE_RE.search(written)
    if match and _OF_A_RANGE_RE.search(written):
        low, high = (
            int(n) for n in (match.group("a") or match.group("c"), match.group("b") or match.group("d"))
        )
        if 0 < high - low < MAX_RANGE_NUMBERS and len(NUMBER_RE.findall(written)) == 2:
            return list(range(low, high + 1))
    found = NUMBER_RE.findall(written)
    return [float(n) if "." in n else int(n) for n in found]


_LOCATOR_WORDS = frozenset(
    {"path", "file", "filename", "filepath", "url", "uri", "link", "dir", "directory", "folder"}
)
"""Parameter-name words of a string that locates something (a file, a page)."""
_LOCATOR_FORMATS = frozenset({"uri", "uri-reference", "iri", "iri-reference", "path"})
_LOCATOR_RE = re.compile(
    r"(?<![\w/\\~.-])(?:https?://\S+|[\w~.-]*[/\\][\w~./\\-]*\w|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4})(?![\w/\\])"
)
"""Something in a message that can be a path or address: ``a/b``, ``C:\\x``, ``notes.md``, a URL."""


def locator_parameter(schema: Mapping[str, Any]) -> str | None:
    """The tool's sole required string parameter when it locates something: its name says path,
    file, url, ... (``read_doc(path)``, ``fetch(page_url)``) or its schema format is ``uri``."""
    name = sole_string_parameter(schema)
    if name is None:
        return None
    spec = required_parameters(schema)[name]
    words = set(re.split(r"[^a-z]+", name.lower()))
    return name if words & _LOCATOR_WORDS or spec.get("format") in _LOCATOR_FORMATS else None


def locator_in(text: str) -> str | None:
    """The first path, file name or URL written in ``text`` (None without one)."""
    match = _LOCATOR_RE.search(text)
    return match.group(0).rstrip(".,;:!?") if match else None


def takes_no_input(schema: Mapping[str, Any]) -> bool:
    """Whether a tool has no parameters at all (its result cannot depend on the question)."""
    return not ((tool_function(schema).get("parameters") or {}).get("properties") or {})


_NUMBER_TYPES = ("number", "integer")
_ASKED_RE = re.compile(r"\b(?:what|which|how many|how much)\s+([a-z]+)", re.IGNORECASE)


_SAME_NAMES = {
    "average": "mean", "avg": "mean", "minimum": "min", "smallest": "min", "lowest": "min", "maximum": "max",
    "largest": "max", "biggest": "max", "highest": "max", "total": "sum", "spread": "range",
    "std": "standard", "dev": "deviation", "stdev": "standard deviation", "sd": "standard deviation",
}  # fmt: skip
"""Words a question may use for an entry's name."""


def asked_entries(result: str, question: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` entries of a result listing named values that the question names ("the
    average of ..." names ``mean: 25``; "standard deviation" names the sample and the population
    ones); [] for any other result, or when it names none."""
    entries = named_values(result)
    if not entries:
        return []
    known = {w for name, _ in entries for w in name.lower().split()}
    words = " ".join(
        _SAME_NAMES.get(w, w) if w in _SAME_NAMES or w in known else _spelt_as(w, known)
        for w in re.findall(r"[a-z]+", question.lower())
    )
    chosen = []
    for name, value in entries:
        parts = name.lower().split()
        names = {" ".join(parts)} | ({" ".join(parts[1:])} if len(parts) >= 3 else set())
        if any(re.search(rf"\b{re.escape(n)}\b", words) for n in names):
            chosen.append((name, value))
    return chosen


def _spelt_as(word: str, known: set[str]) -> str:
    """The one word of ``known`` that ``word`` (five letters or more) misspells by one letter changed,
    added, dropped or two swapped ("medain" → "median"); else ``word``."""
    if len(word) < 5:
        return word
    near = [k for k in known if len(k) >= 5 and _one_edit_apart(word, k)]
    return near[0] if len(near) == 1 else word


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one substitution, insertion, deletion or adjacent swap."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) != 2:
            return len(diff) == 1
        i, j = diff
        return j == i + 1 and (a[i], a[j]) == (b[j], b[i])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def asked_quantities(question: str) -> set[str]:
    """The (stemmed) words a question asks for: the word after "what", "which", "how many", "how much"."""
    return {stem(m.group(1).lower()) for m in _ASKED_RE.finditer(question)}


def takes_asked_quantity(schema: Mapping[str, Any], asked: set[str]) -> bool:
    """Whether one of the tool's required number arguments is what the question asks for.

    Names match by stem, or when one is a prefix of the other of at least five letters
    ("percent" and "percentage").
    """
    names = {
        stem(k.lower())
        for k, spec in required_parameters(schema).items()
        if spec.get("type") in _NUMBER_TYPES
    }
    return any(
        a == n or (min(len(a), len(n)) >= 5 and (a.startswith(n) or n.startswith(a)))
        for a in asked
        for n in names
    )


def usable_tools(
    options: list[Mapping[str, Any]], question: str, *, matched: bool
) -> list[Mapping[str, Any]]:
    """``options`` without the tools the question gives nothing to (possibly none).

    A tool whose only argument locates something (a path, a URL) is left out when the question
    names no such thing: given the whole question as a path it can only fail. A tool that takes
    a list of numbers is left out when the question writes fewer than two: a list of one is no
    list ("5! = ?" is not ``statistics([5])``); so is one taking more numbers than the question
    writes (they could only be invented or repeated: "how do I change the port?" is no
    ``percent_change(100, 200)``, "I'm 30 years old" no ``percent_change(30, 30)``).
    When no tool matched the question's words (``matched`` false) and it has words of its own, a
    tool taking no input is left out too: its answer cannot be about them.
    """
    kept = [t for t in options if locator_parameter(t) is None or locator_in(question)]
    if len(numbers_in(question)) < 2:
        kept = [t for t in kept if not takes_number_list(t)]
    written = len(NUMBER_RE.findall(digits_written(question)))
    kept = [t for t in kept if number_arguments(t) <= written]
    if not matched and tokenize(question, digits=False):
        kept = [t for t in kept if not takes_no_input(t)]
    return kept


def number_arguments(schema: Mapping[str, Any]) -> int:
    """How many of the tool's required arguments are numbers or lists of numbers."""
    return sum(
        1
        for spec in required_parameters(schema).values()
        if spec.get("type") in _NUMBER_TYPES
        or (spec.get("type") == "array" and (spec.get("items") or {}).get("type") in _NUMBER_TYPES)
    )


def takes_number_list(schema: Mapping[str, Any]) -> bool:
    """Whether one of the tool's required arguments is a list of numbers."""
    return any(
        spec.get("type") == "array" and (spec.get("items") or {}).get("type") in _NUMBER_TYPES
        for spec in required_parameters(schema).values()
    )


_LIST_RE = re.compile(
    rf"{NUMBER_RE.pattern}(?:(?:\s*[,;&]\s*|\s+(?:and|or)\s+|\s+){NUMBER_RE.pattern})+", re.IGNORECASE
)
"""Two or more numbers one after the other, apart by commas, "and"/"or" or spaces only."""


def writes_a_list(question: str) -> bool:
    """Whether ``question`` writes two or more numbers one after the other ("12, 15 and 19", "4 8 15"),
    as a list is written, rather than apart in its sentences ("30 pages a minute: in 5 minutes?")."""
    return _LIST_RE.search(digits_written(question)) is not None


def required_count(schema: Mapping[str, Any]) -> int:
    """How many arguments a tool requires."""
    return len(required_parameters(schema))


def fewest_arguments(options: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Among tools that fit a question about equally well, the ones needing the fewest arguments.

    "What's the time in Cairo?" matches ``current_time(location)`` and ``convert_time(time, from, to)``
    equally; the simpler reading wins, as it would for a person.
    """
    if len(options) < 2:
        return options
    fewest = min(required_count(t) for t in options)
    return [t for t in options if required_count(t) == fewest]


def in_roles(schema: Mapping[str, Any]) -> bool:
    """Whether a tool's required arguments are two or more numbers, each in its own role."""
    return number_arguments(schema) >= 2 and number_arguments(schema) == required_count(schema)


def reader_for_roles(
    options: list[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """``options``, or the agent's tool that reads the question itself (one required string, not a
    path) when every option needs two or more numbers, each in its role: a small model fills them in
    the sentence's order ("What percentage of 240 is 54?" gave ``percentage(part=240, whole=54)``;
    "Increase 1,250 by 12%" ``percent_change(old=1250, new=12)``), where a reader takes the roles
    from the words."""
    roles = [t for t in options if in_roles(t)]
    if not options or len(roles) != len(options):
        return options
    readers = [t for t in tools if sole_string_parameter(t) is not None and locator_parameter(t) is None]
    return readers[:1] or options


def has_no_required_arguments(schema: Mapping[str, Any]) -> bool:
    """Whether a tool can be called with ``{}``."""
    return not required_parameters(schema)


CHAT_SYSTEM = "You are a friendly assistant. Reply in one or two short sentences."
"""System prompt of a reply without tool results (a node's long prompt is echoed by a small model)."""
OWN_ANSWER_NOTE = (
    "\n\n(No tool here covers this: it is the small offline model's own answer, which may be wrong.)"
)
"""Said after the embedded model's own answer to a question of facts no tool answered."""
_SENTENCE_DONE_RE = re.compile(r"[.!?][)\"'”’]*(?=\s)")
_LAST_SENTENCE_DONE_RE = re.compile(r"[.!?][)\"'”’]*(?=\s|$)")


def finished_sentences(text: str, *, whole: bool = False) -> tuple[str, str]:
    """``text`` split after its last finished sentence (one whose end a space follows, or the text's end when
    it is ``whole``, not a stream's part): what is said, and the rest (an unfinished sentence, or "")."""
    ends = [m.end() for m in (_LAST_SENTENCE_DONE_RE if whole else _SENTENCE_DONE_RE).finditer(text)]
    return (text[: ends[-1]], text[ends[-1] :]) if ends else ("", text)


_FACT_ASKED_RE = re.compile(
    r"^\W*(?:who|whom|whose|what|what's|whats|when|where|which|why|how|is|are|was|were|does|do|did|can|could"
    r"|will|would|should|has|have|had|tell me (?:about|who|what|when|where|why|how))\b",
    re.IGNORECASE,
)
"""A question asking for facts (not a request to write a joke or a poem)."""
CHAT_MAX_TOKENS = 60
"""Tokens a reply without tool results may produce (small models ramble and repeat)."""
ANSWER_MAX_TOKENS = 80
"""Tokens an answer from tool results may produce."""
CHAT_REPEAT_PENALTY = 1.3
"""Repeat penalty of replies without results (nothing to copy, so nothing to alter)."""


_AGENT_LABEL_RE = re.compile(r"^(?P<label>[^:]{1,40}?)\s+agent:\s*", re.IGNORECASE)
_CAPABILITY_RE = re.compile(
    r"\b(?:what (?:else )?(?:can|could) (?:you|i ask)|(?:can|could) you (?:do|help)\b|what do you do|"
    r"what are you (?:able|good)|"
    r"how (?:can|could) you help|help me with|what are your (?:skills|capabilities|features)|"
    r"who are you|what are you\b(?! doing)|tell me about yourself|introduce yourself|"
    r"what (?:should|do|can) i call you|what(?:'s| is) your name|anything i should know)",
    re.IGNORECASE,
)
_IDENTITY_RE = re.compile(
    r"\b(?:who are you|who am i (?:talking|speaking|chatting) (?:to|with)|what are you\b(?! doing)"
    r"|tell me (?:a (?:bit|little) )?about (?:yourself|urself)|"
    r"introduce yourself|what (?:should|do|can) i call you|what(?:'s| is) your name"
    r"|are you (?:an? )?(?:robot|bot|human|person|real person|ai|machine|computer|program|chatbot|real"
    r"|language model|llm|chatgpt|gpt(?:-?\d[\w.-]*)?|claude|gemini|siri|alexa|copilot))",
    re.IGNORECASE,
)
_MAKER_RE = re.compile(
    r"\bwho (?:made|built|created|developed|programmed|wrote|trained|designed) (?:you|u)\b|"
    r"\byour (?:maker|creator|developer|author)\b|\bwhere (?:do|did) (?:you|u) come from\b",
    re.IGNORECASE,
)
"""A question about who made the assistant: answered with what it is built with (never a made-up maker)."""
CAPABILITY_MAX_CHARS = 120
"""A capability is said in at most this many characters: its description's leading clauses."""


def brief(description: str) -> str:
    """A description's leading clauses within :data:`CAPABILITY_MAX_CHARS`, brackets left out."""
    text = " ".join(re.sub(r"\s*\([^)]*\)", "", description).split()).rstrip(" .")
    clauses = text.split(", ")
    kept = clauses[0]
    for clause in clauses[1:]:
        if len(kept) + 2 + len(clause) > CAPABILITY_MAX_CHARS:
            break
        kept = f"{kept}, {clause}"
    return kept


def capabilities_in(system: str) -> list[str]:
    """The capabilities listed in a final-answer prompt, each brief ("Calculator: evaluates arithmetic
    expressions exactly, percentages, ...")."""
    return [
        brief(_AGENT_LABEL_RE.sub(lambda m: f"{m.group('label')}: ", text, count=1))
        for text in listed_under(system, CAPABILITIES_HEADER)
    ]


LIVE_DATA_RE = re.compile(
    r"\b(?:weather|forecast)\b.*\b(?:today|tonight|tomorrow|now|like|this week|this weekend|there|outside"
    r"|(?-i:in [A-Z]\w+))\b|\b(?:weather|forecast) (?:for|in|at|there|today|tomorrow)\b"
    r"|\b(?:will|is) it (?:going to )?(?:rain|snow|be sunny|be cold|be hot|be warm|raining|snowing)\b"
    r"|\bis it (?:sunny|cloudy|windy|foggy|stormy|rainy|snowy|cold|hot|warm|freezing|humid)\b"
    r"|\b(?:latest|today'?s|breaking|current) (?:news|headlines)\b|\bwhat'?s (?:in )?the news\b"
    r"|^\W*(?:the\s+)?(?:weather|forecast|news|headlines)\W*$"
    r"|\b(?:stock|share) price\b|\b(?:current|today'?s|latest) exchange rate\b"
    r"|\bexchange rate (?:today|now)\b"
    r"|\bprice of (?:bitcoin|ethereum|gold|oil|a share)\b"
    r"|\b(?:score|result) of (?:the|last night'?s|yesterday'?s|today'?s) (?:game|match)\b"
    r"|\bwho won (?:the )?(?:game|match) (?:last night|yesterday|today)\b"
    r"|\btraffic (?:like|on|in|today|now)\b"
    r"|\bwho(?: is|'s|’s) (?:the )?(?:current |new )?(?:president|prime minister|premier|chancellor"
    r"|king|queen|monarch|head of (?:state|government)|leader|ruler|mayor|governor|ceo|pope)\b",
    re.IGNORECASE,
)
"""A question for live data (today's weather, news, prices, scores, traffic, who holds an office now): no
built-in tool fetches it, so the embedded model's reply says so instead of inventing it (a tool that does
fetch it gets the question by its words before this is asked)."""


_LANGUAGE = (
    r"(?:english|spanish|french|german|italian|portuguese|dutch|russian|chinese|mandarin|cantonese|japanese|"
    r"korean|arabic|hindi|turkish|polish|swedish|norwegian|danish|finnish|greek|hebrew|latin|swahili|"
    r"vietnamese|thai|indonesian|ukrainian|czech|hungarian|romanian)"
)
TRANSLATION_RE = re.compile(
    r"\btranslat(?:e|ion|ing)\b"
    rf"|\bhow (?:do|would|can) (?:you|i|we) (?:say|write|spell)\b[^?]*\bin {_LANGUAGE}\b"
    rf"|\bwhat(?:'s| is| does)\b[^?]*\b(?:in|mean in) {_LANGUAGE}\b(?!\s+(?:cities|history|food|time))",
    re.IGNORECASE,
)
"""A request to translate ("Translate 'hello' to Spanish", "How do you say thank you in French?"): no built-in
tool translates and a 135M model invents words, so its reply says so (a plugin that translates gets the
question by its words before this is asked)."""


_GIBBERISH_WORD_RE = re.compile(
    r"[^\W\d_]*(?:[bcdfghjklmnpqrstvwxz]{6}|([^\W\d_])\1{3})[^\W\d_]*", re.IGNORECASE
)
"""A "word" no language writes: six consonants in a row ("asdfghjkl") or one letter four times ("aaaa")."""


def _is_gibberish(text: str) -> bool:
    """Whether every word of ``text`` is keyboard mashing (:data:`_GIBBERISH_WORD_RE`): no question to
    answer, and a small model makes one up ("I'm here to help with any math or science-related questions")."""
    words = re.findall(r"\w+", text)
    return bool(words) and all(_GIBBERISH_WORD_RE.fullmatch(w) for w in words)


_CODE_RE = re.compile(
    r"^\s*(?:</?[a-z][^>]*>|(?:print|console\.log|alert|echo|printf)\s*\("
    r"|select\s+(?:\*|[\w.]+(?:\s*,\s*[\w.]+)*)\s+from\s+\w+|insert\s+into\s+\w+|delete\s+from\s+\w+"
    r"|update\s+\w+\s+set\s+\w+\s*=|(?:def|class)\s+\w+\s*[(:]"
    r"|import\s+[\w.]+(?:\s+as\s+\w+)?\s*;?\s*$|from\s+[\w.]+\s+import\s|#include\s*[<\"]"
    r"|function\s*\w*\s*\(|(?:var|let|const)\s+\w+\s*=)",
    re.IGNORECASE,
)
"""A message that is code, not a question ("print("hello")", "SELECT * FROM users;", "<script>...")."""


def outside_reply(capabilities: Sequence[str]) -> str:
    """The reply of an agent answering alone (the single mode) to a question none of its tools reads."""
    listed = "\n".join(f"- {c}" for c in capabilities)
    offer = f" I can help with:\n{listed}\nWhat would you like to know?" if listed else ""
    return f"That is outside what I can do here: none of my tools answers it.{offer}"


def outside_parts_note(parts: Sequence[str]) -> str:
    """The line an agent answering alone adds for the parts of a question none of its tools reads."""
    quoted = " and ".join(f'"{" ".join(p.split()).rstrip("?.! ")}"' for p in parts)
    verb = "is" if len(parts) == 1 else "are"
    return f"I couldn't answer all of it: {quoted} {verb} outside what I can do here."


_OTHER_LANGUAGE_TEXT = """el los las del qué cuál cuáles cómo dónde cuándo cuánto cuántos está hora
    por favor una muy tiene quel quelle quels comment combien pourquoi où
    est-ce c'est avec dans sont une heure merci bonjour wie viel viele spät ist
    wo wer warum und nicht eine mit für ich bitte danke welche hauptstadt che
    dove perché della sono cosa quanti ciao grazie qual quais é è são onde
    porque não uma você obrigado het een niet waar hoe wat"""
_OTHER_LANGUAGE_WORDS = frozenset(_OTHER_LANGUAGE_TEXT.split())
"""Common words of Spanish, French, German, Italian, Portuguese and Dutch that English does not use."""
_ENGLISH_TEXT = """the what which who how are of and to for with this that it you my do does can please time
    when where why tell me is there about many much"""
_ENGLISH_WORDS = frozenset(_ENGLISH_TEXT.split())
"""Common English words a message in English has and the languages above do not."""
FOREIGN_REPLY = (
    "I can only read English here: the embedded offline model knows no other language. Please ask in "
    "English (a hosted model, set with CADENCE_LLM, reads other languages)."
)
"""The embedded model's reply to a message in another language it cannot answer from a tool."""


def foreign_language_reply(question: str) -> str | None:
    """:data:`FOREIGN_REPLY` for a message in another language ("¿Cuál es la capital de Francia?", "Wie spät
    ist es in Berlin?": the small model had answered with made-up words), else None."""
    words = re.findall(r"[^\W\d_]+(?:[-'][^\W\d_]+)?", question.lower())
    other = sum(word in _OTHER_LANGUAGE_WORDS for word in words)
    english = sum(word in _ENGLISH_WORDS for word in words)
    foreign = (other >= 2 and other > english) or (question.lstrip()[:1] in ("¿", "¡") and english == 0)
    return FOREIGN_REPLY if foreign else None


_REMEMBERS_ASKED_RE = re.compile(
    r"^\W*(?:(?:can|do|will|would|could) (?:you|u) (?:remember|memori[sz]e|recall|keep track of|learn)"
    r"(?: (?:things|stuff|what i (?:say|tell you|said|told you)|this|that|me|our (?:chats?|conversations?)"
    r"|anything|facts about me|my (?:name|details|info)))?"
    r"|do (?:you|u) have (?:a |any )?(?:memory|long[- ]term memory)"
    r"|(?:is|are) (?:my (?:messages|chats?|conversations?|data)) (?:saved|stored|remembered|kept))"
    r"(?: (?:later|next time|between (?:chats|conversations|sessions)|across (?:chats|conversations)))?"
    r"[\s?!.]*$",
    re.IGNORECASE,
)
"""A question whether the assistant remembers what it is told ("Can you remember things?")."""
_ONLINE_ASKED_RE = re.compile(
    r"^\W*(?:(?:do|can) (?:you|u) (?:have (?:access to|an?)|access|use|browse|search|go on|connect to)"
    r" (?:the )?(?:internet|web|online|google|live data)(?: access| connection)?"
    r"|are (?:you|u) (?:connected to the internet|online|offline|connected))[\s?!.]*$",
    re.IGNORECASE,
)
"""A question whether the assistant reaches the internet ("Do you have access to the internet?")."""


def small_talk_reply(question: str, capabilities: Sequence[str]) -> str | None:
    """A reply to a greeting, thanks, goodbye, a question about what the assistant can do, a request to act
    no tool takes (:data:`cadence.text.ACTION_REQUEST_RE`), a request to translate (:data:`TRANSLATION_RE`)
    or a question for live data no tool fetches (:data:`LIVE_DATA_RE`), or None.

    A 135M model asked to chat invents a persona ("I'm enjoying a lazy afternoon at the beach") or
    skills it lacks ("recipes, fitness advice"); these replies say what the plugins offer instead.
    Anything else is left to the model.
    """
    text = " ".join(question.split())
    offer = ""
    if capabilities:
        listed = "\n".join(f"- {c}" for c in capabilities)
        offer = f"I can help with:\n{listed}\nWhat would you like to know?"
    if each_sentence(text, THANKS_RE, PRAISE_RE, PLEASANTRY_RE) and not each_sentence(
        text, GOODBYE_RE, THANKS_RE, PRAISE_RE, PLEASANTRY_RE
    ):
        return "You're welcome! Anything else I can help with?"
    if each_sentence(text, GOODBYE_RE, THANKS_RE, PRAISE_RE, PLEASANTRY_RE):
        return "Goodbye! Come back any time."
    if each_sentence(text, PRAISE_RE, PLEASANTRY_RE):
        return "Glad to help! Anything else I can help with?"
    if each_sentence(text, DISMISS_RE, THANKS_RE, PLEASANTRY_RE):
        return "No problem. Just ask whenever you need something."
    if each_sentence(text, CORRECTION_RE, NO_ALONE_RE, PLEASANTRY_RE):
        # "That's wrong": no new question; a small model made one of it ("10's wrong" for the calculator)
        return (
            "Sorry about that. Tell me what is wrong, or ask again with the details, and I'll work it out "
            "again."
        )
    if each_sentence(text, ACKNOWLEDGE_RE, PLEASANTRY_RE):
        return "OK. Anything else I can help with?"  # "OK", "Got it": a small model had made up a persona
    if each_sentence(text, GREETING_RE, PLEASANTRY_RE):
        lead = "I'm doing well, thank you!" if HOW_ARE_YOU_RE.search(text) else "Hello!"
        return f"{lead} {offer}" if offer else f"{lead} What would you like to know?"
    feeling = FEELING_RE.match(text)
    if feeling is not None:  # "I'm bored": a small model made it a fact ("You're bored.") or a persona
        lead = "Glad to hear it!" if feeling.group("good") else "Sorry to hear that."
        return f"{lead} {offer}" if offer else f"{lead} Anything I can help with?"
    if ABOUT_PERSONA_RE.match(text):
        # asked as a person: said plainly what it is, not a person invented ("I'm a 25-year old male")
        lead = "I'm an assistant, a program: no age, home, birthday or favourites of my own."
        return f"{lead} {offer}" if offer else f"{lead} What would you like to know?"
    if _REMEMBERS_ASKED_RE.match(text):
        # "Can you remember things?": a small model had claimed it "can do anything"
        return (
            "Yes: I remember what you tell me about yourself (your name, where you live, …) in this "
            "conversation, and in later ones when long-term memory is on (the default). Ask me to forget "
            'something at any time ("Forget my age.").'
        )
    if _ONLINE_ASKED_RE.match(text):
        # "Do you have access to the internet?": the tools here are offline
        lead = (
            "No: I work offline; nothing here browses the web or fetches live data such as the weather, "
            "news or prices."
        )
        return f"{lead} {offer}" if offer else lead
    if LIMITS_ASKED_RE.match(text):
        # "What can't you do?": a small model had claimed it helps "with anything, from planning a party"
        lead = (
            "I can't check live information (the weather, news or prices), browse the web, translate, or "
            "act outside this chat (timers, messages, music), and what no tool here covers I can only "
            "guess, with a small offline model."
        )
        return f"{lead} {offer}" if offer else lead
    if (ABOUT_ASSISTANT_RE.match(text) or _CAPABILITY_RE.search(text)) and offer:
        if _MAKER_RE.search(text):
            return f"I'm an assistant built with Cadence, an open-source multi-agent chat framework. {offer}"
        return f"I'm an assistant. {offer}" if _IDENTITY_RE.search(text) else offer
    if text and (not re.search(r"\w", text) or _is_gibberish(text)):  # "???", "asdfghjkl": nothing to answer
        lead = "I didn't catch a question there."
        return f"{lead} {offer}" if offer else f"{lead} What would you like to know?"
    if _CODE_RE.match(text) and "?" not in text:
        # code alone ("print("hello")"): nothing here runs it, and a small model offered to ("share your
        # code, I'll do my best")
        lead = "That looks like code, not a question: nothing here runs or checks code."
        return f"{lead} {offer}" if offer else f"{lead} What would you like to know?"
    if ACTION_REQUEST_RE.search(text):
        # no tool of the turn acts, and a small model pretends to ("I'm here to help you create a playlist")
        lead = (
            "I can't do things outside this chat, such as setting timers or reminders, playing music or "
            "sending messages: my tools answer questions."
        )
        return f"{lead} {offer}" if offer else lead
    if TRANSLATION_RE.search(text):
        lead = "I can't translate: no tool here does, and the small offline model here would guess the words."
        return f"{lead} {offer}" if offer else lead
    if LIVE_DATA_RE.search(text):
        # no tool of the turn fetches it, and a small model invents it ("sunny, 24 °C in Paris")
        lead = (
            "I can't check live information such as the weather, news, prices, scores or who holds an office "
            "now: no tool here fetches it."
        )
        return f"{lead} {offer}" if offer else lead
    return None


_TELLING_VERB_RE = re.compile(
    r"\b(?:is|are|was|were|am|have|has|had|costs?|paid|pay|earn(?:s|ed)?|spen[dt]|got|weighs?|takes?|took"
    r"|needs?|uses?|used|leaves?|left|starts?|started|ends?|owe|owes|make|makes|made)\b",
    re.IGNORECASE,
)
"""A verb that tells something ("the bill is", "we have", "it costs")."""


_RESTATED_RE = re.compile(r"^(?:You|Your)\b")


def acknowledged(restated: str) -> str:
    """Memory's restatement of what the user told, said as taken note of ("Your name is Sam." → "Got it:
    your name is Sam."; an echo alone read as a bot repeating the user); what memory did otherwise ("I've
    forgotten this: ...") as it is."""
    if not _RESTATED_RE.match(restated):
        return restated
    return f"Got it: {restated[0].lower()}{restated[1:]}"


def told_numbers_reply(message: str) -> str | None:
    """A reply to a statement with numbers that asks nothing ("We are 4 people and the bill is $180."): noted,
    and what to ask with it; None for anything else. A small model took it for a request ("as a cashier's
    assistant I can't assist with bill payments"); the next question is read with it
    (:func:`with_told_before`)."""
    text = " ".join(message.split())
    if not text or _MESSAGE_ASKS_RE.match(text) or not (numbers_in(text) or _CLOCK_TOLD_RE.search(text)):
        return None
    verb = _TELLING_VERB_RE.search(text)
    if verb is None:
        return None  # keywords ("Paris 2024"), not a statement
    if not re.search(r"\w", text[: verb.start()]):
        return None  # the verb opens it: an order ("Take 100, halve it, then add 10"), not a statement
    return "Noted. What would you like me to work out with it?"


_MY_THING_ASKED_RE = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|well|hey|hi)[ ,!]+)*(?:(?:do you know|do you remember|can you tell me) )?"
    r"(?:what(?:'s| is| are| was| were)|when(?:'s| is| was)) my (?P<what>[a-z][a-z' -]{0,30}?)[\s?!.]*$",
    re.IGNORECASE,
)
"""A question for a thing of the user's alone ("What's my name?", "When is my birthday?", "What are my
plans today?"): only what the user told can answer it."""
_TOLD_WORD_RE = re.compile(r"[a-z]{3,}")
_TOLD_ABOUT_SELF_RE = re.compile(
    r"^\W*(?:(?:hi|hey|hello|so|and|also|btw|actually|ok(?:ay)?|well)[ ,!]+)*"
    r"(?:i|i'm|i am|im|i've|my|call me)\b"
    r"|\b(?:my name is|i live|i'm from|i am from|i was born)\b",
    re.IGNORECASE,
)
"""An earlier message in which the user spoke of themselves ("I'm 30.", "Hi, my name is Ada")."""
_SELF_ASKED: tuple[tuple[re.Pattern[str], str, frozenset[str]], ...] = (
    (
        re.compile(
            r"^\W*(?:where (?:do|did) i (?:live|come from|grow up)|where am i (?:from|based)"
            r"|where(?:'s| is) my home)[\s?!.]*$",
            re.IGNORECASE,
        ),
        "where you live",
        SELF_TOPIC_WORDS["home"],
    ),
    (
        re.compile(r"^\W*(?:how old am i|when was i born)[\s?!.]*$", re.IGNORECASE),
        "how old you are",
        SELF_TOPIC_WORDS["age"],
    ),
)
"""Questions about the user asked without "my": what each asks, said to the user, and the words of a told
fact that may answer it."""


MAX_QUESTIONS_LISTED = 20
"""Most of the user's earlier questions a reply to "What have I asked so far?" lists (the latest ones)."""


def nothing_said_before_reply(question: str, messages: Sequence[BaseMessage]) -> str | None:
    """A reply to a message asking for the previous answer again ("Why?", "How did you get that?", "Say it
    again briefly") when nothing was asked before it; None otherwise. A small model had answered "Why?" on
    its own with made-up words."""
    if not asks_previous_again(question) or earlier_questions(messages, 1):
        return None
    return "There is no earlier answer in this conversation to go back to: ask me a question first."


def asked_before_reply(question: str, messages: Sequence[BaseMessage]) -> str | None:
    """A reply to a question about what the user asked earlier in the conversation (:data:`ASKED_BEFORE_RE`:
    the first question, the previous one, or all of them), from the conversation itself; None for any other
    question. A small model answered "What was my first question?" from the documents."""
    asked_re = ASKED_BEFORE_RE.match(" ".join(question.split()))
    if asked_re is None:
        return None
    asked = earlier_questions(messages, limit=10_000, literal=True)[::-1]  # oldest first
    if not asked:
        return "This is your first message in this conversation: you haven't asked anything before it."
    which = (asked_re.group("which") or asked_re.group("which2") or asked_re.group("when") or "").lower()
    if asked_re.group("just"):
        which = "last"
    if which in ("first", "at first"):
        return f"Your first question was: “{asked[0]}”"
    if which and which != "other":
        return f"Your previous question was: “{asked[-1]}”"
    shown = asked[-MAX_QUESTIONS_LISTED:]
    listed = "\n".join(f"{i}. {q}" for i, q in enumerate(shown, len(asked) - len(shown) + 1))
    count = f"{len(asked)} question{'' if len(asked) == 1 else 's'}"
    return f"Before this one, you asked {count}:\n{listed}"


def _since_forgetting(messages: Sequence[BaseMessage]) -> Sequence[BaseMessage]:
    """The messages after the last reply saying something the user told was forgotten
    (:data:`~cadence.conventions.FORGOTTEN_PREFIX`): what the user said of themselves before it no longer
    answers ("How old am I?" after "I'm 34 years old." and "Forget my age.")."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AIMessage) and message_text(message).startswith(FORGOTTEN_PREFIX):
            return messages[index + 1 :]
    return messages


def unknown_of_user_reply(question: str, messages: Sequence[BaseMessage]) -> str | None:
    """A reply to a question about the user that nothing told answers, or None.

    Asked "What's my name?" or "What do you know about me?" with no fact the user told (none remembered in
    the prompt, no earlier message of theirs in the conversation, no tool result), a small model answers
    as itself ("I'm Emily, a friendly AI"); the reply says it does not know and how to tell it.
    """
    since = _since_forgetting(messages)
    if any(_TOLD_ABOUT_SELF_RE.match(asked) for asked in earlier_questions(since, MAX_QUESTIONS_LISTED)):
        return None  # the user spoke of themselves earlier in the conversation: it may answer
    told = told_facts(_system_text(messages))
    text = " ".join(question.split())
    if WHAT_IS_KNOWN_RE.match(text):
        if told:
            return None
        return (
            "I don't know anything about you yet: you haven't told me about yourself. Tell me (your name, "
            "where you live, …) and I'll use it in my answers."
        )
    thing = _MY_THING_ASKED_RE.match(text)
    asked: tuple[str, frozenset[str]] | None = None
    if thing is not None:
        what = thing.group("what").strip()
        asked = (f"your {what}", frozenset(_TOLD_WORD_RE.findall(what.lower())))
    else:
        asked = next(((said, words) for pattern, said, words in _SELF_ASKED if pattern.match(text)), None)
    if asked is None:
        return None
    what, words = asked
    # told facts answer it when one has its words ("How old am I?" of "You were born on 3 May 1990.")
    if told and (not words or any(words & set(_TOLD_WORD_RE.findall(fact.lower())) for fact in told)):
        return None
    return f"I don't know {what}: you haven't told me. Tell me, and I'll use it in my answers."


@dataclass
class SmallModelPolicy:
    """Plans every call of a small model: prompt, grammar and output parsing (see the module docs)."""

    preroute: bool = True
    """Rank routes and tools lexically before the constrained call."""
    max_tokens: int | None = None
    """Tokens a call may produce (``None``: :data:`DEFAULT_MAX_TOKENS`)."""
    readers: Mapping[str, Reader] = field(default_factory=dict)
    """Bound tools' readers by tool name (:func:`cadence.sdk.reads`; a routing tool's: its agent's)."""
    argument_readers: Mapping[str, ArgumentReader] = field(default_factory=dict)
    """Bound tools' argument readers by tool name (:func:`cadence.sdk.reads_arguments`)."""

    def read_arguments(self, schema: Mapping[str, Any], question: str) -> dict[str, Any] | None:
        """The arguments the tool of ``schema`` takes for ``question`` by its argument reader, when it has
        one and they name every required argument and no other; None otherwise (a reader that raises is
        logged and read as None: the model fills them in)."""
        reader = self.argument_readers.get(tool_name(schema))
        if reader is None:
            return None
        try:
            read = reader(question)
        except Exception:
            logger.warning("argument reader failed", extra={"tool": tool_name(schema)}, exc_info=True)
            return None
        if not isinstance(read, Mapping):
            return None
        params = tool_function(schema).get("parameters") or {}
        known = set(params.get("properties") or {})
        if not set(required_parameters(schema)) <= set(read) or not set(read) <= known:
            return None
        return dict(read)

    def plan(self, messages: Sequence[BaseMessage], **kwargs: Any) -> Plan:
        """Decide the prompt, grammar and output parsing of one call (no model needed)."""
        tools: list[Mapping[str, Any]] = list(kwargs.get("tools") or [])
        tool_choice = kwargs.get("tool_choice")
        if isinstance(tool_choice, dict):
            tool_choice = tool_name(tool_choice)
        question, turn = current_turn(messages)
        question = asked_again(question, messages)
        results = tool_results(turn)
        if tools and all(is_route_tool(tool_name(t)) for t in tools):
            return self._plan_route(
                messages,
                tools,
                routing_question(question, messages),
                _has_agent_work(turn, results),
                failed=turn_routes(turn) if work_failed(turn) else None,
                tried=turn_routes(turn),
            )
        names = [tool_name(t) for t in tools]
        if FORWARD_TOOL in names and all(is_route_tool(n) or n == FORWARD_TOOL for n in names):
            return self._plan_supervisor(messages, tools, question, turn, results)
        remembered = [(name, value) for name, value in results if name == MEMORY_TOOL]
        if tools:  # an agent: the results of its own tools (another agent's failure before it is not one)
            results = [(name, value) for name, value in results if name in names]
        real = [t for t in tools if tool_name(t) != BACK_TOOL_NAME]
        if isinstance(tool_choice, str) and tool_choice not in ("auto", "none", "any", "required"):
            real = [t for t in real if tool_name(t) == tool_choice] or real
        if real and not results and tool_choice in (None, "auto") and is_small_talk(question):
            # thanks or a greeting said to an agent (the single mode's): said back, no tool called with it
            reply = asked_before_reply(question, messages) or small_talk_reply(
                question, capabilities_in(_system_text(messages))
            )
            if reply is not None:
                return Plan("text", [], None, [], [], 0, fixed=reply)
        if (
            real
            and not results
            and question
            and tool_choice in (None, "auto")
            and FINAL_REPLY_NOTICE in _system_text(messages)
            and not self.reads_any(real, question)
            and not self.reads_any(real, read_in_context(question, messages))
        ):
            # the single mode's agent asked what none of its tools reads: what memory holds answers it ("I'm
            # 30 years old.", "Forget my age.", "How old am I?"), else the reply says what the agent does
            # ("What time is it in Tokyo?" of the calculator), rather than a tool's error about what it reads
            if remembered:
                return self._plan_text(messages, question, remembered)
            return Plan(
                "text", [], None, [], [], 0, fixed=outside_reply(capabilities_in(_system_text(messages)))
            )
        if real and results and question and tool_choice in (None, "auto") and self.preroute:
            # a question asking several things, several of them this agent's: the next one not asked yet
            pending = next_own_part(question, real, turn, self.readers)
            if pending is not None and not own_calls_failed(turn, names):
                return self._plan_call(messages, real, pending, allow_text=False)
        if real and tool_choice != "none":
            if tool_choice == "auto":
                return self._plan_call(messages, real, question, allow_text=True)
            if tool_choice in ("any", "required") or not results:
                # asked to pick among several tools (the planner's alternatives), none of which the question
                # gives anything to: no call, rather than one whose arguments could only be made up
                decline = tool_choice in ("any", "required") and len(real) > 1
                return self._plan_call(messages, real, question, allow_text=False, may_decline=decline)
        if tools and results and question:
            system = _system_text(messages)
            answers = FINAL_REPLY_NOTICE in system or FORWARDED_REPLY_NOTICE in system
            if FORWARDED_REPLY_NOTICE in system and answer_shape(style_instruction(system))[1] > max(
                ANSWER_MAX_TOKENS, ONE_SENTENCE_MAX_TOKENS
            ):
                # a tone that explains (in the supervisor mode): the results go back, and the
                # synthesizer writes them in it
                answers = False
            if answers and not own_calls_failed(turn, names):
                # its reply is the final answer (the single mode) or may be forwarded as it is (the
                # supervisor mode), and nobody checks it: written as a final-answer node would when that
                # takes no generation (sentences as they are, a document's relevant sentences, one line per
                # result); else the results as they are, which a model's sentence could only get wrong
                written = self._plan_text(messages, question, said_results(turn, results))
                if written.fixed is not None and FINAL_REPLY_NOTICE in system:
                    # the single mode: the parts none of its tools reads are said to be outside what it does
                    parts = parts_asked(question)
                    outside = [p for p in parts if not self.reads_any(real, p)]
                    if outside and len(outside) < len(parts):
                        return replace(written, fixed=f"{written.fixed}\n\n{outside_parts_note(outside)}")
                if written.fixed is not None:
                    return written
            # An agent with results hands them back verbatim: a small model only degrades them,
            # and the final-answer node writes the answer.
            return Plan("text", [], None, [], [], 0, fixed="\n".join(value for _, value in results))
        return self._plan_text(messages, question, results)

    def _part_route(self, router: PreRouter, routes: Sequence[Mapping[str, Any]], part: str) -> str | None:
        """The route of one part of a question asking several: the first whose agent's tool surely reads it
        ("how many r's are in 'strawberry'?" shares no word with the text agent's description), else the
        best by words (:func:`best_route`)."""
        sure = (tool_name(t) for t in routes if reads_surely(self.readers.get(tool_name(t)), part))
        return next(sure, None) or best_route(router, part)

    def _with_place_talked_about(
        self, question: str, tools: Sequence[Mapping[str, Any]], messages: Sequence[BaseMessage]
    ) -> str:
        """``question`` asked of the place talked about before, when none of ``tools`` reads it alone and one
        reads it so ("What's the population density?" after the area of Japan: "... of Japan?"), else as it
        is."""
        place = previous_place(messages)  # first: most questions have none, and the readers cost more
        if not place or place.lower() in question.lower():
            return question
        readers = [self.readers.get(tool_name(t)) for t in tools]
        if not readers or None in readers or any(may_be_read(r, question) for r in readers):
            return question
        placed = f"{question.rstrip(' ?!.')} of {place}?"
        return placed if any(may_be_read(r, placed) for r in readers) else question

    def reads_any(self, tools: Sequence[Mapping[str, Any]], question: str) -> bool:
        """Whether one of ``tools`` may read ``question`` (:func:`~cadence.models.preroute.may_be_read`; a
        tool without a reader may read anything)."""
        return any(may_be_read(self.readers.get(tool_name(t)), question) for t in tools)

    def _plan_route(
        self,
        messages: Sequence[BaseMessage],
        tools: list[Mapping[str, Any]],
        question: str,
        has_agent_work: bool,
        *,
        failed: set[str] | None = None,
        tried: set[str] | None = None,
        revisit: bool = True,
    ) -> Plan:
        """The coordinator's route. ``failed``: the agents tried this turn when all their tool calls failed
        (the next shortlisted agent is tried); ``tried``: the agents routed to this turn (a question asking
        several things goes on to the agent of a part no agent tried yet; see the module docs); ``revisit``:
        an agent of several parts is routed to again for a part no call asked yet (off for the supervisor's
        agents, which work with their tools until they answer: every part of theirs in one visit)."""
        names = [tool_name(t) for t in tools]
        if FINALIZE_TOOL not in names:
            names.append(FINALIZE_TOOL)
        allowed = list(names)
        if self.preroute:
            routes = [t for t in tools if tool_name(t) != FINALIZE_TOOL]
            if has_agent_work:
                allowed = [FINALIZE_TOOL]
                if failed and routes:
                    ranked = PreRouter.from_tool_schemas(routes).rank(question)
                    untried = [n for n in PreRouter.shortlisted(ranked) if route_core(n) not in failed]
                    allowed = untried[:1] or allowed
                elif routes and len(parts := parts_asked(question)) > 1:
                    router = PreRouter.from_tool_schemas(routes)
                    done = tried or set()
                    pending = [self._part_route(router, routes, part) for part in parts]
                    untried = [n for n in pending if n is not None and route_core(n) not in done]
                    if not untried and revisit:
                        # several parts for one agent, which answered one ("What is 5 + 5 and what is
                        # 6 * 7?"): back to it for a part no call asked yet, at most once per part of its
                        _, turn = current_turn(messages)
                        visits = route_visits(turn)
                        unasked = unasked_parts(with_earlier_parts_values(parts, turn), turn)
                        again = [self._part_route(router, routes, part) for part in unasked]
                        untried = [
                            n for n in again if n is not None and visits[route_core(n)] < pending.count(n)
                        ]
                    allowed = untried[:1] or allowed
                elif routes:
                    # a calculation on a fact an agent found ("What's 10% of the population of Canada?"
                    # after the population): the calculation, with the fact's value, to the agent that
                    # reads it, once
                    _, turn = current_turn(messages)
                    # what the agents found: their tools' results, or (the supervisor's view) their answers
                    values = [value for _, value in tool_results(turn)]
                    answered = last_agent_answer(turn)
                    found = resolve_found(question, values or ([answered[1]] if answered else []))
                    if found != question:
                        router = PreRouter.from_tool_schemas(routes)
                        done = tried or set()
                        sure = [
                            n
                            for n in (tool_name(t) for t in routes)
                            if route_core(n) not in done and reads_surely(self.readers.get(n), found)
                        ]
                        route = sure[0] if sure else best_route(router, found)
                        if (
                            route is not None
                            and route_core(route) not in done
                            and may_be_read(self.readers.get(route), found)
                        ):
                            allowed = [route]
            else:
                # a follow-up giving another number is ranked as the question it asks ("And 20 miles?"
                # after "Convert 10 miles to km." fits the geo agent's "miles" as well as the calculator's)
                follow_up = is_follow_up(question)
                again = (
                    with_time_added(question, messages)
                    or with_another_number(question, previous_asked(messages))
                    if follow_up
                    else None
                )
                ranked = PreRouter.from_tool_schemas(routes).rank(again or question) if routes else []
                # small talk, or a request to forget what the user told (memory forgets it and says what:
                # "Forget my age." is no question for the docs agent, whose words "forget" and "age" fit)
                chat = is_small_talk(question) or FORGET_RE.match(" ".join(question.split())) is not None
                shortlist = PreRouter.shortlisted(ranked) if not chat else []
                # "there" read as the place it refers to ("What's the weather there?" after the time in Paris)
                # and a follow-up giving another number read by the tools as the question it asks
                read_as = (
                    resolve_place(question, there_place(question, messages))
                    if _THERE_RE.search(question)
                    else with_possessive_place(again or question, messages)  # "And its population?"
                )
                shortlist = readable_routes(
                    ranked,
                    shortlist,
                    read_as,
                    self.readers,
                    numbers=len(numbers_in(again or question)),
                    read=again is not None or not refers_back(read_as, messages),  # written out: alone
                )
                if (
                    shortlist
                    and "?" not in question
                    and len(_CLOCK_TOLD_RE.findall(question)) == 1
                    and not numbers_in(_CLOCK_TOLD_RE.sub(" ", question))
                    and told_numbers_reply(question) is not None
                ):
                    # a statement of one time of day and nothing to work out with it ("The meeting is at
                    # 3pm."): noted (the clock had been asked and failed), unless a tool surely reads it
                    shortlist = [n for n in shortlist if reads_surely(self.readers.get(n), question)]
                if not shortlist and is_follow_up(question) and not is_small_talk(question):
                    # "And in Paris?": nothing matches, so the previous turn's agent continues
                    # (by the route bound now: the previous turn may have run in the other mode).
                    earlier = same_route(previous_route(messages), names)
                    if (
                        earlier
                        and read_as != question
                        and not may_be_read(self.readers.get(earlier), read_as)
                    ):
                        earlier = None  # "What's the weather there?" after the time in Paris: no clock's
                    shortlist = [earlier] if earlier else []
                # Nothing overlaps: no agent fits (greetings, chit-chat) -> finalize.
                allowed = shortlist or [FINALIZE_TOOL]
        by_name = {tool_name(t): t for t in tools}
        lines = []
        for name in allowed:
            if name == FINALIZE_TOOL:
                lines.append(
                    f"- {FINALIZE_TOOL}: the answer is ready, or no agent fits (greetings, chit-chat)."
                )
            else:
                desc = str(tool_function(by_name[name]).get("description") or "")
                lines.append(f"- {name}: {desc.removeprefix(ROUTE_DESCRIPTION_PREFIX)}")
        system = (
            "You route the user's request to the best option. Options:\n"
            + "\n".join(lines)
            + "\nReply with the name of one option."
        )
        prompt = [
            {"role": "system", "content": system},
            {"role": "user", "content": question or "(no question)"},
        ]
        fixed = allowed[0] if len(allowed) == 1 else None
        return Plan("route", prompt, build_route_grammar(allowed), [], allowed, 16, fixed=fixed)

    def _plan_supervisor(
        self,
        messages: Sequence[BaseMessage],
        tools: list[Mapping[str, Any]],
        question: str,
        turn: Sequence[BaseMessage],
        results: Sequence[tuple[str, str]],
    ) -> Plan:
        """The supervisor's decision, never generated freely (see the module docs)."""
        routes = [t for t in tools if tool_name(t) != FORWARD_TOOL]
        if not _has_agent_work(turn, results):
            return self._plan_route(messages, routes, routing_question(question, messages), False)
        failed = turn_routes(turn) if work_failed(turn) else None
        tried = turn_routes(turn)
        answer = last_agent_answer(turn)
        if failed is None and answer is not None and answer[1].startswith(TOOL_ERROR_PREFIX):
            # the agent handed back its tool's error (its calls stay out of this view with
            # last_message): the next shortlisted agent, as when every call failed; with none left, the
            # error is forwarded (and explained there)
            plan = self._plan_route(messages, routes, question, True, failed=tried, tried=tried)
            if plan.fixed != FINALIZE_TOOL:
                return plan
        if len(question_parts(question)) > 1:
            # a question asking several things: the agent of each part, then the synthesizer writes
            # one answer from all their results (forwarding one agent's answer would drop the others)
            plan = self._plan_route(
                messages, routes, question, True, failed=failed, tried=tried, revisit=False
            )
            if plan.fixed != FINALIZE_TOOL or len(tried) > 1:
                return plan
        if failed is None and answer is not None and resolve_found(question, [answer[1]]) != question:
            # a calculation on the fact an agent found ("What's 10% of the population of Canada?" after the
            # population): the agent that works it out, before any answer is forwarded
            plan = self._plan_route(messages, routes, question, True, failed=None, tried=tried)
            if plan.fixed != FINALIZE_TOOL:
                return plan
        copied = copies_of([value for _, value in results])
        # a tone other than natural: a small model's agent cannot write in it, the synthesizer can
        toned = TONE_NOTICE in _system_text(messages)
        if answer is not None and not toned and " ".join(answer[1].split()) not in copied:
            forward = next(t for t in tools if tool_name(t) == FORWARD_TOOL)
            call = {"name": FORWARD_TOOL, "arguments": {"from_agent": answer[0]}}
            return Plan("call", [], None, [forward], [], 0, fixed=json.dumps(call, ensure_ascii=False))
        return self._plan_route(messages, routes, question, True, failed=failed, tried=tried)

    def _plan_call(
        self,
        messages: Sequence[BaseMessage],
        tools: list[Mapping[str, Any]],
        question: str,
        *,
        allow_text: bool,
        may_decline: bool = False,
    ) -> Plan:
        names = {tool_name(t) for t in tools}
        earlier = previous_result(messages)
        # the previous result of one of these tools, or of any when the question refers to it ("how
        # many weeks is that?" after the days between two dates)
        refers = (
            earlier is not None
            and (REFERENCE_RE.search(question) or _ITS_TAIL_RE.search(question)) is not None
        )
        stated = earlier[1] if earlier is not None and (earlier[0] in names or refers) else None
        if earlier is None:
            stated = previous_own_answer(messages)
        asked_before = previous_asked(messages)
        again = (
            with_operation_instead(question, messages)
            or with_time_added(question, messages)
            or with_another_number(question, asked_before)
            or with_another_period(question, asked_before)
        )
        value = result_value(stated) if stated is not None else None
        if value is None and stated is not None and _DAY_ASKED_RE.search(question):
            value = result_date(stated)  # "and what weekday is that?" after a date
        if value is None and (stated is not None or REFERENCE_RE.search(question)):
            # "What are its factors?" after "Is 91 prime?": a result said in a sentence is about the one
            # number the previous question asked of; "What is that in pounds?" after "I weigh 80 kg.": the
            # quantity the user stated
            value = number_asked_of(question, asked_before)
        if value is None and stated is not None and _CLOCK_FORMAT_ASKED_RE.search(question):
            # "What time is that in 12-hour format?" after the time in Tokyo: that clock time
            clock = _CLOCK_TIME_RE.search(stated)
            value = clock.group(0) if clock else None
        on_text = with_text_referred(question, messages)
        if on_text is not None:
            question = on_text  # "Now reverse it" after a text counted: that text reversed
        elif again is not None:
            question = again  # "what about 80?": the previous question with 80
        elif stated is not None and (unit_asked := in_unit_asked(question, asked_before)) != question:
            question = unit_asked  # "In miles?" after a distance: the distance asked in miles
        elif value is not None and not _owned_by_a_place(question, messages):
            question = resolve_reference(question, value)
        base = _system_text(messages)
        if (
            is_follow_up(question)
            or _THERE_RE.search(question)
            or (_COMPARES_RE.search(question) and _IS_IT_RE.search(question))
            or _DIFFERENCE_WITH_RE.search(question)
            or _AHEAD_OF_ONE_RE.match(question)
        ):
            # "And in Paris?", "What time is it there?" (after "I'm planning a trip to Tokyo."), "How many
            # hours ahead of London is that?" (after the time in Tokyo)
            question = resolve_place(
                question,
                there_place(question, messages) if _THERE_RE.search(question) else previous_place(messages),
            )
        question = with_possessive_place(question, messages)
        question = self._with_place_talked_about(question, tools, messages)
        _, turn = current_turn(messages)
        # what was found this turn: the tools' results, or (an agent the supervisor sent after another)
        # the answers before its own work
        values = [value for _, value in tool_results(turn)] or [
            message_text(m) for m in turn if isinstance(m, AIMessage) and not m.tool_calls and message_text(m)
        ]
        found = resolve_found(with_told_before(question, messages), values)
        question = part_for(
            resolve_told(found, told_facts(base)), tools, turn_answers(messages), asked_texts(turn)
        )
        options = tools
        rank_of: dict[str, int] = {}
        if self.preroute and len(tools) > 1:
            router = PreRouter.from_tool_schemas(tools)
            ranked = router.rank(question, ignore_shared=True)
            rank_of = {r.name: i for i, r in enumerate(ranked)}
            shortlist = router.shortlisted(ranked, ratio=TOOL_SHORTLIST_RATIO)
            # a tool taking a list of numbers that matched by the question's numbers alone needs
            # them written as a list: two numbers apart in a word problem are no list
            by_numbers = bool(shortlist) and ranked[0].number_only
            apart = by_numbers and not writes_a_list(question)
            no_list = [t for t in tools if takes_number_list(t)] if apart else []
            if not shortlist and is_follow_up(question):
                if earlier is not None and earlier[0] in names:
                    shortlist = [earlier[0]]
                elif before := previous_question(messages):
                    # the previous turn's results are not in this view (a supervisor's agent sees
                    # answers only): "what about Reykjavik?" asks what the previous question asked
                    shortlist = router.shortlisted(router.rank(before, ignore_shared=True))[:1]
            matched = [t for t in tools if tool_name(t) in shortlist and t not in no_list]
            # a tool taking no input answers the same whatever is asked: it stays only when it
            # covers most of what the question says ("which documents are available?"), not
            # when one word of it matched ("where do I set my plugin folder?")
            covered = router.coverage(question, ignore_shared=True)
            matched = [
                t for t in matched if not takes_no_input(t) or covered[tool_name(t)] >= NO_INPUT_COVERAGE
            ]
            # a tool taking the very quantity the question asks for cannot answer it ("45 is what
            # percent of 180" is not percent_of(percent=...)): the other tools compete
            asked = asked_quantities(question)
            matched = [t for t in matched if not takes_asked_quantity(t, asked)]
            # a tool whose reader is sure of the question takes it, whatever words the others share with it
            # ("The sum of two numbers is 20 and their difference is 4": the calculator, not statistics)
            sure = [t for t in tools if reads_surely(self.readers.get(tool_name(t)), question)]
            if len(sure) == 1:
                matched = sure
            # a tool whose reader refuses the question cannot take it (:func:`cadence.sdk.reads`: "What
            # time will it be in Tokyo in 3 hours?" is no time difference): another one its words fit, even
            # less well, goes instead; with none, they are called as before (the failure hands the question
            # to the next agent: "How many days between 2026-01-01 and 2026-12-31?" is no list to summarise)
            unread = [t for t in tools if not may_be_read(self.readers.get(tool_name(t)), question)]
            if unread:
                fitting = {r.name for r in ranked if r.score > 0 and not r.number_only}
                readable = (
                    [t for t in matched if t not in unread]
                    or [t for t in tools if tool_name(t) in fitting and t not in unread and t not in no_list]
                    # no word fits any: the tools that say they read it ("When is Easter?": the calendar's)
                    or [
                        t
                        for t in tools
                        if t not in unread and t not in no_list and tool_name(t) in self.readers
                    ]
                )
                if readable:
                    matched = readable
                else:
                    unread = []
            candidates = usable_tools(matched, question, matched=True)
            if not candidates:
                # nothing matched, or only tools the question gives nothing to: the others compete
                rest = [t for t in tools if t not in matched and t not in no_list and t not in unread]
                usable = usable_tools(rest, question, matched=False)
                if not usable and may_decline:
                    return Plan("text", [], None, [], [], 0, fixed="")
                candidates = usable or rest or matched
            # the candidates fit about equally well: the simplest reading wins
            options = fewest_arguments(candidates)
            options = reader_for_roles(options, tools)
            if may_decline and all(takes_number_list(t) for t in options) and not writes_a_list(question):
                # an alternative after a failed call that only takes a list, for a question writing none
                # ("8 cents a page … 120 pages": the prices and counts are no data set to summarise)
                return Plan("text", [], None, [], [], 0, fixed="")
            if may_decline and all(in_roles(t) for t in options):
                # no tool here reads the question, and these need its numbers in roles a small model
                # fills in the sentence's order ("6 is 44.44% of 13.5" for a pizza order): none
                return Plan("text", [], None, [], [], 0, fixed="")
        # Arguments with no free choice are decided here: a tool's only string argument is the
        # user's whole message (a small model picks spans badly; tools should read natural
        # language) or, when it locates something, the path or URL the message names; a tool
        # without required arguments is called with {}.
        decided: dict[str, dict[str, Any]] = {}
        for t in options:
            sole = sole_string_parameter(t)
            listed = sole_number_list_parameter(t)
            read = self.read_arguments(t, question)
            if read is not None:
                decided[tool_name(t)] = read  # the tool's own reading of its arguments
            elif sole is not None:
                located = locator_in(question) if locator_parameter(t) else None
                # the question as asked, without how to answer it ("in one sentence" is no search word)
                decided[tool_name(t)] = {sole: located or without_style_request(question).strip()}
            elif listed is not None and len(numbers := listed_numbers(question)) > 1:
                decided[tool_name(t)] = {listed: numbers}
            elif has_no_required_arguments(t):
                decided[tool_name(t)] = {}
        tokens = self.max_tokens or DEFAULT_MAX_TOKENS
        mode: Mode = "auto" if allow_text else "call"
        if len(options) > 1 and rank_of and all(tool_name(t) in decided for t in options):
            # nothing left to generate but the choice, where a small model is near chance: a tool taking
            # the list of numbers the question writes ("162, 175, 181, 158 and 170 cm. What's the median
            # height?": statistics, which its words also fit), else the one its words fit best
            listed = [t for t in options if takes_number_list(t)] if writes_a_list(question) else []
            options = [min(listed or options, key=lambda t: rank_of.get(tool_name(t), len(rank_of)))]
        if len(options) == 1 and tool_name(options[0]) in decided and not allow_text:
            name = tool_name(options[0])
            fixed = json.dumps({"name": name, "arguments": decided[name]}, ensure_ascii=False)
            return Plan(mode, [], None, options, [], tokens, fixed=fixed)
        instructions = (
            "Tools:\n"
            + "\n".join(_describe_tool(t) for t in options)
            + '\nReply with one tool call as JSON: {"name": "<tool>", "arguments": {...}}. '
            "Copy the values from the user's message."
        )
        if allow_text:
            instructions += " If no tool is needed, answer in plain text instead."
        system = f"{base}\n\n{instructions}" if base else instructions
        # the model sees (and copies) the question's numbers in digits, as the grammar offers them:
        # it copies "10" from "what's 10 percent of 250" but not from "what's ten percent of 250"
        written = digits_written(question)
        prompt = [
            {"role": "system", "content": system},
            {"role": "user", "content": written or "(no question)"},
        ]
        grammar = build_tool_grammar(
            options,
            source_text=written,
            allow_text=allow_text,
            decided=decided,
            numbers=numbers_in(question),
        )
        return Plan(mode, prompt, grammar, options, [], tokens)

    def _plan_text(
        self, messages: Sequence[BaseMessage], question: str, results: list[tuple[str, str]]
    ) -> Plan:
        if not question:
            results = []
        system_text = _system_text(messages)
        style = style_instruction(system_text)
        if results:
            # A compact instruction replaces the node's system prompt: a 135M model follows long
            # prompts poorly (e.g. "you do not know the time" makes it refuse) and echoes them.
            shape, budget = answer_shape(style)
            facts = "\n".join(plain_results(value) for _, value in results)
            told = not _MESSAGE_ASKS_RE.match(question) and all(
                result_tools(name, value) == {MEMORY_TOOL} for name, value in results
            )
            if (
                shape == ANSWER_FROM_RESULTS
                and told
                and all(_SENTENCE_END_RE.search(f) for f in facts.splitlines())
            ):
                # a statement the user made, as memory restates it ("I weigh 70 kg." → "Got it: you weigh
                # 70 kg."; a small model had answered as itself: "I'm a 70-kilogram weightlifter.")
                return Plan("text", [], None, [], [], 0, fixed=acknowledged(" ".join(facts.split())))
            if shape == ANSWER_FROM_RESULTS and is_statement(facts):
                # the results already say it in sentences ("Lima, Peru is 18 hours behind Auckland. It is
                # 23:10 on Saturday ..."): a small model only drops or mixes up their parts; those of a
                # question asking several things follow its order (an agent may have asked the last first)
                lines = [line for line in facts.splitlines() if line.strip()]
                if len(lines) > 1 and len(question_parts(question)) > 1:
                    lines = in_question_order(lines, question)
                return Plan("text", [], None, [], [], 0, fixed=" ".join(" ".join(lines).split()))
            said = [line for line in facts.splitlines() if line.strip()]
            if shape == EXPLAIN_SHAPE and said and all(is_statement(line) for line in said):
                # an explanatory answer from results in sentences ("The capital of Japan is Tokyo."): the
                # results, in the question's order, whose working the final-answer check adds; a small
                # model's explanation had been made up ("Explanation: The answer is not provided.") or kept
                # one part of several ("The answer is: 4." of a word's vowels and consonants)
                if len(said) > 1 and len(question_parts(question)) > 1:
                    said = in_question_order(said, question)
                return Plan("text", [], None, [], [], 0, fixed=" ".join(" ".join(said).split()))
            stated = [measured_statement(line) or arithmetic_statement(line, question) for line in said]
            if shape in (EXPLAIN_SHAPE, STEPS_SHAPE) and said and all(stated):
                # an explanatory answer or one in steps from worked-out results ("12 * 12 = 144"): said as
                # sentences, the working or the steps added by the final-answer check; a small model's had
                # padded it ("That's a total of 144 in total.") or made up its steps (2 s)
                return Plan("text", [], None, [], [], 0, fixed=" ".join(s for s in stated if s))
            if shape != ANSWER_FROM_RESULTS and budget <= ONE_SENTENCE_MAX_TOKENS and is_one_sentence(facts):
                # a brief or formal answer from a result that is one short sentence already ("The capital of
                # Germany is Berlin."): a small model only wraps it ("The answer to this question is: ...")
                return Plan("text", [], None, [], [], 0, fixed=" ".join(facts.split()))
            if any(len(plain_results(v)) > STATEMENT_MAX_CHARS or cites_passages(v) for _, v in results):
                # documents (search passages): a small model picks the wrong lines or invents ("Cadence
                # can answer in any tone."); the sentences most about the question are the answer
                quoted = relevant_sentences(facts, without_style_request(question), or_passages=False)
                if quoted:
                    return Plan("text", [], None, [], [], 0, fixed=quoted)
            found_ok = successful_results([v for _, v in results])
            one_sentence = shape == ANSWER_FROM_RESULTS or budget <= ONE_SENTENCE_MAX_TOKENS
            if len(found_ok) == 1 and _FRACTION_RESULT_RE.match(found_ok[0].strip()) and one_sentence:
                # a fraction ("9/4 = 2 1/4", "1/3 + 1/4 = 7/12"): a small model says its whole part alone
                # ("The answer is 2.")
                return Plan("text", [], None, [], [], 0, fixed=f"{found_ok[0].strip()}.")
            measured = measured_statement(found_ok[0]) if len(found_ok) == 1 else None
            if measured is not None and one_sentence:
                # a conversion ("72 °F = 22.22 °C (exactly ...)"): a small model drops the units ("The
                # answer is 22.22.") or the person ("I'm 175.26 cm tall")
                return Plan("text", [], None, [], [], 0, fixed=measured)
            # a follow-up is said as the question it stands for ("And 5/8?" after "What's 3/4 as a
            # percentage?" asks a percentage)
            asked = with_another_number(question, previous_asked(messages)) or question
            worked = arithmetic_statement(found_ok[0], asked) if len(found_ok) == 1 else None
            on_found = arithmetic_statement(found_ok[-1], asked) if len(found_ok) == 2 else None
            if (
                on_found is not None
                and one_sentence
                and len(question_parts(question)) == 1  # not "What's 25% of 80 and the capital of Peru?"
                and resolve_found(question, found_ok[:1]) != question
            ):
                # a calculation on a fact found first ("10% of the population of Canada"): the fact, then
                # the calculation
                return Plan("text", [], None, [], [], 0, fixed=f"{' '.join(found_ok[0].split())} {on_found}")
            if worked is not None and one_sentence:
                # arithmetic ("(57 / 75 * 100) = 76", "= 39.675 (about $39.68)"): the value as people say
                # it, rounded with its exact value beside it, a percentage with its sign
                return Plan("text", [], None, [], [], 0, fixed=worked)
            if len(found_ok) == 1 and one_sentence and _NOTED_ARITHMETIC_RE.match(found_ok[0].strip()):
                # arithmetic with another reading beside it ("log(100) = 4.60517018599 (the natural
                # logarithm; in base 10, log10(100) = 2)"): as it is, the note is half the answer
                return Plan("text", [], None, [], [], 0, fixed=end_sentence(found_ok[0].strip()))
            entries = asked_entries(facts, question)
            if entries:
                # a result listing several named values ("count: 4; sum: 100; mean: 25; ..."): the ones
                # asked for, by name, not the whole list (the model picks a wrong one)
                said = "; ".join(f"the {name} is {_as_said(value)}" for name, value in entries)
                return Plan("text", [], None, [], [], 0, fixed=f"{said[0].upper()}{said[1:]}.")
            found = [" ".join(line.split()) for line in facts.splitlines() if line.strip()]
            several = len(question_parts(question)) > 1 or all(
                arithmetic_statement(v, question) for v in found
            )
            if shape == ANSWER_FROM_RESULTS and len(found) > 1 and several:
                # a message asking several things (or one calculation result per line: "15% of 80 and 25%
                # of 60"): one line per result, as found (a small model joins unrelated results into one
                # false sentence: "12% of 350 is 42, which is 20:38")
                found = in_question_order(found, question)
                said = [measured_statement(value) or value for value in found]  # "1 day is 86400 seconds."
                lines = [f"- {value}" if _SENTENCE_END_RE.search(value) else f"- {value}." for value in said]
                return Plan("text", [], None, [], [], 0, fixed="\n".join(["Here is what I found:", *lines]))
            prompt: list[dict[str, str]] = [
                {"role": "system", "content": shape},
                {"role": "user", "content": f"Question: {question}\n\nResults:\n{facts}"},
            ]
            tokens = min(self.max_tokens or budget, budget)
            return Plan("text", prompt, None, [], [], tokens)
        if question:
            # a follow-up is replied to as the question it stands for ("And tomorrow?" after the weather)
            asked = with_another_number(question, previous_asked(messages)) or question
            reply = (
                foreign_language_reply(question)
                or nothing_said_before_reply(question, messages)
                or asked_before_reply(question, messages)
                or small_talk_reply(asked, capabilities_in(system_text))
                or unknown_of_user_reply(question, messages)
                or told_numbers_reply(question)
            )
            if reply is not None:
                return Plan("text", [], None, [], [], 0, fixed=reply)
            system = CHAT_SYSTEM + (f" {style}" if style else "")
            prompt = [{"role": "system", "content": system}, {"role": "user", "content": question}]
            tokens = min(self.max_tokens or CHAT_MAX_TOKENS, CHAT_MAX_TOKENS)
            # a question of facts no tool answered ("Who painted the Mona Lisa?"): the small model's own
            # answer is said to be one, since it is often wrong ("Neptune, but it's actually Uranus")
            asks = _FACT_ASKED_RE.match(question) or question.rstrip().endswith("?")  # "If ..., how many?"
            note = OWN_ANSWER_NOTE if asks and not is_small_talk(question) else ""
            return Plan("text", prompt, None, [], [], tokens, repeat_penalty=CHAT_REPEAT_PENALTY, note=note)
        prompt = [{"role": "system", "content": system_text or CHAT_SYSTEM}]
        for m in messages:
            if isinstance(m, SystemMessage):
                continue
            role = "assistant" if isinstance(m, AIMessage) else "user"
            text = message_text(m).strip()
            if text:
                prompt.append({"role": role, "content": text})
        return Plan("text", prompt, None, [], [], self.max_tokens or DEFAULT_MAX_TOKENS)
