"""Tool readers (``cadence.sdk.reads``): what a tool may read, and the embedded model routing by them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool

from cadence.builtins.info import INFO_TOOLS, InfoPlugin, asks_current_time, asks_time_difference
from cadence.builtins.math import (
    MATH_TOOLS,
    MathPlugin,
    reads_arithmetic,
    reads_percentages,
    reads_statistics,
    writes_two_numbers,
)
from cadence.conventions import TOLD_FACTS_HEADER
from cadence.models.local import LocalChatModel
from cadence.models.preroute import stem
from cadence.orchestration.control_tools import make_routing_tools
from cadence.orchestration.coordinator import agent_readers
from cadence.sdk import READS_METADATA_KEY, SURELY, may_read, reader_of, reads, tool
from cadence.sdk.tools import make_back_tool


def _tool(name: str, reader: Any = None) -> BaseTool:
    @tool(name)
    def work(text: str) -> str:
        """Work on a text."""
        return text

    return reads(reader)(work) if reader is not None else work


def test_reads_marks_the_tool_and_reader_of_finds_it() -> None:
    t = _tool("digits", lambda text: any(c.isdigit() for c in text))
    assert callable(t.metadata[READS_METADATA_KEY])
    assert reader_of(t) is t.metadata[READS_METADATA_KEY]
    assert reader_of(_tool("plain")) is None


def test_reads_refuses_what_is_no_reader_or_no_tool() -> None:
    with pytest.raises(TypeError, match="function of a text"):
        reads("digits")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="LangChain tool"):
        reads(bool)(len)  # type: ignore[type-var]


def test_an_agent_reads_what_one_of_its_tools_reads_and_anything_with_a_tool_without_reader() -> None:
    digits = _tool("digits", lambda text: any(c.isdigit() for c in text))
    upper = _tool("upper", lambda text: text.isupper())
    agent = may_read([digits, upper, make_back_tool()])  # ``back`` steers, it reads nothing
    assert agent is not None
    assert agent("route 66") and agent("HELLO") and not agent("hello")
    assert may_read([digits, _tool("plain")]) is None  # one tool may read anything: so may the agent
    assert may_read([]) is None


def test_a_reader_that_raises_reads_the_text() -> None:
    def broken(text: str) -> bool:
        raise RuntimeError("bug")

    agent = may_read([_tool("broken", broken)])
    assert agent is not None and agent("anything")


def test_routing_tools_carry_their_agents_readers() -> None:
    readers = agent_readers({"math": MATH_TOOLS, "info": INFO_TOOLS})
    routes = {t.name: t for t in make_routing_tools([MathPlugin.get_metadata(), InfoPlugin.get_metadata()],
                                                    readers=readers)}  # fmt: skip
    assert reader_of(routes["goto_math_agent"]) is readers["math"]
    assert reader_of(routes["goto_finalize"]) is None
    assert READS_METADATA_KEY not in (make_routing_tools([MathPlugin.get_metadata()])[0].metadata or {})


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("What is 12 * 12?", SURELY),  # arithmetic written out: no word of it need be any agent's
        ("cos(pi)", SURELY),  # "cos" is nobody's word (the model had answered "I'm glad to help")
        ("abs(-5)", SURELY),  # it gives its number back, and is still arithmetic
        ("What is 5 divided by 0?", True),  # read: the error is about the arithmetic
        ("sqrt(-4)", SURELY),  # a function of mathematics, even out of its domain: surely the calculator's
        ("2 +* 3", True),  # symbols: the calculator says what is wrong with them
        ("What is half of 86?", True),
        ("What is the square root of sixteen", SURELY),
        ("Who won the world cup in 2018?", False),  # a unit ("cup") and a year: no operation
        ("How tall is Mount Everest in meters?", False),
        ("Give me 5 tips for sleeping better", False),
        ("What time is it in Tokyo?", False),
        ("What's 2 to the 10th?", True),
        ("What is 1990?", False),  # only a number: the calculator would give it back
        ("How much is 3 dozen?", True),  # 36 in words: an operation
        ("7", False),
        ("Is 17 prime?", True),
    ],
)
def test_the_calculator_reads_arithmetic_only(text: str, read: object) -> None:
    assert reads_arithmetic(text) is read


def test_tools_taking_two_numbers_read_texts_writing_two() -> None:
    assert writes_two_numbers("What's 15% of 80?") and writes_two_numbers("fifteen percent of two hundred")
    assert not writes_two_numbers("Who won the world cup in 2018?")
    assert not writes_two_numbers("weekday of 2026-03-01")  # a date's numbers are no two numbers


@pytest.mark.parametrize(
    ("text", "percentages", "statistics"),
    [
        ("45 is what percent of 180?", True, False),
        ("Price went from 80 to 100, what is the change?", True, False),
        ("What is the median of 3, 9, 1, 7, 5?", False, True),
        ("162, 175, 181, 158 and 170 cm. What is the average height?", False, True),
        # two dates are no data set and no percent change (a wrong date handed over became statistics)
        ("How many days between 2026-02-30 and 2026-03-05?", False, False),
        ("I have 3 kids and 2 cats", False, False),
    ],
)
def test_the_percent_and_statistics_tools_read_their_own_questions(
    text: str, percentages: bool, statistics: bool
) -> None:
    assert reads_percentages(text) is percentages and reads_statistics(text) is statistics


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("What time is it in Tokyo?", True),
        ("Is Berlin ahead of New York?", True),
        ("Convert 3pm London to Tokyo", True),
        ("When is Christmas?", True),
        ("How old is someone born in 1990?", True),
        ("Which timezone is Denver in?", True),
        ("Asia/Tokyo", True),
        ("What's the tallest building in the world?", False),  # the world clock's "world" only
        ("Who won the world cup in 2018?", False),
        ("What is the weather in Paris?", False),
        ("What year did the Titanic sink?", False),  # a year of history, not the date now
        ("When is Easter?", True),
        ("How many days until Thanksgiving?", True),
        ("What is Easter about?", False),  # a holiday, but not when it is
        ("Tell me about Thanksgiving traditions", False),
    ],
)
def test_the_info_tools_read_questions_of_time_and_dates(text: str, read: bool) -> None:
    agent = may_read(INFO_TOOLS)
    assert agent is not None and agent(text) is read


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("What time is it in Germany?", "current_time"),
        ("Is it the weekend in Dubai?", "current_time"),
        ("What month is it?", "date_calculator"),  # the month now: today's date
        ("What was yesterday's date?", "date_calculator"),  # another day's date is the calendar's
        ("What date was it yesterday in London?", "date_calculator"),
        ("How many hours is Dubai from London?", "time_difference"),
        ("tokyo vs london time", "time_difference"),
        ("By how many hours do Moscow and Beijing differ?", "time_difference"),  # the model had answered
        ("Is it later in Tokyo or in Seoul?", "time_difference"),
        ("How far apart are Rome and Cairo in time?", "time_difference"),  # it had been their distance
        ("Are Paris and Berlin in the same time zone?", "time_difference"),
        ("When it is 3pm in Sydney, what time is it in London?", "convert_time"),
        ("Convert 9pm to 24-hour time", "clock_calculator"),  # a clock format, not a zone (was an error)
        ("Is 2028 a leap year?", "date_calculator"),
        ("weekday of 2000-01-01", "date_calculator"),
        ("2 hours 45 minutes after 10:30", "clock_calculator"),
        ("How many seconds in a day?", "clock_calculator"),
        ("How many hours are there in March?", "clock_calculator"),
        ("What time will it be in 2 and a half hours?", "clock_calculator"),
    ],
)
def test_each_info_tool_reads_its_own_questions(text: str, tool: str) -> None:
    reader = {t.name: reader_of(t) for t in INFO_TOOLS}[tool]
    assert reader is not None and reader(text)


@pytest.mark.parametrize(
    "text",
    [
        "What's a good time to visit Japan?",
        "Who invented the clock?",
        "Why do we have time zones?",
        "What's the difference between a virus and bacteria?",
        "What are the days of the week in French?",
        "How many hours should I sleep?",
        "What happened in 1969?",
    ],
)
def test_a_word_of_time_alone_is_no_question_for_the_world_clock(text: str) -> None:
    agent = may_read(INFO_TOOLS)
    assert agent is not None and not agent(text)


def _routes() -> list[BaseTool]:
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata()]
    return make_routing_tools(plugins, readers=agent_readers({"math": MATH_TOOLS, "info": INFO_TOOLS}))


def _after_route(question: str, agent: str) -> list[Any]:
    """What an agent sees on its first step: the question, the coordinator's route and its result."""
    route = f"goto_{agent}_agent"
    return [
        SystemMessage("You are an agent."),
        HumanMessage(question),
        AIMessage("", name="coordinator", tool_calls=[{"name": route, "args": {}, "id": "r1"}]),
        ToolMessage(agent, tool_call_id="r1", name=route),
    ]


