"""Routing of simple questions among the built-in plugins and their tools (the lexical pre-router).

The embedded model chooses only among the shortlist the pre-router gives, so a question whose words
point at the wrong tool cannot be answered right whatever the model does.
"""

from __future__ import annotations

import pytest

from cadence.builtins.docs import DocsPlugin
from cadence.builtins.info import INFO_TOOLS, InfoPlugin
from cadence.builtins.math import MATH_TOOLS, MathPlugin
from cadence.models.local.policy import TOOL_SHORTLIST_RATIO, fewest_arguments, usable_tools
from cadence.models.preroute import PreRouter, routing_schema, tokenize, tool_name


def _best_tool(tools: list, question: str) -> str:
    ranked = PreRouter.from_tool_schemas([routing_schema(t) for t in tools]).rank(
        question, ignore_shared=True
    )
    return ranked[0].name


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("What hour is it in Istanbul?", "current_time"),  # one place: not a time difference
        ("what's the hour in Oslo", "current_time"),
        ("what's the date in Auckland", "current_time"),  # no clock time to convert
        ("What's today's date in London?", "date_calculator"),
        ("What day is it in Sydney?", "current_time"),
        ("How many hours between Madrid and Mexico City?", "time_difference"),
        ("how many hours is Lima behind Madrid", "time_difference"),
        ("convert 9am in Paris to New York time", "convert_time"),
    ],
)
def test_time_questions_reach_the_tool_that_answers_them(question: str, tool: str) -> None:
    assert _best_tool(INFO_TOOLS, question) == tool


@pytest.mark.parametrize(
    "question", ["what is the product of 6 and 7?", "What's the remainder when 17 is divided by 5?"]
)
def test_arithmetic_in_words_reaches_the_calculator(question: str) -> None:
    """'The product of 6 and 7' is one operation, not summary statistics of the list [6, 7]."""
    assert _best_tool(MATH_TOOLS, question) == "calculate"


@pytest.mark.parametrize(
    ("question", "plugin"),
    [
        ("What day is it in Sydney?", "goto_info_agent"),
        ("which hour is it in Lima?", "goto_info_agent"),
        ("What's 5 dollars a day for 7 days?", "goto_math_agent"),
        ("a car drives 60 km per hour for 3 hours, how far does it go", "goto_math_agent"),
    ],
)
def test_a_day_or_hour_asked_for_is_a_date_or_time(question: str, plugin: str) -> None:
    """'What day is it' asks for a date and 'what hour is it' for the time (the world clock);
    'a day' and 'per hour' in a word problem are rates (the calculator)."""
    router = PreRouter.from_metadata([MathPlugin.get_metadata(), InfoPlugin.get_metadata()])
    assert router.shortlist(question) == [plugin]


@pytest.mark.parametrize(
    "question", ["Hey, how is your day going?", "How was your weekend?", "Enjoy your evening!"]
)
def test_someones_day_is_small_talk_not_a_date_or_a_count(question: str) -> None:
    """After a possessive, "day" or "weekend" is someone's time: no agent fits (the answer is a chat reply)."""
    router = PreRouter.from_metadata([MathPlugin.get_metadata(), InfoPlugin.get_metadata()])
    assert router.shortlist(question) == []
    assert router.shortlist("How many hours are in 3 days?") == ["goto_math_agent"]  # a count of days


@pytest.mark.parametrize(
    "question",
    [
        "If it's 10:00 in Berlin, what time is it in Lima?",
        "When it's noon in London, what time is it in Tokyo?",
        "What time is it in Paris when it is 8am in Boston?",
        "7.30pm in Rome is what in Denver?",
    ],
)
def test_a_clock_time_in_the_question_is_a_conversion(question: str) -> None:
    """A time of day in the question ("10:00", "8am", "noon") asks to convert it, not for the time now."""
    assert _best_tool(INFO_TOOLS, question) == "convert_time"


def test_a_clock_time_is_one_token_and_a_decimal_stays_a_number() -> None:
    assert tokenize("at 10:30 in Oslo") == ["clock", "oslo"]
    assert tokenize("what is 3.14 * 2") == ["numb", "multiply", "numb"]


@pytest.mark.parametrize("question", ["how late is it in Tokyo", "is it late in Sydney now?"])
def test_how_late_it_is_asks_for_the_time(question: str) -> None:
    router = PreRouter.from_metadata([MathPlugin.get_metadata(), InfoPlugin.get_metadata()])
    assert router.shortlist(question) == ["goto_info_agent"]
    assert _best_tool(INFO_TOOLS, question) == "current_time"


@pytest.mark.parametrize(
    ("question", "shortlist"),
    [
        ("how do I change the port?", ["goto_docs_agent"]),  # not a percent change
        ("Is there a setting for the model timeout?", ["goto_docs_agent"]),
        ("How are you today?", []),  # chit-chat: no agent (was the world clock, for "today")
        ("what's the date today", ["goto_info_agent"]),
    ],
)
def test_settings_questions_reach_the_docs_and_chit_chat_no_agent(
    question: str, shortlist: list[str]
) -> None:
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    assert PreRouter.from_metadata(plugins).shortlist(question) == shortlist


def test_a_tool_taking_a_number_is_unusable_when_the_question_writes_none() -> None:
    """Its number could only be invented (the grammar offers the question's numbers, and there are none)."""
    schemas = [routing_schema(t) for t in MATH_TOOLS]
    kept = [tool_name(t) for t in usable_tools(schemas, "how do I change the port?", matched=True)]
    assert kept == ["calculate"]
    kept = [
        tool_name(t) for t in usable_tools(schemas, "from eighty to 100, what percent change?", matched=True)
    ]
    assert "percent_change" in kept


