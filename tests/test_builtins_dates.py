"""Tests of the ``info`` plugin's calendar tool, ``date_calculator`` (:mod:`cadence.builtins.dates`).

The clock is pinned through ``info.now`` (the clock the whole info plugin reads), so "today" is exact:
Wednesday, 15 January 2025 unless a test pins another day.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from cadence.builtins import info
from cadence.builtins._common import BuiltinToolError
from cadence.builtins.dates import MAX_QUESTION_CHARS, Calendar, DateQuestionError, answer
from cadence.builtins.info import INFO_TOOLS, InfoPlugin, UnknownLocationError, date_calculator
from cadence.builtins.math import MathPlugin
from cadence.models.local.policy import SmallModelPolicy, is_statement, sole_string_parameter
from cadence.models.preroute import PreRouter, routing_schema
from cadence.sdk import is_inline, is_volatile

TODAY = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)  # a Wednesday


def _pin(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setattr(info, "now", lambda: moment)


@pytest.fixture(autouse=True)
def today(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """Pin the clock to 12:00 UTC on Wednesday, 15 January 2025."""
    _pin(monkeypatch, TODAY)
    return TODAY


def ask(question: str) -> str:
    return date_calculator.invoke({"question": question})


# --- the questions that ended in tool errors ---------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How many days are there between March 1 and June 15, 2026?",
            "There are 106 days between Sunday, 1 March 2026 and Monday, 15 June 2026.",
        ),
        ("What day of the week was January 1, 2000?", "The 1st of January 2000 was a Saturday."),
        (
            "What's the date 45 days from today?",
            "The date 45 days from today (Wednesday, 15 January 2025 in UTC) is Saturday, 1 March 2025.",
        ),
        ("What day of the week is December 25, 2026?", "The 25th of December 2026 is a Friday."),
    ],
)
def test_the_held_out_questions(question: str, expected: str) -> None:
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "I start a 10-week course today. What date does it end?",
            "The date 10 weeks from today (Wednesday, 15 January 2025 in UTC) is Wednesday, 26 March 2025.",
        ),
        (
            "What's the date 9 weeks on from Feb 14 2027?",
            "The date 9 weeks after Sunday, 14 February 2027 is Sunday, 18 April 2027.",
        ),
        ("What day of the week will 17 August fall on in 2028?", "The 17th of August 2028 is a Thursday."),
    ],
)
def test_more_held_out_questions(question: str, expected: str) -> None:
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("9 weeks after Feb 14 2027", "Sunday, 18 April 2027"),
        ("9 weeks later than Feb 14 2027", "Sunday, 18 April 2027"),
        ("9 weeks past Feb 14 2027", "Sunday, 18 April 2027"),
        ("My ten-week course starts on March 3. When does it finish?", "Monday, 12 May 2025"),
        ("Starting tomorrow I have a 3-month contract. When does it end?", "Wednesday, 16 April 2025"),
        ("What day of the week is 4 July in 2030?", "Thursday"),
    ],
)
def test_a_span_that_starts_on_a_date_ends_its_length_later(question: str, expected: str) -> None:
    assert ask(question).endswith(f"{expected}.")


@pytest.mark.parametrize(
    "question",
    ["I start a 10-week course today.", "How many days until my 2-week trip on March 1?"],
)
def test_a_hyphenated_length_is_read_not_ignored(question: str) -> None:
    """ "a 10-week course" was skipped, and the answer was today's date; without a start and an end asked,
    it counts from nothing: an error."""
    with pytest.raises(DateQuestionError, match="counts from"):
        ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "2026-03-01 to 2026-06-15",
            "There are 106 days between Sunday, 1 March 2026 and Monday, 15 June 2026.",
        ),
        ("weekday of 2000-01-01", "The 1st of January 2000 was a Saturday."),
        (
            "today + 45 days",
            "The date 45 days from today (Wednesday, 15 January 2025 in UTC) is Saturday, 1 March 2025.",
        ),
        ("2026-03-01", "The 1st of March 2026 is a Sunday."),  # a date alone: its weekday
        ("today", "Today in UTC is Wednesday, 15 January 2025."),
    ],
)
def test_terse_forms_a_model_sends(question: str, expected: str) -> None:
    assert ask(question) == expected


# --- how dates are written -----------------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        "2026-03-01",
        "2026/03/01",
        "March 1, 2026",
        "March 1 2026",
        "march 1st, 2026",
        "March first, 2026",
        "Mar 1, 2026",
        "Mar. 1 2026",
        "1 March 2026",
        "1st March 2026",
        "the 1st of March 2026",
        "the first of March, 2026",
        "3/1/2026",
        "3/1/26",
        "01.03.2026",
    ],
)
def test_ways_of_writing_a_date(written: str) -> None:
    assert ask(f"What day of the week is {written}?") == "The 1st of March 2026 is a Sunday."


def test_a_slash_date_is_month_first_unless_the_first_number_is_above_12() -> None:
    assert ask("weekday of 6/7/2026") == "The 7th of June 2026 is a Sunday."
    assert ask("weekday of 15/6/2026") == "The 15th of June 2026 is a Monday."
    assert ask("weekday of 12/31/99") == "The 31st of December 1999 was a Friday."  # %y: 69-99 are 1900s


def test_a_weekday_written_with_the_date_is_the_date_s_own() -> None:
    assert ask("Sunday, March 1, 2026: what day of the week?") == "The 1st of March 2026 is a Sunday."
    assert ask("Is March 1, 2026 a Sunday?") == "The 1st of March 2026 is a Sunday."


def test_a_minus_sign_after_a_date_subtracts() -> None:
    assert (
        ask("2026-03-01 -10 days")
        == "The date 10 days before Sunday, 1 March 2026 is Thursday, 19 February 2026."
    )
    assert ask("today-5 days").startswith(
        "The date 5 days before today (Wednesday, 15 January 2025 in UTC) was"
    )


def test_ordinals_in_words_after_a_month() -> None:
    assert ask("June the twenty-first, 2026: what weekday?") == "The 21st of June 2026 is a Sunday."
    assert ask("what day is December the 25th, 2026") == "The 25th of December 2026 is a Friday."


def test_a_date_without_a_year_is_in_the_current_year() -> None:
    assert ask("What day of the week is March 1?") == "The 1st of March 2025 is a Saturday."
    assert ask("what day was Jan 1") == "The 1st of January 2025 was a Wednesday."


def test_a_year_written_elsewhere_in_the_question_counts() -> None:
    assert (
        ask("What day of the week was March 1 in the year 2000?") == "The 1st of March 2000 was a Wednesday."
    )
    assert (
        ask("Christmas in 2026 is on what day of the week?")
        == "Christmas Day, 25 December 2026, is a Friday."
    )
    assert (
        ask("What day of the week is Christmas next year?") == "Christmas Day, 25 December 2026, is a Friday."
    )


# --- days between two dates ----------------------------------------------------------------


def test_a_range_takes_the_year_of_its_other_end() -> None:
    assert ask("days between 1 March and 15 June 2026") == (
        "There are 106 days between Sunday, 1 March 2026 and Monday, 15 June 2026."
    )
    # it would run backwards in one year: the first date is in the year before
    assert ask("How many days from December 20 to January 5, 2027?") == (
        "There are 16 days between Sunday, 20 December 2026 and Tuesday, 5 January 2027."
    )


def test_a_range_without_years_runs_forwards_into_the_next_year() -> None:
    assert ask("How many days between December 20 and January 5?") == (
        "There are 16 days between Saturday, 20 December 2025 and Monday, 5 January 2026."
    )


def test_days_between_in_weeks_months_years_and_inclusive() -> None:
    assert ask("How many weeks between 2026-03-01 and 2026-06-15?") == (
        "There are 15 weeks and 1 day (106 days) between Sunday, 1 March 2026 and Monday, 15 June 2026."
    )
    assert ask("How many months between Jan 15 2026 and June 20 2026?") == (
        "There are 5 months and 5 days (156 days) between Thursday, 15 January 2026 and Saturday, 20 June 2026."
    )
    assert ask("how many years between 1990-05-05 and 2025-01-15").startswith(
        "There are 34 years, 8 months and 10 days (12674 days) between"
    )
    assert ask("How many days between 2026-03-01 and 2026-06-15 inclusive?") == (
        "There are 107 days between Sunday, 1 March 2026 and Monday, 15 June 2026, counting both."
    )


def test_days_between_keeps_the_order_written_and_counts_either_way() -> None:
    assert ask("2026-06-15 minus 2026-03-01") == (
        "There are 106 days between Monday, 15 June 2026 and Sunday, 1 March 2026."
    )
    assert ask("days between 2026-03-01 and 2026-03-02") == (
        "There is 1 day between Sunday, 1 March 2026 and Monday, 2 March 2026."
    )
    assert ask("days between 2026-03-01 and March 1, 2026") == (
        "Sunday, 1 March 2026 and Sunday, 1 March 2026 are the same day."
    )


def test_days_between_today_and_a_holiday() -> None:
    assert ask("How many days from today until New Year's Eve?") == (
        "There are 350 days between today (Wednesday, 15 January 2025 in UTC) and New Year's Eve "
        "(Wednesday, 31 December 2025)."
    )


def test_a_range_from_today_to_a_date_without_a_year_runs_forwards() -> None:
    """ "How many days between today and March 15?" in November had counted back to the last March 15."""
    assert ask("How many days between today and January 5?") == (
        "There are 355 days between today (Wednesday, 15 January 2025 in UTC) and Monday, 5 January 2026."
    )
    assert ask("How many days between January 5 and today?") == (
        "There are 10 days between Sunday, 5 January 2025 and today (Wednesday, 15 January 2025 in UTC)."
    )


def test_the_weekdays_of_two_dates() -> None:
    assert ask("What days of the week are March 1 and June 15, 2026?") == (
        "The 1st of March 2026 is a Sunday, and the 15th of June 2026 is a Monday."
    )


# --- a date counted from another -------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What was the date 2 weeks ago?", "The date 2 weeks before today (Wednesday, 15 January 2025 in UTC) was "
         "Wednesday, 1 January 2025."),
        ("What's the date in 3 weeks?", "The date 3 weeks from today (Wednesday, 15 January 2025 in UTC) is "
         "Wednesday, 5 February 2025."),
        ("What day will it be 100 days from now?", "The date 100 days from today (Wednesday, 15 January 2025 in UTC) "
         "is Friday, 25 April 2025."),
        ("forty five days from today", "The date 45 days from today (Wednesday, 15 January 2025 in UTC) is Saturday, "
         "1 March 2025."),
        ("What is the date 3 weeks from tomorrow?", "The date 3 weeks after tomorrow (Thursday, 16 January 2025 in "
         "UTC) is Thursday, 6 February 2025."),
        ("What date is 100 days before Christmas 2025?", "The date 100 days before Christmas Day (Thursday, 25 "
         "December 2025) is Tuesday, 16 September 2025."),
        ("What's the date 10 days before 2026-03-05?", "The date 10 days before Thursday, 5 March 2026 is Monday, "
         "23 February 2026."),
        ("add 10 days to 2026-02-25", "The date 10 days after Wednesday, 25 February 2026 is Saturday, 7 March 2026."),
        ("subtract 3 weeks from 2026-06-15", "The date 3 weeks before Monday, 15 June 2026 is Monday, 25 May 2026."),
        ("2026-03-01 - 10 days", "The date 10 days before Sunday, 1 March 2026 is Thursday, 19 February 2026."),
        ("1 year and 2 months from today", "The date 1 year and 2 months from today (Wednesday, 15 January 2025 in "
         "UTC) is Sunday, 15 March 2026."),
        ("a fortnight after 2026-03-01", "The date 1 fortnight after Sunday, 1 March 2026 is Sunday, 15 March 2026."),
        ("What day is the day after tomorrow?", "The date 1 day after tomorrow (Thursday, 16 January 2025 in UTC) is "
         "Friday, 17 January 2025."),
        ("What is 2 weeks after 3 days before Christmas 2025?", "The date 2 weeks after Monday, 22 December 2025 is "
         "Monday, 5 January 2026."),
        ("100 days before January 1, 2000", "The date 100 days before Saturday, 1 January 2000 was Thursday, 23 "
         "September 1999."),
    ],
)  # fmt: skip
def test_a_date_counted_from_another(question: str, expected: str) -> None:
    assert ask(question) == expected


def test_adding_months_keeps_the_day_or_says_the_month_is_shorter() -> None:
    assert ask("What's the date 6 months from March 15?") == (
        "The date 6 months after Saturday, 15 March 2025 is Monday, 15 September 2025."
    )
    assert ask("one month after January 31, 2026") == (
        "The date 1 month after Saturday, 31 January 2026 is Saturday, 28 February 2026 (there is no 31 February "
        "2026, so that month's last day is used)."
    )
    assert ask("2024-02-29 + 1 year").startswith(
        "The date 1 year after Thursday, 29 February 2024 is Friday, 28 February"
    )


# --- days until or since --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many days until Christmas?", "There are 344 days until Christmas Day (Thursday, 25 December "
         "2025), as of today, Wednesday, 15 January 2025 in UTC."),
        ("How many weeks until Valentine's Day?", "There are 4 weeks and 2 days (30 days) until Valentine's "
         "Day (Friday, 14 February 2025), as of today, Wednesday, 15 January 2025 in UTC."),
        ("days till halloween", "There are 289 days until Halloween (Friday, 31 October 2025), as of today, "
         "Wednesday, 15 January 2025 in UTC."),
        ("How many days until New Year?", "There are 351 days until New Year's Day (Thursday, 1 January "
         "2026), as of today, Wednesday, 15 January 2025 in UTC."),
        ("how many days since Halloween", "It has been 76 days since Halloween (Thursday, 31 October 2024), "
         "as of today, Wednesday, 15 January 2025 in UTC."),
        ("How long ago was Christmas Eve?", "It has been 22 days since Christmas Eve (Tuesday, 24 December "
         "2024), as of today, Wednesday, 15 January 2025 in UTC."),
        ("How many days until my birthday on May 5?", "There are 110 days until Monday, 5 May 2025, as of "
         "today, Wednesday, 15 January 2025 in UTC."),
        ("How many days has it been since 9/11/2001?", "It has been 8527 days since Tuesday, 11 September "
         "2001, as of today, Wednesday, 15 January 2025 in UTC."),
        ("How many days are left until Halloween 2024?", "It has been 76 days since Halloween (Thursday, 31 "
         "October 2024), as of today, Wednesday, 15 January 2025 in UTC."),
        ("days until 2025-01-16", "There is 1 day until Thursday, 16 January 2025, as of today, Wednesday, 15 "
         "January 2025 in UTC."),
    ],
)  # fmt: skip
def test_days_until_or_since(question: str, expected: str) -> None:
    assert ask(question) == expected


def test_until_is_the_next_occurrence_and_since_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 12, 30, 9, 0, tzinfo=UTC))
    assert ask("How many days until Christmas?").startswith(
        "There are 360 days until Christmas Day (Friday, 25 December 2026)"
    )
    assert ask("How many days since Christmas?").startswith(
        "It has been 5 days since Christmas Day (Thursday, 25 December 2025)"
    )
    assert ask("days until next Halloween").startswith(
        "There are 305 days until Halloween (Saturday, 31 October 2026)"
    )
    assert (
        ask("what day of the week was last Christmas") == "Christmas Day, 25 December 2025, was a Thursday."
    )


def test_a_holiday_today(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 12, 25, 9, 0, tzinfo=UTC))
    assert ask("How many days until Christmas?") == "Christmas Day (Thursday, 25 December 2025) is today."


def test_the_next_29_february() -> None:
    assert ask("How many days until February 29?").startswith(
        "There are 1140 days until Tuesday, 29 February 2028"
    )


def test_how_old_counts_years() -> None:
    # an age is said as one ("It has been 34 years, ... since" had been the answer to "How old ...?")
    assert ask("How old is someone born on 1990-05-05?") == (
        "Someone born on Saturday, 5 May 1990 is 34 years old: 34 years, 8 months and 10 days (12674 days), as "
        "of today, Wednesday, 15 January 2025 in UTC."
    )
    assert ask("I was born on 16 January 2000. How old am I?").startswith(
        "Someone born on Sunday, 16 January 2000 is 24 years old"
    )
    # years since a date that is no birth: as before
    assert ask("How many years since 1990-05-05?").startswith("It has been 34 years, 8 months and 10 days")


# --- a weekday near today ---------------------------------------------------------------------

_AS_OF = "(today in UTC is Wednesday, 15 January 2025)."


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("whats the date next friday?", f"Next Friday is Friday, 17 January 2025 {_AS_OF}"),
        ("When is next Tuesday?", f"Next Tuesday is Tuesday, 21 January 2025 {_AS_OF}"),
        (
            "what date is next Wednesday",
            f"Next Wednesday is Wednesday, 22 January 2025 {_AS_OF}",
        ),  # a week on
        ("What's the date this coming Thursday?", f"Next Thursday is Thursday, 16 January 2025 {_AS_OF}"),
        ("this Saturday", f"This Saturday is Saturday, 18 January 2025 {_AS_OF}"),
        ("what's the date this Sunday?", f"This Sunday is Sunday, 19 January 2025 {_AS_OF}"),
        ("what date is last Monday", f"Last Monday was Monday, 13 January 2025 {_AS_OF}"),
        ("What was the date last Wednesday?", f"Last Wednesday was Wednesday, 8 January 2025 {_AS_OF}"),
        ("what's the date on Sunday", f"Next Sunday is Sunday, 19 January 2025 {_AS_OF}"),
        ("What was the date on Saturday?", f"Last Saturday was Saturday, 11 January 2025 {_AS_OF}"),
        (
            "How many days until Friday?",
            "There are 2 days until next Friday (Friday, 17 January 2025), as of today, Wednesday, 15 January "
            "2025 in UTC.",
        ),
        (
            "how many days since last Thursday",
            "It has been 6 days since last Thursday (Thursday, 9 January 2025), as of today, Wednesday, 15 "
            "January 2025 in UTC.",
        ),
        (
            "What's the date 3 days after next Friday?",
            "The date 3 days after next Friday (Friday, 17 January 2025) is Monday, 20 January 2025.",
        ),
        (
            "days between last Monday and next Monday",
            "There are 7 days between last Monday (Monday, 13 January 2025) and next Monday (Monday, 20 "
            "January 2025).",
        ),
    ],
)
def test_a_weekday_near_today(question: str, expected: str) -> None:
    assert ask(question) == expected


def test_next_and_last_on_that_weekday_are_a_week_on_and_back(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 3, 7, 9, 0, tzinfo=UTC))  # a Friday
    assert ask("When is next Friday?").startswith("Next Friday is Friday, 14 March 2025 ")
    assert ask("When was last Friday?").startswith("Last Friday was Friday, 28 February 2025 ")
    assert ask("date this Friday").startswith("This Friday is Friday, 7 March 2025 ")  # today
    assert ask("what's the date next Monday").startswith("Next Monday is Monday, 10 March 2025 ")
    with pytest.raises(DateQuestionError, match="today or a week away"):
        ask("What's the date on Friday?")


def test_a_weekday_counts_from_today_in_the_place_named(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 1, 16, 20, 0, tzinfo=UTC))  # Thursday in UTC, already Friday in Tokyo
    assert ask("What is the date next Friday in Tokyo?") == (
        "Next Friday is Friday, 24 January 2025 (today in Tokyo, Japan is Friday, 17 January 2025)."
    )
    assert ask("What is the date next Friday?") == (
        "Next Friday is Friday, 17 January 2025 (today in UTC is Thursday, 16 January 2025)."
    )


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("What's the date this Monday?", "this week's is past"),  # 13 January, or the coming 20th?
        ("How many days was it until Sunday?", "the last or the next Sunday"),
        ("When is the next Friday the 13th?", "Cannot read 'next Friday'"),
        ("What's the date the Thursday after next?", "Cannot read 'Thursday'"),
        ("What date is every Monday?", "Cannot read 'Monday'"),
        ("What was the date a week ago Friday?", "Cannot read 'a week ago Friday'"),
        ("What's the date this weekend?", "Cannot read 'this weekend'"),
        ("I have a meeting on Thursday", "asks nothing about it"),
    ],
)
def test_a_weekday_that_is_not_one_day_near_today_is_refused(question: str, message: str) -> None:
    with pytest.raises(DateQuestionError, match=re.escape(message)):
        ask(question)


# --- a date counted back from a day named after "ago" ---------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What was the date exactly one year ago today?",
            "The date 1 year before today (Wednesday, 15 January 2025 in UTC) was Monday, 15 January 2024.",
        ),
        (
            "what date was it a year ago from today",
            "The date 1 year before today (Wednesday, 15 January 2025 in UTC) was Monday, 15 January 2024.",
        ),
        (
            "What was the date exactly 2 years ago?",
            "The date 2 years before today (Wednesday, 15 January 2025 in UTC) was Sunday, 15 January 2023.",
        ),
        (
            "What's the date 6 months ago today?",
            "The date 6 months before today (Wednesday, 15 January 2025 in UTC) was Monday, 15 July 2024.",
        ),
        (
            "which date was three weeks back from now?",
            "The date 3 weeks before today (Wednesday, 15 January 2025 in UTC) was Wednesday, 25 December 2024.",
        ),
        (
            "What was the date a week ago yesterday?",
            "The date 1 week before yesterday (Tuesday, 14 January 2025 in UTC) was Tuesday, 7 January 2025.",
        ),
        (
            "10 days ago tomorrow: what date?",
            "The date 10 days before tomorrow (Thursday, 16 January 2025 in UTC) was Monday, 6 January 2025.",
        ),
        (  # "and today" is the other end of a count, not the day "ago" counts from
            "How many days between 1 year ago and today?",
            "There are 366 days between Monday, 15 January 2024 and today (Wednesday, 15 January 2025 in UTC).",
        ),
    ],
)
def test_ago_counts_back_from_the_day_named_after_it(question: str, expected: str) -> None:
    assert ask(question) == expected


# --- years and months -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("is 2028 a leap year?", "Yes, 2028 is a leap year (366 days)."),
        ("Is 2027 a leap year?", "No, 2027 is not a leap year (365 days)."),
        ("Was 1900 a leap year?", "No, 1900 was not a leap year (365 days)."),  # a century not by 400
        ("was the year 2000 a leap-year or not", "Yes, 2000 was a leap year (366 days)."),
        ("Will 2100 be a leap year?", "No, 2100 is not a leap year (365 days)."),
        ("2032 leap year?", "Yes, 2032 is a leap year (366 days)."),
        ("Is it a leap year?", "No, 2025 is not a leap year (365 days)."),  # this year (it had been an error)
        ("How many years between 1969 and 2024?", "There are 55 years from 1969 to 2024."),  # an error before
        ("How many years from 2000 to 2026?", "There are 26 years from 2000 to 2026."),
        ("Is this year a leap year?", "No, 2025 is not a leap year (365 days)."),
        ("how many days are in 2028?", "2028 has 366 days (a leap year)."),
        ("How many days does 2026 have?", "2026 has 365 days (not a leap year)."),
        ("how many days were there in the year 2024", "2024 had 366 days (a leap year)."),
        ("Does 2030 have 366 days?", "No, 2030 has 365 days (not a leap year)."),
        ("does February 2028 have 29 days?", "Yes, February 2028 has 29 days (2028 is a leap year)."),
        ("Did Feb 2023 have 29 days?", "No, February 2023 had 28 days (2023 was not a leap year)."),
        ("are there 29 days in February 2100?", "No, February 2100 has 28 days (2100 is not a leap year)."),
        ("How many days are there in February 2036?", "February 2036 has 29 days (2036 is a leap year)."),
        ("how many days in September 2026", "September 2026 has 30 days."),
        ("How many days in April?", "April has 30 days in every year."),
    ],
)
def test_leap_years_and_the_days_of_a_year_or_month(question: str, expected: str) -> None:
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # "this month" had not been read ("Cannot read 'this month'"); today is 15 January 2025
        ("How many days are in this month?", "This month, January 2025, has 31 days."),
        (
            "How many days are in next month?",
            "Next month, February 2025, has 28 days (2025 is not a leap year).",
        ),
        ("How many days did last month have?", "Last month, December 2024, had 31 days."),
        ("Is this year a leap year?", "No, 2025 is not a leap year (365 days)."),
        ("Is next year a leap year?", "No, 2026 is not a leap year (365 days)."),
        ("Was last year a leap year?", "Yes, 2024 was a leap year (366 days)."),
    ],
)
def test_a_month_or_year_named_from_today(question: str, expected: str) -> None:
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("Is two thousand twenty eight a leap year?", "write it in digits"),
        ("is 2028 or 2032 a leap year?", "write it in digits"),
        ("How many leap years are there between 2000 and 2030?", "write it in digits"),
        ("Is 2024 a leap year in the Julian calendar?", "write it in digits"),
        ("Is 2024-02-29 in a leap year?", "write it in digits"),
        ("How many days are in February?", "write the year"),
        ("How many days are in 2028 and 2029?", "no date was read"),
        ("how many days are left in 2031?", "no date was read"),
    ],
)
def test_a_year_question_not_read_is_refused(question: str, message: str) -> None:
    with pytest.raises(DateQuestionError, match=re.escape(message)):
        ask(question)


# --- today ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is today's date?", "Today in UTC is Wednesday, 15 January 2025."),
        ("What day is it today?", "Today in UTC is Wednesday, 15 January 2025."),
        ("whats todays date", "Today in UTC is Wednesday, 15 January 2025."),
        ("what is the date", "Today in UTC is Wednesday, 15 January 2025."),
        ("what's the date tomorrow", "Tomorrow in UTC is Thursday, 16 January 2025."),
        ("What day was yesterday?", "Yesterday in UTC was Tuesday, 14 January 2025."),
        # the year or the month now: said first ("Which year are we in?" had been answered "2018" by the
        # model, unrouted)
        ("What year is it?", "It is 2025. Today in UTC is Wednesday, 15 January 2025."),
        ("Which year are we in?", "It is 2025. Today in UTC is Wednesday, 15 January 2025."),
        ("what month is it now", "It is January 2025. Today in UTC is Wednesday, 15 January 2025."),
        ("What's the current year?", "It is 2025. Today in UTC is Wednesday, 15 January 2025."),
    ],
)
def test_today(question: str, expected: str) -> None:
    assert ask(question) == expected


def test_today_in_a_named_place(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 1, 15, 20, 0, tzinfo=UTC))  # already the 16th in Tokyo
    assert ask("What is the date today in Tokyo?") == "Today in Tokyo, Japan is Thursday, 16 January 2025."
    assert ask("what day is it in tokyo") == "Today in Tokyo, Japan is Thursday, 16 January 2025."
    assert ask("What's the date 45 days from today in Tokyo?") == (
        "The date 45 days from today (Thursday, 16 January 2025 in Tokyo, Japan) is Sunday, 2 March 2025."
    )
    assert ask("How many days until Christmas in Tokyo?").endswith(
        "as of today, Thursday, 16 January 2025 in Tokyo, Japan."
    )
    assert ask("What is today's date?") == "Today in UTC is Wednesday, 15 January 2025."  # no place: UTC


def test_a_place_is_read_with_its_qualifier_or_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 1, 15, 20, 0, tzinfo=UTC))
    assert (
        ask("What day is it in Paris, Texas?") == "Today in Paris, Texas, US is Wednesday, 15 January 2025."
    )
    assert ask("What's the date 45 days from today in UTC+5:30?") == (
        "The date 45 days from today (Thursday, 16 January 2025 in UTC+05:30) is Sunday, 2 March 2025."
    )


def test_a_place_matters_only_for_today() -> None:
    # no date counted from today: the place is not looked up (nor needed)
    assert (
        ask("What day of the week was January 1, 2000 in Narnia?")
        == "The 1st of January 2000 was a Saturday."
    )
    with pytest.raises(UnknownLocationError):
        ask("What is the date today in Narnia?")


@pytest.mark.parametrize(
    "question",
    [
        "How many days are there between March 1 and June 15, 2026?",
        "What day of the week was January 1, 2000?",
        "What's the date 45 days from today?",
        "How many days since New Year's Day?",
        "What date is 100 days after March 3, 2026?",
        "What is today's date?",
        "When is Christmas 2026?",
        "What days of the week are March 1 and June 15, 2026?",
        "whats the date next friday?",
        "What was the date exactly one year ago today?",
        "is 2028 a leap year?",
        "does February 2028 have 29 days?",
    ],
)
def test_answers_are_sentences_the_embedded_model_hands_on_unchanged(question: str) -> None:
    """A result in whole sentences starting with a capital is the answer as it is (the 135M model turned
    "332 days have passed since ..." into "The answer is: 29")."""
    assert is_statement(ask(question))


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "No date question given"),
        ("   ", "No date question given"),
        ("Hello there", "No date question found in 'Hello there': no date was read"),
        ("What time is it in Tokyo?", "no date was read"),
        ("When is Ramadan?", "Cannot read 'Ramadan'"),  # a holiday that follows the moon
        ("How many days until Diwali?", "Cannot read 'Diwali'"),
        ("When is Orthodox Easter?", "Cannot read 'Orthodox'"),  # not the Western Easter
        ("When is the Chinese New Year?", "Cannot read 'Chinese'"),  # not 1 January
        ("3 weeks", "Cannot tell which date '3 weeks' counts from"),
        ("I was born on March 1", "it names 1 March 2025 but asks nothing about it"),
        ("February 30, 2026 weekday", "There is no date 'February 30, 2026': February 2026 has 28 days"),
        ("weekday of 13/14/2026", "neither number is a month"),
        ("weekday of 2026-13-01", "there is no month 13"),
        ("days between 2026-01-01, 2026-02-01 and 2026-03-01", "Too many dates"),
        ("How many hours between Madrid and Mexico City?", "Cannot count hours"),
        ("How many seconds in a day?", "Cannot count seconds"),
        ("9999-12-31 + 1 day", "outside the years 1 to 9999"),
        ("Was March 1 a Sunday in 2020 or 2021?", "Cannot tell which of the years 2020, 2021"),
        ("What day was March 1, 2020 or 2021?", "Cannot tell which date the year 2021 is for"),
        ("x" * (MAX_QUESTION_CHARS + 1), "too long"),
        # what is not read is an error, never ignored
        ("What's the date next Friday week?", "Cannot read 'next Friday'"),  # a week after next Friday
        ("How many days until the weekend?", "Cannot read 'weekend'"),
        ("What's the date next week?", "Cannot read 'next week'"),
        ("-5 days from today", "Cannot read '-5 days'"),
        ("1.5 weeks from today", "Cannot read '1.5 weeks'"),
        ("what is the date of the 12th of never", "no date was read"),
        ("What day of the week was 1 BC?", "no date was read"),
        ("What is 3/4 of 200?", "a slash date without a year needs a question about it"),
        ("How many days until now?", "Cannot tell which date to count to from today"),
    ],
)
def test_errors_say_what_was_not_read_and_what_works(question: str, message: str) -> None:
    with pytest.raises(DateQuestionError) as caught:
        ask(question)
    text = str(caught.value)
    assert message in text
    assert "\n" not in text
    assert "e.g." in text or "write" in text or "ask" in text


def test_the_module_reads_today_from_the_calendar_it_is_given() -> None:
    """:mod:`cadence.builtins.dates` imports nothing of the info plugin: the clock and places are passed in."""
    calendar = Calendar(now=lambda: datetime(2030, 6, 1, 23, 30, tzinfo=UTC))
    assert answer("What day is it today?", calendar) == "Today in UTC is Saturday, 1 June 2030."
    with pytest.raises(DateQuestionError, match="places are not known here"):
        answer("What is the date today in Tokyo?", calendar)


def test_errors_are_the_plugins_tool_errors() -> None:
    assert issubclass(DateQuestionError, BuiltinToolError)
    with pytest.raises(BuiltinToolError):
        ask("How are you?")


# --- the tool and its routing -----------------------------------------------------------------


def test_the_tool_takes_one_string_and_is_volatile_not_inline() -> None:
    schema = routing_schema(date_calculator)
    assert sole_string_parameter(schema) == "question"
    assert is_volatile(date_calculator)  # answers counted from today change every day
    assert not is_inline(date_calculator)  # naming a place may wait for the place index
    assert date_calculator in INFO_TOOLS
    assert "date_calculator" in [t.name for t in InfoPlugin.create_agent().get_tools()]


@pytest.mark.parametrize(
    "question",
    [
        "How many days are there between March 1 and June 15, 2026?",
        "What day of the week was January 1, 2000?",
        "What's the date 45 days from today?",
        "How many days until Christmas?",
        "How many weeks until Halloween?",
        "What is today's date?",
        "How many days are left in this year?",
    ],
)
def test_date_questions_reach_the_info_agent_and_the_tool_with_the_whole_question(question: str) -> None:
    plugins = PreRouter.from_metadata([MathPlugin.get_metadata(), InfoPlugin.get_metadata()])
    assert plugins.rank(question)[0].name == "goto_info_agent"
    tools = [routing_schema(t) for t in INFO_TOOLS]
    plan = SmallModelPolicy().plan([SystemMessage("info"), HumanMessage(question)], tools=tools)
    assert plan.fixed is not None
    assert '"name": "date_calculator"' in plan.fixed
    assert question.replace("'", "'") in plan.fixed


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("What time is it in Tokyo?", "current_time"),
        ("What is the time difference between London and Tokyo?", "time_difference"),
        ("How many hours between Madrid and Mexico City?", "time_difference"),
        ("convert 9am in Paris to New York time", "convert_time"),
        ("Is it daytime in Sydney?", "current_time"),
        ("Is it the weekend in Tokyo?", "current_time"),
    ],
)
def test_time_questions_still_reach_the_clock_tools(question: str, tool: str) -> None:
    tools = [routing_schema(t) for t in INFO_TOOLS]
    plan = SmallModelPolicy().plan([SystemMessage("info"), HumanMessage(question)], tools=tools)
    assert [option["function"]["name"] for option in plan.options] == [tool]


@pytest.mark.parametrize(
    "question",
    [
        "I'm putting away $40 every week. How much will I have after 12 weeks?",
        "how much will the deposit be worth 3 years from now at 4%?",
        "If I save 20 a day, what will I have in 6 weeks?",
        "How much will I have after 10 weeks?",
        "How much will I have saved by next Friday?",
        "how much is a leap year subscription for 2028?",
    ],
)
def test_an_amount_asked_is_no_date_question(question: str) -> None:
    with pytest.raises(DateQuestionError, match="asks an amount"):
        ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How much time until 1 March 2025?", "45 days"),
        ("how much longer until Valentine's Day?", "30 days"),
    ],
)
def test_how_much_time_is_still_a_date_question(question: str, expected: str) -> None:
    assert expected in ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many days are left in this year?", "There are 350 days until the last day of the year (Wednesday, "
         "31 December 2025), as of today, Wednesday, 15 January 2025 in UTC."),
        ("how many weeks remain in the year", "There are 50 weeks (350 days) until the last day of the year "
         "(Wednesday, 31 December 2025), as of today, Wednesday, 15 January 2025 in UTC."),
        ("How many days until the end of the year?", "350 days"),
        ("What day of the week is the end of the year?", "The last day of the year, 31 December 2025, is a "
         "Wednesday."),
    ],
)  # fmt: skip
def test_the_days_left_in_the_year_count_to_its_last_day(question: str, expected: str) -> None:
    assert expected in ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many days are left this month?", "There are 16 days until the last day of the month (Friday, "
         "31 January 2025 in UTC), as of today, Wednesday, 15 January 2025 in UTC."),
        ("how many days remain in the month", "16 days"),
        ("How many weeks until the end of the month?", "2 weeks and 2 days (16 days)"),
        ("What day is the last day of the month?", "Friday, 31 January 2025"),
    ],
)  # fmt: skip
def test_the_days_left_in_the_month_count_to_its_last_day(question: str, expected: str) -> None:
    """ "How many days are left this month?" had been an error (it could not read "this month")."""
    assert expected in ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many hours until Friday?", "There are 36 hours and 0 minutes until Friday, 17 January 2025 begins "
         "(midnight in UTC), counted from now, 12:00 on Wednesday, 15 January 2025 in UTC."),
        ("How many minutes until tomorrow?", "There are 720 minutes until Thursday, 16 January 2025 begins"),
        ("how many hours until Valentine's Day", "708 hours and 0 minutes until Valentine's Day (Friday, 14 "
         "February 2025) begins"),
    ],
)  # fmt: skip
def test_hours_until_a_day_count_from_now_to_its_start(question: str, expected: str) -> None:
    """ "How many hours until Friday?" had been an error (only whole days were counted)."""
    assert expected in ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many hours between now and Friday?", "There are 36 hours and 0 minutes until Friday, 17 January"),
        ("How many hours between Monday and Friday?", "There are 96 hours between next Monday (Monday, 20 "
         "January 2025) and the following Friday (Friday, 24 January 2025) (4 days, midnight to midnight)."),
        ("How many days between Monday and Friday?", "There are 4 days between next Monday (Monday, 20 January "
         "2025) and the following Friday"),
        ("How many days had passed between Monday and Friday?", "There are 4 days between the previous Monday "
         "(Monday, 6 January 2025) and last Friday (Friday, 10 January 2025)."),
        ("How many days from Friday to Monday?", "There are 3 days between next Friday (Friday, 17 January 2025) "
         "and next Monday (Monday, 20 January 2025)."),
        ("How many minutes between March 1 and March 3?", "There are 2,880 minutes between Saturday, 1 March "
         "2025 and Monday, 3 March 2025 (2 days, midnight to midnight)."),
    ],
)  # fmt: skip
def test_hours_between_two_days_and_weekday_ranges_run_forward(question: str, expected: str) -> None:
    """ "How many hours between Monday and Friday?" had been an error, and "days between Monday and
    Friday" on a Tuesday had counted back from next Monday to this Friday."""
    assert expected in ask(question)


