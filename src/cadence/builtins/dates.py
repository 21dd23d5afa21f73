"""Calendar arithmetic read from words: the ``info`` plugin's ``date_calculator`` tool.

:func:`make_date_calculator` makes the tool; :func:`answer` reads one date question, written tersely as
a model would send it ("2026-03-01 to 2026-06-15", "weekday of 2000-01-01", "today + 45 days") or as a
whole sentence ("How many days are there between March 1 and June 15, 2026?"), and answers in one
sentence that restates what was computed. It reads in a few generic steps (nothing about particular
sentences):

1. Number words become digits ("forty five days" → ``45 days``), the ordinal of a day of a month loses
   its suffix ("the 1st of March", "March first" → ``1 of March``, ``March 1``), and "the day
   after" / "the day before" become "1 day after" / "1 day before".
2. Dates are found: ISO (``2026-03-01``), slash dates (``3/1/2026`` is read month first, US style,
   unless the first number is above 12: ``15/6/2026`` is 15 June; a two-digit year is read like
   :func:`time.strptime`'s ``%y``: ``26`` is 2026, ``99`` is 1999), dotted dates (``15.06.2026``:
   day first), a month's name or abbreviation with a day ("March 1, 2026", "1 March 2026", "Mar 1",
   "1st of March", "December the 25th"), today (also "tonight"), tomorrow, yesterday, "now" after
   "from", "until"... and a few holidays with fixed dates (:data:`HOLIDAYS`: Christmas, New
   Year's Day and Eve, Halloween, Valentine's Day, the end of the year, also as the days "left in this
   year"; "next Christmas", "last Halloween"), and holidays whose date moves (:data:`MOVABLE_HOLIDAYS`:
   Easter and the days counted from it, the US's Thanksgiving, Mother's, Father's, Memorial and Labor
   Day; not those that follow the moon, such as Ramadan). A weekday near today is a date:
   "next Friday" (the first Friday after today: a week on when today is a Friday), "last Monday" (the
   last one before today), "this Saturday" (this week's, Monday to Sunday, today or later), and a weekday
   alone ("on Sunday") is the next one, or the last one when the question speaks of the past ("what was
   the date on Sunday?"); see :func:`_weekday_date` for what is ambiguous and refused. A duration is a
   number of days, weeks, fortnights, months or years, several joined by "and" ("1 year and 2 months").
3. A duration counts from the date after it with "from", "on from", "after", "past", "following" (forward) or
   "before", "prior to", "earlier than" (back); from the date before it with "+", "plus", "-",
   "minus"; "add ... to" and "subtract ... from" a date, "... ago" and "in ..." count from today
   ("a year ago today", "a week ago yesterday": from the day named after "ago").
   A duration written as one word ("a 10-week course") is read too, and when the question starts
   something on its one date and asks when it ends ("I start a 10-week course today. What date does it
   end?"), it counts forward from that date. Any other duration that counts from nothing is an error.
4. A date without a year takes the year written elsewhere in the question ("Christmas in 2030"),
   or in a range the other end's year ("between March 1 and June 15, 2026"; the year before or after
   when the range would otherwise run backwards: "between today and March 15" is to the next one).
   Otherwise it is in the current year, except with "until", "till", "left", "before"... (its next
   occurrence, today included) and with "since", "ago"... (its last occurrence); a holiday named alone
   is its next occurrence ("When is Easter?" after this year's), its last one in a question in the past
   tense ("When was Easter?").
5. What is asked: a duration of days and weeks alone, asked in days or weeks ("92 days in weeks", the
   follow-up "and in weeks?" of a count of days), that duration in them; with two dates, the days
   between them (also in weeks, months or years when the question counts in those; "inclusive"
   counts both ends); one date and "how many", "how long",
   "until", "since"... the days from today to it; a date counted from another, that date; one date
   and "what day", "day of the week", "weekday", "date" or any question, its day of the week; no
   date and "what is the date", "what day is it", today's date. A year or a month written in digits
   is asked about before any of this (:func:`_year_fact`): "is 2028 a leap year?", "how many days are
   in 2028?", "how many days in February 2028?", "does February 2028 have 29 days?". Anything else is
   an error (a text with no date question is never answered by a guess), and so is what the question
   says that is not read: a weekday not near today ("every Friday", "the last Friday of May", "Friday
   week"), a weekend, "next week", a holiday that follows the moon, a signed or decimal number of days ("-5
   days", "1.5 weeks"), a count in hours or business days, a leap year not written in digits ("this
   year", "two thousand"), and a slash date without a year in a text that says nothing of dates ("3/4
   of 200" is no 4 March).

"Today" comes from a :class:`Calendar`: a clock and a way to find a place's time zone. The ``info``
plugin makes the tool with :func:`make_date_calculator` and its own clock and places
(:func:`cadence.builtins.info.now`, which tests pin, and :func:`~cadence.builtins.info.resolve_location`);
this module imports nothing of it. Today is the clock's date in UTC, unless the question names a place
after "today in", "the date in", "is it in"... or capitalised after "in"/"at" ("days until Christmas in
Tokyo"). Answers that depend on today say which day and which place or UTC that was.

Months are added by the calendar: one month after 31 January is the last day of February, and the answer
says so.
"""

from __future__ import annotations

import calendar
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo

from langchain_core.tools import BaseTool

from cadence.builtins._common import BuiltinToolError, check_question, listed
from cadence.sdk import tool, volatile
from cadence.text import BIRTH_YEAR_ASKED_RE, numbers_from_words

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 500
"""Longest text a date question is read from (a date question is far shorter)."""
MAX_YEARS_SEARCHED = 8
"""How many years ahead or back the next or last occurrence of a day is looked for (29 February)."""

EXAMPLES = "e.g. 'days between 2026-03-01 and 2026-06-15', 'weekday of 2000-01-01' or 'today + 45 days'"
"""What the tool reads, quoted in its error messages."""


class DateQuestionError(BuiltinToolError):
    """A date question could not be read or computed; the message says what and shows what works."""


@dataclass(frozen=True)
class Calendar:
    """Where "today" comes from: ``now`` gives the current instant (timezone-aware), ``place`` maps a
    place named in a question ("Tokyo") to its label and time zone (``("Tokyo, Japan", tz)``), raising a
    :class:`~cadence.builtins._common.BuiltinToolError` for an unknown one; without it, places are
    unknown and today is the date in UTC."""

    now: Callable[[], datetime]
    place: Callable[[str], tuple[str, tzinfo]] | None = None


# --- words ------------------------------------------------------------------------------

MONTHS: dict[str, int] = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
    "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
    "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}  # fmt: skip
"""Month names and abbreviations → month number."""

HOLIDAYS: tuple[tuple[str, str, int, int], ...] = (
    (r"(?:christmas|xmas)\s+eve", "Christmas Eve", 12, 24),
    (r"(?:christmas|xmas)(?:\s+day)?", "Christmas Day", 12, 25),
    (r"new\s+year'?s?\s+eve", "New Year's Eve", 12, 31),
    (r"(?:the\s+)?new\s+year'?s?(?:\s+day)?", "New Year's Day", 1, 1),
    (r"hallowe'?en", "Halloween", 10, 31),
    (r"(?:st\.?\s+|saint\s+)?valentine'?s?(?:\s+day)?", "Valentine's Day", 2, 14),
    (r"(?:the\s+)?end\s+of\s+(?:the|this)\s+year|year'?s\s+end", "the last day of the year", 12, 31),
)
"""Holidays with a fixed date: pattern, name, month, day (a longer pattern before its prefix)."""


def easter(year: int) -> date:
    """Western (Gregorian) Easter Sunday of ``year``, by the anonymous Gregorian computus."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 19 * l_) // 433
    month = (h + l_ - 7 * m + 90) // 25
    return date(year, month, (h + l_ - 7 * m + 33 * month + 19) % 32)


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (0 Monday .. 6 Sunday) of a month; ``n = -1``: the last one."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = date(year, month, calendar.monthrange(year, month)[1])
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _after_easter(days: int) -> Callable[[int], date]:
    return lambda year: easter(year) + timedelta(days=days)


MOVABLE_HOLIDAYS: tuple[tuple[str, str, Callable[[int], date]], ...] = (
    (r"easter\s+monday", "Easter Monday", _after_easter(1)),
    (r"easter(?:\s+sunday|\s+day)?", "Easter Sunday", easter),
    (r"good\s+friday", "Good Friday", _after_easter(-2)),
    (r"(?:maundy|holy)\s+thursday", "Maundy Thursday", _after_easter(-3)),
    (r"palm\s+sunday", "Palm Sunday", _after_easter(-7)),
    (r"ash\s+wednesday", "Ash Wednesday", _after_easter(-46)),
    (r"(?:shrove\s+tuesday|mardi\s+gras|pancake\s+day)", "Shrove Tuesday", _after_easter(-47)),
    (
        r"(?:(?:us|american)\s+)?thanksgiving(?:\s+day)?",
        "Thanksgiving (US)",
        lambda y: nth_weekday(y, 11, 3, 4),
    ),
    (r"black\s+friday", "Black Friday", lambda y: nth_weekday(y, 11, 3, 4) + timedelta(days=1)),
    (r"cyber\s+monday", "Cyber Monday", lambda y: nth_weekday(y, 11, 3, 4) + timedelta(days=4)),
    (r"mother'?s'?\s+day", "Mother's Day (US)", lambda y: nth_weekday(y, 5, 6, 2)),
    (r"father'?s'?\s+day", "Father's Day (US)", lambda y: nth_weekday(y, 6, 6, 3)),
    (r"memorial\s+day", "Memorial Day (US)", lambda y: nth_weekday(y, 5, 0, -1)),
    (r"labou?r\s+day", "Labor Day (US)", lambda y: nth_weekday(y, 9, 0, 1)),
)
"""Holidays whose date moves: pattern, name, the date in a given year (Easter and the days counted from it,
Western; the US's Thanksgiving, Mother's, Father's, Memorial and Labor Day), a longer pattern before its
prefix. Lunar holidays (Passover, Ramadan, Diwali, Hanukkah, the Chinese New Year) and the Orthodox Easter
are not known."""

_ORDINALS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_MONTH_PATTERN = "|".join(sorted(MONTHS, key=len, reverse=True))
_ORDINAL_PATTERN = (
    r"(?:(?:twenty|thirty)[\s-]+)?(?:" + "|".join(sorted(_ORDINALS, key=len, reverse=True)) + r")"
)
_ORDINAL_BEFORE_RE = re.compile(
    rf"\b(?P<ordinal>{_ORDINAL_PATTERN})(?=\s+of\s+(?:{_MONTH_PATTERN})\b)", re.IGNORECASE
)
"""An ordinal word before "of" and a month ("the first of March")."""
_ORDINAL_AFTER_RE = re.compile(
    rf"\b(?P<lead>(?:{_MONTH_PATTERN})\.?\s+(?:the\s+)?)(?P<ordinal>{_ORDINAL_PATTERN})\b", re.IGNORECASE
)
"""An ordinal word after a month ("March first", "June the twenty-first")."""
_SUFFIX_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)
_DAY_AFTER_RE = re.compile(r"\bthe\s+day\s+(after|before)\b", re.IGNORECASE)
_LEFT_IN_YEAR_RE = re.compile(
    r"\b(left|remaining|remain|to\s+go)\s+(?:in|of)\s+(?:the|this)\s+(?:current\s+)?year\b", re.IGNORECASE
)
"""Days "left in the year": the days until its last day."""
_LEFT_IN_MONTH_RE = re.compile(
    r"\b(left|remaining|remain|to\s+go)\s+(?:(?:in|of)\s+)?(?:the|this)\s+(?:current\s+)?month\b",
    re.IGNORECASE,
)
"""Days "left this month": the days until its last day."""
MONTH_END = "the last day of the month"
"""The name of the last day of today's month ("the end of the month"), a date read from today."""
_HYPHENATED_RE = re.compile(
    r"(?<![\w.-])(\d+)-(days?|weeks?|fortnights?|months?|years?)(?:-long)?\b", re.IGNORECASE
)
"""A duration written as one word before a noun ("a 10-week course"): read as "10 week"."""
_UNIT = r"(?:days?|weeks?|wks?|fortnights?|months?|mos?|years?|yrs?)"
_NOT_A_DAY = rf"(?![\d:/]|\.\d|\s*(?:{_UNIT}|hours?|hrs?|minutes?|mins?|seconds?|secs?|[ap]\.?m\b)\b)"
"""After a day of the month: not more digits, a clock time or a unit ("March 3 days after" is no date)."""
_YEAR_TAIL = rf"(?:\s*,?\s*(?:(?:in|of)\s+)?(?P<year>\d{{4}})(?![\d/]|:\d|\s*{_UNIT}\b))?"
_AMOUNT = rf"(?:\d+|an?|one)\s+{_UNIT}\b"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(r"(?<![\d/.-])(?P<year>\d{4})([-/.])(?P<month>\d{1,2})\2(?P<day>\d{1,2})(?![\d/-])")),
    ("slash", re.compile(r"(?<![\d/.-])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<year>\d{4}|\d{2}))?(?![\d/])")),
    ("dotted", re.compile(r"(?<![\d.])(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4})(?!\d)")),
    (
        "named",
        re.compile(
            rf"\b(?P<month>{_MONTH_PATTERN})\b\.?,?\s+(?:the\s+)?(?P<day>\d{{1,2}}){_NOT_A_DAY}{_YEAR_TAIL}",
            re.IGNORECASE,
        ),
    ),
    (
        "named",
        re.compile(
            rf"(?<![\d/.-])(?:the\s+)?(?P<day>\d{{1,2}})\s+(?:of\s+)?(?P<month>{_MONTH_PATTERN})\b\.?{_YEAR_TAIL}",
            re.IGNORECASE,
        ),
    ),
    (
        "holiday",
        re.compile(
            r"\b(?:(?P<which>next|last|this)\s+)?(?P<name>"
            + "|".join(f"(?:{pattern})" for pattern, *_ in (*MOVABLE_HOLIDAYS, *HOLIDAYS))
            + rf")\b{_YEAR_TAIL}",
            re.IGNORECASE,
        ),
    ),
    ("relative", re.compile(r"\b(?P<word>today|tonight|tomorrow|yesterday)(?:'?s)?\b", re.IGNORECASE)),
    (
        "relative",
        re.compile(
            r"\b(?P<word>(?:the\s+)?(?:end|last\s+day)\s+of\s+(?:the|this)\s+(?:current\s+)?month"
            r"|(?:the\s+)?month'?s\s+end)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "relative",
        re.compile(
            r"\b(?:from|until|till|since|between|and|to)\s+(?:right\s+)?(?P<word>now)\b", re.IGNORECASE
        ),
    ),
    ("relative", re.compile(r"\b(?P<word>now)(?=\s*[+-]\s*\d)", re.IGNORECASE)),
    (
        "weekday",
        re.compile(
            r"\b(?:(?P<which>next|last|this(?:\s+coming|\s+past)?|coming)\s+)?"
            r"(?P<weekday>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
            rf"(?!'|\s*,?\s*(?:the\s+)?\d|\s+(?:week|of|after\s+next|before\s+last)\b"
            rf"|\s+in\s+(?:\d|(?:{_MONTH_PATTERN})\b))",
            re.IGNORECASE,
        ),
    ),
)
"""How dates are written (kind, pattern); earlier patterns win an overlap of the same length."""

