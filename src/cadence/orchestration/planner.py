"""The planner mode's nodes (seed 002): planner, researcher, validator and root.

- :class:`Planner` runs first on every turn. It reads the turn's memory recall (the engine put it
  in the state with its adequacy score), sees the tool catalogue (every plugin's tools) and the
  sub-agents, and asks its model for a plan: ``delegate_to`` (``researcher`` | ``validator`` |
  ``end``), ``tools`` (``{"name", "args"}`` each; ``args`` may be left out for the researcher to
  fill) and a ``thought``. The model answers with the ``make_plan`` tool, or with text holding
  ``<plan>{json}</plan>``, or any JSON object. Fallbacks (seed 002, "Error Handling"): the JSON is
  extracted from the text when the tags are missing; an invalid ``delegate_to`` means ``end``;
  tool entries that name no catalogue tool or whose arguments are not an object are skipped and
  logged, arguments that do not fit the tool's schema are dropped (logged; the node that runs the
  tool asks its model for them, as for a tool planned without); a plan field the model left out
  comes from the lexical plan (:func:`lexical_plan`: memory adequate → ``end``; tools that fit the
  question lexically → ``researcher``; else ``end``) — which is how the embedded model plans
  without free generation (``make_plan`` has no required argument, so its policy calls it with ``{}``).
- :class:`Researcher` runs the planned tools, then, while fewer than
  ``CADENCE_RESEARCHER_MIN_RESULTS`` useful results are in, asks its model for a call among the
  tools not tried yet (alternatives), up to ``CADENCE_RESEARCHER_MAX_ITERATIONS`` rounds; it
  hands partial results on when it runs out.
- :class:`Validator` runs the planned tools not run yet and checks the gathered results for
  consistency (:func:`check_results`, built on the shared validation role
  :mod:`cadence.orchestration.validation`).
- :class:`Root` runs any planned tool not run yet, then writes the answer as the synthesizer
  does (it *is* the shared final-answer node: tone, memory, answer check, validation), splits a
  ``<think>`` block off into ``thought`` and ingests the results and the answer into memory.

Every tool runs through the plugin's shared tools step (:func:`plugin_nodes.tools_node`:
containment, logging, approval, hop counting), which goes back to the node that asked. The
guards bound the loop: at tool hops or the deadline the work stops and root answers from what
is in. Errors are logged, never block the turn, and are written to the ``scratchpad``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel, Field

from cadence.conventions import GraphNodeNames, message_text, split_at_last_human
from cadence.errors import CadenceError
from cadence.models.local.policy import (
    accepted_suggestion,
    in_unit_asked,
    parts_asked,
    previous_asked,
    previous_question,
    resolve_found,
    with_another_number,
    with_time_added,
    with_told_before,
)
from cadence.models.preroute import (
    FOLLOW_UP_RE,
    NO_INPUT_COVERAGE,
    NUMBER_TOKEN,
    PreRouter,
    RouteCandidate,
    as_follow_up,
    asks_previous_again,
    is_follow_up,
    is_small_talk,
    leans_on_context,
    may_be_read,
    readable_routes,
    reads_explicitly,
    reads_surely,
    routing_schema,
    tokenize,
)
from cadence.orchestration.answer_check import ToolResult, leading_facts
from cadence.orchestration.approval import EDITED_KEY, arguments_problem
from cadence.orchestration.events import SuspendEvent, agent_events, emit_events, node_event
from cadence.orchestration.guards import BEFORE_DECISION, GuardView
from cadence.orchestration.model_call import call_model
from cadence.orchestration.recall import (
    FACT_KIND,
    INGESTED,
    STATE_KEY,
    facts_prompt,
    ingest,
    is_adequate,
    memory_evidence,
    memory_items,
    turn_memory,
)
from cadence.orchestration.response_context import ResponseContext
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import plugin_context
from cadence.orchestration.synthesizer import THOUGHT_KEY, Synthesizer
from cadence.orchestration.turn import TurnContext
from cadence.orchestration.validation import is_relevant
from cadence.plugins.bundle import PluginBundle
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.routing import may_read, reader_of
from cadence.settings import Settings

logger = logging.getLogger(__name__)

PLAN_TOOL = "make_plan"
"""The tool the planner's model submits its plan with."""
ROUTES = ("researcher", "validator", "end")
"""Where the planner may delegate."""
SUB_AGENTS = {
    "researcher": "runs tools (several rounds, alternatives when results are missing) to gather facts",
    "validator": "runs the planned tools and checks the results for consistency before the answer",
    "end": "answer now, from memory and any planned tools (root runs them)",
}
"""The sub-agents the planner delegates to, as its prompt describes them."""

PLANNER_INSTRUCTIONS = """You are the planner. Decide how to answer the user's latest message.

MEMORY (what you remember about this user; adequacy {adequacy:.2f} of 1 = how well memory alone answers):
{memory}

TOOLS:
{tools}

SUB-AGENTS:
{agents}

Submit your plan with the make_plan tool, or reply with <plan>{{"delegate_to": "researcher" | "validator" |
"end", "tools": [{{"name": "<tool>", "args": {{...}}}}], "thought": "<why>"}}</plan>.
Use "end" when memory or the conversation already answers the question or no tool fits."""

RESEARCHER_INSTRUCTIONS = """You gather facts for the user's latest question. Call the one tool that best
helps answer it, with arguments taken from the question."""

MAX_JSON_STARTS = 200
"""A plan in a reply's text is looked for from its first this many ``{`` (a plan comes early)."""
MAX_PLAN_NOTES = 20
"""The plan's fallback notes kept one by one (the rest are counted in one note)."""
MAX_THOUGHT_CHARS = 2000
"""The plan's ``thought`` is clipped to this many characters (root's prompt carries it)."""

_PLAN_TAG_RE = re.compile(r"<plan>(.*?)</plan>", re.DOTALL | re.IGNORECASE)


# -- the plan ------------------------------------------------------------------------------------
class PlannedToolSpec(BaseModel):
    """One tool the plan asks for."""

    name: str = Field(description="A tool of the catalogue.")
    args: dict[str, Any] | None = Field(None, description="Its arguments (omit: the researcher fills them).")