@pytest.mark.parametrize("question", ["How many hours since Monday?", "How many hours until today?"])
def test_hours_to_no_day_ahead_are_still_refused(question: str) -> None:
    with pytest.raises(Exception, match="Cannot count hours"):
        ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("92 days in weeks", "92 days is 13 weeks and 1 day."),
        ("3 weeks in days", "3 weeks is 21 days."),
        ("2 fortnights and 3 days in days", "2 fortnights and 3 days is 31 days."),
        ("3 days in weeks", "3 days is less than a week."),
    ],
)
def test_a_duration_alone_is_said_in_the_days_or_weeks_asked(question: str, expected: str) -> None:
    """The follow-up "and in weeks?" of "92 days until 1 March" reaches the tool as "92 days in weeks"."""
    assert ask(question) == expected


@pytest.mark.parametrize("question", ["5 months in days", "92 days", "92 days and 3 more in weeks"])
def test_a_duration_that_cannot_be_said_in_days_or_weeks_is_an_error(question: str) -> None:
    with pytest.raises(DateQuestionError):
        ask(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How old is someone born in 1990?",
         "Someone born in 1990 is 35 years old after their birthday this year (2025), and 34 before it."),
        ("If I was born in 1985, how old am I?",
         "Someone born in 1985 is 40 years old after their birthday this year (2025), and 39 before it."),
        ("What age is a person born in 2001?",
         "Someone born in 2001 is 24 years old after their birthday this year (2025), and 23 before it."),
        ("How many years since 1990?", "1990 was 35 years ago (2025 - 1990)."),
        ("How long ago was 1969?", "1969 was 56 years ago (2025 - 1969)."),
        ("How long since 2001?", "2001 was 24 years ago (2025 - 2001)."),
    ],
)  # fmt: skip
def test_an_age_or_the_years_since_a_year_written_alone(question: str, expected: str) -> None:
    """A year of birth alone does not tell whether this year's birthday is past: both ages are given."""
    assert ask(question) == expected