def _plan(model: LocalChatModel, messages: list[Any]) -> list[str]:
    bound = model.bind_tools(_routes())
    return model.plan(messages, **bound.kwargs).route_names  # type: ignore[attr-defined]


def test_the_embedded_model_routes_only_to_agents_that_may_read_the_question() -> None:
    model = LocalChatModel()
    assert "readers" in model.bind_tools(_routes()).kwargs  # type: ignore[attr-defined]
    ask = [SystemMessage("x")]
    assert _plan(model, [*ask, HumanMessage("Who won the world cup in 2018?")]) == ["goto_finalize"]
    assert _plan(model, [*ask, HumanMessage("What's the tallest building in the world?")]) == [
        "goto_finalize"
    ]
    assert _plan(model, [*ask, HumanMessage("What is 12 * 12?")]) == ["goto_math_agent"]
    assert _plan(model, [*ask, HumanMessage("What time is it in Tokyo?")]) == ["goto_info_agent"]
    # a part of the question is enough: the calculator reads "What's 5*7"
    assert "goto_math_agent" in _plan(model, [*ask, HumanMessage("What's 5*7 and what time is it in Tokyo?")])


def test_one_number_and_no_agents_word_goes_where_a_tool_reads_it_if_it_asks() -> None:
    model = LocalChatModel()
    ask = [SystemMessage("x")]
    # "to the 10th" is one number and no word of the calculator's; its reader reads it
    assert _plan(model, [*ask, HumanMessage("What's 2 to the 10th?")]) == ["goto_math_agent"]
    assert _plan(model, [*ask, HumanMessage("calculate 3 to the 5th")]) == ["goto_math_agent"]
    # a statement of one number is not a sum, whatever a reader says of it
    assert _plan(model, [*ask, HumanMessage("My lucky number is 7")]) == ["goto_finalize"]
    assert _plan(model, [*ask, HumanMessage("I'm 30 years old")]) == ["goto_finalize"]
    assert _plan(model, [*ask, HumanMessage("What is 1990?")]) == ["goto_finalize"]