class PlanSpec(BaseModel):
    """The plan (every field optional: what is left out comes from the lexical plan)."""

    delegate_to: str | None = Field(None, description="researcher, validator or end.")
    tools: list[PlannedToolSpec] | None = Field(None, description="Tools to run.")
    thought: str | None = Field(None, description="Why, in one or two sentences.")


def make_plan_tool() -> BaseTool:
    """The ``make_plan`` tool the planner's model is bound to (no required argument)."""

    def make_plan(**kwargs: Any) -> str:
        return "plan received"

    return StructuredTool.from_function(
        make_plan,
        name=PLAN_TOOL,
        description="Submit the plan: delegate_to (researcher, validator or end), tools to run, thought.",
        args_schema=PlanSpec,
    )


@dataclass
class Plan:
    """A checked plan."""

    delegate_to: str
    tools: list[dict[str, Any]] = field(default_factory=list)
    thought: str = ""
    notes: list[str] = field(default_factory=list)
    """What the parsing fell back on (also in the scratchpad)."""


def catalogue(bundles: Mapping[str, PluginBundle]) -> dict[str, tuple[PluginBundle, BaseTool]]:
    """Every plugin's work tools by name (``back`` excluded), with the bundle that runs them."""
    out: dict[str, tuple[PluginBundle, BaseTool]] = {}
    for bundle in bundles.values():
        for tool in bundle.tools:
            if tool.name != "back" and tool.name not in out:
                out[tool.name] = (bundle, tool)
    return out