@pytest.mark.parametrize("question", ["How old is someone born in 2031?", "How many years since 2031?"])
def test_a_year_to_come_is_no_age(question: str) -> None:
    with pytest.raises(DateQuestionError):
        ask(question)


def test_a_year_ago_is_no_clock_question() -> None:
    """ "How long ago was 1969?" went to the clock calculator ("ago"), which found no time of day."""
    from cadence.builtins.clock import reads_clock_question

    assert not reads_clock_question("How long ago was 1969?")
    assert reads_clock_question("What time was it 3 hours ago?")


def test_an_age_question_is_routed_to_the_date_calculator() -> None:
    router = PreRouter.from_tool_schemas([routing_schema(t) for t in INFO_TOOLS])
    for question in ["How old is someone born in 1990?", "How many years ago was 1969?"]:
        assert router.rank(question, ignore_shared=True)[0].name == "date_calculator", question


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When is Easter?", "Easter Sunday is on Sunday, 20 April 2025."),
        ("When is Easter next year?", "Easter Sunday is on Sunday, 5 April 2026."),
        ("When is Good Friday?", "Good Friday is on Friday, 18 April 2025."),
        ("What date is Black Friday this year?", "Black Friday is on Friday, 28 November 2025."),
        ("When is Thanksgiving 2026?", "Thanksgiving (US) is on Thursday, 26 November 2026."),
        ("When was Easter 2000?", "Easter Sunday was on Sunday, 23 April 2000."),
        ("When is Easter Monday 2026?", "Easter Monday is on Monday, 6 April 2026."),
        (
            "How many days until Mother's Day?",
            "There are 116 days until Mother's Day (US) (Sunday, 11 May 2025), as of today, Wednesday, "
            "15 January 2025 in UTC.",
        ),
        (
            "days between Easter 2026 and Christmas 2026",
            "There are 264 days between Easter Sunday (Sunday, 5 April 2026) and Christmas Day (Friday, 25 "
            "December 2026).",
        ),
    ],
)
def test_a_holiday_whose_date_moves_is_found_in_its_year(question: str, expected: str) -> None:
    assert ask(question) == expected


