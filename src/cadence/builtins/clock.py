"""Clock-time arithmetic read from words: the ``info`` plugin's ``clock_calculator`` tool.

:func:`answer` reads one question about times of day, written tersely ("10:30 + 2h45m", "9:15 to
17:40") or as a sentence ("The train leaves at 08:50 and the journey takes 3 h 25 min. When does it
arrive?"), and answers in one sentence that restates what was computed:

- **a time of day and a duration**: the time that many hours and minutes later or earlier. Later with
  "after", "later", "from", "+", "plus", or when something starting at the time "takes", "lasts" or
  runs "for" the duration, or when asked to "add" it; earlier with "before", "earlier", "ago", "-",
  "minus", "subtract", "take away", and when the time is when something must end or arrive ("I must be
  there by 9:00 and the drive takes 45 minutes: when do I leave?");
- **two times of day**: how long from the first to the second (past midnight when the second is
  earlier: "from 22:30 to 06:15" is 7 hours and 45 minutes); a duration called a break, a pause or
  lunch is taken off ("9:00 to 17:30 with a 30-minute lunch break");
- **a duration from now** ("what time will it be in 3 hours?", "90 minutes from now"): the time now in
  UTC, or in the place the question names ("in 3 hours in Tokyo"), plus the duration; and how long from
  now until a time of day or since it ("How long until midnight?", "How long since 8am?");
- **a time of day in another clock format** ("15:30 in 12-hour time", "7pm in 24-hour time", "1530 in
  am/pm", "0900 in military time": four digits are read as a time of day only here);
- **the hours, minutes or seconds of a calendar period** ("how many hours are there in March?", "in a
  leap year", "in 2024"): a month without a year is this year's.

Times of day: ``14:30``, ``2:30 pm``, ``2pm``, ``2 o'clock``, ``noon``, ``midnight``, "half past 3",
"quarter to 5" (a time written with am/pm is answered with am/pm, else on the 24-hour clock).
Durations: hours, minutes and seconds in digits or words, "3 h 25 min", "2h45", "an hour and a half",
"half an hour", "a quarter of an hour". Anything else is an error that says what was not read, never a
guess. Dates are the ``date_calculator``'s (:mod:`cadence.builtins.dates`).
"""

from __future__ import annotations

import calendar
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from langchain_core.tools import BaseTool

from cadence.builtins._common import BuiltinToolError, check_question
from cadence.builtins.dates import MONTHS, Calendar
from cadence.sdk import SURELY, route_text, tool, volatile
from cadence.text import numbers_from_words

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 500
"""Longest text a clock question is read from."""
DAY_S = 24 * 3600

EXAMPLES = "e.g. '2 hours 45 minutes after 10:30', 'from 9:15 to 17:40' or 'in 90 minutes'"
"""What the tool reads, quoted in its error messages."""


class ClockQuestionError(BuiltinToolError):
    """A clock question could not be read or computed; the message says what and shows what works."""


@dataclass(frozen=True)
class TimeOfDay:
    """A time of day found in a question."""

    start: int
    """Where it starts in the question (normalized text)."""
    end: int
    """Where it ends."""
    seconds: int
    """Seconds after midnight (0 to 86,399)."""
    twelve_hour: bool
    """Written with am/pm ("2:30 pm"): answered the same way."""


@dataclass(frozen=True)
class Duration:
    """A duration found in a question (several units joined: "2 hours and 45 minutes")."""

    start: int
    """Where it starts in the question (normalized text)."""
    end: int
    """Where it ends."""
    seconds: int
    """Its length."""


# --- reading -----------------------------------------------------------------------------

_AMPM = r"(?P<ampm>[ap])\.?\s?m\b\.?"
_DAYPART_RE = re.compile(
    r"\s+(?:in\s+the\s+(?P<morning>morning)|in\s+the\s+(?P<later>afternoon|evening)|at\s+(?P<night>night)|"
    r"(?P<tonight>tonight))\b",
    re.IGNORECASE,
)
"""A part of the day after a time written without am/pm ("7 in the evening")."""
_CLOCK_RES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"(?<![\d:.])(?P<h>\d{{1,2}}):(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?(?:\s*{_AMPM})?(?![\d:])", re.I
    ),
    re.compile(rf"(?<![\d:.])(?P<h>\d{{1,2}})\.(?P<m>[0-5]\d)\s*{_AMPM}", re.I),
    re.compile(rf"(?<![\d:.])(?P<h>\d{{1,2}})\s*{_AMPM}", re.I),
    re.compile(r"(?<![\d:.])(?P<h>\d{1,2})\s*o'?\s?clock\b", re.I),
    re.compile(
        r"\b(?P<m>half|quarter|\d{1,2}\s+minutes?|\d{1,2})\s+past\s+(?P<h>\d{1,2})\b(?!\s*[:.]\d)", re.I
    ),
    re.compile(r"\b(?:a\s+)?(?P<m>quarter|\d{1,2}\s+minutes?)\s+to\s+(?P<to>\d{1,2})\b(?![\s:.]*\d)", re.I),
    re.compile(r"\b(?P<noon>noon|midday|midnight)\b", re.I),
    re.compile(
        r"(?<![\d:.])(?P<h>\d{1,2})(?=\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)\b)",
        re.I,
    ),
)
"""Times of day: 14:30[:15] [pm], 2.30pm, 2pm, 2 o'clock, half past 3, quarter to 5, noon, midnight, 7 in
the evening."""