def extract_plan(message: BaseMessage) -> tuple[dict[str, Any] | None, str]:
    """The raw plan in a model reply and where it was found (``tool``, ``tags``, ``json``, ``none``)."""
    for call in getattr(message, "tool_calls", None) or []:
        if call.get("name") == PLAN_TOOL:
            return dict(call.get("args") or {}), "tool"
    text = message_text(message)
    tagged = _PLAN_TAG_RE.search(text)
    if tagged:
        parsed = _json_object(tagged.group(1))
        if parsed is not None:
            return parsed, "tags"
    parsed = _json_object(text)
    return (parsed, "json") if parsed is not None else (None, "none")


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``: decoded from each ``{`` in turn (the first
    :data:`MAX_JSON_STARTS`), each attempt one linear scan (a reply full of code or braces was
    parsed span by span, seconds of blocking the event loop for a few kilobytes)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    tried = 0
    while start != -1 and tried < MAX_JSON_STARTS:
        tried += 1
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def check_plan(
    raw: Mapping[str, Any] | None, tools: Mapping[str, Any], default: Plan, source: str = "model"
) -> Plan:
    """The plan from ``raw`` with the seed's fallbacks (see the module docs); ``default`` fills gaps."""
    notes: list[str] = []
    if raw is None:
        notes.append(f"plan: no plan found in the {source} reply; lexical plan used")
        return Plan(default.delegate_to, list(default.tools), default.thought, notes)
    route = raw.get("delegate_to")
    if route is None:
        delegate = default.delegate_to
        notes.append(f"plan: no delegate_to; lexical plan's {delegate!r} used")
    elif isinstance(route, str) and route.strip().lower() in ROUTES:
        delegate = route.strip().lower()
    else:
        delegate = "end"
        notes.append(f"plan: invalid delegate_to {str(route)[:40]!r}; ending")
    planned: list[dict[str, Any]] = []
    seen: set[str] = set()
    entries = raw.get("tools")
    if entries is None:
        planned = list(default.tools)
    elif not isinstance(entries, list):
        notes.append("plan: 'tools' is not a list; skipped")
    else:
        for entry in entries:
            name = entry.get("name") if isinstance(entry, Mapping) else None
            args = entry.get("args") if isinstance(entry, Mapping) else None
            if not isinstance(name, str) or name not in tools:
                notes.append(f"plan: tool entry {str(entry)[:60]!r} names no tool of the catalogue; skipped")
            elif args is not None and not isinstance(args, Mapping):
                notes.append(f"plan: tool {name!r} has arguments that are not an object; skipped")
            else:
                if args is not None and (problem := _args_problem(tools[name], args)) is not None:
                    # the tool fits, its arguments do not (a wrong name, a missing one): the node that
                    # runs it asks its model for them, rather than running a call that can only fail
                    notes.append(f"plan: tool {name!r}: {problem}; its arguments are asked for when it runs")
                    args = None
                call = {"name": name, "args": dict(args) if args is not None else None}
                key = json.dumps(call, sort_keys=True, default=str)
                if key in seen:  # the same call twice: run (and ask) once
                    notes.append(f"plan: tool {name!r} planned twice with the same arguments; once")
                else:
                    seen.add(key)
                    planned.append(call)
    if len(notes) > MAX_PLAN_NOTES:  # a runaway plan: the scratchpad and the log say so once, not per entry
        notes[MAX_PLAN_NOTES:] = [f"plan: {len(notes) - MAX_PLAN_NOTES} more tool entries skipped or merged"]
    thought = raw.get("thought")
    thought_text = thought.strip() if isinstance(thought, str) and thought.strip() else default.thought
    if len(thought_text) > MAX_THOUGHT_CHARS:  # it goes into root's prompt and every trace
        notes.append(f"plan: the thought had {len(thought_text)} characters; clipped to {MAX_THOUGHT_CHARS}")
        thought_text = thought_text[: MAX_THOUGHT_CHARS - 1].rstrip() + "…"
    for note in notes:
        # a field left out is a normal way to defer to the lexical plan (the embedded model does)
        level = logging.INFO if note.startswith("plan: no delegate_to") else logging.WARNING
        logger.log(level, note, extra={"raw_plan": json.dumps(raw, default=str)[:500]})
    return Plan(delegate, planned, thought_text, notes)


def _args_problem(entry: Any, args: Mapping[str, Any]) -> str | None:
    """What is wrong with ``args`` for the catalogue entry's tool (its call schema), or None."""
    return arguments_problem(entry[1] if isinstance(entry, tuple) else entry, args)


class ToolIndex:
    """The catalogue as the lexical plan reads it, built once per graph: the tools' schemas and a pre-router
    over the plugins' descriptions and capabilities."""

    def __init__(self, tools: Mapping[str, tuple[PluginBundle, BaseTool]]) -> None:
        self.tools = dict(tools)
        """The catalogue: tool name → (plugin bundle, tool)."""
        self.schemas = {name: routing_schema(tool) for name, (_, tool) in self.tools.items()}
        """Each tool's OpenAI-style schema, its description the routing text (the words it is chosen by)."""
        bundles = {bundle.name: bundle for bundle, _ in self.tools.values()}
        self.plugins = PreRouter(
            RouteCandidate.from_metadata(b.metadata, name=name) for name, b in bundles.items()
        )
        """Ranks the plugins (by name) for a question."""
        self.readers = {
            name: may_read([tool for bundle, tool in self.tools.values() if bundle.name == name])
            for name in bundles
        }
        """What each plugin's tools may read (:func:`cadence.sdk.may_read`; None: anything)."""


def lexical_plan(
    question: str,
    state: Mapping[str, Any],
    tools: Mapping[str, tuple[PluginBundle, BaseTool]] | ToolIndex,
    settings: Settings,
) -> Plan:
    """The plan without a model: small talk or adequate memory → end; the tool that fits lexically, the
    plugin first, then its tool (:func:`_lexical_tool`; one per part of a message asking several things,
    :func:`~cadence.models.local.policy.parts_asked`, "there" and "its" read as the place named before; a
    tool fitting two parts planned for each with its part as its question) → researcher; a follow-up
    naming no tool's word → the previous turn's tool; else end. A question leaning on an earlier turn or
    on what the user told is not read alone by the tools' readers
    (:func:`~cadence.models.preroute.leans_on_context`). A message asking for the previous answer again
    (:func:`~cadence.models.preroute.asks_previous_again`) is planned as the previous question."""
    memory = turn_memory(state)
    earlier_messages = _earlier_messages(state)
    if earlier_messages:
        # "No, I meant 15%" is "what about 15%?" of the previous question; "yes" to "Did you mean 'France'?"
        # the previous question with France
        question = accepted_suggestion(question, earlier_messages) or as_follow_up(question)
    previous = _previous_question(state) if asks_previous_again(question) else None
    if previous:
        # "How did you get that?", "Say it again, briefly": the previous question planned again
        question = previous
    if is_small_talk(question):
        return Plan("end", [], "small talk: no tool's work")
    if is_adequate(state, settings, routing=True):
        return Plan(
            "end", [], f"memory answers this (adequacy {float(memory.get('routing_adequacy') or 0):.2f})"
        )
    index = tools if isinstance(tools, ToolIndex) else ToolIndex(tools)
    earlier = _previous_tool(state, index.tools)
    if earlier is not None and not tokenize(question, digits=False):
        # "what about 80?": no word of any tool, a follow-up of the previous turn's work
        return Plan("researcher", [{"name": earlier, "args": None}], f"a follow-up: the {earlier} tool again")
    # what leans on an earlier turn or on what the user told ("Multiply that by 10", "How much do I make in
    # 8 hours?" after "My hourly rate is $45.") is not read alone: the researcher fills it in
    context = bool(_earlier_messages(state) or memory.get("items")) and leans_on_context(question)
    told = " ".join(_sentence(str(i.get("text") or "")) for i in memory_items(state, [FACT_KIND]))
    best = _lexical_tool(f"{told} {question}", index) if context and told else None
    if best is not None:
        # what the user told said before the question ("How old am I?" after "I was born on 12 May 1990.",
        # "When is sunrise where I live?" after "I live in Madrid."): a tool reads the two together, the
        # question's own words first ("live" alone would be the geography's)
        return Plan(
            "researcher", [{"name": best, "args": None}], f"the {best} tool fits it with what the user told"
        )
    chosen: list[tuple[str, str]] = []
    # a follow-up asking the previous question another way ("Now descending" after a sort, "In miles?"
    # after a distance) is planned as that question, read on its own ("now" alone is the world clock's
    # word), and its tool is called with it written out
    messages = list(state.get("messages") or [])
    timed = with_time_added(question, messages)  # "Add 5 hours." after the time in London: the time later
    asked = timed or (in_unit_asked(question, _previous_question(state)) if earlier is not None else question)
    if asked == question and earlier is not None and is_follow_up(question):
        # another number, place or text given ('And in "world"?' after 'How many letters in "hello"?'):
        # the previous question asked with it
        asked = with_another_number(question, previous_asked(messages)) or question
    if asked == question:
        # a question leaning on the statement just before it ("How much fuel for 450 km?" after "My car
        # uses 6 liters per 100 km."): the two read together
        asked = with_told_before(question, messages)
    rewritten = asked != question
    if rewritten:
        question, context = asked, False
    # a message asking several things ("What's 12% of 350, and what time is it in Sydney?"): a tool per part,
    # "there" and "its" read as the place named before ("What is the capital of Italy and how many people
    # live there?": two questions for the geography)
    parts = parts_asked(question) if index.schemas else []
    for part in parts:
        best = _lexical_tool(part, index, read=not context)
        if best is None and context and not FOLLOW_UP_RE.search(part):
            # short, so it may lean on what was said, yet asking of its own ("Tell me about Japan." with
            # memories kept): a tool whose reader is sure of it
            best = _lexical_tool(part, index)
        if best is not None:
            chosen.append((best, part))
    planned: list[dict[str, Any]] = []
    for name, part in chosen:
        if sum(1 for other, _ in chosen if other == name) == 1 and not rewritten:
            entry: dict[str, Any] = {"name": name, "args": None}
        else:  # one tool for several parts ("10% of 50 and the square root of 81"), or the follow-up
            # written out: a call with its part
            sole = _sole_string(index.schemas[name])
            entry = {"name": name, "args": {sole: part} if sole else None}
        if entry not in planned:
            planned.append(entry)
    if planned:
        fits = " and ".join(dict.fromkeys(f"the {entry['name']} tool" for entry in planned))
        return Plan("researcher", planned, f"{fits} fit the question")
    if earlier is not None and FOLLOW_UP_RE.search(question) and is_follow_up(question):
        # "And in Vancouver?" after the time in Toronto: no tool's words, the previous turn's tool again
        return Plan("researcher", [{"name": earlier, "args": None}], f"a follow-up: the {earlier} tool again")
    return Plan("end", [], "no tool fits; answer directly")


def _sentence(text: str) -> str:
    """``text`` ending as a sentence does (a told fact stored without its full stop)."""
    text = text.strip()
    return text if not text or text[-1] in ".!?" else f"{text}."


def _previous_tool(state: Mapping[str, Any], tools: Mapping[str, Any]) -> str | None:
    """The tool the previous turn called last, or None."""
    before, question, _ = split_at_last_human(list(state.get("messages") or []))
    if question is None:
        return None
    for message in reversed(before):
        for call in reversed(getattr(message, "tool_calls", None) or []):
            if call.get("name") in tools:
                return str(call["name"])
    return None


def _previous_question(state: Mapping[str, Any]) -> str | None:
    """The question the user asked before the latest message, or None: a yes to a suggestion is the
    question it accepted, and "OK" or "Make it formal" is passed over
    (:func:`~cadence.models.local.policy.previous_question`)."""
    return previous_question(list(state.get("messages") or []))


def _earlier_messages(state: Mapping[str, Any]) -> list[BaseMessage]:
    """The conversation before the latest user message."""
    before, _, _ = split_at_last_human(list(state.get("messages") or []))
    return list(before)


def _sole_string(schema: Mapping[str, Any]) -> str | None:
    """The one required argument of a tool taking one string (the question itself), or None."""
    count, _, reads = _arguments(schema)
    if count != 1 or not reads:
        return None
    return str(schema["function"]["parameters"]["required"][0])


def _lexical_tool(part: str, index: ToolIndex, *, read: bool = True) -> str | None:
    """The tool for one question, as the coordinator and an agent would pick it: the plugin whose
    description and capabilities fit best ("What does the planner mode do?" is the docs plugin's, though
    the statistics tool says "mode"), then among its tools those whose own words fit, the simplest reading
    ("the time in Sydney" is current_time(location), not convert_time(time, from, to)); a tool taking no
    input only when no other fits and it covers most of the question (:data:`NO_INPUT_COVERAGE`); and the
    tool reading the question itself when the only fitting ones need two or more numbers in their roles
    ("Decrease 860 by 15%" is no percent_change(860, 15)) or none fit."""
    ranked_plugins = index.plugins.rank(part)
    fits = readable_routes(
        ranked_plugins,
        PreRouter.shortlisted(ranked_plugins, ratio=0.9),
        part,
        index.readers,
        numbers=tokenize(part).count(NUMBER_TOKEN),
        read=read,
    )
    if not fits:
        return None
    own = {name: schema for name, schema in index.schemas.items() if index.tools[name][0].name == fits[0]}
    facts = {name: _arguments(schema) for name, schema in own.items()}
    reader = next((name for name, (count, _, reads) in facts.items() if count == 1 and reads), None)
    router = PreRouter.from_tool_schemas(list(own.values()))
    ranked = router.shortlist(part, ratio=0.9, ignore_shared=True)
    # a tool whose reader refuses the part gives way to those that read it, matched by words or not ("2 to
    # the 10th" is no list of numbers for statistics: the calculator reads it); with none, as ranked
    readable = [name for name in ranked if may_be_read(reader_of(index.tools[name][1]), part)] or [
        name for name in own if reads_explicitly(reader_of(index.tools[name][1]), part)
    ]
    sure = [name for name in own if reads_surely(reader_of(index.tools[name][1]), part)]
    if read and len(sure) == 1:
        return sure[0]  # "The sum of two numbers is 20 and ...": the calculator, not statistics ("sum")
    ranked = (readable or ranked) if read else ranked
    candidates = [name for name in ranked if facts[name][0] > 0]
    if not candidates:  # tools taking no input: only one that covers most of the question
        covered = router.coverage(part, ignore_shared=True)
        candidates = [name for name in ranked if covered[name] >= NO_INPUT_COVERAGE]
    if not candidates:
        return reader
    best = min(candidates, key=lambda name: facts[name][0])
    count, numbers, _ = facts[best]
    return reader if reader is not None and count >= 2 and numbers == count else best


def _arguments(schema: Mapping[str, Any]) -> tuple[int, int, bool]:
    """A tool's required arguments: how many, how many are numbers, and whether it takes one string (the
    question itself; not a path or an address)."""
    parameters = schema["function"].get("parameters") or {}
    required = parameters.get("required") or []
    kinds = [(parameters.get("properties") or {}).get(name, {}).get("type") for name in required]
    numbers = sum(kind in ("number", "integer") for kind in kinds)
    locates = bool(required) and bool(_LOCATOR_NAME_RE.search(required[0]))
    return len(required), numbers, kinds == ["string"] and not locates


_LOCATOR_NAME_RE = re.compile(r"(?:^|_)(?:path|file|filename|url|uri|dir|directory|folder)(?:_|$)")
"""A string argument that locates something (``read_doc(path)``): it does not take the question itself."""


# -- the turn's results ------------------------------------------------------------------------------
def gathered(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The turn's tool results: ``{"name", "args", "content", "ok", "by"}`` each, in order; ``"edited":
    True`` on a call whose arguments a reviewer changed at its approval."""
    _, _, after = split_at_last_human(messages)
    calls: dict[str, tuple[str, dict[str, Any], str]] = {}
    edited: set[str] = set()
    out: list[dict[str, Any]] = []
    for m in after:
        if isinstance(m, AIMessage):
            edited.update((m.response_metadata or {}).get(EDITED_KEY) or ())
            for c in m.tool_calls or []:
                calls[c.get("id") or ""] = (c["name"], dict(c.get("args") or {}), m.name or "")
        elif isinstance(m, ToolMessage) and m.tool_call_id in calls:
            name, args, by = calls[m.tool_call_id]
            content = message_text(m).strip()
            result = {"name": name, "args": args, "content": content, "ok": m.status != "error", "by": by}
            if m.tool_call_id in edited:
                result["edited"] = True
            out.append(result)
    return out


def is_useful(result: Mapping[str, Any]) -> bool:
    """A successful, non-empty result."""
    return bool(result.get("ok")) and bool(str(result.get("content") or "").strip())


def pending_planned(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The planned tools not run yet this turn (a tool with arguments: that call; without: that tool).

    A call a reviewer edited at its approval ran in a planned call's place: it counts for one planned
    call of its tool (else the planned arguments would be asked for again, edit after edit).
    """
    done = gathered(state.get("messages") or [])
    edits = [r for r in done if r.get("edited")]
    out = []
    for planned in state.get("planned_tools") or []:
        if planned.get("skipped"):  # no call could be made for it (see ToolRunner.planned_calls)
            continue
        args = planned.get("args")
        if any(r["name"] == planned["name"] and (args is None or r["args"] == args) for r in done):
            continue
        edit = next((r for r in edits if r["name"] == planned["name"]), None)
        if edit is not None:
            edits.remove(edit)
            continue
        out.append(planned)
    return out


@dataclass(frozen=True)
class ConsistencyVerdict:
    """What :func:`check_results` found."""

    ok: bool
    problems: list[str] = field(default_factory=list)


def check_results(
    question: str, results: Sequence[Mapping[str, Any]], memory: Sequence[str] = ()
) -> ConsistencyVerdict:
    """Are the gathered results consistent? (the validator's checks, in one place)

    - a tool failed, or returned nothing;
    - the same call returned different results;
    - results lead with different values for the same question (two tools disagree);
    - a result is not about the question (:func:`cadence.orchestration.validation.is_relevant`,
      the shared validation role's relevance rule);
    - a result contradicts a remembered fact's value (same words, another number).
    """
    problems: list[str] = []
    for r in results:
        if not r.get("ok"):
            problems.append(f"tool_failed: {r['name']}: {str(r.get('content'))[:120]}")
        elif not str(r.get("content") or "").strip():
            problems.append(f"empty_result: {r['name']}")
    useful = [r for r in results if is_useful(r)]
    by_call: dict[str, set[str]] = {}
    for r in useful:
        by_call.setdefault(f"{r['name']}{json.dumps(r['args'], sort_keys=True)}", set()).add(r["content"])
    problems += [
        f"conflict: {call} returned different results" for call, seen in by_call.items() if len(seen) > 1
    ]
    leads = {r["name"]: leading_facts(r["content"])[:1] for r in useful if len(r["content"]) <= 400}
    values = {v[0] for v in leads.values() if v}
    if len({n for n, v in leads.items() if v}) > 1 and len(values) > 1:
        problems.append(f"disagreement: the results state different values ({', '.join(sorted(values))})")
    asked = [ToolResult(name="question", args={}, content=question)]  # the question's own numbers count
    for r in useful:
        if not is_relevant(question, r["content"], asked):
            problems.append(f"irrelevant_result: {r['name']}")
    for fact in memory:
        fact_values = leading_facts(fact)
        for r in useful:
            shared = _words(fact) & _words(r["content"])
            other = leading_facts(r["content"])
            if fact_values and other and len(shared) >= 2 and fact_values[0] != other[0]:
                problems.append(f"memory_conflict: {r['name']} says {other[0]}, memory says {fact_values[0]}")
    return ConsistencyVerdict(not problems, problems)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower())}


