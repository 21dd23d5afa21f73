"""Tests of arithmetic on times of day: the ``info`` plugin's ``clock_calculator`` (:mod:`cadence.builtins.clock`)
and the calculator handing such questions to it.

The clock is pinned through ``info.now`` (the clock the whole info plugin reads): 18:41 UTC on Sunday,
29 November 2026 unless a test pins another moment.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from cadence.builtins import info
from cadence.builtins._common import BuiltinToolError
from cadence.builtins.clock import (
    MAX_QUESTION_CHARS,
    ClockQuestionError,
    answer,
    clock_text,
    duration_text,
    find_durations,
    find_times,
    normalized,
)
from cadence.builtins.info import INFO_TOOLS, InfoPlugin, clock_calculator
from cadence.builtins.math import MathPlugin, calculate
from cadence.models.local.policy import SmallModelPolicy, part_for, sole_string_parameter
from cadence.models.preroute import PreRouter, routing_schema
from cadence.sdk import is_volatile, reader_of

NOW = datetime(2026, 11, 29, 18, 41, tzinfo=UTC)


@pytest.fixture(autouse=True)
def pinned(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """Pin the clock to 18:41 UTC on Sunday, 29 November 2026."""
    monkeypatch.setattr(info, "now", lambda: NOW)
    return NOW


def ask(question: str) -> str:
    return clock_calculator.invoke({"question": question})


# --- reading --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "seconds", "twelve"),
    [
        ("10:30", 10 * 3600 + 1800, False),
        ("08:05:30", 8 * 3600 + 330, False),
        ("2:30 pm", 14 * 3600 + 1800, True),
        ("2.30pm", 14 * 3600 + 1800, True),
        ("12am", 0, True),
        ("12 p.m.", 12 * 3600, True),
        ("9 o'clock", 9 * 3600, False),
        ("half past 3", 3 * 3600 + 1800, False),
        ("quarter to 5", 4 * 3600 + 2700, False),
        ("20 minutes past 6", 6 * 3600 + 1200, False),
        ("noon", 12 * 3600, False),
        ("midnight", 0, False),
        ("7 in the evening", 19 * 3600, True),
        ("6:30 in the morning", 6 * 3600 + 1800, True),
    ],
)
def test_times_of_day_are_read(written: str, seconds: int, twelve: bool) -> None:
    [found] = find_times(normalized(f"at {written} today"))
    assert (found.seconds, found.twelve_hour) == (seconds, twelve)


@pytest.mark.parametrize("text", ["3.5 hours", "a ratio of 3:4", "24:00 sharp", "13pm", "15 * 23", "in 2026"])
def test_what_is_no_time_of_day_is_not_read_as_one(text: str) -> None:
    with contextlib.suppress(ClockQuestionError):  # "13pm" is named as no time of day
        assert find_times(normalized(text)) == []


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2 hours and 45 minutes", 9900),
        ("3 h 25 min", 12300),
        ("2h45", 9900),
        ("2h45m", 9900),
        ("an hour and a half", 5400),
        ("half an hour", 1800),
        ("a quarter of an hour", 900),
        ("three quarters of an hour", 2700),
        ("ninety minutes", 5400),
        ("1.5 hours", 5400),
        ("a 30-minute break", 1800),
        ("1 hour, 20 minutes and 15 seconds", 4815),
        ("2 and a half hours", 9000),
    ],
)
def test_durations_are_read_as_one(text: str, seconds: int) -> None:
    [found] = find_durations(normalized(text), [])
    assert found.seconds == seconds


def test_texts_of_times_and_durations() -> None:
    assert clock_text(13 * 3600 + 900, False) == "13:15"
    assert clock_text(13 * 3600 + 900, True) == "1:15 pm"
    assert clock_text(25 * 3600, False) == "01:00"  # the day wraps
    assert clock_text(12 * 3600, True) == "12:00 pm (noon)"
    assert duration_text(8 * 3600 + 25 * 60) == "8 hours and 25 minutes"
    assert duration_text(3600 + 60 + 1) == "1 hour, 1 minute and 1 second"
    assert duration_text(95 * 60, "minutes") == "95 minutes"
    assert duration_text(95 * 60, "hours") == "1.58 hours (1 hour and 35 minutes)"


# --- answers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What time will it be 2 hours and 45 minutes after 10:30?",
            "2 hours and 45 minutes after 10:30 is 13:15.",
        ),
        ("10:30 + 2h45m", "2 hours and 45 minutes after 10:30 is 13:15."),
        ("What time is it 45 minutes before noon?", "45 minutes before 12:00 is 11:15."),
        ("3 hours earlier than 1am", "3 hours before 1:00 am is 10:00 pm the day before."),
        (
            "If a train leaves at 08:50 and the journey takes 3 h 25 min, when does it arrive?",
            "3 hours and 25 minutes after 08:50 is 12:15.",
        ),
        (
            "The meeting starts at 2:30 pm and lasts 90 minutes. When does it end?",
            "1 hour and 30 minutes after 2:30 pm is 4:00 pm.",
        ),
        (
            "My flight departs at 23:10 and takes 7 hours 40 minutes. What time do I land?",
            "7 hours and 40 minutes after 23:10 is 06:50 the next day.",
        ),
        (
            "A movie starts at 7 in the evening and is 2 hours 15 minutes long. When does it finish?",
            "2 hours and 15 minutes after 7:00 pm is 9:15 pm.",
        ),
        (
            "I need to be at work by 9:00 and the drive takes 45 minutes. When should I leave?",
            "45 minutes before 09:00 is 08:15.",
        ),
        (
            "The cake needs 40 minutes in the oven and must be ready at 6pm. When do I put it in?",
            "40 minutes before 6:00 pm is 5:20 pm.",
        ),
        ("36 hours after 10:00", "36 hours after 10:00 is 22:00 the next day."),
        ("50 hours after 10:00", "50 hours after 10:00 is 12:00 2 days later."),
        # a verb before the duration says which way it counts ("from" after it is no "after")
        ("Add 2 hours and 30 minutes to 14:45", "2 hours and 30 minutes after 14:45 is 17:15."),
        ("Subtract 45 minutes from 10:00", "45 minutes before 10:00 is 09:15."),
        ("take away 20 minutes from 8:10", "20 minutes before 08:10 is 07:50."),
        ("add 90 minutes to 11pm", "1 hour and 30 minutes after 11:00 pm is 12:30 am the next day."),
    ],
)
def test_a_time_of_day_and_a_duration(question: str, expected: str) -> None:
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How long is it from 9:15 to 17:40?", "From 09:15 to 17:40 is 8 hours and 25 minutes."),
        ("How many minutes from 10:15 to 11:50?", "From 10:15 to 11:50 is 95 minutes."),
        ("How long from 10pm to 6am?", "From 10:00 pm to 6:00 am is 8 hours (past midnight)."),
        ("How long is it from quarter to 9 to 11:20?", "From 08:45 to 11:20 is 2 hours and 35 minutes."),
        ("17:40 - 9:15", "From 09:15 to 17:40 is 8 hours and 25 minutes."),  # a difference: the time between
        ("10:30 + 2:45", "2 hours and 45 minutes after 10:30 is 13:15."),  # a sum: hours and minutes added
        (
            "I work from 9:00 to 17:30 with a 30-minute lunch break. How many hours do I work?",
            "From 09:00 to 17:30 is 8 hours and 30 minutes; without the break (30 minutes), 8 hours.",
        ),
    ],
)
def test_two_times_of_day(question: str, expected: str) -> None:
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What time is 1530 in 12-hour format?", "1530 on the 12-hour clock is 3:30 pm."),
        ("What is 15:30 in 12-hour time?", "15:30 on the 12-hour clock is 3:30 pm."),
        ("convert 3:30 pm to 24-hour", "3:30 pm on the 24-hour clock is 15:30."),
        ("What is 7pm in 24 hour time?", "7pm on the 24-hour clock is 19:00."),
        ("what is 21:00 in am/pm", "21:00 on the 12-hour clock is 9:00 pm."),
        ("What is 0900 in military time?", "0900 on the 24-hour clock is 09:00."),
        ("midnight in 24-hour time", "midnight on the 24-hour clock is 00:00."),
    ],
)
def test_a_time_of_day_in_the_clock_format_asked_for(question: str, expected: str) -> None:
    assert ask(question) == expected


def test_a_clock_format_question_reaches_the_clock_calculator_by_the_tools_readers() -> None:
    tools = [routing_schema(t) for t in INFO_TOOLS]
    policy = SmallModelPolicy(readers={t.name: reader for t in INFO_TOOLS if (reader := reader_of(t))})
    plan = policy.plan(
        [SystemMessage("info"), HumanMessage("What time is 1530 in 12-hour format?")], tools=tools
    )
    assert plan.fixed is not None and '"name": "clock_calculator"' in plan.fixed


def test_a_duration_of_twelve_hours_is_no_clock_format() -> None:
    assert ask("What time is it 12 hours after 10:00?") == "12 hours after 10:00 is 22:00."
    with pytest.raises(ClockQuestionError):  # "in 24 hours" is a duration, not the 24-hour clock
        answer("What time will it be in 24 hours if it is 10:00 now?")


def test_a_duration_from_now_is_counted_from_the_pinned_clock_in_utc_or_the_place_named() -> None:
    assert ask("What time will it be in 3 hours?") == (
        "3 hours from now it will be 21:41 in UTC (it is 18:41 there now, on Sunday, 29 November 2026)."
    )
    assert ask("What time was it 2 hours ago?").startswith("2 hours ago it was 16:41 in UTC")
    assert ask("What time will it be in 90 minutes from now in Tokyo?") == (
        "1 hour and 30 minutes from now it will be 05:11 in Tokyo, Japan (it is 03:41 there now, on Monday, "
        "30 November 2026)."
    )
    assert ask("What time will it be in 6 hours?") == (
        "6 hours from now it will be 00:41 the next day in UTC (it is 18:41 there now, on Sunday, 29 November 2026)."
    )
    # "later" and "earlier" with no time of day count from now ("What's 3 hours later?" had been an error)
    assert ask("What's 3 hours later in Tokyo?").startswith(
        "3 hours from now it will be 06:41 in Tokyo, Japan"
    )
    assert ask("What time was it 2 hours earlier?").startswith("2 hours ago it was 16:41 in UTC")
    assert ask("What time is 3 hours later than 10:30?") == "3 hours after 10:30 is 13:30."


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("", "No clock question given"),
        ("How are you?", "No clock question found"),
        ("What is 10:30?", "No clock question found"),
        ("2 hours and 10:30", "Cannot tell whether"),
        ("3 hours", "Cannot tell which time of day"),
        ("From 9:00 to 17:00 and 2 hours", "Cannot tell what"),
        ("9:00 to 10:00 with a 2 hour break", "longer than"),
        ("1:00, 2:00 and 3:00", "Too many times"),
        ("25:30 plus 2 hours", "No time of day '25:30'"),
        ("x" * (MAX_QUESTION_CHARS + 1), "too long"),
    ],
)
def test_what_cannot_be_read_is_an_error_that_says_what_works(question: str, says: str) -> None:
    with pytest.raises(ClockQuestionError, match=says) as caught:
        answer(question, lambda: NOW)
    assert (
        "e.g." in str(caught.value)
        or "say" in str(caught.value)
        or says in {"longer than", "No time of day '25:30'"}
    )
    assert isinstance(caught.value, BuiltinToolError)


def test_the_calculator_hands_a_question_writing_a_time_of_day_to_the_clock() -> None:
    assert calculate.invoke({"expression": "train leaves at 08:50 and takes 3 h 25 min, arrives when?"}) == (
        "3 hours and 25 minutes after 08:50 is 12:15."
    )
    assert calculate.invoke({"expression": "15 * 23"}) == "345"  # no time of day: arithmetic as ever
    with pytest.raises(BuiltinToolError):  # a time of day the clock cannot read is no arithmetic either
        calculate.invoke({"expression": "What is 3:45 as a fraction?"})


# --- the tool and its routing -----------------------------------------------------------------


def test_the_tool_takes_one_string_and_is_volatile() -> None:
    assert sole_string_parameter(routing_schema(clock_calculator)) == "question"
    assert is_volatile(clock_calculator)  # "in 3 hours" is counted from now
    assert "clock_calculator" in [t.name for t in InfoPlugin.create_agent().get_tools()]


@pytest.mark.parametrize(
    "question",
    [
        "What time will it be 2 hours and 45 minutes after 10:30?",
        "How long is it from 9:15 to 17:40?",
        "The meeting starts at 2:30 pm and lasts 90 minutes. When does it end?",
        "What time will it be in 3 hours?",
        "I need to be at work by 9:00 and the drive takes 45 minutes. When should I leave?",
        "Add 2 hours and 30 minutes to 14:45",
    ],
)
def test_clock_questions_reach_the_clock_calculator_with_the_whole_question(question: str) -> None:
    tools = [routing_schema(t) for t in INFO_TOOLS]
    plan = SmallModelPolicy().plan([SystemMessage("info"), HumanMessage(question)], tools=tools)
    assert plan.fixed is not None and '"name": "clock_calculator"' in plan.fixed


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("What time is it in Tokyo?", "current_time"),
        ("What time is it in London when it's 3pm in Sydney?", "convert_time"),
        ("If it's 8pm in Chicago, what time is it in Delhi?", "convert_time"),
        ("How many hours ahead is Tokyo from London?", "time_difference"),
        ("How many days until Christmas?", "date_calculator"),
    ],
)
def test_world_clock_and_calendar_questions_keep_their_tools(question: str, tool: str) -> None:
    tools = [routing_schema(t) for t in INFO_TOOLS]
    plan = SmallModelPolicy().plan([SystemMessage("info"), HumanMessage(question)], tools=tools)
    assert [option["function"]["name"] for option in plan.options] == [tool]


@pytest.mark.parametrize(
    ("question", "agent"),
    [
        ("What time will it be 2 hours and 45 minutes after 10:30?", "goto_info_agent"),
        ("What time will it be in 3 hours?", "goto_info_agent"),
        ("How many minutes are in 3.5 hours?", "goto_math_agent"),
        ("If I drive 150 km at 60 km/h, how long does it take?", "goto_math_agent"),
    ],
)
def test_the_agents_are_chosen_as_before_for_counts_of_hours(question: str, agent: str) -> None:
    plugins = PreRouter.from_metadata([MathPlugin.get_metadata(), InfoPlugin.get_metadata()])
    assert plugins.rank(question)[0].name == agent


def test_the_arithmetic_part_of_a_two_part_question_is_not_the_clocks() -> None:
    """ "What's 7 + 6 and what's the time in Paris?": the info agent's part is the time ("+" is no clock
    arithmetic: the clock calculator was asked "What's 7 + 6")."""
    tools = [routing_schema(t) for t in INFO_TOOLS]
    assert part_for("What's 7 + 6 and what's the time in Paris?", tools) == "what's the time in Paris?"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many hours are there in March?", "March 2026 has 31 days: 744 hours."),
        (
            "How many hours in February?",
            "February 2026 has 28 days: 672 hours (a leap year's has 29: 696 hours).",
        ),
        ("how many seconds does February 2028 have", "February 2028 has 29 days: 2,505,600 seconds."),
        ("how many minutes in a leap year", "A leap year has 366 days: 527,040 minutes."),
        ("How many hours are there in 2024?", "2024 has 366 days: 8,784 hours."),
        ("How many hours in a week?", "A week has 168 hours."),
        ("How many weeks are in 2026?", "2026 has 365 days: 52 weeks and 1 day."),
        ("How many weeks in February 2027?", "February 2027 has 28 days: 4 weeks."),
        ("How many weeks are in a leap year?", "A leap year has 366 days: 52 weeks and 2 days."),
        ("How many weeks in a fortnight?", "A fortnight has 2 weeks."),
    ],
)
def test_the_hours_minutes_or_seconds_of_a_calendar_period(question: str, expected: str) -> None:
    """ "How many hours are there in March?" reached the clock tools and was an error; "How many weeks are
    in 2026?" had been an error of the calendar's and the calculator's."""
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How long until midnight?",
            "From now until midnight is 5 hours and 19 minutes (it is 18:41 in UTC now, on Sunday, 29 November "
            "2026).",
        ),
        (
            "How many minutes until 7pm?",
            "From now until 7:00 pm is 19 minutes (it is 6:41 pm in UTC now, on Sunday, 29 November 2026).",
        ),
        (
            "How long since 8am?",
            "Since 8:00 am it has been 10 hours and 41 minutes (it is 6:41 pm in UTC now, on Sunday, 29 "
            "November 2026).",
        ),
        (
            "How long until 9am in Tokyo?",
            "From now until 9:00 am is 5 hours and 19 minutes (it is 3:41 am in Tokyo, Japan now, on Monday, 30 "
            "November 2026).",
        ),
    ],
)
def test_how_long_from_now_until_a_time_of_day_or_since_it(question: str, expected: str) -> None:
    assert ask(question) == expected


def test_a_clock_format_asked_is_no_conversion_between_zones() -> None:
    """ "Convert 9pm to 24-hour time" had reached the zone converter: "Unknown location 'time'"."""
    from cadence.builtins.clock import names_time_of_day

    assert not names_time_of_day("Convert 9pm to 24-hour time")
    assert names_time_of_day("Convert 9pm London time to Tokyo")


def test_the_weeks_of_a_year_are_the_clock_calculators_not_the_calendars() -> None:
    """The calendar's words fit "How many weeks are in 2026?" (weeks, a year) and it had taken the question,
    which it cannot answer: the clock calculator is sure of a year's or a month's count."""
    from cadence.builtins.clock import reads_clock_question
    from cadence.sdk import SURELY

    assert reads_clock_question("How many weeks are in 2026?") is SURELY
    assert reads_clock_question("How many hours are there in March?") is SURELY
    assert reads_clock_question("How many hours in a week?") is True