def test_a_tool_taking_more_numbers_than_the_question_writes_is_unusable() -> None:
    """One number cannot fill two: percent_change(30, 30) said 'From 30 to 30 is no change.'"""
    schemas = [routing_schema(t) for t in MATH_TOOLS]
    assert [tool_name(t) for t in usable_tools(schemas, "I'm 30 years old", matched=True)] == ["calculate"]
    kept = [tool_name(t) for t in usable_tools(schemas, "from 50 to 50, what percent change?", matched=True)]
    assert "percent_change" in kept  # a number written twice fills two arguments


@pytest.mark.parametrize("question", ["increase 80 by 10 percent", "reduce 50 by 20 percent"])
def test_a_value_changed_by_a_percent_reaches_the_calculator(question: str) -> None:
    """Not percent_change(80, 10) ('a decrease of 87.5%') nor percent_of(20, 50) (10, not 40)."""
    ranked = PreRouter.from_tool_schemas([routing_schema(t) for t in MATH_TOOLS]).rank(
        question, ignore_shared=True
    )
    shortlist = PreRouter.shortlisted(ranked, ratio=TOOL_SHORTLIST_RATIO)
    assert "calculate" in shortlist
    assert [
        tool_name(t)
        for t in fewest_arguments([s for s in map(routing_schema, MATH_TOOLS) if tool_name(s) in shortlist])
    ] == ["calculate"]


@pytest.mark.parametrize(
    "question", ["how many seconds in an hour", "convert 5 km to meters", "convert 10 pounds to kg"]
)
def test_unit_conversions_reach_the_calculator(question: str) -> None:
    """Not the world clock ('hour', 'convert'): the calculator converts units."""
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    assert PreRouter.from_metadata(plugins).shortlist(question) == ["goto_math_agent"]
    assert _best_tool(MATH_TOOLS, question) == "calculate"


def test_an_offset_between_two_places_is_a_time_difference_and_one_place_has_a_utc_offset() -> None:
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    router = PreRouter.from_metadata(plugins)
    assert _best_tool(INFO_TOOLS, "What's the offset between UTC and India?") == "time_difference"
    assert router.shortlist("what is the UTC offset of Tokyo") == ["goto_info_agent"]


@pytest.mark.parametrize("question", ["What is the coordinator?", "what does the synthesizer do"])
def test_how_cadence_works_reaches_the_docs(question: str) -> None:
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    assert PreRouter.from_metadata(plugins).shortlist(question) == ["goto_docs_agent"]


def test_times_before_a_reference_multiplies() -> None:
    """'times that by 3' is arithmetic on the previous result, not a question about time."""
    assert "multiply" in tokenize("times that by 3")
    assert "multiply" not in tokenize("what times are the trains?")


@pytest.mark.parametrize(
    ("question", "shortlist"),
    [
        ("Is it daytime in Sydney?", ["goto_info_agent"]),  # was answered by chit-chat, made up
        ("Good morning, how are you?", []),  # a greeting stays chit-chat
        ("good evening!", []),  # though the clock reads which part of the day it is
        ("Is it evening in Paris?", ["goto_info_agent"]),
    ],
)
def test_daytime_questions_reach_the_world_clock(question: str, shortlist: list[str]) -> None:
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    assert PreRouter.from_metadata(plugins).shortlist(question) == shortlist


def _coordinator_routes(question: str) -> list[str]:
    from langchain_core.messages import HumanMessage

    from cadence.models.local.policy import SmallModelPolicy
    from cadence.orchestration.control_tools import make_routing_tools

    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    schemas = [routing_schema(t) for t in make_routing_tools(plugins)]
    return SmallModelPolicy().plan([HumanMessage(question)], tools=schemas).route_names


@pytest.mark.parametrize("question", ["I'm 30 years old", "I have two kids", "My flight is at 7"])
def test_a_statement_with_one_number_is_no_calculation(question: str) -> None:
    """Matched by its number alone, it went to the calculator (an error, or percent_change(30, 30))."""
    assert _coordinator_routes(question) == ["goto_finalize"]


@pytest.mark.parametrize(
    "question", ["double 21", "What is 5!", "what is 3 to the fourth", "round 3.7", "sqrt 16", "12 * 12"]
)
def test_one_number_with_an_operation_still_reaches_the_calculator(question: str) -> None:
    assert _coordinator_routes(question) == ["goto_math_agent"]


@pytest.mark.parametrize(
    "question",
    [
        "how many tool calls are allowed per turn?",  # was the calculator ("per")
        "where is the data stored?",  # was chit-chat
        "How do I add API keys?",  # was the calculator ("add")
        "what happens when a tool times out?",  # was the world clock ("times")
    ],
)
def test_questions_about_settings_and_limits_reach_the_docs(question: str) -> None:
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    assert PreRouter.from_metadata(plugins).shortlist(question) == ["goto_docs_agent"]


def test_day_or_night_somewhere_reaches_the_world_clock() -> None:
    """ "Is it night in Tokyo?" shared no word with any agent (the clock's text said "nighttime")."""
    from cadence.builtins.info import InfoPlugin
    from cadence.models.preroute import PreRouter, routing_schema
    from cadence.orchestration.control_tools import make_routing_tools

    routes = [routing_schema(t) for t in make_routing_tools([InfoPlugin.get_metadata()])]
    ranked = PreRouter.from_tool_schemas(routes).rank("Is it night in Tokyo?")
    assert PreRouter.shortlisted(ranked) == ["goto_info_agent"]