_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1}
_UNIT_RE = (
    r"(?:(?P<hours>hours?|hrs?|h)|(?P<minutes>minutes?|mins?|m)|(?P<seconds>seconds?|secs?|s))(?![a-z])"
)
_AMOUNT_RE = re.compile(
    rf"(?P<number>\d+(?:\.\d+)?|an?|one)(?P<half_before>\s+and\s+a\s+half)?\s*-?\s*{_UNIT_RE}"
    r"(?P<half>\s+and\s+a\s+half)?",
    re.IGNORECASE,
)
"""One amount of one unit: "2 hours", "45 min", "an hour and a half", "2 and a half hours", "1.5 h"."""
_COMPACT_RE = re.compile(r"\b(?P<h>\d+)\s*h\s*(?P<m>[0-5]?\d)(?:\s*m(?:in(?:ute)?s?)?)?\b", re.IGNORECASE)
"""Hours and minutes run together: "2h45", "2h45m", "3 h 25"."""
_FRACTION_RE = re.compile(
    r"\b(?:(?P<three>three|3)\s+quarters|(?P<half>half)|(?:a\s+)?(?P<quarter>quarter))\s+(?:of\s+)?an?\s+hour\b",
    re.IGNORECASE,
)
"""Half an hour, a quarter of an hour, three quarters of an hour."""
_JOIN_RE = re.compile(r"^\s*(?:,|and|,\s*and)?\s*$", re.IGNORECASE)
"""What may stand between the parts of one duration ("2 hours and 45 minutes", "1 h, 20 min")."""

_AFTER_RE = re.compile(
    r"\b(?:after|later(?:\s+than)?|past|from|plus|add(?:ed|ing)?|on\s+from|following)\b|\+", re.IGNORECASE
)
_BEFORE_RE = re.compile(
    r"\b(?:before|earlier(?:\s+than)?|ago|prior\s+to|minus|subtract(?:ed|ing)?|back|until)\b|(?<![\w:])-(?!\d)",
    re.IGNORECASE,
)
_VERB_RE = re.compile(
    r"\b(?:(?P<on>add|adding|plus)|(?P<back>subtract|subtracting|deduct|deducting|take\s+away|taking\s+away|minus"
    r"|knock\s+off|take\s+off))\s+(?:an?\s+(?:extra|further|more)\s+|another\s+)?$",
    re.IGNORECASE,
)
"""A verb right before the duration that says which way it counts ("add 2 hours to 14:45", "subtract 45
minutes from 10:00"): it decides before the little words around the time ("from" there is no "after")."""
_RUNS_RE = re.compile(
    r"\b(?:takes?|took|taking|lasts?|lasted|lasting|runs?\s+for|for|long|duration|journey|flight|trip|drive|"
    r"ride|film|movie|meeting|shift|cook|bake|starts?|started|begins?|began|leaves?|left|departs?|departed|"
    r"sets?\s+off|at)\b",
    re.IGNORECASE,
)
"""Something starting at the time of day and taking the duration ("leaves at 8:50 … takes 3 h")."""
_ENDS_AT_RE = re.compile(
    r"\b(?:arrive|arrival|arriving|land|landing|be\s+(?:there|back|home|at\s+work|ready|done)|get\s+there|"
    r"finish(?:ed)?|ends?|done|ready|deadline|due)\b[^.?!]*?\b(?:at|by)\s*$|\bby\s*$",
    re.IGNORECASE,
)
"""The time of day is when something ends or must be reached ("be there by", "arrive at")."""
_ASKS_START_RE = re.compile(
    r"\b(?:when|what\s+time)\b[^.?!]*\b(?:leave|start|depart|set\s+off|begin|get\s+up|wake(?:\s+up)?|go|"
    r"put\s+(?:it\s+)?in|head\s+out)\b",
    re.IGNORECASE,
)
_PLUS_RE = re.compile(r"\s*(?:\+|plus|and add|add)\s*", re.IGNORECASE)
_MINUS_RE = re.compile(r"\s*(?:-|−|minus|take away)\s*", re.IGNORECASE)
"""What joins two readings written as a sum ("10:30 + 2:45": the second is hours and minutes) or a
difference ("17:40 - 9:15": how long from the second to the first)."""
_BREAK_RE = re.compile(r"\b(?:break|lunch|pause|rest|off)\b", re.IGNORECASE)
_NOW_RE = re.compile(
    r"\bfrom\s+now\b|\bin\s+(?=\d|an?\b|half\b|one\b)|\bnow\b|\bago\b|\b(?:later|earlier)\b(?!\s+than\b)",
    re.IGNORECASE,
)
"""A duration counted from now: "in 3 hours", "90 minutes from now", "2 hours ago", "3 hours later?" (no time
of day given)."""
_AGO_RE = re.compile(r"\bago\b|\bearlier\b(?!\s+than\b)", re.IGNORECASE)
_PLACE_RE = re.compile(r"\b(?:in|at)\s+(?P<place>[A-Z][\w'.-]*(?:[ ,]+(?:[A-Z][\w'.-]*))*)")
_UNITS_ASKED_RE = re.compile(r"\bhow\s+many\s+(?P<unit>hours|minutes|seconds)\b", re.IGNORECASE)