_WEEKDAY_NOT_A_DATE_RE = re.compile(
    r"(?:\d|\b(?:every|each|good|black|ash|cyber|super|easter|palm|holy|maundy|shrove|giving|first|second"
    r"|third|fourth|fifth|final))\s*$",
    re.IGNORECASE,
)
"""Before a weekday that is not one day near today ("every Friday", "Good Friday", "the 2nd Monday",
"the last Friday of May"): it is left unread, an error."""
_WEEKDAY_TENSE_RE = re.compile(
    r"\b(?:was|were|did|had|since|ago|passed|elapsed|been|gone\s+by)\b", re.IGNORECASE
)
"""A question in the past tense: a weekday named alone is the last one before today ("What was the date
on Sunday?"), otherwise the next one after it ("What's the date on Sunday?")."""
_RESTATED_AFTER_RE = re.compile(
    r"\s*,?\s*(?:(?:is|was|will\s+be|falls?\s+on|fell\s+on)\s+)?(?:an?\s+|on\s+)?", re.IGNORECASE
)
_RESTATED_BEFORE_RE = re.compile(r"\s*,?\s*")
"""Between a date and its own weekday, written after it ("March 1, 2026 is a Sunday") or before it."""
_RELATIVE_KINDS = ("relative", "weekday")
"""Dates read from today (today, tomorrow, next Friday...): no year is written with them."""

_DURATION_RE = re.compile(
    rf"(?<![\d/.])(?:{_AMOUNT})(?:\s*(?:,\s*(?:and\s+)?|and\s+|\+\s*)?(?:{_AMOUNT}))*", re.IGNORECASE
)
_PART_RE = re.compile(rf"(?P<amount>\d+|an?|one)\s+(?P<unit>{_UNIT})\b", re.IGNORECASE)
_YEAR_RE = re.compile(r"(?<![\d/.:-])(?P<year>[12]\d{3})(?![\d/-]|[:.]\d)")

_FORWARD = (
    "from", "after", "past", "following", "later than", "counting from", "starting from", "on from",
    "on after",
)  # fmt: skip
"""Words from a duration to the date it counts forward from ("45 days from today")."""
_BACKWARD = ("before", "prior to", "earlier than", "ahead of")
"""Words from a duration to the date it counts back from ("3 days before Christmas")."""
_PLUS = ("+", "plus")
_MINUS = ("-", "\u2013", "minus", "less")
_AGO = ("ago", "back")
_TAIL_RE = re.compile(r"\s*,?\s*(ago|back|hence|from now|in the future)\b", re.IGNORECASE)
"""After a duration counted from today ("3 weeks ago")."""
_AGO_FROM = ("", "from", "as of", "counting from", "counted from")
"""Between "ago" and the day it counts back from, when one is said ("a year ago today", "a week ago from
yesterday"): that day, not another date to count days to."""
_ADD_RE = re.compile(r"\b(?:add|adding)\s*$", re.IGNORECASE)
_SUBTRACT_RE = re.compile(
    r"\b(?:subtract|subtracting|take away|taking away|deduct|deducting)\s*$", re.IGNORECASE
)
_NEVER_RE = re.compile(r"(?!)")
_STARTS_RE = re.compile(
    r"\b(?:start|starts|starting|started|begin|begins|beginning|began|commence[sd]?|commencing|kicks?\s+off)\b",
    re.IGNORECASE,
)
_ENDS_RE = re.compile(
    r"\b(?:end|ends|ending|finish|finishes|finishing|over|done|complete|completed|conclude|concludes"
    r"|wrap\s+up|wraps\s+up|last\s+day)\b",
    re.IGNORECASE,
)
"""A span that starts on a date and lasts a duration, and the question asks when it ends ("I start a
10-week course today. What date does it end?"): the duration counts forward from that date."""
_IN_RE = re.compile(r"\b(?:in|within|after)\s*$", re.IGNORECASE)
"""Before a duration counted from today ("in 3 weeks")."""
_OTHER_UNITS_RE = re.compile(
    r"\bhow\s+many\s+(?:more\s+|full\s+|whole\s+)?(?P<unit>hours|minutes|seconds|business\s+days|"
    r"working\s+days|work\s+days|weekdays|weekends|nights|sleeps|mondays|tuesdays|wednesdays|thursdays|"
    r"fridays|saturdays|sundays)\b|\b(?P<days>business|working)\s+days\b",
    re.IGNORECASE,
)
"""Counts this tool does not make: hours and minutes (whole days only), business days, weekdays."""
_AMOUNT_ASKED_RE = re.compile(
    r"\bhow\s+much\b(?!\s+(?:time|longer|later|earlier|sooner)\b)|\bwhat\s+(?:will|would)\s+(?:i|we)\s+have\b",
    re.IGNORECASE,
)
"""An amount asked ("How much will I have after 26 weeks?" of savings): no date question, whatever dates
or durations it names ("how much time", "how much longer" are)."""
_NEXT_YEAR_RE = re.compile(r"\b(?P<which>next|last|this)\s+year\b", re.IGNORECASE)
_COUNT_RE = re.compile(  # the question counts days: "how many", "between", "until", "since", "how old"
    r"\bhow\s+(?:many|much|long)\b|\bnumber\s+of\b|\bbetween\b|\bdifference\b|\bcount\b|\buntil\b|\btill?\b"
    r"|\bsince\b|\bago\b|\bleft\b|\bremain|\bapart\b|\belapsed\b|\bcountdown\b|\bhow\s+old\b|\bage\b"
    r"|\b(?:days|weeks|months|years)\s+(?:to|before|from|after)\b",
    re.IGNORECASE,
)
_UNTIL_RE = re.compile(  # a date without a year is its next occurrence
    r"\buntil\b|\btill?\b|\bleft\b|\bremain|\bbefore\b|\bto go\b|\baway\b|\bcountdown\b|\bcoming\b"
    r"|\bupcoming\b|\b(?:days|weeks|months)\s+to\b",
    re.IGNORECASE,
)
_SINCE_RE = re.compile(  # a date without a year is its last occurrence
    r"\bsince\b|\bago\b|\bpassed\b|\belapsed\b|\bbeen\b|\bgone by\b", re.IGNORECASE
)
_WEEKDAY_RE = re.compile(  # the question asks for a day of the week
    r"\bdays?\s+of\s+(?:the\s+)?week\b|\bweek\s?day\b|\b(?:what|which)\s+day\b|\bfall(?:s|ing)?\s+on\b"
    r"|\bfell\s+on\b|\bland(?:s|ed)?\s+on\b",
    re.IGNORECASE,
)
_ASK_RE = re.compile(  # the text asks something (a lone date with no question is an error)
    r"\?|\b(?:what|what's|whats|which|when|tell|give|show|find|calculate|compute|work out|check|date)\b",
    re.IGNORECASE,
)
YEAR_OR_MONTH_NOW_RE = re.compile(
    r"\b(?:what|which)\s+(?:year|month)\s+(?:is\s+it|are\s+we\s+in|is\s+this)\b"
    r"|\b(?:what|which)(?:'s|s|\s+is)\s+(?:the\s+|this\s+)?(?:current\s+|present\s+)?(?:year|month)\s*[?!.]*$"
    r"|\b(?:current|present)\s+(?:year|month)\b",
    re.IGNORECASE,
)
"""A question asking the year or the month it is now ("What year is it?", "Which year are we in?", "the
current month"); not a year asked of an event ("What year did the war end?")."""
_TODAY_ASKED_RE = re.compile(  # "what is the date", "what day is it": today, when no date is written
    r"\b(?:what|which)(?:'s|s|\s+is|\s+was)?\s+(?:the\s+)?(?:current\s+|present\s+)?(?:date|day)\b"
    r"|\bcurrent\s+date\b|\bdate\s+(?:today|now)\b|" + YEAR_OR_MONTH_NOW_RE.pattern,
    re.IGNORECASE,
)
_INCLUSIVE_RE = re.compile(
    r"\binclusive(?:ly)?\b|\bincluding\s+(?:both|the\s+(?:first|last|start|end))|\bcounting\s+both\b"
    r"|\bboth\s+(?:days|dates|ends)\s+included\b",
    re.IGNORECASE,
)
_IN_UNITS_RE = re.compile(  # the unit a count is asked in ("how many weeks"; "how old": years)
    r"\b(?:how\s+many|number\s+of|in)\s+(?P<a>days|weeks|months|years)\b|\bhow\s+(?P<c>old)\b|\b(?P<d>age)\b"
    r"|\b(?P<b>days|weeks|months|years)\s+(?:between|until|till|since|from|to|apart|left|ago|have|has|are)\b",
    re.IGNORECASE,
)
_CONNECTOR_RE = re.compile(  # nothing but dates and words joining them ("2026-03-01 to 2026-06-15")
    r"^[\s|,.;:+–-]*(?:(?:to|and|from|until|till|through|thru|between|vs)\b[\s|,.;:+–-]*)*$"
)
_PLACE_RE = re.compile(  # "today in Tokyo", "what day is it in Paris, Texas", "in UTC+5:30"
    r"(?:\b(?P<lead>today|tonight|tomorrow|yesterday|now|date|day|it)\s+)?\b(?:in|at)\s+"
    r"(?P<place>[^|?!;:\d\s](?:[^|?!;:]|(?<=\d):(?=\d))*?)\s*"
    r"(?=$|[|?!;]|:(?!\d)|\.(?:\s|$)|\s(?:from|until|till|since|to|and|is|was|will|please|right now|now)\b)",
    re.IGNORECASE,
)
_NOT_PLACES_TEXT = """the a an all total advance time future past day days week weeks month months year years
    row general order question words full detail short noon midnight midday morning afternoon evening night"""