def _time_in(place: str) -> list[Any]:
    """A previous turn that told the time in ``place`` through the world clock."""
    return [
        HumanMessage(f"What time is it in {place}?"),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_info_agent", "args": {}, "id": "r1"}]),
        ToolMessage("info", tool_call_id="r1", name="goto_info_agent"),
        AIMessage("", tool_calls=[{"name": "current_time", "args": {"location": place}, "id": "t1"}]),
        ToolMessage(f"The current time in {place} is 10:00.", tool_call_id="t1", name="current_time"),
        AIMessage(f"The current time in {place} is 10:00.", name="synthesizer"),
    ]


def test_there_is_read_as_the_place_it_refers_to() -> None:
    model = LocalChatModel()
    # the world clock reads "What's the date in Paris?", not "What's the weather in Paris?"
    assert _plan(model, [*_time_in("Paris"), HumanMessage("And the date there?")]) == ["goto_info_agent"]
    assert _plan(model, [*_time_in("Paris"), HumanMessage("What's the weather there?")]) == ["goto_finalize"]
    # at the agent, "there" is the place an earlier question went to
    bound = model.bind_tools(INFO_TOOLS)
    messages = [
        HumanMessage("I'm planning a trip to Tokyo."),
        AIMessage("You're planning a trip to Tokyo.", name="synthesizer"),
        *_after_route("What time is it there?", "info"),
    ]
    plan = model.plan(messages, **bound.kwargs)  # type: ignore[attr-defined]
    call = json.loads(plan.fixed or "{}")
    assert call["name"] == "current_time" and "in Tokyo" in call["arguments"]["location"]