def normalized(text: str) -> str:
    """``text`` as the clock reads it: number words as digits, plain apostrophes and minus signs."""
    text = text.replace("\u2019", "'").replace("\u2212", "-").replace("\u2013", "-")
    return numbers_from_words(text)


def _hour_value(hour: int, ampm: str | None, written: str) -> int:
    if ampm is None:
        if hour > 23:
            raise ClockQuestionError(f"No time of day {written!r}: hours run from 0 to 23")
        return hour
    if not 1 <= hour <= 12:
        raise ClockQuestionError(f"No time of day {written!r}: with am or pm, hours run from 1 to 12")
    return hour % 12 + (12 if ampm.lower() == "p" else 0)


def _daypart(text: str, end: int, hour: int) -> tuple[int, int]:
    """A part of the day after a time without am/pm: its hour on the 24-hour clock, and where it ends."""
    found = _DAYPART_RE.match(text, end)
    if found is None or hour > 12:
        return hour, end
    later = found.group("later") or found.group("tonight") or (found.group("night") and hour != 12)
    if later and hour < 12:
        hour += 12
    elif found.group("morning") and hour == 12:
        hour = 0
    return hour, found.end()


def _read_clock(match: re.Match[str], text: str) -> TimeOfDay:
    groups = match.groupdict()
    written = match.group(0)
    if groups.get("noon"):
        seconds = 0 if groups["noon"].lower() == "midnight" else 12 * 3600
        return TimeOfDay(match.start(), match.end(), seconds, False)
    ampm = groups.get("ampm")
    minute_word = (groups.get("m") or "0").lower()
    minutes = {"half": 30, "quarter": 15}.get(minute_word)
    if minutes is None:
        minutes = int(minute_word.split()[0])
    if groups.get("to"):
        hour = int(groups["to"]) - 1
        if minutes > 59:
            raise ClockQuestionError(f"No time of day {written!r}")
        minutes = 60 - minutes
    else:
        hour = int(groups["h"])
    if ("past" in written.lower() or groups.get("to")) and (not 0 <= hour <= 12 or minutes > 59):
        raise ClockQuestionError(f"No time of day {written!r}")
    end = match.end()
    twelve = ampm is not None
    if ampm is None:
        hour, end = _daypart(text, end, _hour_value(hour % 24 if groups.get("to") else hour, None, written))
        twelve = end != match.end()
    else:
        hour = _hour_value(hour, ampm, written)
    return TimeOfDay(match.start(), end, hour * 3600 + minutes * 60 + int(groups.get("s") or 0), twelve)


def find_times(text: str) -> list[TimeOfDay]:
    """The times of day written in ``text`` (normalized), in order; of overlapping ones the first found."""
    found: list[TimeOfDay] = []
    for pattern in _CLOCK_RES:
        for match in pattern.finditer(text):
            if any(match.start() < t.end and t.start < match.end() for t in found):
                continue
            found.append(_read_clock(match, text))
    return sorted(found, key=lambda t: t.start)