@pytest.mark.parametrize(
    ("year", "month", "day"),
    [(2024, 3, 31), (2025, 4, 20), (2027, 3, 28), (2038, 4, 25), (1961, 4, 2), (2285, 3, 22), (2038, 4, 25)],
)
def test_easter_is_the_computus(year: int, month: int, day: int) -> None:
    from datetime import date

    from cadence.builtins.dates import easter

    assert easter(year) == date(year, month, day)


def test_a_holiday_named_alone_is_the_coming_one_or_in_the_past_tense_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _pin(monkeypatch, datetime(2025, 6, 1, 12, 0, tzinfo=UTC))  # after Easter 2025 (20 April)
    assert ask("When is Easter?") == "Easter Sunday is on Sunday, 5 April 2026."
    assert ask("When was Easter?") == "Easter Sunday was on Sunday, 20 April 2025."
    assert ask("When is Easter this year?") == "Easter Sunday was on Sunday, 20 April 2025."
    assert ask("What day is Valentine's Day?") == "Valentine's Day, 14 February 2026, is a Saturday."


def test_how_many_days_a_leap_year_has() -> None:
    assert ask("How many days are in a leap year?") == (
        "A leap year has 366 days (29 February is the extra day); other years have 365."
    )


def test_the_next_or_the_last_leap_year() -> None:
    """Today is 15 January 2025 (not a leap year)."""
    assert ask("When is the next leap year?") == "The next leap year is 2028 (this year, 2025, is not one)."
    assert ask("What was the last leap year?") == "The last leap year was 2024 (this year, 2025, is not one)."


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "How many working days are in December 2026?",
            "There are 23 working days (Monday to Friday) in December 2026; public holidays are not taken off.",
        ),
        ("How many Fridays are there in 2027?", "There are 53 Fridays in 2027."),
        ("How many Mondays in February 2026?", "There are 4 Mondays in February 2026."),
        ("How many weekend days this month?", "There are 8 weekend days in January 2025."),
        (
            "How many working days next month?",
            "There are 20 working days (Monday to Friday) in February 2025",
        ),
        (
            "How many business days between March 1 and March 31, 2026?",
            "There are 22 working days (Monday to Friday) between Sunday, 1 March 2026 and Tuesday, 31 March "
            "2026, counting both",
        ),
        (
            "How many weekdays until 31 January?",
            "There are 12 working days (Monday to Friday) after today until Friday, 31 January 2025",
        ),
    ],
)
def test_working_days_and_days_of_one_name_are_counted(question: str, said: str) -> None:
    """ "How many working days are in December 2026?" was refused ("only calendar days ... are counted")."""
    assert ask(question).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What week number is it?", "Today, Wednesday, 15 January 2025 in UTC, is in week 3 of 2025"),
        ("Which week of the year is 2026-03-01?", "Sunday, 1 March 2026 is in week 9 of 2026"),
        (
            "week number of 2027-01-01",
            "Friday, 1 January 2027 is in week 53 of 2026",
        ),  # ISO: the year before's
    ],
)
def test_the_week_number_of_today_or_a_date(question: str, said: str) -> None:
    """ "What week number is it?" went to the 135M model ("It's a week number of the 1st.")."""
    assert ask(question).startswith(said)