def test_a_question_leaning_on_the_previous_turn_is_not_read_alone() -> None:
    model = LocalChatModel()
    history = [
        HumanMessage("What is 2 to the power of 8?"),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_math_agent", "args": {}, "id": "r1"}]),
        ToolMessage("math", tool_call_id="r1", name="goto_math_agent"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "2 ** 8"}, "id": "t1"}]),
        ToolMessage("256", tool_call_id="t1", name="calculate"),
        AIMessage("2 to the power of 8 is 256.", name="synthesizer"),
    ]
    # alone, "the square root of that" is no arithmetic; after a result it is the result's
    assert not reads_arithmetic("What is the square root of that?")
    assert _plan(model, [*history, HumanMessage("What is the square root of that?")]) == ["goto_math_agent"]
    # the first turn of a conversation refers to nothing: a short question is read as it is
    assert _plan(model, [HumanMessage("What is a square?")]) == ["goto_finalize"]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("What's the time difference between London and Tokyo?", True),
        ("How many hours ahead is Dubai compared to London?", True),
        ("How many hours between Madrid and Mexico City?", True),
        ("What time will it be in Tokyo in 3 hours?", False),  # a time from now: the clock calculator's
        ("What time was it in Paris two hours ago?", False),
        ("How far ahead is Tokyo, and what time will it be there in 3 hours?", True),
    ],
)
def test_time_difference_reads_no_time_from_now(text: str, read: bool) -> None:
    assert asks_time_difference(text) is read


def test_when_no_tools_words_fit_the_tool_that_reads_the_question_is_called() -> None:
    model = LocalChatModel()
    bound = model.bind_tools(INFO_TOOLS)
    plan = model.plan(_after_route("When is Easter?", "info"), **bound.kwargs)  # type: ignore[attr-defined]
    assert json.loads(plan.fixed or "{}")["name"] == "date_calculator"


def test_an_agent_chooses_among_the_tools_that_may_read_the_question() -> None:
    model = LocalChatModel()
    bound = model.bind_tools(INFO_TOOLS)
    messages = _after_route("What time will it be in Tokyo in 3 hours?", "info")
    plan = model.plan(messages, **bound.kwargs)  # type: ignore[attr-defined]
    assert json.loads(plan.fixed or "{}")["name"] == "clock_calculator"
    # without readers the offset between Tokyo and "time" (a town in Norway) ranked first
    unread = model.plan(messages, tools=bound.kwargs["tools"])  # type: ignore[attr-defined]
    assert "time_difference" in [t["function"]["name"] for t in unread.options]


def test_mode_and_mod_are_different_words() -> None:
    assert stem("mode") == stem("modes") == "mode" and stem("mod") == "mod"


def test_a_question_about_the_user_is_not_read_alone() -> None:
    """The user's told numbers fill it in at the agent ("How much do I earn a week?" after "I work 38 hours
    a week at $22 an hour", here or remembered from another conversation)."""
    model = LocalChatModel()
    assert not reads_arithmetic("How much do I earn a week?")
    told = SystemMessage(f"{TOLD_FACTS_HEADER}:\n- You work 38 hours a week at $22 an hour.")
    assert _plan(model, [told, HumanMessage("How much do I earn a week?")]) == ["goto_math_agent"]
    # nothing told, no earlier turn: read as it is ("How do I convert a PDF to Word?" is no conversion)
    assert _plan(model, [HumanMessage("How do I convert a PDF to Word?")]) == ["goto_finalize"]
    # "me" asks for something, it tells nothing
    assert _plan(model, [HumanMessage("Give me 5 tips for sleeping better")]) == ["goto_finalize"]