_NOT_PLACES = frozenset(_NOT_PLACES_TEXT.split())
"""Words after "in" or "at" that name no place ("in the year", "in total", "at noon")."""
_WEEKDAY_NAMES = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_UNREAD_RE = re.compile(
    rf"(?<![\w.])[-+]?\d[\d.,e]*\s*{_UNIT}\b"
    rf"|\b(?:(?:next|last|this|coming)\s+)?(?:{_WEEKDAY_NAMES}|weekends?)\b"
    r"|\b(?:next|last|this|coming)\s+(?:week|month)\b"
    r"|\b(?:passover|pesach|ramadan|eid|diwali|hanukkah|chanukah|yom\s+kippur|rosh\s+hashanah"
    r"|(?:chinese|lunar)(?=\s*(?:new\s+year|\|))|orthodox(?=\s*(?:easter|\|))|super\s+tuesday)\b",
    re.IGNORECASE,
)
"""What a date question can say that this tool does not read: a number of days it could not take (signed,
decimal: "-5 days", "1.5 weeks"), a weekday not read as a date ("every Friday", "Friday week", "the last
Friday of May" in anything but a question for its date), a weekend, "next week", holidays whose date
follows the moon (Passover, Ramadan, Diwali). Any of them left over is an error, not ignored."""
_RESTATED_WEEKDAY_RE = re.compile(  # the question asks for a day of the week
    rf"\b{_WEEKDAY_NAMES}\s*,?\s*(?=\|)|\|\s*,?\s*(?:(?:is|was|will\s+be|falls?\s+on|fell\s+on)\s+)?"
    rf"(?:an?\s+|on\s+)?{_WEEKDAY_NAMES}\b",
    re.IGNORECASE,
)
"""A weekday written next to a date ("Sunday, March 1, 2026", "March 1, 2026 is a Sunday"): no other day."""
_TODAY_ONLY_RE = re.compile(
    r"\d|\b(?:of|after|before|until|till|since|ago|from|next|last|this|coming|week|weekday|month|year)\b"
    rf"|\b(?:{_MONTH_PATTERN})\b",
    re.IGNORECASE,
)
"""Words that make "what is the date" ask about some other day than today ("the date of ...")."""
_DATE_WORDS_RE = re.compile(
    r"\b(?:dates?|days?|weekdays?|weeks?|months?|years?|until|till|since|ago|from|after|before|between"
    r"|calendar|today|tomorrow|yesterday|birthday|holiday|anniversary|deadline|due)\b",
    re.IGNORECASE,
)
"""Words that make a slash date without a year a date ("days until 12/25"), not a fraction ("3/4 of 200")."""


# --- what was found ------------------------------------------------------------------


@dataclass
class _Found:
    """A date written in the question (``kind``: iso, slash, dotted, named, holiday, relative)."""

    start: int
    end: int
    kind: str
    text: str
    month: int = 0
    day: int = 0
    year: int | None = None
    name: str = ""  # a holiday's name, or today / tomorrow / yesterday
    which: str = ""  # next / last / this before a holiday
    value: date | None = None
    moves: Callable[[int], date] | None = None  # a movable holiday's date in a given year

    def in_year(self, year: int) -> tuple[int, int]:
        """Its month and day in ``year`` (a movable holiday's move from year to year)."""
        if self.moves is not None:
            if not 1 <= year <= 9999:
                raise DateQuestionError(f"Cannot compute with {self.text!r}: years must be 1 to 9999")
            moved = self.moves(year)
            return moved.month, moved.day
        return self.month, self.day


@dataclass
class _Duration:
    """A number of days, weeks, fortnights, months and years: ``parts`` as (amount, unit)."""

    start: int
    end: int
    parts: list[tuple[int, str]]


@dataclass
class _Shifted:
    """A date counted from another: ``base`` moved by ``duration`` forward (``sign`` 1) or back (-1)."""

    start: int
    end: int
    base: _Found | _Shifted
    duration: _Duration
    sign: int
    value: date | None = None
    clamped: str = ""  # the date that does not exist when months were added (31 February)


_Date = _Found | _Shifted


@dataclass(frozen=True)
class _Today:
    """Today's date and where it is that date (``place`` empty: UTC)."""

    value: date
    place: str = ""

    def where(self) -> str:
        """``in UTC`` or ``in Tokyo, Japan``."""
        return f"in {self.place}" if self.place else "in UTC"


# --- reading -------------------------------------------------------------------------


def _ordinal_value(word: str) -> int:
    """``first`` → 1, ``twenty-first`` → 21, ``thirtieth`` → 30."""
    parts = re.split(r"[\s-]+", word.lower())
    tens = {"twenty": 20, "thirty": 30}.get(parts[0], 0)
    return tens + sum(_ORDINALS.get(part, 0) for part in parts)


def _normalize(text: str) -> str:
    """Digits for number words and day ordinals, plain apostrophes, "1 day after" for "the day after"."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u2212", "-")
    text = _DAY_AFTER_RE.sub(r"1 day \1", text)
    text = _LEFT_IN_YEAR_RE.sub(r"\1 until the end of the year", text)
    text = _LEFT_IN_MONTH_RE.sub(r"\1 until the end of the month", text)
    text = _ORDINAL_BEFORE_RE.sub(lambda m: str(_ordinal_value(m.group("ordinal"))), text)
    text = _ORDINAL_AFTER_RE.sub(lambda m: m.group("lead") + str(_ordinal_value(m.group("ordinal"))), text)
    text = _HYPHENATED_RE.sub(r"\1 \2", numbers_from_words(text))
    return _SUFFIX_RE.sub(r"\1", text)


def _find_dates(text: str) -> list[_Found]:
    """The dates written in ``text``, in order; of overlapping ones the longest (then the earlier
    pattern of :data:`_PATTERNS`) wins."""
    hits: list[tuple[int, int, int, str, re.Match[str]]] = []
    for rank, (kind, pattern) in enumerate(_PATTERNS):
        for match in pattern.finditer(text):
            start, end = match.span("word" if kind == "relative" else 0)
            if kind == "weekday" and _WEEKDAY_NOT_A_DATE_RE.search(text[:start]):
                continue
            hits.append((end - start, start, rank, kind, match))
    found: list[_Found] = []
    for length, start, _, kind, match in sorted(hits, key=lambda h: (-h[0], h[1], h[2])):
        end = start + length
        if any(start < other.end and other.start < end for other in found):
            continue
        found.append(_read(kind, match, start, end))
    found.sort(key=lambda f: f.start)
    return [f for f in found if not _restated(text, f, found)]


def _restated(text: str, found: _Found, dates: Sequence[_Found]) -> bool:
    """Whether ``found`` is a weekday written next to another date as that date's own ("Sunday, March 1,
    2026", "Is March 1, 2026 a Sunday?"): not a date itself (:data:`_RESTATED_WEEKDAY_RE` reads it)."""
    if found.kind != "weekday" or found.which:
        return False
    for other in dates:
        if other is found or other.kind == "weekday":
            continue
        if other.end <= found.start and _RESTATED_AFTER_RE.fullmatch(text, other.end, found.start):
            return True
        if other.start >= found.end and _RESTATED_BEFORE_RE.fullmatch(text, found.end, other.start):
            return True
    return False


def _read(kind: str, match: re.Match[str], start: int, end: int) -> _Found:
    """A found date from its match (not yet checked: the year may be missing, the day invalid)."""
    written = match.string[start:end].strip()
    groups = match.groupdict()
    year = int(groups["year"]) if groups.get("year") else None
    if kind == "relative":
        word = match.group("word").lower()
        name = {"tonight": "today", "now": "today"}.get(word, word)
        if "month" in word:
            name = MONTH_END

        return _Found(start, end, kind, written, name=name)
    if kind == "weekday":
        which = " ".join((match.group("which") or "").lower().split())
        which = {"this coming": "next", "coming": "next", "this past": "last"}.get(which, which)
        weekday = match.group("weekday").capitalize()
        return _Found(start, end, kind, written, name=weekday, which=which)
    if kind == "holiday":
        key = match.group("name").lower()
        which = (match.group("which") or "").lower()
        for pattern, name, moves in MOVABLE_HOLIDAYS:
            if re.fullmatch(pattern, key, re.IGNORECASE):
                return _Found(start, end, kind, written, 0, 0, year, name=name, which=which, moves=moves)
        for pattern, name, month, day in HOLIDAYS:
            if re.fullmatch(pattern, key, re.IGNORECASE):
                which = (match.group("which") or "").lower()
                return _Found(start, end, kind, written, month, day, year, name=name, which=which)
    if kind == "slash":
        a, b = int(match.group("a")), int(match.group("b"))
        if a > 12 and b > 12:
            raise DateQuestionError(
                f"Cannot read {written!r} as a date: neither number is a month (slash dates are read "
                "month/day/year, or day/month/year when the first is above 12); write e.g. '2026-03-01'"
            )
        month, day = (b, a) if a > 12 else (a, b)
        if groups.get("year") and len(groups["year"]) == 2:
            short = int(groups["year"])
            year = short + (2000 if short < 69 else 1900)
        return _Found(start, end, kind, written, month, day, year)
    month_text = match.group("month")
    month = MONTHS[month_text.lower()] if not month_text.isdigit() else int(month_text)
    return _Found(start, end, kind, written, month, int(match.group("day")), year)


def _find_durations(text: str, dates: Sequence[_Found]) -> list[_Duration]:
    """The durations written in ``text`` outside the dates."""
    found: list[_Duration] = []
    for match in _DURATION_RE.finditer(text):
        if any(match.start() < d.end and d.start < match.end() for d in dates):
            continue
        before = text[: match.start()]
        if re.search(r"[\w.]$", before):  # part of another number ("1e10 days", "1.5 weeks"): left unread
            continue
        if re.search(r"(?:^|[\s(])[-+]$", before):  # a sign: "-5 days" is unread, "2026-03-01 -10 days" not
            operand = before[:-1].rstrip()
            if not any(d.end == len(operand) for d in dates):
                continue
        parts = []
        for part in _PART_RE.finditer(match.group(0)):
            amount = part.group("amount").lower()
            unit = part.group("unit").lower().rstrip("s")
            unit = {"wk": "week", "mo": "month", "yr": "year"}.get(unit, unit)
            parts.append((1 if amount in ("a", "an", "one") else int(amount), unit))
        found.append(_Duration(match.start(), match.end(), parts))
    return found