def test_an_age_in_a_later_year() -> None:
    """ "How old will I be in 2040 if I was born in 1995?" was answered with this year's age."""
    assert ask("How old will I be in 2040 if I was born in 1995?") == (
        "Someone born in 1995 is 45 years old in 2040 after their birthday that year, and 44 before it."
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "What day of the year is it?",
            "Today, Wednesday, 15 January 2025 in UTC, is day 15 of 2025 (350 days",
        ),
        ("What day number is Christmas?", "Christmas Day (Thursday, 25 December 2025) is day 359 of 2025"),
    ],
)
def test_the_day_of_the_year(question: str, said: str) -> None:
    """ "What day of the year is it?" was answered with the time of day."""
    assert ask(question).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Is today a weekend?", "No: today in UTC is Wednesday, 15 January 2025, a weekday."),
        ("Is it a weekend in 3 days?", "Yes: the date 3 days from today"),
        ("Was 1 January 2000 a weekday?", "No: the 1st of January 2000 was a Saturday, a weekend day."),
        (
            "Is 3 February 2025 a business day?",
            "Yes: the 3rd of February 2025 is a Monday, a weekday (public",
        ),
        # a holiday on a weekday: a day off in many countries, no yes or no
        (
            "Is Christmas a working day this year?",
            "Christmas Day, 25 December 2025, is a Thursday, a weekday; as a",
        ),
    ],
)
def test_whether_a_day_is_a_weekend_day_or_a_weekday(question: str, said: str) -> None:
    assert ask(question).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How many days until June?", "There are 137 days until Sunday, 1 June 2025"),
        (
            "How many months until June 2026?",
            "There are 16 months and 17 days (502 days) until Monday, 1 June 2026",
        ),
        ("How long since March?", "It has been 320 days since Friday, 1 March 2024"),
        ("How many days until 5 June?", "There are 141 days until Thursday, 5 June 2025"),  # a day: that day
    ],
)
def test_a_month_named_alone_after_until_or_since_is_its_first_day(question: str, said: str) -> None:
    assert ask(question).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "What date is the third Sunday of June 2027?",
            "The third Sunday of June 2027 is Sunday, 20 June 2027.",
        ),
        ("What's the date of the last Friday of May?", "The last Friday of May 2025 is Friday, 30 May 2025."),
        (
            "When is the second Tuesday in March?",
            "The second Tuesday of March 2025 is Tuesday, 11 March 2025.",
        ),
        (
            "the first Monday of January",
            "The first Monday of January 2026 is Monday, 5 January 2026.",
        ),  # past
        ("What's the fifth Monday of February 2027?", "February 2027 has no fifth Monday."),
    ],
)
def test_a_weekday_counted_in_a_month(question: str, said: str) -> None:
    assert ask(question) == said