def test_the_supervisor_hands_off_only_to_agents_that_may_read_the_question() -> None:
    from cadence.orchestration.modes.supervisor import Supervisor
    from cadence.testing import ScriptedChatModel
    from conftest import make_settings

    metadata = [MathPlugin.get_metadata(), InfoPlugin.get_metadata()]
    readers = agent_readers({"math": MATH_TOOLS, "info": INFO_TOOLS})
    supervisor = Supervisor(
        ScriptedChatModel.from_items([]), metadata, make_settings(mode="supervisor"), readers
    )
    model = LocalChatModel()
    bound = model.bind_tools(supervisor.tools)
    ask = [SystemMessage("You are the supervisor.")]

    def route(question: str) -> list[str]:
        return model.plan([*ask, HumanMessage(question)], **bound.kwargs).route_names  # type: ignore[attr-defined]

    assert route("Who won the world cup in 2018?") == ["goto_finalize"]
    assert route("What is 12 * 12?") == ["transfer_to_math"]


def test_the_current_time_does_not_read_another_days_date() -> None:
    assert not asks_current_time("What date was it yesterday in London?")
    assert not asks_current_time("What day is it tomorrow?")
    assert not asks_current_time("what day was 1 jan 2000")  # a date written: the calendar's
    assert asks_current_time("What date is it in London?")


def test_a_question_referring_to_a_told_birthday_is_routed_as_written_out() -> None:
    """ "How old am I?" after "I was born on 3 March 1995." shares no word with any agent: the route is
    decided on the question with the told fact written out (the age of someone born that day)."""
    model = LocalChatModel()
    told = SystemMessage(f"{TOLD_FACTS_HEADER}:\n- You were born on 3 March 1995.")
    assert _plan(model, [told, HumanMessage("How old am I?")]) == ["goto_info_agent"]
    assert _plan(model, [SystemMessage("x"), HumanMessage("How old am I?")]) == ["goto_finalize"]


def test_a_request_of_style_as_a_sentence_after_the_question_is_no_part_of_it() -> None:
    """ "What is the capital of Germany? Answer formally." had sent "Answer formally." to the docs."""
    from cadence.models.preroute import without_style_request

    assert without_style_request("What is the capital of Germany? Answer formally.") == (
        "What is the capital of Germany?"
    )
    assert (
        without_style_request("How far is Paris from Rome? Keep it short.") == "How far is Paris from Rome?"
    )
    assert without_style_request("Answer formally.") == "Answer formally."  # nothing else asked
    # "Explain." had been left of "Explain step by step." (the learning steps quoted "What's 2 + 2? Explain.")
    assert without_style_request("What's 2 + 2? Explain step by step.") == "What's 2 + 2?"
    assert without_style_request("What is 15% of 80? Explain in detail.") == "What is 15% of 80?"


def test_the_supervisor_routes_a_question_on_a_told_birthday_written_out() -> None:
    """The supervisor's decision is planned apart from the coordinator's: it reads the told facts too."""
    from cadence.models.local.policy import routing_question

    told = SystemMessage(f"{TOLD_FACTS_HEADER}:\n- You were born on 3 March 1995.")
    assert routing_question("How old am I?", [told, HumanMessage("How old am I?")]) == (
        "How old is someone born on 3 March 1995?"
    )


def _pair_tool() -> BaseTool:
    @tool("compare")
    def compare(a: str, b: str) -> str:
        """Compare two words."""
        return f"{a} vs {b}"

    return compare


def _first_two(text: str) -> dict[str, str] | None:
    words = text.rstrip("?").split()
    return {"a": words[-3], "b": words[-1]} if len(words) >= 3 and words[-2] == "and" else None