def _gap(text: str, start: int, end: int) -> str:
    """The words between two spans, lower case, spacing collapsed, commas and "the" at the ends dropped."""
    words = " ".join(text[start:end].lower().split()).strip(" ,")
    return re.sub(r"^the\s+|\s+the$", "", words)


def _attach(
    text: str, dates: list[_Found], durations: list[_Duration]
) -> tuple[list[_Date], list[_Duration]]:
    """Join each duration to the date it counts from ("45 days from today", "2026-03-01 + 10 days",
    "3 weeks ago", "in 3 weeks"); returns the dates and the durations that count from nothing."""
    items: list[_Date | _Duration] = sorted([*dates, *durations], key=lambda item: item.start)
    loose: list[_Duration] = []
    index = len(items) - 1
    while index >= 0:  # right to left: "2 weeks after 3 days before Christmas"
        item = items[index]
        if not isinstance(item, _Duration):
            index -= 1
            continue
        after = items[index + 1] if index + 1 < len(items) else None
        before = items[index - 1] if index > 0 else None
        lead_start = before.end if before is not None else 0
        lead = text[lead_start : item.start]
        following = _gap(text, item.end, after.start if after is not None else len(text))
        verb = {"to": _ADD_RE, "from": _SUBTRACT_RE}.get(following, _NEVER_RE).search(lead)
        shifted: _Shifted | None = None
        if isinstance(after, _Found | _Shifted) and (following in (*_FORWARD, *_BACKWARD) or verb):
            sign = -1 if following in _BACKWARD or (following == "from" and verb) else 1
            start = lead_start + verb.start() if verb else item.start
            shifted = _Shifted(start, after.end, after, item, sign)
            replaced = (index, index + 1)
        elif isinstance(before, _Found | _Shifted) and _gap(text, before.end, item.start) in (
            *_PLUS,
            *_MINUS,
        ):
            sign = -1 if _gap(text, before.end, item.start) in _MINUS else 1
            shifted = _Shifted(before.start, item.end, before, item, sign)
            replaced = (index - 1, index)
        elif tail := _TAIL_RE.match(text, item.end):
            sign = -1 if tail.group(1).lower() in _AGO else 1
            said = _gap(text, tail.end(), after.start) if isinstance(after, _Found) else None
            if sign < 0 and said in _AGO_FROM and after.kind == "relative":  # "a year ago today"
                shifted = _Shifted(item.start, after.end, after, item, sign)
                replaced = (index, index + 1)
            elif sign < 0 and said in _AGO_FROM and after.kind == "weekday":
                raise DateQuestionError(
                    f"Cannot read {text[item.start : after.end].strip()!r}: write the date itself, or count "
                    f"from one, e.g. '{_duration_text(item)} before last {after.name}'"
                )
            else:
                today = _Found(item.start, tail.end(), "relative", "today", name="today")
                shifted = _Shifted(item.start, tail.end(), today, item, sign)
                replaced = (index,)
        elif opening := _IN_RE.search(lead):
            start = lead_start + opening.start()
            today = _Found(start, item.end, "relative", "today", name="today")
            shifted = _Shifted(start, item.end, today, item, 1)
            replaced = (index,)
        if shifted is None:
            loose.append(items.pop(index))
            index -= 1
            continue
        del items[replaced[0] : replaced[-1] + 1]
        items.insert(replaced[0], shifted)
        index = replaced[0] - 1
    return [item for item in items if not isinstance(item, _Duration)], loose


def _span_end(text: str, items: list[_Date], loose: list[_Duration]) -> tuple[list[_Date], list[_Duration]]:
    """A duration that counts from nothing, as the length of something that starts on the one date of a
    question asking when it ends ("I start a 10-week course today. What date does it end?"): that date
    moved forward by it. Anything else is left as it was (a loose duration stays an error)."""
    if len(loose) != 1 or len(items) != 1 or not isinstance(items[0], _Found):
        return items, loose
    if not (_STARTS_RE.search(text) and _ENDS_RE.search(text)):
        return items, loose
    base, duration = items[0], loose[0]
    shifted = _Shifted(min(base.start, duration.start), max(base.end, duration.end), base, duration, 1)
    return [shifted], []


def _mask(text: str, spans: Sequence[_Date], *, today_word: bool = False) -> str:
    """``text`` with each date replaced by ``|`` (or, with ``today_word``, a date counted from today by
    the word "today", so "45 days from today in Tokyo" still reads "today in Tokyo")."""
    out, position = [], 0
    for item in sorted(spans, key=lambda s: s.start):
        out.append(text[position : item.start])
        out.append(" today " if today_word and _counts_from_today(item) else " | ")
        position = item.end
    out.append(text[position:])
    return "".join(out)


def _counts_from_today(item: _Date) -> bool:
    """Whether a date is today, tomorrow or yesterday, or counted from one of them."""
    while isinstance(item, _Shifted):
        item = item.base
    return item.kind in _RELATIVE_KINDS


def _is_today(item: _Date) -> bool:
    """Whether a date is "today" itself (not counted from it)."""
    return isinstance(item, _Found) and item.kind == "relative" and item.name == "today"


# --- today and its place ---------------------------------------------------------------


def _place_named(text: str, dates: Sequence[_Date]) -> str | None:
    """The place today is asked in ("today in Tokyo", "what day is it in Sydney", "... in Tokyo"), or None."""
    masked = _mask(text, dates, today_word=True)
    cased = any(c.islower() for c in masked)
    for match in _PLACE_RE.finditer(masked):
        place = match.group("place").strip(" ,.")
        words = place.lower().split()
        if not words or all(w in _NOT_PLACES for w in words) or words[0] in MONTHS:
            continue
        if match.group("lead") or (cased and place[:1].isupper()):
            return place
    return None


def _today(text: str, dates: Sequence[_Date], calendar: Calendar) -> _Today:
    """Today in UTC, or in the place the question names (resolved by ``calendar.place``)."""
    moment = calendar.now()
    where = _place_named(text, dates)
    if where is None:
        return _Today(moment.astimezone(UTC).date())
    if calendar.place is None:
        raise DateQuestionError(
            f"Cannot tell the date in {where!r}: places are not known here; ask for today in UTC: 'today'"
        )
    label, zone = calendar.place(where)
    return _Today(moment.astimezone(zone).date(), label)


# --- computing -----------------------------------------------------------------------


def _valid(year: int, month: int, day: int, written: str) -> date:
    """The date, or an error naming the date as written."""
    if not 1 <= month <= 12:
        raise DateQuestionError(
            f"Cannot read {written!r} as a date: there is no month {month}; write e.g. '2026-03-01'"
        )
    if not 1 <= year <= 9999:
        raise DateQuestionError(f"Cannot compute with {written!r}: years must be 1 to 9999")
    last = calendar.monthrange(year, month)[1]
    if not 1 <= day <= last:
        raise DateQuestionError(
            f"There is no date {written!r}: {calendar.month_name[month]} {year} has {last} days; "
            "write e.g. '2026-03-01'"
        )
    return date(year, month, day)


def _occurrence(found: _Found, today: date, direction: int) -> date:
    """The month and day of ``found`` on or after today (``direction`` 1), on or before it (-1), or
    strictly after or before it for "next" / "last" (``direction`` 2 / -2)."""
    for step in range(MAX_YEARS_SEARCHED + 1):
        year = today.year + step * (1 if direction > 0 else -1)
        month, day = found.in_year(year)
        if day <= calendar.monthrange(year, month)[1]:
            candidate = date(year, month, day)
            if (direction == 1 and candidate >= today) or (direction == -1 and candidate <= today):
                return candidate
            if (direction == 2 and candidate > today) or (direction == -2 and candidate < today):
                return candidate
    raise DateQuestionError(f"Cannot find {found.text!r} near today; write the year, e.g. '2028-02-29'")


def _weekday_date(found: _Found, today: date, masked: str) -> date:
    """The date of a weekday named near today (Monday to Sunday weeks):

    - "next Friday" ("coming Friday", "this coming Friday") is the first Friday after today: when today
      is a Friday, the one a week on (never today);
    - "last Monday" ("this past Monday") is the last Monday before today: when today is a Monday, the one
      a week back;
    - "this Saturday" is the Saturday of this week, today or later in it; a day earlier in the week
      ("this Monday" on a Wednesday) is an error: it could be that past day or the coming one;
    - a weekday alone ("on Sunday") is "next Sunday", or "last Sunday" when the question speaks of the
      past ("what was the date on Sunday?", "since Sunday"); when today is that weekday it is an error
      (today, or a week on or back?).
    """
    target = list(calendar.day_name).index(found.name)
    ahead = (target - today.weekday()) % 7  # days to the next such weekday, 0 today
    which = found.which
    if which == "this":
        if target < today.weekday():
            raise DateQuestionError(
                f"Cannot tell which {found.name} {found.text!r} is: this week's is past; say 'last "
                f"{found.name}' or 'next {found.name}', or write the date"
            )
        return today + timedelta(days=ahead)
    if not which:
        past = bool(_WEEKDAY_TENSE_RE.search(masked))
        if past and _UNTIL_RE.search(masked):
            raise DateQuestionError(
                f"Cannot tell whether {found.text!r} is the last or the next {found.name}; say 'last "
                f"{found.name}' or 'next {found.name}', or write the date"
            )
        if ahead == 0:
            raise DateQuestionError(
                f"Cannot tell whether {found.text!r} is today or a week away; say 'today', 'last "
                f"{found.name}' or 'next {found.name}'"
            )
        which = "last" if past else "next"
        found.which = which
    if which == "next":
        return today + timedelta(days=ahead or 7)
    return today - timedelta(days=(7 - ahead) % 7 or 7)


def _bases(items: Sequence[_Date]) -> list[_Found]:
    """The written dates the items count from (themselves when not counted)."""
    out = []
    for item in items:
        while isinstance(item, _Shifted):
            item = item.base
        out.append(item)
    return out


def _written_year(masked: str, today: date) -> int | None:
    """The one year written apart from the dates ("in 2026", "next year"), or None; several are an error."""
    years = {int(m.group("year")) for m in _YEAR_RE.finditer(masked)}
    for match in _NEXT_YEAR_RE.finditer(masked):
        years.add(today.year + {"next": 1, "last": -1, "this": 0}[match.group("which").lower()])
    if len(years) > 1:
        raise DateQuestionError(
            f"Cannot tell which of the years {', '.join(map(str, sorted(years)))} each date is in; write "
            "each date with its year, e.g. 'days between 2026-03-01 and 2027-06-15'"
        )
    return next(iter(years), None)