def _amounts(text: str, taken: Sequence[tuple[int, int]]) -> list[tuple[int, int, float]]:
    spans: list[tuple[int, int, float]] = []

    def free(start: int, end: int) -> bool:
        return not any(start < b and a < end for a, b in [*taken, *((s, e) for s, e, _ in spans)])

    for match in _COMPACT_RE.finditer(text):
        if free(match.start(), match.end()):
            seconds = int(match.group("h")) * 3600 + int(match.group("m")) * 60
            spans.append((match.start(), match.end(), seconds))
    for match in _FRACTION_RE.finditer(text):
        if free(match.start(), match.end()):
            part = 2700 if match.group("three") else 1800 if match.group("half") else 900
            spans.append((match.start(), match.end(), part))
    for match in _AMOUNT_RE.finditer(text):
        if not free(match.start(), match.end()):
            continue
        number = match.group("number").lower()
        unit = "h" if match.group("hours") else "m" if match.group("minutes") else "s"
        written_unit = match.group("hours") or match.group("minutes") or match.group("seconds")
        if number.isalpha() and len(written_unit) == 1:
            continue  # "a m" is no duration
        value = 1.0 if number.isalpha() else float(number)
        if match.group("half") or match.group("half_before"):
            value += 0.5
        spans.append((match.start(), match.end(), value * _UNIT_SECONDS[unit]))
    return sorted(spans)


def find_durations(text: str, times: Sequence[TimeOfDay]) -> list[Duration]:
    """The durations written in ``text`` outside its times of day; parts joined by "and" or a comma
    make one ("2 hours and 45 minutes")."""
    spans = _amounts(text, [(t.start, t.end) for t in times])
    out: list[Duration] = []
    for start, end, seconds in spans:
        if out and _JOIN_RE.match(text[out[-1].end : start]):
            last = out[-1]
            out[-1] = Duration(last.start, end, last.seconds + round(seconds))
        else:
            out.append(Duration(start, end, round(seconds)))
    return out


# --- writing -----------------------------------------------------------------------------


def clock_text(seconds: int, twelve_hour: bool) -> str:
    """A time of day (seconds after midnight) as ``13:15`` or ``1:15 pm``."""
    seconds %= DAY_S
    hour, rest = divmod(seconds, 3600)
    minute, second = divmod(rest, 60)
    tail = f":{second:02d}" if second else ""
    if not twelve_hour:
        return f"{hour:02d}:{minute:02d}{tail}"
    if (hour, minute, second) == (12, 0, 0):
        return "12:00 pm (noon)"
    if (hour, minute, second) == (0, 0, 0):
        return "12:00 am (midnight)"
    return f"{hour % 12 or 12}:{minute:02d}{tail} {'pm' if hour >= 12 else 'am'}"


def duration_text(seconds: int, unit: str | None = None) -> str:
    """A duration in words ("8 hours and 25 minutes"); in one unit when ``unit`` asks for it."""
    if unit == "minutes":
        return _count(seconds / 60, "minute")
    if unit == "seconds":
        return _count(seconds, "second")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [_count(n, name) for n, name in ((hours, "hour"), (minutes, "minute"), (secs, "second")) if n]
    text = " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 2 else parts) or "0 minutes"
    if unit == "hours" and (minutes or secs):
        return f"{_count(round(seconds / 3600, 2), 'hour')} ({text})"
    return text


def _count(amount: float, unit: str) -> str:
    value = int(amount) if float(amount).is_integer() else amount
    return f"{value} {unit}{'' if value == 1 else 's'}"


def _days_note(days: int) -> str:
    if days == 0:
        return ""
    if days == 1:
        return " the next day"
    if days == -1:
        return " the day before"
    return f" {abs(days)} days {'later' if days > 0 else 'earlier'}"


# --- the question ------------------------------------------------------------------------


def _direction(text: str, time: TimeOfDay, duration: Duration) -> int:
    """+1 when the duration counts on from the time of day, -1 back, 0 when the text does not say."""
    verb = _VERB_RE.search(text[: duration.start])
    if verb is not None:  # "add 2 hours to 14:45", "subtract 45 minutes from 10:00"
        return -1 if verb.group("back") else 1
    after = duration.end <= time.start
    between = text[duration.end : time.start] if after else text[time.end : duration.start]
    if _BEFORE_RE.search(between) and not _AFTER_RE.search(between):
        return -1
    if _AFTER_RE.search(between):
        return 1
    lead = text[: time.start]
    if _ENDS_AT_RE.search(lead) and _ASKS_START_RE.search(text):
        return -1
    if _ENDS_AT_RE.search(lead) and not _RUNS_RE.search(between):
        return -1
    if _RUNS_RE.search(text):
        return 1
    return 0


def _place(question: str, calendar_place: Callable[[str], tuple[str, tzinfo]] | None) -> tuple[str, tzinfo]:
    found = _PLACE_RE.search(question)
    if found is None:
        return "UTC", UTC
    if calendar_place is None:
        raise ClockQuestionError(
            f"Cannot tell the time in {found.group('place')!r}: places are not known here; ask in UTC"
        )
    return calendar_place(found.group("place").strip(" ,."))