def test_reads_arguments_marks_the_tool_and_argument_reader_of_finds_it() -> None:
    from cadence.sdk import ARGUMENTS_METADATA_KEY, argument_reader_of, reads_arguments

    t = reads_arguments(_first_two)(_pair_tool())
    assert argument_reader_of(t) is _first_two
    assert t.metadata is not None and ARGUMENTS_METADATA_KEY in t.metadata
    assert argument_reader_of(_pair_tool()) is None
    with pytest.raises(TypeError, match="function"):
        reads_arguments("x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="LangChain tool"):
        reads_arguments(_first_two)(lambda: None)  # type: ignore[type-var]


@pytest.mark.parametrize(
    ("reader", "decided"),
    [
        (_first_two, {"a": "cats", "b": "dogs"}),  # read: called with them, nothing generated
        (lambda text: {"a": "cats"}, None),  # a required argument missing: the model fills them in
        (lambda text: {"a": "x", "b": "y", "c": "z"}, None),  # an argument the tool does not take
        (lambda text: None, None),  # not read
        (lambda text: 1 / 0, None),  # a reader that raises: as if not read
    ],
)
def test_the_embedded_model_calls_a_tool_with_the_arguments_its_reader_reads(
    reader: Any, decided: Any
) -> None:
    from cadence.sdk import reads_arguments

    model = LocalChatModel()
    bound = model.bind_tools([reads_arguments(reader)(_pair_tool())])
    messages = [SystemMessage("x"), HumanMessage("Compare cats and dogs")]
    plan = model.plan(messages, **bound.kwargs)  # type: ignore[attr-defined]
    if decided is None:
        assert plan.fixed is None and plan.grammar is not None
    else:
        assert json.loads(plan.fixed or "{}") == {"name": "compare", "arguments": decided}


@pytest.mark.parametrize(
    ("question", "arguments"),
    [
        (
            "If it's 3 pm in New York, what time is it in London?",
            {"time": "3 pm", "from_location": "New York", "to_location": "London"},
        ),
        (
            "What time is it in London when it is 9:30am in Tokyo?",
            {"time": "9:30am", "from_location": "Tokyo", "to_location": "London"},
        ),
        ("What time is it in Tokyo?", None),  # one place: no conversion
        ("At 3 pm and 5 pm in Paris, what time is it in Rome?", None),  # two times
    ],
)
def test_convert_time_reads_its_arguments(question: str, arguments: Any) -> None:
    """The embedded model had generated them (4 s), the places the wrong way round."""
    from cadence.builtins.info import conversion_arguments

    assert conversion_arguments(question) == arguments


@pytest.mark.parametrize(
    ("question", "arguments"),
    [
        (
            "What's the time difference between Paris and Los Angeles?",
            {"location_a": "Paris", "location_b": "Los Angeles"},
        ),
        ("What is the time difference with Tokyo?", None),
        ("If it's 3 pm in Paris, what time is it in Rome?", None),  # a clock time: a conversion
    ],
)
def test_time_difference_reads_its_arguments(question: str, arguments: Any) -> None:
    from cadence.builtins.info import difference_arguments

    assert difference_arguments(question) == arguments


def test_several_parts_each_surely_another_agents_go_to_the_first_parts_agent_without_a_choice() -> None:
    """ "How many letters are in 'hello' and what is 5 + 5?": the text agent and the calculator were both sure,
    and the model chose between them (4.6 s)."""
    from cadence.builtins.text import TextPlugin

    model = LocalChatModel()
    routes = make_routing_tools(
        [MathPlugin.get_metadata(), TextPlugin.get_metadata()],
        readers=agent_readers({"math": MATH_TOOLS, "text": TextPlugin.create_agent().get_tools()}),
    )
    plan = model.plan(
        [HumanMessage('How many letters are in "hello" and what is 5 + 5?')],
        **model.bind_tools(routes).kwargs,
    )
    assert plan.route_names == ["goto_text_agent"]


def test_a_day_a_span_ahead_is_the_calendars_not_the_clocks_now() -> None:
    """ "What day is it in a week?" had gone to current_time ("Unknown location 'What day is it in a week?'")."""
    from cadence.builtins.info import asks_calendar

    assert not asks_current_time("What day is it in a week?")
    assert asks_calendar("What day is it in a week?")
    assert asks_current_time("What day is it in Tokyo?")


@pytest.mark.parametrize(
    "text", ["What time will it be in London in 5 hours?", "What time was it in Tokyo 3 hours ago?"]
)
def test_another_moment_than_now_is_not_the_time_now(text: str) -> None:
    """The planner had called current_time for "Add 5 hours." after the time in London (read as the first)."""
    assert not asks_current_time(text)
    reader = {t.name: reader_of(t) for t in INFO_TOOLS}["clock_calculator"]
    assert reader is not None and reader(text)