def _note(state: Mapping[str, Any], *lines: str) -> str:
    """The scratchpad with ``lines`` added."""
    pad = str(state.get("scratchpad") or "")
    added = "\n".join(line for line in lines if line)
    return f"{pad}\n{added}".strip() if added else pad


def _calls_message(node: str, calls: Sequence[Mapping[str, Any]]) -> AIMessage:
    return AIMessage(
        content="",
        name=node,
        tool_calls=[
            {"name": c["name"], "args": dict(c.get("args") or {}), "id": f"call_{uuid.uuid4().hex[:12]}",
             "type": "tool_call"}
            for c in calls
        ],
    )  # fmt: skip


def _context(runtime: Runtime[TurnContext] | None) -> TurnContext | None:
    return runtime.context if runtime is not None else None


def _guard_stop(
    state: Mapping[str, Any], context: TurnContext | None, settings: Settings
) -> dict[str, Any] | None:
    """The plugin context with the suspend reason when a guard stops the tool work, else None."""
    ctx = plugin_context(state)
    view = GuardView(
        settings, int(state.get("agent_hops") or 0), int(state.get("tool_hops") or 0), ctx, context
    )
    reason = BEFORE_DECISION.check(view)
    if reason is None:
        return None
    note = f"planner mode: tool work stopped ({reason.code}); answering from partial results"
    if note in ctx[F.NOTES]:  # the researcher or validator stopped already; root stops for the same reason
        return ctx
    ctx[F.SUSPEND_REASON] = reason.to_dict()
    ctx[F.NOTES].append(note)
    logger.warning("planner mode: guard stops the tool work", extra={"reason": str(reason.code)})
    emit_events([SuspendEvent(type="suspend", reason=ctx[F.SUSPEND_REASON])])  # as every mode's guards
    return ctx