def answer(
    question: str,
    now: Callable[[], datetime] | None = None,
    place: Callable[[str], tuple[str, tzinfo]] | None = None,
) -> str:
    """Answer one clock question (see the module docs) in one sentence; ``now`` gives the current instant
    for "in 3 hours" and ``place`` finds a named place's label and time zone.

    Raises :class:`ClockQuestionError` when no clock question can be read, with what was not understood
    and an example that works.
    """
    check_question(
        question, ClockQuestionError, kind="clock", examples=EXAMPLES, max_chars=MAX_QUESTION_CHARS
    )
    text = normalized(question)
    formatted = _in_clock_format(text)
    if formatted is not None:
        return formatted
    times = find_times(text)
    durations = find_durations(text, times)
    asked = _UNITS_ASKED_RE.search(text)
    unit = asked.group("unit").lower() if asked else None
    counted = _count_in_period(text, now)
    if counted is not None and not times and not durations:
        return counted
    if len(times) > 2 or len(durations) > 2 or (len(times) == 2 and len(durations) > 1):
        raise ClockQuestionError(
            f"Too many times in {question!r}; ask about one time of day and one duration, or two times of "
            f"day, {EXAMPLES}"
        )
    if len(times) == 2 and not durations:
        joined = text[times[0].end : times[1].start]
        first, second = times
        if _PLUS_RE.fullmatch(joined) and not second.twelve_hour:
            # "10:30 + 2:45": the second reading is hours and minutes added
            total = first.seconds + second.seconds
            return (
                f"{duration_text(second.seconds)} after {clock_text(first.seconds, first.twelve_hour)} is "
                f"{clock_text(total, first.twelve_hour)}{_days_note(total // DAY_S)}."
            )
        if _MINUS_RE.fullmatch(joined):
            times = [second, first]  # "17:40 - 9:15": from the second to the first
    if len(times) == 2:
        first, second = times
        span = (second.seconds - first.seconds) % DAY_S
        overnight = second.seconds < first.seconds
        twelve = first.twelve_hour or second.twelve_hour
        head = f"From {clock_text(first.seconds, twelve)} to {clock_text(second.seconds, twelve)}"
        note = " (past midnight)" if overnight else ""
        if durations:
            pause = durations[0]
            if not _BREAK_RE.search(text[max(0, pause.start - 40) : pause.end + 40]):
                raise ClockQuestionError(
                    f"Cannot tell what {text[pause.start : pause.end]!r} does between two times of day in "
                    f"{question!r}; ask e.g. 'from 9:00 to 17:30 with a 30-minute break'"
                )
            if pause.seconds > span:
                raise ClockQuestionError(
                    f"The break {text[pause.start : pause.end]!r} is longer than the time between "
                    f"{clock_text(first.seconds, twelve)} and {clock_text(second.seconds, twelve)}"
                )
            return (
                f"{head} is {duration_text(span)}{note}; without the break ({duration_text(pause.seconds)}), "
                f"{duration_text(span - pause.seconds, unit)}."
            )
        return f"{head} is {duration_text(span, unit)}{note}."
    if len(times) == 1 and not durations and now is not None:
        counted = _to_or_since_now(question, text, times[0], now, place, unit)
        if counted is not None:
            return counted
    if len(durations) != 1 or not durations[0].seconds:
        what = "a duration" if durations else "a time of day and a duration, or two times of day"
        raise ClockQuestionError(f"No clock question found in {question!r}: it needs {what}; ask {EXAMPLES}")
    duration = durations[0]
    if not times:
        if now is None or not _NOW_RE.search(text):
            raise ClockQuestionError(
                f"Cannot tell which time of day {text[duration.start : duration.end]!r} counts from in "
                f"{question!r}; say e.g. '{text[duration.start : duration.end]} after 10:30' or "
                f"'in {text[duration.start : duration.end]}'"
            )
        sign = -1 if _AGO_RE.search(text[duration.end :]) else 1
        label, zone = _place(question, place)
        moment = now().astimezone(zone)
        later = moment + timedelta(seconds=sign * duration.seconds)
        days = (later.date() - moment.date()).days
        verb = "was" if sign < 0 else "will be"
        when = "ago" if sign < 0 else "from now"
        return (
            f"{duration_text(duration.seconds)} {when} it {verb} {clock_text(_of_day(later), False)}"
            f"{_days_note(days)} in {label} (it is {clock_text(_of_day(moment), False)} there now, on "
            f"{moment:%A, %-d %B %Y})."
        )
    time = times[0]
    sign = _direction(text, time, duration)
    if sign == 0:
        raise ClockQuestionError(
            f"Cannot tell whether {text[duration.start : duration.end]!r} counts on from "
            f"{text[time.start : time.end]!r} or back in {question!r}; say 'after' or 'before'"
        )
    total = time.seconds + sign * duration.seconds
    days = total // DAY_S
    word = "after" if sign > 0 else "before"
    return (
        f"{duration_text(duration.seconds)} {word} {clock_text(time.seconds, time.twelve_hour)} is "
        f"{clock_text(total, time.twelve_hour)}{_days_note(days)}."
    )