def test_weekdays_left_in_a_month_named_count_after_today() -> None:
    """ "How many weekdays are left in December?" had counted the whole month."""
    assert ask("How many weekdays are left in January?") == (
        "There are 12 working days (Monday to Friday) left in January 2025 after today (Wednesday, 15 "
        "January 2025 in UTC); public holidays are not taken off."
    )
    assert ask("How many working days are in January 2025?").startswith("There are 23 working days")


def test_an_age_now_and_the_age_in_a_later_year() -> None:
    """ "I'm 30 years old. How old will I be in 2040?" (today pinned to 15 January 2025)."""
    assert ask("I'm 30 years old. How old will I be in 2040?") == (
        "Someone 30 years old now (15 January 2025) will be 45 years old at this time of year in 2040."
    )
    assert ask("If I am 25 now, how old will I be in 2050?").startswith("Someone 25 years old now")


@pytest.mark.parametrize(
    "question",
    ["I'm 30 years old. In what year was I born?", "If someone is 30, what year were they born?",
     "What year was I born if I am 30?"],
)  # fmt: skip
def test_the_year_of_birth_of_an_age_now(question: str) -> None:
    """ "I'm 34 years old. In what year was I born?" had been an error ("34 years" counted from no date)."""
    assert ask(question) == (
        "Someone 30 years old today (15 January 2025) was born in 1995 if their birthday this year has come, "
        "or in 1994 if it is still ahead."
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Is Monday a weekday?", "Yes: Monday is a weekday"),
        ("Is Saturday a weekend day?", "Yes: Saturday is a weekend day"),
        ("Are Sundays weekdays?", "No: Sunday is a weekend day"),
        ("Is Friday a working day?", "Yes: Friday is a weekday"),
    ],
)
def test_a_day_of_the_week_named_alone_is_a_weekday_or_not(question: str, said: str) -> None:
    """What the day is, not a date: "Is Monday a weekday?" had been an error asking which Monday."""
    assert date_calculator.invoke({"question": question}).startswith(said)