def _resolve(items: Sequence[_Date], masked: str, today: _Today) -> None:
    """Give every date its value, the missing years filled in as the module docs say."""
    year = _written_year(masked, today.value)
    bases = _bases(items)
    if year is not None and not any(
        f.year is None and f.kind not in _RELATIVE_KINDS and not f.which for f in bases
    ):
        raise DateQuestionError(
            f"Cannot tell which date the year {year} is for; write it with its date, e.g. 'March 1, {year}'"
        )
    weekdays_alone = len(bases) == 2 and all(found.kind == "weekday" and not found.which for found in bases)
    for found in bases:
        if found.kind == "relative" and found.name == MONTH_END:
            last = calendar.monthrange(today.value.year, today.value.month)[1]
            found.value = today.value.replace(day=last)
        elif found.kind == "relative":
            found.value = today.value + timedelta(
                days={"today": 0, "tomorrow": 1, "yesterday": -1}[found.name]
            )
        elif found.kind == "weekday":
            found.value = _weekday_date(found, today.value, masked)
        elif found.year is not None or (year is not None and not found.which):
            found.value = _valid(found.year or year or 0, *found.in_year(found.year or year or 0), found.text)
    undated = [found for found in bases if found.value is None]
    if len(bases) == 2 and len(undated) == 1 and all(found.kind != "weekday" for found in bases):
        # a range: the other end's year, or the one before or after when it would run backwards (from
        # today to March 15 is to the next March 15; from March 15 to today, from the last one)
        lone, other = (bases[0], bases[1]) if undated[0] is bases[0] else (bases[1], bases[0])
        other_year = other.value.year if other.value is not None else today.value.year
        lone.value = _valid(other_year, *lone.in_year(other_year), lone.text)
        if bases[0].value and bases[1].value and bases[0].value > bases[1].value:
            shift = -1 if lone is bases[0] else 1
            lone.value = _valid(other_year + shift, *lone.in_year(other_year + shift), lone.text)
        undated = []
    this_year = []
    for found in undated:
        if found.which in ("next", "last"):
            found.value = _occurrence(found, today.value, 2 if found.which == "next" else -2)
        elif found.which != "this" and _UNTIL_RE.search(masked):
            found.value = _occurrence(found, today.value, 1)
        elif found.which != "this" and _SINCE_RE.search(masked):
            found.value = _occurrence(found, today.value, -1)
        elif found.kind == "holiday" and not found.which:
            # "When is Easter?" after this year's is the coming one; "When was Easter?" the last one
            found.value = _occurrence(found, today.value, -1 if _WEEKDAY_TENSE_RE.search(masked) else 1)
        else:
            found.value = _valid(today.value.year, *found.in_year(today.value.year), found.text)
            this_year.append(found)
    if len(bases) == 2 and this_year == bases and bases[0].value and bases[1].value:
        first, second = bases
        if first.value > second.value:  # "December 20 to January 5": into the next year
            second.value = _valid(second.value.year + 1, *second.in_year(second.value.year + 1), second.text)
    if weekdays_alone and bases[0].value > bases[1].value:
        # "between Monday and Friday": the Friday after that Monday (the Monday before, both past)
        if bases[1].value < today.value:
            bases[0].value -= timedelta(days=7)
            bases[0].which = "the previous"
        else:
            bases[1].value += timedelta(days=7)
            bases[1].which = "the following"
    for item in items:
        _shift(item)


def _shift(item: _Date) -> date:
    """The value of a date counted from another (computed once)."""
    if item.value is not None:
        return item.value
    assert isinstance(item, _Shifted)
    base = _shift(item.base)
    years = sum(n for n, unit in item.duration.parts if unit == "year")
    months = sum(n for n, unit in item.duration.parts if unit == "month") + 12 * years
    days = sum(n * _UNIT_DAYS[unit] for n, unit in item.duration.parts if unit in _UNIT_DAYS)
    try:
        total = base.year * 12 + base.month - 1 + item.sign * months
        year, month = divmod(total, 12)
        month += 1
        if not 1 <= year <= 9999:
            raise OverflowError
        last = calendar.monthrange(year, month)[1]
        if base.day > last:
            item.clamped = f"{base.day} {calendar.month_name[month]} {year}"
        moved = date(year, month, min(base.day, last))
        item.value = moved + timedelta(days=item.sign * days)
    except (OverflowError, ValueError):
        raise DateQuestionError(
            f"Cannot count {_duration_text(item.duration)} from {_plain(base)}: the result is outside "
            "the years 1 to 9999; count within them, e.g. '2026-03-01 + 10 days'"
        ) from None
    return item.value


# --- wording -------------------------------------------------------------------------


def _plain(day: date) -> str:
    """``1 March 2026``."""
    return f"{day.day} {calendar.month_name[day.month]} {day.year}"


def _long(day: date) -> str:
    """``Sunday, 1 March 2026``."""
    return f"{calendar.day_name[day.weekday()]}, {_plain(day)}"


def _ordinal(day: date) -> str:
    """``the 1st of March 2026``, ``the 22nd of June 2026``."""
    suffix = "th" if 11 <= day.day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return f"the {day.day}{suffix} of {calendar.month_name[day.month]} {day.year}"


def _plural(amount: int, unit: str) -> str:
    """``1 day``, ``45 days``."""
    return f"{amount} {unit}{'' if amount == 1 else 's'}"


def _duration_text(duration: _Duration) -> str:
    """``45 days``, ``1 year and 2 months``."""
    return listed([_plural(amount, unit) for amount, unit in duration.parts])


def _describe(item: _Date, today: _Today) -> str:
    """A date for an answer: ``Sunday, 1 March 2026``, ``Christmas Day (Friday, 25 December 2026)``,
    ``today (Wednesday, 15 January 2025 in UTC)``."""
    value = _shift(item)
    if isinstance(item, _Found) and item.kind == "relative":
        return f"{item.name} ({_long(value)} {today.where()})"
    if isinstance(item, _Found) and item.kind == "holiday":
        return f"{item.name} ({_long(value)})"
    if isinstance(item, _Found) and item.kind == "weekday":
        return f"{item.which} {item.name} ({_long(value)})"
    return _long(value)


def _capital(sentence: str) -> str:
    """``sentence`` with its first letter in upper case."""
    return sentence[:1].upper() + sentence[1:]


def _amount(first: date, second: date, unit: str, extra: int = 0) -> str:
    """The time from ``first`` to ``second`` (not before it) in days, or in ``unit`` with the days too."""
    days = (second - first).days + extra
    if unit == "weeks" and days >= 7:
        weeks, rest = divmod(days, 7)
        parts = [_plural(weeks, "week")] + ([_plural(rest, "day")] if rest else [])
        return f"{listed(parts)} ({_plural(days, 'day')})"
    if unit in ("months", "years"):
        months = (second.year - first.year) * 12 + second.month - first.month
        if second.day < first.day:
            months -= 1
        if months > 0:
            total = first.year * 12 + first.month - 1 + months
            year, month = divmod(total, 12)
            landed = date(year, month + 1, min(first.day, calendar.monthrange(year, month + 1)[1]))
            rest = (second - landed).days + extra
            years, months = divmod(months, 12) if unit == "years" else (0, months)
            parts = [_plural(years, "year")] if years else []
            parts += [_plural(months, "month")] if months else []
            parts += [_plural(rest, "day")] if rest else []
            return f"{listed(parts)} ({_plural(days, 'day')})"
    return _plural(days, "day")


_DURATION_IN_RE = re.compile(r"\b(?:in|into|to|as)\s+(?P<unit>days|weeks)\s*[?.!]*\s*$", re.IGNORECASE)
"""A duration asked in days or weeks, at the end of the text ("92 days in weeks", "3 weeks in days")."""


def _duration_in(duration: _Duration, text: str) -> str | None:
    """A duration of days, weeks or fortnights said in the days or weeks asked ("92 days in weeks": 13 weeks
    and 1 day); None unless the text asks one of those units and holds only the duration."""
    asked = _DURATION_IN_RE.search(text)
    if asked is None or any(unit in ("month", "year") for _, unit in duration.parts):
        return None  # a month or a year has no fixed number of days
    if re.search(r"\d", text[: duration.start] + text[duration.end : asked.start()]):
        return None
    days = sum(amount * _UNIT_DAYS[unit] for amount, unit in duration.parts)
    written = text[duration.start : duration.end].strip()
    unit = asked.group("unit").lower()
    if unit == "days":
        return f"{written} is {_plural(days, 'day')}."
    if days < 7:
        return f"{written} is less than a week."
    weeks, rest = divmod(days, 7)
    return f"{written} is {listed([_plural(weeks, 'week')] + ([_plural(rest, 'day')] if rest else []))}."


def _there_are(amount: str) -> str:
    """``There is 1 day``, ``There are 106 days``."""
    return f"There {'is' if amount.startswith('1 ') and '(' not in amount else 'are'} {amount}"


def _between(first: _Date, second: _Date, today: _Today, unit: str, inclusive: bool) -> str:
    """The days (in ``unit``) between two dates, in the order written; ``inclusive`` counts both ends."""
    a, b = _shift(first), _shift(second)
    if a == b and not inclusive:
        return f"{_capital(_describe(first, today))} and {_describe(second, today)} are the same day."
    low, high = (a, b) if a <= b else (b, a)
    amount = _amount(low, high, unit, 1 if inclusive else 0)
    counting = ", counting both" if inclusive else ""
    return f"{_there_are(amount)} between {_describe(first, today)} and {_describe(second, today)}{counting}."


_BORN_RE = re.compile(r"\b(?:born|birth(?:day|date)?|date of birth|dob)\b", re.IGNORECASE)
"""A date of birth ("I was born on 3 March 1990. How old am I?"): "how old" then asks an age."""


def _from_today(item: _Date, today: _Today, unit: str, *, age: bool = False) -> str:
    """The days (in ``unit``) until a date, or since it when it is past; with ``age``, since a date of birth
    said as an age ("Someone born on ... is 36 years old")."""
    value = _shift(item)
    as_of = f"as of today, {_long(today.value)} {today.where()}"
    if age and value < today.value:
        now = today.value
        years = now.year - value.year - ((now.month, now.day) < (value.month, value.day))
        return (
            f"Someone born on {_describe(item, today)} is {_plural(years, 'year')} old: "
            f"{_amount(value, today.value, 'years')}, {as_of}."
        )
    if value == today.value:
        return f"{_capital(_describe(item, today))} is today."
    if value > today.value:
        return f"{_there_are(_amount(today.value, value, unit))} until {_describe(item, today)}, {as_of}."
    return f"It has been {_amount(value, today.value, unit)} since {_describe(item, today)}, {as_of}."


def _shifted(item: _Shifted, today: _Today) -> str:
    """A date counted from another: ``The date 45 days from today (...) is Saturday, 1 March 2025.``"""
    base = item.base
    direction = "before" if item.sign < 0 else "from" if _is_today(base) else "after"
    verb = "was" if _shift(item) < today.value else "is"
    what = f"{_duration_text(item.duration)} {direction} {_describe(base, today)}"
    sentence = f"The date {what} {verb} {_long(_shift(item))}"
    if item.clamped:
        sentence += f" (there is no {item.clamped}, so that month's last day is used)"
    return sentence + "."


def _weekday(item: _Date, today: _Today) -> str:
    """The day of the week of a date: ``The 1st of January 2000 was a Saturday.``"""
    value = _shift(item)
    if isinstance(item, _Shifted):
        return _shifted(item, today)
    if item.kind == "relative":
        verb = "was" if item.name == "yesterday" else "is"
        return f"{_capital(item.name)} {today.where()} {verb} {_long(value)}."
    if item.kind == "weekday":  # "Next Friday is Friday, 17 January 2025 (today in UTC is ...)."
        verb = "was" if value < today.value else "is"
        return (
            f"{_capital(item.which)} {item.name} {verb} {_long(value)} (today {today.where()} is "
            f"{_long(today.value)})."
        )
    verb = "was" if value < today.value else "is"
    weekday = calendar.day_name[value.weekday()]
    if item.kind == "holiday" and item.moves is not None:  # its weekday is in its rule: the date is asked
        return f"{_capital(item.name)} {verb} on {_long(value)}."
    if item.kind == "holiday":
        return f"{_capital(item.name)}, {_plain(value)}, {verb} a {weekday}."
    return f"{_capital(_ordinal(value))} {verb} a {weekday}."


# --- years and months ------------------------------------------------------------------

_LEAP_RE = re.compile(r"\bleap[\s-]*years?\b", re.IGNORECASE)
_LENGTH_RE = re.compile(r"\bdays?\b", re.IGNORECASE)
_FACT_TOKEN_RE = re.compile(r"[a-z]+|\d+|[^\sa-z\d]", re.IGNORECASE)
_FACT_WORDS_TEXT = """is was will be a an the year it or not please tell me whether if check can you do know
    are were there in how many days day does did have has had of month total altogether contain contains"""
_FACT_WORDS = frozenset(_FACT_WORDS_TEXT.split())
"""The words a question about a year or a month may say besides it ("is 2028 a leap year?", "how many days
are in February 2028?", "does 2028 have 366 days?"): any other word and it is not read as one."""
_FACT_PUNCTUATION = frozenset("?.!,-'")