_UNITS_IN_PERIOD_RE = re.compile(
    r"\bhow many (?P<unit>weeks|hours|minutes|seconds)\b[^?.!]*?\b(?:in|does|do)\s+"
    r"(?:a |an |one |the |this )?"
    r"(?P<leap>leap )?(?:(?P<period>day|week|fortnight|year|"
    + "|".join(sorted(MONTHS, key=len, reverse=True))
    + r")\b(?:\s+(?:of\s+)?(?P<year>\d{4}))?|(?P<bare>\d{4})\b)",
    re.IGNORECASE,
)
"""How many weeks, hours, minutes or seconds a day, a week, a year or a month has ("How many hours are there
in March?", "how many minutes in a leap year", "how many seconds does February 2028 have", "How many weeks
are in 2026?")."""


def _days_in(days: int, unit: str) -> str:
    """``days`` said in ``unit``: "8,760 hours", "52 weeks and 1 day" (weeks and the days left over)."""
    if unit != "weeks":
        return f"{days * {'hours': 24, 'minutes': 1440, 'seconds': 86400}[unit]:,} {unit}"
    weeks, rest = divmod(days, 7)
    said = f"{weeks} week{'' if weeks == 1 else 's'}"
    return said + (f" and {rest} day{'' if rest == 1 else 's'}" if rest else "")


def _count_in_period(text: str, now: Callable[[], datetime] | None) -> str | None:
    """The weeks, hours, minutes or seconds of a calendar period asked for, or None when not asked. A month
    or a year without a year written is the current one (UTC); February then says it depends on leap years."""
    asked = _UNITS_IN_PERIOD_RE.search(text)
    if asked is None:
        return None
    unit = asked.group("unit").lower()
    period = (asked.group("period") or "year").lower()
    written = asked.group("year") or asked.group("bare")
    year = int(written) if written else (now().astimezone(UTC).year if now is not None else None)
    if period in ("day", "week", "fortnight"):
        days = {"day": 1, "week": 7, "fortnight": 14}[period]
        if unit == "weeks" and period != "fortnight":
            return None  # "How many weeks in a week?": nothing to count
        return f"A {period} has {_days_in(days, unit)}."
    if period == "year":
        if asked.group("leap"):
            return f"A leap year has 366 days: {_days_in(366, unit)}."
        if written and year is not None:
            days = 366 if calendar.isleap(year) else 365
            return f"{year} has {days} days: {_days_in(days, unit)}."
        return f"A year of 365 days has {_days_in(365, unit)} (a leap year, 366 days: {_days_in(366, unit)})."
    month = MONTHS[period]
    name = calendar.month_name[month]
    if year is None:
        raise ClockQuestionError(
            f"Cannot tell which year's {name} in {text!r}; write the year, e.g. '{name} 2027'"
        )
    days = calendar.monthrange(year, month)[1]
    note = ""
    if month == 2 and not written:
        note = (
            f" (a leap year's has 29: {_days_in(29, unit)})"
            if days == 28
            else f" (in other years 28: {_days_in(28, unit)})"
        )
    return f"{name} {year} has {days} days: {_days_in(days, unit)}{note}."


_UNTIL_TIME_RE = re.compile(r"\b(?:until|till|til|to|before)\s+(?:it'?s\s+|it\s+is\s+)?$", re.IGNORECASE)
_SINCE_TIME_RE = re.compile(r"\bsince\s+$", re.IGNORECASE)


def _to_or_since_now(
    question: str,
    text: str,
    time: TimeOfDay,
    now: Callable[[], datetime],
    place: Callable[[str], tuple[str, tzinfo]] | None,
    unit: str | None,
) -> str | None:
    """How long from now until the next ``time`` ("How long until midnight?", "How many minutes until
    5pm in Tokyo?"), or since the last one ("How long since 8am?"), in UTC or the place named; None when
    the text asks neither."""
    lead = text[: time.start]
    until, since = _UNTIL_TIME_RE.search(lead), _SINCE_TIME_RE.search(lead)
    if until is None and since is None:
        return None
    label, zone = _place(question, place)
    moment = now().astimezone(zone)
    current = _of_day(moment)
    span = (time.seconds - current) % DAY_S if until else (current - time.seconds) % DAY_S
    written = text[time.start : time.end].strip()
    said = written.lower() if written.isalpha() else clock_text(time.seconds, time.twelve_hour)  # "midnight"
    there = f"it is {clock_text(current, time.twelve_hour)} in {label} now, on {moment:%A, %-d %B %Y}"
    if span == 0:
        return f"It is {said} now in {label} ({moment:%A, %-d %B %Y})."
    if until:
        return f"From now until {said} is {duration_text(span, unit)} ({there})."
    return f"Since {said} it has been {duration_text(span, unit)} ({there})."