class ToolRunner:
    """What the nodes that run tools share: one plugin's calls per round, arguments from the model."""

    node_name = "researcher"

    def __init__(
        self, model: BaseChatModel, tools: Mapping[str, tuple[PluginBundle, BaseTool]], settings: Settings
    ):
        self.model = model
        self.tools = dict(tools)
        self.settings = settings
        self.index = ToolIndex(self.tools)

    def round_for(self, calls: Sequence[Mapping[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
        """The tools node and the calls of the first call's plugin (the others wait for the next round)."""
        bundle = self.tools[calls[0]["name"]][0]
        mine = [dict(c) for c in calls if self.tools[c["name"]][0] is bundle]
        return bundle.tools_node_name, mine

    async def choose_call(
        self,
        state: Mapping[str, Any],
        names: Sequence[str],
        config: RunnableConfig,
        context: TurnContext | None,
    ) -> tuple[list[dict[str, Any]], str]:
        """Ask the model for a call among ``names`` (the tool's arguments from the question).

        Returns the calls (only catalogue tools among ``names``) and a note for the scratchpad.
        """
        tools = [self.tools[n][1] for n in names if n in self.tools]
        if not tools:
            return [], "no tool to choose from"
        bound = self.model.bind_tools(tools, tool_choice="any")
        facts = facts_prompt(state)  # "the weather where I live": arguments from the user's facts
        instructions = f"{RESEARCHER_INSTRUCTIONS}\n\n{facts}" if facts else RESEARCHER_INSTRUCTIONS
        messages = [SystemMessage(content=instructions), *list(state.get("messages") or [])]
        budget = context.budget(self.settings.coordinator_timeout, keep_reserve=True) if context else None
        try:
            async with asyncio.timeout(budget):  # in this task (wait_for would start one per call)
                reply = await call_model(bound, messages, node=self.node_name, context=context, config=config)
        except (TimeoutError, CadenceError) as exc:
            note = f"{self.node_name}: the model could not choose a tool ({exc})"
            logger.warning(note)
            if context is not None:
                context.trace.errors.append(
                    {"node": self.node_name, "code": "model_error", "message": str(exc)}
                )
            return [], note
        allowed = set(names)
        calls = [
            {"name": c["name"], "args": dict(c.get("args") or {})}
            for c in getattr(reply, "tool_calls", None) or []
            if c.get("name") in allowed
        ]
        dropped = [
            c.get("name") for c in getattr(reply, "tool_calls", None) or [] if c.get("name") not in allowed
        ]
        note = f"{self.node_name}: ignored calls of unknown or tried tools {dropped}" if dropped else ""
        return calls, note

    async def planned_calls(
        self,
        state: Mapping[str, Any],
        config: RunnableConfig,
        context: TurnContext | None,
        marks: dict[str, Any] | None = None,
        settings: Settings | None = None,
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """The next round's calls of the planned tools not run yet (arguments asked of the model when
        planned without): one plugin's (a round runs one plugin's tools step), no more than
        ``CADENCE_MAX_TOOL_HOPS`` leaves, so no model call is spent on arguments the round drops.

        A planned tool the model gives no call for is skipped for the rest of the turn: ``marks``
        receives the ``planned_tools`` update flagging it ``"skipped": True`` (the node's update must
        carry it, or the next round and root would ask the model again).
        """
        calls: list[dict[str, Any]] = []
        notes: list[str] = []
        skipped: list[dict[str, Any]] = []
        left = max((settings or self.settings).max_tool_hops - int(state.get("tool_hops") or 0), 1)
        round_bundle: Any = None  # the plugin of the round's first call
        for planned in pending_planned(state):
            bundle = self.tools[planned["name"]][0] if planned["name"] in self.tools else None
            if len(calls) >= left or (round_bundle is not None and bundle is not round_bundle):
                continue  # a later round's
            if planned.get("args") is not None:
                calls.append({"name": planned["name"], "args": planned["args"]})
                round_bundle = bundle
                continue
            chosen, note = await self.choose_call(state, [planned["name"]], config, context)
            notes.append(note)
            if chosen:
                calls.append(chosen[0])
                round_bundle = bundle
            else:
                notes.append(
                    f"{self.node_name}: planned tool {planned['name']!r} could not be called; skipped"
                )
                skipped.append(planned)
        if skipped and marks is not None:
            marks["planned_tools"] = [
                {**p, "skipped": True} if any(p is q for q in skipped) else p
                for p in state.get("planned_tools") or []
            ]
        return calls, [n for n in notes if n]

    def run(
        self,
        state: Mapping[str, Any],
        calls: Sequence[Mapping[str, Any]],
        update: dict[str, Any],
        settings: Settings | None = None,
    ) -> Command:
        """Go to the tools node of the first call's plugin with that plugin's calls, no more of them than
        ``CADENCE_MAX_TOOL_HOPS`` leaves (a long plan's rest stays pending: the guard then stops the
        work, and no human is asked to approve calls that could not run)."""
        target, mine = self.round_for(calls)
        limit = (settings or self.settings).max_tool_hops
        left = max(limit - int(state.get("tool_hops") or 0), 1)  # the guard let this round start
        if len(mine) > left:
            logger.info("planner mode: calls beyond the tool limit wait", extra={"waiting": len(mine) - left})
            mine = mine[:left]
        message = _calls_message(self.node_name, mine)
        # the stream shows the calls as an agent's are shown: tool_start per call, then the tools node
        emit_events(agent_events(self.tools[mine[0]["name"]][0].name, {"messages": [message]}, target))
        return Command(goto=target, update={**update, "messages": [message]})


# -- the nodes ---------------------------------------------------------------------------------------
class Planner:
    """The ``planner`` node: recall (from the state), catalogue, plan."""

    node_name = GraphNodeNames.PLANNER

    def __init__(
        self, model: BaseChatModel, tools: Mapping[str, tuple[PluginBundle, BaseTool]], settings: Settings
    ) -> None:
        self.tools = dict(tools)
        self.index = ToolIndex(self.tools)
        self.settings = settings
        self.model = model
        self.bound = model.bind_tools([make_plan_tool()], tool_choice=PLAN_TOOL)
        lines = []
        for name, (bundle, tool) in self.tools.items():
            params = ", ".join((tool.args or {}).keys())
            desc = (tool.description or "").strip().split("\n")[0]
            lines.append(f"- {name}({params}) [{bundle.name}]: {desc}")
        self.tool_lines = "\n".join(lines) or "- (no tools)"
        self.agent_lines = "\n".join(f"- {k}: {v}" for k, v in SUB_AGENTS.items())

    def prompt(self, state: Mapping[str, Any]) -> str:
        """The planner's system prompt: memory with its adequacy, the tools, the sub-agents."""
        memory = turn_memory(state)
        remembered = "\n".join(f"- {s}" for s in memory_evidence(state)) or "- (nothing relevant)"
        return PLANNER_INSTRUCTIONS.format(
            adequacy=float(memory.get("routing_adequacy") or 0.0),  # the one that lets memory answer
            memory=remembered,
            tools=self.tool_lines,
            agents=self.agent_lines,
        )

    async def __call__(
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> Command:
        """Plan the turn and go to the delegate (``end`` → root); the engine announces this first node."""
        context = _context(runtime)
        settings = context.settings if context is not None else self.settings
        messages = list(state.get("messages") or [])
        _, question, _ = split_at_last_human(messages)
        question_text = message_text(question) if question is not None else ""
        default = lexical_plan(question_text, state, self.index, settings)
        prompt = [SystemMessage(content=self.prompt(state)), *messages]
        budget = context.budget(settings.coordinator_timeout, keep_reserve=True) if context else None
        try:
            async with asyncio.timeout(budget):  # in this task (wait_for would start one per decision)
                reply = await call_model(
                    self.bound, prompt, node=self.node_name, context=context, config=config
                )
            raw, source = extract_plan(reply)
            if raw is None:
                logger.warning("planner reply holds no plan", extra={"raw": message_text(reply)[:500]})
            plan = check_plan(raw, self.tools, default, source="model")
            if source in ("tags", "json"):
                plan.notes.insert(0, f"planner: plan read from the reply's text ({source})")
        except (TimeoutError, CadenceError) as exc:
            note = f"planner: the model did not plan ({exc or type(exc).__name__}); lexical plan used"
            logger.warning(note)
            if context is not None:
                context.trace.errors.append(
                    {"node": self.node_name, "code": "model_error", "message": str(exc)}
                )
            plan = Plan(default.delegate_to, list(default.tools), default.thought, [note])
        memory = turn_memory(state)
        pad = _note(
            {},
            f"planner: adequacy {float(memory.get('adequacy') or 0):.2f}; route {plan.delegate_to}; "
            f"tools {[t['name'] for t in plan.tools[:MAX_PLAN_NOTES]]}"
            + (f" and {len(plan.tools) - MAX_PLAN_NOTES} more" if len(plan.tools) > MAX_PLAN_NOTES else ""),
            *plan.notes,
        )
        target = {"researcher": GraphNodeNames.RESEARCHER, "validator": GraphNodeNames.VALIDATOR}.get(
            plan.delegate_to, GraphNodeNames.ROOT
        )
        emit_events([node_event(target)])  # the node handing over announces the next one
        return Command(
            goto=target,
            update={
                "route": plan.delegate_to,
                "planned_tools": plan.tools,
                "thought": plan.thought,
                "scratchpad": pad,
                "tool_results": [],
                "research_iterations": 0,
            },
        )


ALTERNATIVE_PLUGIN_RATIO = 0.5
"""A plugin's tools are alternatives when its route text scores at least this share of the best plugin's."""


class Researcher(ToolRunner):
    """The ``researcher`` node: planned tools, a tool working on a value they found, then alternatives,
    until enough useful results or the limit."""

    node_name = GraphNodeNames.RESEARCHER

    def alternatives(self, state: Mapping[str, Any], tried: set[str]) -> list[str]:
        """The tools to try next: the untried tools of the plugins already tried and of those whose
        description and capabilities fit the question at all (a calculator question whose words the
        calculator could not read is no question for the docs search)."""
        _, question, _ = split_at_last_human(list(state.get("messages") or []))
        text = message_text(question) if question is not None else ""
        plugins = self.index.plugins
        fitting = set(plugins.shortlist(text, ratio=ALTERNATIVE_PLUGIN_RATIO, limit=len(plugins.candidates)))
        fitting |= {self.tools[name][0].name for name in tried if name in self.tools}
        return [
            name for name, (bundle, _) in self.tools.items() if name not in tried and bundle.name in fitting
        ]

    def on_found(
        self, state: Mapping[str, Any], useful: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any] | None:
        """A call working on a value a result found, when the question asks it ("What's 10% of the
        population of Canada?" after the population: the calculator asked "What's 10% of 37058856?"), by
        a tool taking the question itself not run this turn; else ``None``."""
        if not useful:
            return None
        _, question, _ = split_at_last_human(list(state.get("messages") or []))
        text = message_text(question) if question is not None else ""
        found = resolve_found(text, [str(r["content"]) for r in useful])
        if found == text or len(parts_asked(text)) > 1:
            return None
        name = _lexical_tool(found, self.index)
        sole = _sole_string(self.index.schemas[name]) if name is not None else None
        if name is None or sole is None or any(r["name"] == name for r in useful):
            return None
        return {"name": name, "args": {sole: found}}

    async def __call__(
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> Command:
        """One research round: run tools (→ the plugin's tools step → back here) or hand on to root."""
        context = _context(runtime)
        settings = context.settings if context is not None else self.settings
        results = gathered(state.get("messages") or [])
        iterations = int(state.get("research_iterations") or 0)
        stop = _guard_stop(state, context, settings)
        if stop is not None:
            return self._done(state, results, "researcher: stopped by a guard; partial results", ctx=stop)
        useful = [r for r in results if is_useful(r)]
        failed = [r for r in results if not r["ok"]]
        notes = [f"researcher: tool {r['name']} failed: {r['content'][:160]}" for r in failed if r not in
                 (state.get("tool_results") or [])]  # fmt: skip
        marks: dict[str, Any] = {}
        calls, planned_notes = await self.planned_calls(state, config, context, marks, settings)
        notes += planned_notes
        state = {**state, **marks}  # what _done and the round's update carry
        if not calls:
            worked = self.on_found(state, useful)
            if worked is not None:
                calls = [worked]
                notes.append(f"researcher: the {worked['name']} tool works on the value found")
        if not calls:
            if len(useful) >= settings.researcher_min_results:
                return self._done(state, results, *notes, f"researcher: {len(useful)} useful result(s)")
            if iterations >= settings.researcher_max_iterations:
                logger.warning("researcher: maximum iterations reached", extra={"iterations": iterations})
                return self._done(
                    state, results, *notes,
                    f"researcher: maximum iterations ({iterations}) reached; {len(useful)} useful result(s)",
                )  # fmt: skip
            tried = {r["name"] for r in results}
            untried = self.alternatives(state, tried)
            if not untried:
                return self._done(
                    state, results, *notes, "researcher: no untried tool fits the question; partial results"
                )
            calls, note = await self.choose_call(state, untried, config, context)
            notes.append(note)
            if not calls:
                return self._done(state, results, *notes, "researcher: no alternative tool; partial results")
            notes.append(f"researcher: round {iterations + 1}: trying {[c['name'] for c in calls]}")
        elif iterations >= settings.researcher_max_iterations:
            return self._done(
                state, results, *notes, "researcher: maximum iterations reached before the plan ran"
            )
        update = {
            "research_iterations": iterations + 1,
            "scratchpad": _note(state, *notes),
            "tool_results": results,
            **marks,
        }
        return self.run(state, calls, update, settings)

    def _done(self, state: Mapping[str, Any], results: list[dict[str, Any]], *notes: str,
              ctx: dict[str, Any] | None = None) -> Command:  # fmt: skip
        update: dict[str, Any] = {"scratchpad": _note(state, *notes), "tool_results": results}
        if "planned_tools" in state:
            update["planned_tools"] = state["planned_tools"]  # with the skipped planned tools flagged
        if ctx is not None:
            update["plugin_context"] = ctx
        emit_events([node_event(GraphNodeNames.ROOT)])
        return Command(goto=GraphNodeNames.ROOT, update=update)


class Validator(ToolRunner):
    """The ``validator`` node: runs the planned tools not run yet, then checks the results' consistency."""

    node_name = GraphNodeNames.VALIDATOR

    async def __call__(
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> Command:
        """Run pending planned tools (→ tools step → back here), then check and go to root."""
        context = _context(runtime)
        settings = context.settings if context is not None else self.settings
        stop = _guard_stop(state, context, settings)
        marks: dict[str, Any] = {}
        if stop is None:
            calls, notes = await self.planned_calls(state, config, context, marks, settings)
            if calls:
                return self.run(state, calls, {"scratchpad": _note(state, *notes), **marks}, settings)
        messages = list(state.get("messages") or [])
        _, question, _ = split_at_last_human(messages)
        results = gathered(messages)
        verdict = check_results(message_text(question) if question else "", results, memory_evidence(state))
        if not results:  # an empty plan, or every planned tool skipped: nothing was checked
            lines = ["validator: no tool results to check"]
        elif verdict.ok:
            lines = ["validator: results consistent"]
        else:
            lines = ["validator: " + "; ".join(verdict.problems)]
        if context is not None and not verdict.ok:
            context.trace.notes.append(lines[0])
        update: dict[str, Any] = {"scratchpad": _note(state, *lines), "tool_results": results, **marks}
        if stop is not None:
            update["plugin_context"] = stop
        emit_events([node_event(GraphNodeNames.ROOT)])
        return Command(goto=GraphNodeNames.ROOT, update=update)


class Root(Synthesizer):
    """The ``root`` node: runs planned tools not run yet, writes the answer (the shared final-answer node),
    splits ``<think>`` into ``thought`` and ingests the turn into memory."""

    node_name = GraphNodeNames.ROOT

    def __init__(
        self,
        model: BaseChatModel,
        plugins: Mapping[str, PluginMetadata],
        settings: Settings,
        runner: ToolRunner,
    ) -> None:
        super().__init__(model, plugins, settings)
        self.runner = runner
        self.runner.node_name = self.node_name

    def system_prompt(self, state: Mapping[str, Any], rc: ResponseContext) -> str:
        """The synthesizer's prompt, with the planner's thought."""
        base = super().system_prompt(state, rc)
        thought = str(state.get("thought") or "").strip()
        return f"{base}\n\nTHE PLANNER'S NOTE: {thought}\n" if thought else base

    async def __call__(  # type: ignore[override]
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> Command:
        """Run pending planned tools (→ tools step → back here), else answer and end the turn."""
        context = _context(runtime)
        settings = context.settings if context is not None else self.settings
        notes: list[str] = []
        marks: dict[str, Any] = {}
        stop = _guard_stop(state, context, settings) if pending_planned(state) else None
        if stop is None and pending_planned(state):
            calls, notes = await self.runner.planned_calls(state, config, context, marks, settings)
            if calls:
                notes.append(f"root: running planned tools {[c['name'] for c in calls]}")
                update = {"scratchpad": _note(state, *notes), **marks}
                return self.runner.run(state, calls, update, settings)
        view = {**state, "plugin_context": stop} if stop is not None else state
        written = await super().__call__(view, config, runtime)
        messages = [*list(state.get("messages") or []), *written["messages"]]
        answer = written["messages"][-1]
        thought = str((answer.response_metadata or {}).get(THOUGHT_KEY) or "")
        results = gathered(messages)
        update: dict[str, Any] = {
            **written,
            "tool_results": results,
            "thought": "\n".join(t for t in (str(state.get("thought") or ""), thought) if t),
            "scratchpad": _note(state, *notes),
            **marks,
        }
        if stop is not None:
            update["plugin_context"] = stop
        memory = turn_memory(state)
        if context is not None and context.memory is not None:
            question, results_for_memory = _question_and_results(messages)
            usable = not (answer.response_metadata or {}).get("cadence_fallback") and stop is None
            count = await ingest(context.memory, context, question, message_text(answer), results_for_memory,
                                 usable=usable)  # fmt: skip
            update[STATE_KEY] = {**memory, INGESTED: count}
            if not count and any(e.get("code") == "memory_error" for e in context.trace.errors):
                update["scratchpad"] = _note(update, "root: memory ingestion failed (logged); answer kept")
        return Command(goto=END, update=update)


def _question_and_results(
    messages: Sequence[BaseMessage],
) -> tuple[str, list[tuple[str, dict[str, Any], str]]]:
    from cadence.orchestration.answer_check import turn_results

    question, results = turn_results(messages)
    return question, [(r.name, dict(r.args), r.content) for r in results]


__all__ = [
    "PLAN_TOOL",
    "ROUTES",
    "ConsistencyVerdict",
    "Plan",
    "Planner",
    "Researcher",
    "Root",
    "ToolRunner",
    "Validator",
    "catalogue",
    "check_plan",
    "check_results",
    "extract_plan",
    "gathered",
    "lexical_plan",
    "make_plan_tool",
    "pending_planned",
]