_HOW_MANY_DAYS_RE = re.compile(r"\bhow\s+many\s+days\b", re.IGNORECASE)
_NEXT_OR_LAST_LEAP_RE = re.compile(r"\b(next|last|previous)\s+leap[\s-]*year\b", re.IGNORECASE)


_RELATIVE_PERIOD_RE = re.compile(
    r"\b(?P<which>this|next|last|the\s+current|the\s+coming|the\s+previous)\s+(?P<what>month|year)\b",
    re.IGNORECASE,
)
"""A month or year named from today ("this month", "next year") in a question about its days or leap year."""


def _period_named(match: re.Match[str], today: date) -> str:
    """The month ("December 2026") or year ("2026") :data:`_RELATIVE_PERIOD_RE` matched, from ``today``."""
    which = match.group("which").lower().split()[-1]
    step = {"next": 1, "coming": 1, "last": -1, "previous": -1}.get(which, 0)
    if match.group("what").lower() == "year":
        return str(today.year + step)
    index = today.year * 12 + today.month - 1 + step
    return f"{calendar.month_name[index % 12 + 1]} {index // 12}"


def _year_fact(question: str, today: date) -> str | None:
    """Answer a question about a year or a month written with digits: whether it is a leap year ("is 2028
    a leap year?"), how many days it has ("how many days are in 2028?", "how many days in February
    2028?") or whether it has so many ("does February 2028 have 29 days?"). ``None`` when the question is
    not one of these (it is read as a date question); an error when it asks about leap years but not
    so (a year in words, two years, "this year").
    """
    leap = _LEAP_RE.search(question) is not None
    if not leap and not _LENGTH_RE.search(question):
        return None
    # "How many days are in this month?", "Is next year a leap year?": the month or year it is from today
    relative = _RELATIVE_PERIOD_RE.search(question)
    question = _RELATIVE_PERIOD_RE.sub(lambda m: _period_named(m, today), question)
    tokens = _FACT_TOKEN_RE.findall(question.replace("\u2019", "'").lower())
    words = [t for t in tokens if not t.isdigit() and t not in _FACT_PUNCTUATION]
    numbers = [i for i, t in enumerate(tokens) if t.isdigit()]
    months = [MONTHS[w] for w in words if w in MONTHS]
    unread = [w for w in words if w not in _FACT_WORDS and w not in MONTHS and w not in ("leap", "leapyear")]
    claimed = [i for i in numbers if tokens[i + 1 : i + 2] in (["days"], ["day"])]
    years = [int(tokens[i]) for i in numbers if i not in claimed]
    if leap:
        if not years and not unread and not months and _HOW_MANY_DAYS_RE.search(question):
            # "How many days are in a leap year?": any leap year's
            return "A leap year has 366 days (29 February is the extra day); other years have 365."
        which = _NEXT_OR_LAST_LEAP_RE.search(question)
        if which is not None and not years and not months:
            # "When is the next leap year?": the first after this year (or before it, "last")
            step = 1 if which.group(1).lower() == "next" else -1
            year = today.year + step
            while not calendar.isleap(year):
                year += step
            verb = "is" if step > 0 else "was"
            this = "is one" if calendar.isleap(today.year) else "is not one"
            return f"The {which.group(1).lower()} leap year {verb} {year} (this year, {today.year}, {this})."
        if not years and not months and not claimed and set(unread) <= {"this", "current"}:
            years = [today.year]  # "Is it a leap year?", "Is this year a leap year?": this year
            unread = []
        if unread or months or claimed or len(years) != 1 or not 1 <= years[0] <= 9999:
            raise DateQuestionError(
                f"Cannot read {question!r} as a question about one year: write it in digits, e.g. 'is 2028 "
                "a leap year?'"
            )
        year = years[0]
        verb = "was" if year < today.year else "is"
        if calendar.isleap(year):
            return f"Yes, {year} {verb} a leap year (366 days)."
        return f"No, {year} {verb} not a leap year (365 days)."
    how_many = _HOW_MANY_DAYS_RE.search(question) is not None
    if unread or len(months) > 1 or len(years) > 1 or len(claimed) != (0 if how_many else 1):
        return None
    if (not years and not months) or (years and not 1000 <= years[0] <= 9999 and "year" not in words):
        return None
    year = years[0] if years else None
    if year is not None and not 1 <= year <= 9999:
        return None
    past = year is not None and year < today.year
    if months:
        month = months[0]
        if year is None and month == 2:
            raise DateQuestionError(
                f"Cannot tell how many days February has in {question!r}: 28, or 29 in a leap year; write "
                "the year, e.g. 'how many days are in February 2028?'"
            )
        past = year is not None and (year, month) < (today.year, today.month)  # "last month had"
        length = calendar.monthrange(year or 2001, month)[1]  # the year matters only to February
        what = f"{calendar.month_name[month]} {year}" if year else calendar.month_name[month]
        why = "" if year else " in every year"
        if year and month == 2:
            why = f" ({year} {'was' if past else 'is'} {'' if calendar.isleap(year) else 'not '}a leap year)"
    else:
        assert year is not None
        length = 366 if calendar.isleap(year) else 365
        what = str(year)
        why = f" ({'a' if calendar.isleap(year) else 'not a'} leap year)"
    verb = "had" if past else "has"
    if relative is not None:  # "This month, December 2026, has 31 days."
        what = f"{_capital(' '.join(relative.group(0).lower().split()))}, {what},"
    sentence = f"{what} {verb} {length} days{why}."
    if not claimed:
        return sentence
    said = int(tokens[claimed[0]])
    return f"{'Yes' if said == length else 'No'}, {sentence}"


_BORN_IN_YEAR_RE = re.compile(
    r"\b(?:how\s+old|what\s+age|(?:his|her|their|my|the)\s+age|age\s+of)\b.*\bborn\s+in\s+(?P<y1>\d{4})\b"
    r"|\bborn\s+in\s+(?P<y2>\d{4})\b.*\b(?:how\s+old|what\s+age|age)\b",
    re.IGNORECASE,
)
"""An age asked from a year of birth alone: "How old is someone born in 1990?", "born in 1985, how old"."""
_IN_YEAR_RE = re.compile(r"\b(?:in|by)\s+(?:the\s+year\s+)?(\d{4})\b", re.IGNORECASE)
"""A year something is asked in ("How old will I be in 2040 ...")."""
_YEARS_SINCE_RE = re.compile(
    r"\bhow\s+many\s+years\s+(?:since|ago\s+(?:was|were|is)|have\s+passed\s+since|has\s+it\s+been\s+since)"
    r"\s+(?:the\s+year\s+)?(?P<y>\d{4})\s*\??\s*$"
    r"|\bhow\s+(?:long|many\s+years)\s+ago\s+(?:was|is)\s+(?:the\s+year\s+)?(?P<z>\d{4})\s*\??\s*$"
    r"|\bhow\s+long\s+(?:has\s+it\s+been\s+)?since\s+(?:the\s+year\s+)?(?P<w>\d{4})\s*\??\s*$",
    re.IGNORECASE,
)
"""Years since a year alone: "How many years since 1990?", "How long ago was 1969?", "How long since
2001?"."""


_AGE_NOW_RE = re.compile(
    r"\b(?:i'm|i am|im|you're|you are|he's|he is|she's|she is|someone who is|if i am|if i'm)\s+"
    r"(?P<n>\d{1,3})(?:\s+years?(?:\s+old)?)?(?:\s+(?:now|today|this year))?(?![\w%])",
    re.IGNORECASE,
)
_AGE_LATER_RE = re.compile(
    r"\b(?:how\s+old|what\s+age)\s+will\s+(?:i|you|he|she|they|someone|we)\s+be\s+(?:in|by)\s+(?:the\s+year\s+)?"
    r"(?P<year>\d{4})\b",
    re.IGNORECASE,
)
"""An age now and the age asked in a later year ("I'm 30 years old. How old will I be in 2040?")."""


_AGE_NOW_OR_SOMEONE_RE = re.compile(
    r"\b(?:someone|a\s+person|they|he|she)\s+(?:is|are)\s+(?P<n>\d{1,3})(?:\s+years?(?:\s+old)?)?(?![\w%])",
    re.IGNORECASE,
)
"""Someone else's age now ("If someone is 34, what year were they born?")."""