def _of_day(moment: datetime) -> int:
    return moment.hour * 3600 + moment.minute * 60


_CLOCK_READS = """Hours and minutes after or before a reading such as half past ten (2 h 45 min after, 3 hours
later or earlier, 45 minutes before); a train, flight, drive, film or meeting that leaves, departs,
starts or begins at a given hour and takes, lasts or runs 3 hours 25 minutes: it arrives, lands,
ends or finishes at; to be there by a given hour after a 45-minute drive, leave at; how long from
one reading to another, overnight, or a work shift less a lunch break; in 90 minutes from now it
will be, or 2 hours ago it was."""
"""The phrasings the clock calculator reads (its routing text, :func:`cadence.sdk.route_text`). It avoids
"when", "between", "time", "plus" and "add", and times of day in digits (each is the token ``clock`` to the
router): "What
time is it in Tokyo?", "When it is 3pm in Sydney, what time is it in London?" and "How many hours between
Madrid and Lima?" are the world clock's (``current_time``, ``convert_time``, ``time_difference``)."""


def make_clock_calculator(calendar: Calendar) -> BaseTool:
    """The ``clock_calculator`` tool, reading the time now from ``calendar`` (the ``info`` plugin passes
    its clock and places).

    It takes one string, the whole question, like the date calculator, and is volatile: "in 3 hours" is
    counted from the current time.
    """

    @volatile(reason="times counted from now change every minute")
    @route_text(_CLOCK_READS)
    @tool
    def clock_calculator(question: str) -> str:
        """Clock arithmetic on times of day (e.g. '2 hours 45 minutes after 10:30', 'from 9:15 to 17:40',
        'what time will it be in 90 minutes'): the time some hours and minutes after or before a time of
        day (when a train that leaves at 08:50 and takes 3 h 25 min arrives; when to leave to be there by
        9:00), how long it is from one time of day to another (working hours less a break, overnight
        spans), what time it will be in, or was, some hours or minutes from now, and how many hours,
        minutes or seconds a day, week, month or year has.

        Pass the whole question. Times may be written '14:30', '2:30 pm', '2pm', 'noon', 'half past 3'.
        """
        result = answer(question, calendar.now, calendar.place)
        logger.debug("clock question %r answered", question)
        return result

    return clock_calculator


_FROM_NOW_OR_AGO_RE = re.compile(r"\bfrom\s+now\b|\bago\b", re.IGNORECASE)
_A_YEAR_RE = re.compile(r"(?<![\w.:,])(?:1[0-9]{3}|20[0-9]{2})(?![\w.:])")
"""A year written alone ("1969")."""
_CLOCK_UNIT_RE = re.compile(r"\b(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b", re.IGNORECASE)
"""A unit of the clock, not of the calendar."""


_FORMAT_RE = re.compile(
    r"\b(?:in|to|into|as|on|using)\s+(?:the\s+|a\s+)?(?:"
    r"(?P<twelve>12|twelve)[- ]?hour(?:\s+(?:format|time|clock|notation|system))?"
    r"|am\s*/\s*pm(?:\s+(?:format|time))?"
    r"|(?P<full>24|twenty[- ]?four)[- ]?hour(?:\s+(?:format|time|clock|notation|system))?"
    r"|(?P<military>military)\s+time)\b",
    re.IGNORECASE,
)
"""A clock format asked for ("in 12-hour format", "to 24-hour time", "in am/pm", "in military time")."""
_MILITARY_RE = re.compile(
    r"(?<![\d:.,])(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)(?:\s*(?:hours|hrs|h)\b)?(?![\d:.,])"
)
"""A time of day written as four digits ("1530", "0900 hours"): read only when a clock format is asked."""


def _in_clock_format(text: str) -> str | None:
    """A time of day written in the clock format the text asks for ("What is 15:30 in 12-hour time?",
    "1530 in 12-hour format", "7pm in 24-hour time"), or None when the text asks for no format."""
    asked = _FORMAT_RE.search(text)
    if asked is None:
        return None
    rest = text[: asked.start()] + " " * (asked.end() - asked.start()) + text[asked.end() :]
    times = find_times(rest)
    if not times:
        written = list(_MILITARY_RE.finditer(rest))
        if len(written) == 1:
            found = written[0]
            seconds = int(found.group("h")) * 3600 + int(found.group("m")) * 60
            times = [TimeOfDay(found.start(), found.end(), seconds, twelve_hour=False)]
    if len(times) != 1:
        return None  # none or several: the clock questions below say what is missing
    time = times[0]
    twelve = asked.group("full") is None and asked.group("military") is None
    target = "12-hour clock" if twelve else "24-hour clock"
    return f"{text[time.start : time.end].strip()} on the {target} is {clock_text(time.seconds, twelve)}."


def asked_clock_format(text: str) -> bool | None:
    """The clock format ``text`` asks for (:data:`_FORMAT_RE`): True for the 12-hour clock ("in 12 hour
    format", "in am/pm"), False for the 24-hour one ("in 24-hour time", "military time"), None for none."""
    asked = _FORMAT_RE.search(normalized(text))
    if asked is None:
        return None
    return asked.group("full") is None and asked.group("military") is None


def names_time_of_day(text: str) -> bool:
    """Whether ``text`` writes a time of day as the clock reads it (:func:`find_times`): the reader
    (:func:`cadence.sdk.reads`) of a tool converting one ("3pm in London", "15:30", "noon"), not into
    another clock format ("9pm in 24-hour time")."""
    if _FORMAT_RE.search(text):
        return False  # "Convert 9pm to 24-hour time": the clock format, the clock calculator's
    try:
        return bool(find_times(normalized(text)))
    except ClockQuestionError:  # a time it reads, wrongly written ("25:00"): the tool says so
        return True


_TIME_IN_PLACE_ASKED_RE = re.compile(
    r"\b(?i:what(?:'s| is)?\s+(?:the\s+)?(?:local\s+)?time\s+(?:is\s+it|will\s+it\s+be|would\s+it\s+be"
    r"|is\s+that|does\s+that\s+make\s+it)?\s*(?:in|at|for))\s+[A-Z]"
)
"""The time asked in a place ("what time is it in Chicago?", "What time is that in London?"; the place's
name in capitals): with one time of day given elsewhere, a time converted between places (``convert_time``),
not arithmetic on the clock."""


def converts_between_places(text: str) -> bool:
    """Whether ``text`` gives one time of day and asks the time in a place, with no duration: "When it is
    half past 3 in Paris, what time is it in Chicago?" (``convert_time``'s, neither the clock calculator's
    nor the current time's)."""
    written = normalized(text)
    if _TIME_IN_PLACE_ASKED_RE.search(written) is None:
        return False
    try:
        times = find_times(written)
        return len(times) == 1 and not find_durations(written, times)
    except ClockQuestionError:
        return False


def reads_clock_question(text: str) -> bool:
    """The clock calculator's reader: a time of day, a duration (:func:`find_durations`: "in 2 and a half
    hours"), a span from now or ago, or how many hours a day, week or month has. "How many hours should I
    sleep?" is none."""
    written = normalized(text)
    if (
        _FROM_NOW_OR_AGO_RE.search(written)
        and _A_YEAR_RE.search(written)
        and not _CLOCK_UNIT_RE.search(written)
    ):
        return False  # "How long ago was 1969?": a year ago, the calendar's
    counted = _UNITS_IN_PERIOD_RE.search(written)
    if counted is not None and (
        counted.group("year") or counted.group("bare") or (counted.group("period") or "").lower() in MONTHS
    ):
        # "How many weeks are in 2026?", "... hours in March?": a year's or a month's, counted in the unit
        # asked (the calendar's words, "weeks" and a year, fit too, but it counts days)
        return SURELY  # type: ignore[return-value]
    if _FROM_NOW_OR_AGO_RE.search(written) or _UNITS_IN_PERIOD_RE.search(written):
        return True
    if names_time_of_day(text):
        return not converts_between_places(text)
    asked = _FORMAT_RE.search(written)
    if asked is not None:
        # "1530 in 12-hour format" and "Convert 9pm to 24-hour time" are; "What's the time in Oslo in 12
        # hour format?" is the current time's (its "12 hour" is no duration)
        rest = written[: asked.start()] + " " + written[asked.end() :]
        try:
            return bool(find_times(rest)) or _MILITARY_RE.search(rest) is not None
        except ClockQuestionError:
            return True
    try:
        return bool(find_durations(written, []))
    except ClockQuestionError:
        return True


__all__ = [
    "ClockQuestionError",
    "Duration",
    "TimeOfDay",
    "answer",
    "asked_clock_format",
    "clock_text",
    "converts_between_places",
    "duration_text",
    "find_durations",
    "find_times",
    "make_clock_calculator",
    "names_time_of_day",
    "normalized",
    "reads_clock_question",
]