YEARS_BETWEEN_RE = re.compile(
    r"\bhow\s+many\s+years\s+(?:are\s+there\s+|passed\s+|went\s+by\s+|is\s+it\s+|were\s+there\s+)?"
    r"(?:between|from)\s+(?:the\s+years?\s+)?(?P<a>\d{4})\s+(?:and|to|until|till)\s+(?P<b>\d{4})\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""Years between two years ("How many years between 1969 and 2024?")."""


def _years_between(question: str) -> str | None:
    """The years from one year to another ("There are 55 years from 1969 to 2024."), or None."""
    match = YEARS_BETWEEN_RE.search(question)
    if match is None:
        return None
    a, b = sorted((int(match.group("a")), int(match.group("b"))))
    span = b - a
    return f"There {'is' if span == 1 else 'are'} {span} year{'' if span == 1 else 's'} from {a} to {b}."


def _age_later(question: str, today: date) -> str | None:
    """The age in a later year of someone whose age now the question gives, or the years they were born
    in ("I'm 34 years old. In what year was I born?"), or None."""
    now, later = _AGE_NOW_RE.search(question), _AGE_LATER_RE.search(question)
    now = now or _AGE_NOW_OR_SOMEONE_RE.search(question)
    if now is not None and later is None and BIRTH_YEAR_ASKED_RE.search(question):
        n = int(now.group("n"))
        if not 0 < n < 150:
            return None
        return (
            f"Someone {n} years old today ({_plain(today)}) was born in {today.year - n} if their birthday "
            f"this year has come, or in {today.year - n - 1} if it is still ahead."
        )
    if now is None or later is None:
        return None
    n, year = int(now.group("n")), int(later.group("year"))
    if year < today.year:
        return None
    return (
        f"Someone {n} years old now ({_plain(today)}) will be {n + year - today.year} years old at this "
        f"time of year in {year}."
    )


def _years_since(text: str, today: date) -> str | None:
    """The years from a year written alone to this year: an age from a year of birth (two ages: before
    and after this year's birthday, which a year alone does not tell), or how many years ago a year was.
    ``None`` when the question is neither, or the year is to come."""
    born = _BORN_IN_YEAR_RE.search(text)
    if born is not None:
        year = int(born.group("y1") or born.group("y2"))
        later = [int(y) for y in _IN_YEAR_RE.findall(text) if int(y) != year]
        if later and later[0] > year:  # "How old will I be in 2040 if I was born in 1995?"
            age = later[0] - year
            return (
                f"Someone born in {year} is {age} years old in {later[0]} after their birthday that year, "
                f"and {age - 1} before it."
            )
        age = today.year - year
        if not 0 < age < 150:
            return None
        return (
            f"Someone born in {year} is {age} years old after their birthday this year ({today.year}), "
            f"and {age - 1} before it."
        )
    since = _YEARS_SINCE_RE.search(text.strip())
    if since is None:
        return None
    year = int(since.group("y") or since.group("z") or since.group("w"))
    if not 0 < today.year - year < 10_000:
        return None
    return f"{year} was {_plural(today.year - year, 'year')} ago ({today.year} - {year})."


# --- days of the week counted ---------------------------------------------------------

_COUNTED_DAYS_RE = re.compile(
    r"\bhow\s+many\s+(?:more\s+|full\s+|whole\s+)?(?P<unit>business\s+days|working\s+days|work\s*days|"
    r"weekdays|weekend\s+days|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    re.IGNORECASE,
)
"""Days of the week counted: "How many working days are in December 2026?", "How many Fridays in 2027?"."""
_PERIOD_RE = re.compile(
    r"\b(?:in|during|of|for)\s+(?:the\s+month\s+of\s+)?(?P<month>"
    + "|".join(sorted(MONTHS, key=len, reverse=True))
    + r")\b\.?(?:,?\s+(?P<year>\d{4}))?"
    r"|\b(?:in|during|of|for)\s+(?:the\s+year\s+)?(?P<only>\d{4})\b"
    r"|\b(?P<which>this|next|last)\s+(?P<what>month|year)\b",
    re.IGNORECASE,
)
"""The month or year days are counted in ("in December 2026", "in 2027", "this month")."""
_WORKING = frozenset(range(5))
"""Monday to Friday (``date.weekday()`` numbers)."""


def _counted_days(unit: str) -> tuple[frozenset[int], str, str]:
    """The weekdays a unit counts, and how the answer names one and several of them."""
    unit = " ".join(unit.lower().split())
    if unit.startswith(("business", "working", "work", "weekdays")):
        return _WORKING, "working day (Monday to Friday)", "working days (Monday to Friday)"
    if unit.startswith("weekend"):
        return frozenset({5, 6}), "weekend day", "weekend days"
    day = next(i for i, name in enumerate(calendar.day_name) if unit.startswith(name[:3].lower()))
    return frozenset({day}), calendar.day_name[day], f"{calendar.day_name[day]}s"


def _days_in(first: date, last: date, days: frozenset[int]) -> int:
    """How many days from ``first`` to ``last`` (both counted) fall on one of ``days``."""
    total = (last - first).days + 1
    weeks, rest = divmod(total, 7)
    extra = sum((first.weekday() + i) % 7 in days for i in range(rest))
    return weeks * len(days) + extra


def _period(text: str, today: date) -> tuple[date, date, str] | None:
    """The first and last day of the month or year a question counts in, and how it is said; None if none."""
    match = _PERIOD_RE.search(text)
    if match is None:
        return None
    if match.group("which"):
        step = {"this": 0, "next": 1, "last": -1}[match.group("which").lower()]
        if match.group("what").lower() == "year":
            year = today.year + step
            return date(year, 1, 1), date(year, 12, 31), str(year)
        month_index = today.year * 12 + today.month - 1 + step
        year, month = divmod(month_index, 12)
        month += 1
    elif match.group("only"):
        year = int(match.group("only"))
        return date(year, 1, 1), date(year, 12, 31), str(year)
    else:
        month = MONTHS[match.group("month").lower()]
        year = int(match.group("year")) if match.group("year") else today.year
    if not 1 <= year <= 9999:
        raise DateQuestionError(f"Cannot count days in the year {year}: years must be 1 to 9999")
    last = calendar.monthrange(year, month)[1]
    return date(year, month, 1), date(year, month, last), f"{calendar.month_name[month]} {year}"


def _dates_read(text: str, calendar_: Calendar, *, most: int) -> tuple[list[_Date], _Today] | None:
    """The dates a question names, resolved, and today (in UTC or the place named); None when it names more
    than ``most`` or a duration counting from nothing."""
    found = _find_dates(text)
    items, loose = _attach(text, found, _find_durations(text, found))
    items, loose = _span_end(text, items, loose)
    if loose or len(items) > most:
        return None
    today = _today(text, items, calendar_)
    _resolve(items, _mask(text, items), today)
    return items, today


def _span(text: str, calendar_: Calendar) -> tuple[date, date, str]:
    """The days a count of weekdays covers when no month or year is named: between two dates (both
    counted), or from tomorrow until a date (or from one after it until today), as the date engine reads
    them."""
    read = _dates_read(text, calendar_, most=2)
    if read is None or not read[0]:
        raise DateQuestionError(
            f"Cannot tell which days to count in {text!r}; name a month, a year or two dates, e.g. 'working "
            "days in December 2026', 'Fridays in 2027', 'weekdays between 2026-03-01 and 2026-03-31'"
        )
    items, today = read
    if len(items) == 2:
        a, b = sorted((_shift(items[0]), _shift(items[1])))
        said = f"between {_describe(items[0], today)} and {_describe(items[1], today)}, counting both"
        return a, b, said
    value = _shift(items[0])
    as_of = f"as of today, {_long(today.value)} {today.where()}"
    if value > today.value:
        return (
            today.value + timedelta(days=1),
            value,
            f"after today until {_describe(items[0], today)}, {as_of}",
        )
    return value, today.value - timedelta(days=1), f"from {_describe(items[0], today)} until today, {as_of}"


_LEFT_IN_RE = re.compile(r"\b(?:left|remaining|remain|still to come|to go)\b", re.IGNORECASE)
"""A count of what is left of a period ("How many weekdays are left in December?")."""


def _weekdays_counted(text: str, unit: str, calendar_: Calendar) -> str:
    """How many working days, weekend days or days of one name a month, a year or a span has."""
    days, one, several = _counted_days(unit)
    today = calendar_.now().astimezone(UTC).date()
    period = _period(text, today)
    if period is not None:
        first, last, said = period
        where = f"in {said}"
        if _LEFT_IN_RE.search(text) and first <= today <= last:
            # "How many weekdays are left in December?": after today, to its end (as "this month" is)
            first, where = today + timedelta(days=1), f"left in {said} after today ({_long(today)} in UTC)"
    else:
        first, last, where = _span(text, calendar_)
    count = _days_in(first, last, days) if first <= last else 0
    holidays = "; public holidays are not taken off" if days == _WORKING else ""
    return f"{_there_are(f'{count} {one if count == 1 else several}')} {where}{holidays}."


_WEEK_NUMBER_RE = re.compile(
    r"\bweek\s+(?:number|no\.?|#)|\b(?:what|which)\s+week\s+(?:of\s+the\s+year\s+)?(?:is|was|will)\b"
    r"|\bweek\s+of\s+the\s+year\b",
    re.IGNORECASE,
)
"""The week of the year asked: "What week number is it?", "Which week of the year is 2026-03-01?"."""


_DAY_OF_YEAR_RE = re.compile(
    r"\b(?:day\s+(?:number|no\.?|#)\b|(?:what|which)\s+day\s+of\s+the\s+year\b|day\s+of\s+the\s+year\b)",
    re.IGNORECASE,
)
"""The day of the year asked: "What day of the year is it?", "day number of 2026-03-01"."""


def _week_or_day_of_year(text: str, calendar_: Calendar) -> str:
    """The ISO week of today (in UTC or the place named) or of the one date a question names, or its day of
    the year when that is asked."""
    read = _dates_read(text, calendar_, most=1)
    if read is None:
        raise DateQuestionError(
            f"Cannot tell which day's week to give in {text!r}; name one date or none (today), e.g. 'what "
            "week number is 2026-03-01?'"
        )
    items, today = read
    if items:
        day, said = _shift(items[0]), _capital(_describe(items[0], today))
    else:
        day, said = today.value, f"Today, {_long(today.value)} {today.where()},"
    if _DAY_OF_YEAR_RE.search(text):
        ordinal, length = day.timetuple().tm_yday, 366 if calendar.isleap(day.year) else 365
        return (
            f"{said} is day {ordinal} of {day.year} ({length - ordinal} days of the year are left after it)."
        )
    year, week, _ = day.isocalendar()
    iso = "ISO weeks, Monday to Sunday; week 1 holds the year's first Thursday"
    return f"{said} is in week {week} of {year} ({iso})."


# --- the question --------------------------------------------------------------------


_NTH_WEEKDAY_RE = re.compile(
    r"^\W*(?:what(?:'s| is)(?: the)?(?: date(?: of)?)?|(?:what|which) (?:date|day) (?:is|was|will be)"
    r"|when(?:'s| is| was| will be)?)?\s*"
    r"(?:the\s+)?(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last)\s+"
    r"(?P<wd>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s+(?:of|in)\s+"
    rf"(?P<month>{_MONTH_PATTERN})\b\.?(?:,?\s+(?P<year>[12]\d{{3}}))?(?:\s+(?:this|next)\s+year)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""The date of a weekday counted in a month ("What date is the third Sunday of June 2027?", "the last Friday
of May")."""


def _nth_weekday_date(question: str, today: date) -> str | None:
    """The date :data:`_NTH_WEEKDAY_RE` asks for (without a year: this year's, or next year's once it is
    past), in a sentence; None for any other question."""
    asked = _NTH_WEEKDAY_RE.match(question)
    if asked is None:
        return None
    nth = asked.group("nth").lower()
    n = -1 if nth == "last" else _ORDINALS.get(nth) or int(nth[0])  # "third", "3rd"
    month = MONTHS[asked.group("month").lower()]
    weekday = list(calendar.day_name).index(asked.group("wd").capitalize())
    year = int(asked.group("year")) if asked.group("year") else today.year
    if re.search(r"\bnext year\b", question, re.IGNORECASE):
        year = today.year + 1
    found = nth_weekday(year, month, weekday, n)
    if found.month != month:
        none = f"{asked.group('nth').lower()} {calendar.day_name[weekday]}"
        return f"{calendar.month_name[month]} {year} has no {none}."
    if not asked.group("year") and "next year" not in question.lower() and found < today:
        year += 1
        found = nth_weekday(year, month, weekday, n)
    which = (
        f"{asked.group('nth').lower()} {calendar.day_name[weekday]} of {calendar.month_name[month]} {year}"
    )
    return f"The {which} {'was' if found < today else 'is'} {_long(found)}."


_DAY_KIND_RE = re.compile(
    r"^\W*(?:is|was|will|would|isn't|wasn't)\b.*?\b(?:an?|on\s+an?|on\s+the)\s+"
    r"(?P<kind>weekend(?:\s+day)?|weekday|week\s*day|working\s+day|work\s*day|business\s+day|school\s+day)\b",
    re.IGNORECASE,
)
"""A question whether a day is a weekend day or a weekday ("Is today a weekend?", "Is 25 December 2026 a
working day?")."""
_MONTH_ALONE_RE = re.compile(
    rf"\b(?P<lead>until|till|til|since)\s+(?P<month>(?!may\b)(?:{_MONTH_PATTERN})|May)\b"
    r"(?P<year>\s+[12]\d{3})?(?!\s*\d)(?!\s+(?:the\s+)?\d)",
    re.IGNORECASE,
)
"""A month named without its day after "until" or "since" ("How many days until June?", "since March 2026"):
its 1st."""


_WEEKDAY_NAME_KIND_RE = re.compile(
    r"^\W*(?:is|are)\s+(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\s+(?:an?\s+)?"
    r"(?P<kind>weekend(?:\s+days?)?|weekdays?|week\s*days?|working\s+days?|work\s*days?|business\s+days?)"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A question whether a day of the week, named alone, is a weekday or a weekend day ("Is Monday a weekday?",
"Are Saturdays weekend days?"): what the day is, not a date."""


def _weekday_name_kind(question: str) -> str | None:
    """The answer to :data:`_WEEKDAY_NAME_KIND_RE`'s question ("Yes: Monday is a weekday (Monday to Friday;
    Saturday and Sunday are the weekend)."), or None for another question."""
    match = _WEEKDAY_NAME_KIND_RE.match(question)
    if match is None:
        return None
    day = match.group("day").capitalize()
    weekend = day in ("Saturday", "Sunday")
    asked_weekend = match.group("kind").lower().startswith("weekend")
    is_a = "a weekend day" if weekend else "a weekday"
    return (
        f"{'Yes' if weekend == asked_weekend else 'No'}: {day} is {is_a} (Monday to Friday are weekdays; "
        "Saturday and Sunday are the weekend)."
    )


def _day_kind(item: _Date, today: _Today, kind: str) -> str:
    """Whether the day of ``item`` is a weekend day (``kind`` "weekend…") or a weekday (any other kind),
    said with its date: "No: today in UTC is Monday, 30 November 2026, a weekday."."""
    value = _shift(item)
    weekend = value.weekday() >= 5
    asked_weekend = kind.lower().startswith("weekend")
    said = _weekday(item, today).rstrip(".")
    if said.split(" ", 1)[0] in ("The", "Today", "Tomorrow", "Yesterday", "Next", "Last", "This"):
        said = said[:1].lower() + said[1:]
    is_a = "a weekend day" if weekend else "a weekday"
    if kind.lower().startswith("week"):
        return f"{'Yes' if weekend == asked_weekend else 'No'}: {said}, {is_a}."
    if isinstance(item, _Found) and item.kind == "holiday":  # a working day? a public holiday in many places
        return f"{_capital(said)}, {is_a}; as a public holiday it is a day off in many countries."
    yes = "Yes" if weekend == asked_weekend else "No"
    return f"{yes}: {said}, {is_a} (public holidays are not taken into account)."


def answer(question: str, calendar: Calendar) -> str:
    """Answer one date question (see the module docs) in one sentence, today taken from ``calendar``.

    Raises :class:`DateQuestionError` when no date question can be read, with what was not understood
    and an example that works.
    """
    check_question(question, DateQuestionError, kind="date", examples=EXAMPLES, max_chars=MAX_QUESTION_CHARS)
    today_utc = calendar.now().astimezone(UTC).date()
    counted = (
        _weekday_name_kind(question)
        or _nth_weekday_date(question, today_utc)
        or _age_later(question, today_utc)
        or _years_between(question)
    )
    if counted is not None:  # "Is Monday a weekday?", "the third Sunday of June 2027?", "I'm 30: in 2040?"
        return counted
    text = _MONTH_ALONE_RE.sub(
        lambda m: f"{m.group('lead')} 1 {m.group('month')}{m.group('year') or ''}", _normalize(question)
    )
    kind = _DAY_KIND_RE.search(text)
    if kind is not None:  # "Is today a weekend?": the kind of day is asked, not read as a date
        text = text[: kind.start("kind")] + " " * len(kind.group("kind")) + text[kind.end("kind") :]
    counted = _COUNTED_DAYS_RE.search(text)
    if counted is not None:
        return _weekdays_counted(text, counted.group("unit"), calendar)
    if _WEEK_NUMBER_RE.search(text) or _DAY_OF_YEAR_RE.search(text):
        return _week_or_day_of_year(text, calendar)
    other = _OTHER_UNITS_RE.search(text)
    if other is not None:
        unit = " ".join((other.group("unit") or f"{other.group('days')} days").lower().split())
        until = _time_until(text, unit, calendar) or _time_between(text, unit, calendar)
        if until is not None:  # "How many hours until Friday?": from now until the day begins
            return until
        raise DateQuestionError(
            f"Cannot count {unit} in {question!r}: only calendar days, weeks, months and years between "
            f"dates are counted; ask {EXAMPLES}"
        )
    if _AMOUNT_ASKED_RE.search(text):
        raise DateQuestionError(
            f"No date question in {question!r}: it asks an amount, not a date or a count of days; "
            f"ask {EXAMPLES}"
        )
    fact = _year_fact(question, calendar.now().astimezone(UTC).date())
    if fact is not None:
        return fact
    found = _find_dates(text)
    items, loose = _attach(text, found, _find_durations(text, found))
    items, loose = _span_end(text, items, loose)
    if loose and not items and len(loose) == 1:
        converted = _duration_in(loose[0], text)
        if converted is not None:
            return converted
    if loose:
        what = text[loose[0].start : loose[0].end]
        raise DateQuestionError(
            f"Cannot tell which date {what!r} counts from in {question!r}; say e.g. '{what} from today' or "
            f"'{what} after 2026-03-01'"
        )
    if len(items) > 2:
        raise DateQuestionError(
            f"Too many dates in {question!r} ({len(items)}); ask about one or two, {EXAMPLES}"
        )
    masked = _mask(text, items)
    unread = _UNREAD_RE.search(_RESTATED_WEEKDAY_RE.sub(" ", masked))
    if unread is not None:
        raise DateQuestionError(
            f"Cannot read {unread.group(0).strip()!r} in {question!r}: write the date itself, or whole days, "
            f"weeks, months or years from a date, e.g. '2026-03-06', '5 days before today'"
        )
    if any(f.kind == "slash" and f.year is None for f in _bases(items)) and not _DATE_WORDS_RE.search(masked):
        raise DateQuestionError(
            f"No date question found in {question!r}: a slash date without a year needs a question about "
            f"it; ask e.g. 'what day of the week is 12/25/2026'"
        )
    if not items:
        since = _years_since(text, calendar.now().astimezone(UTC).date())
        if since is not None:
            return since
        asked = _TODAY_ASKED_RE.search(masked)
        rest = _PLACE_RE.sub(" ", masked[: asked.start()] + " " + masked[asked.end() :]) if asked else ""
        if asked is None or _TODAY_ONLY_RE.search(rest):
            raise DateQuestionError(
                f"No date question found in {question!r}: no date was read; ask {EXAMPLES}"
            )
        today = _today(text, items, calendar)
        said = f"Today {today.where()} is {_long(today.value)}."
        now_asked = YEAR_OR_MONTH_NOW_RE.search(masked)
        if now_asked is not None:  # "What year is it?": the year first
            month = "month" in now_asked.group(0).lower()
            lead = f"{today.value:%B %Y}" if month else f"{today.value.year}"
            return f"It is {lead}. {said}"
        return said
    counts = bool(_COUNT_RE.search(masked))
    single = items[0] if len(items) == 1 else None
    if counts and single is not None and _is_today(single):
        raise DateQuestionError(
            f"Cannot tell which date to count to from today in {question!r}; ask e.g. 'how many days until "
            "2026-12-25' or 'days between today and Christmas'"
        )
    uses_today = any(_counts_from_today(item) for item in items) or (
        single is not None and (counts or bool(_UNTIL_RE.search(masked)) or bool(_SINCE_RE.search(masked)))
    )
    today = _today(text, items, calendar) if uses_today else _Today(calendar.now().astimezone(UTC).date())
    _resolve(items, masked, today)
    in_units = _IN_UNITS_RE.search(masked)
    unit = (in_units.group("a") or in_units.group("b") or "years").lower() if in_units else "days"
    weekday = bool(_WEEKDAY_RE.search(masked))
    if single is None:
        first, second = items
        if weekday and not counts:
            second_text = _weekday(second, today)
            if second_text.startswith("The "):
                second_text = "t" + second_text[1:]
            return f"{_weekday(first, today)[:-1]}, and {second_text}"
        return _between(first, second, today, unit, bool(_INCLUSIVE_RE.search(masked)))
    if kind is not None and not counts:
        return _day_kind(single, today, kind.group("kind"))
    if isinstance(single, _Shifted) and not counts:
        return _shifted(single, today)
    if counts and not _is_today(single):
        age = bool(in_units and (in_units.group("c") or in_units.group("d")) and _BORN_RE.search(masked))
        return _from_today(single, today, unit, age=age)
    asks = weekday or bool(_ASK_RE.search(masked)) or bool(_CONNECTOR_RE.match(masked))
    if asks or (isinstance(single, _Found) and single.kind == "relative"):
        return _weekday(single, today)
    value = _shift(single)
    raise DateQuestionError(
        f"No date question found in {question!r}: it names {_plain(value)} but asks nothing about it; ask "
        f"e.g. 'what day of the week is {value.isoformat()}' or 'how many days until {value.isoformat()}'"
    )


def _time_until(text: str, unit: str, clock: Calendar) -> str | None:
    """The hours or minutes from now until a day begins: "How many hours until Friday?" ("between now and
    Friday") counts to midnight at the start of the coming Friday, in UTC or the place the question names.
    ``None`` unless ``text`` asks hours or minutes until one later day."""
    if unit not in ("hours", "minutes"):
        return None
    found = _find_dates(text)
    now = [item for item in found if _is_today(item) and item.text.lower() == "now"]
    if len(found) == 2 and len(now) == 1:  # "between now and Friday"
        found.remove(now[0])
    elif not _UNTIL_RE.search(text):
        return None
    if len(found) != 1 or _find_durations(text, found) or _is_today(found[0]):
        return None
    where = _place_named(text, found)
    zone: tzinfo = UTC
    if where is not None:
        if clock.place is None:
            return None
        zone = clock.place(where)[1]
    today = _today(text, found, clock)
    _resolve(found, _mask(text, found), today)
    day = found[0].value
    if day is None or day <= today.value:
        return None  # today or a day gone: no start of it ahead
    now = clock.now().astimezone(zone)
    minutes = int((datetime.combine(day, datetime.min.time(), tzinfo=zone) - now).total_seconds() // 60)
    hours, rest = divmod(minutes, 60)
    count = f"{hours:,} hours and {rest} minutes" if unit == "hours" else f"{minutes:,} minutes"
    name = found[0].name if found[0].kind == "holiday" else ""
    start = f"{name} ({_long(day)})" if name else _long(day)
    return (
        f"There are {count} until {start} begins (midnight {today.where()}), counted from now, "
        f"{now:%H:%M} on {_long(today.value)} {today.where()}."
    )


_DAY_PARTS = {"hours": 24, "minutes": 24 * 60, "seconds": 24 * 60 * 60}
"""The hours, minutes and seconds of a calendar day."""


def _time_between(text: str, unit: str, clock: Calendar) -> str | None:
    """The hours, minutes or seconds between two days, midnight to midnight: "How many hours between
    Monday and Friday?" is 4 days of 24 hours. ``None`` unless ``text`` names two days and nothing else."""
    if unit not in _DAY_PARTS:
        return None
    found = _find_dates(text)
    if len(found) != 2 or _find_durations(text, found) or any(_is_today(item) for item in found):
        return None
    today = _today(text, found, clock)
    _resolve(found, _mask(text, found), today)
    first, second = (_shift(item) for item in found)
    days = abs((second - first).days)
    return (
        f"There are {days * _DAY_PARTS[unit]:,} {unit} between {_describe(found[0], today)} and "
        f"{_describe(found[1], today)} ({days} day{'' if days == 1 else 's'}, midnight to midnight)."
    )


def make_date_calculator(calendar: Calendar) -> BaseTool:
    """The ``date_calculator`` tool, reading today from ``calendar`` (the ``info`` plugin passes its clock).

    It takes one string, the whole question (the embedded model's policy passes a tool's sole string
    parameter the user's message), and is volatile (answers counted from today change every day). It is
    not declared inline: a question naming a place may wait for the place index to be built.
    """

    @volatile(reason="answers counted from today change every day")
    @tool
    def date_calculator(question: str) -> str:
        """Calendar arithmetic (e.g. 'days between 2026-03-01 and 2026-06-15', 'weekday of 2000-01-01',
        'today + 45 days', '3 weeks before 2026-06-15', 'days until Christmas'): how many days, weeks,
        months or years are between two dates; the weekday of any day; the date some days, weeks, months
        or years after or before another, from now, or ago; how many days until or since a day or a holiday
        (e.g. Christmas, New Year's Day, Halloween, Valentine's Day); today's or tomorrow's calendar day;
        next Friday or last Monday; leap years (e.g. 'is 2028 a leap year?'); the age of someone born in
        1990; how many years ago 1969 was; how many working days, weekend days or Fridays a month, a year
        or the days between two dates have (e.g. 'working days in December 2026'); the week number.

        Pass the whole question. Days may be written (e.g. '2026-03-01', 'March 1, 2026', '1 March',
        'Mar 1', '1st of March', '3/1/2026' read month first); one without a year is in this year, or for
        'until' its next occurrence. Today is taken in UTC unless the question names a place (e.g. 'today
        in Tokyo').
        """
        result = answer(question, calendar)
        logger.debug("date question %r answered", question)
        return result

    return date_calculator
