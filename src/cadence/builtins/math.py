"""The built-in ``math`` plugin: a safe calculator and common numeric operations.

Expressions are parsed with :mod:`ast` and evaluated by walking a whitelist of
node types — nothing is ever passed to ``eval`` or ``exec``. Limits on the
expression length, node count, integer size, exponents and factorials keep
every evaluation fast (a few milliseconds at worst), so the calculator and the percentage tools
are declared quick (:func:`cadence.sdk.inline`) and run without a thread hand-over.
"""

from __future__ import annotations

import ast
import contextlib
import decimal
import logging
import math
import operator
import re
import statistics as _stats
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from langchain_core.tools import BaseTool

from cadence.builtins import clock, constants, number_facts
from cadence.builtins._common import BuiltinToolError, agent_prompt, not_an_action
from cadence.builtins.equations import solve as solve_equation
from cadence.builtins.math_language import (
    closing_paren,
    conversion_in,
    gives_a_rate_of_time,
    has_operation,
    question_body,
    rate_in,
    read_with_unit,
    shape_quantity_asked,
    shape_size_units,
    shape_unit,
    to_expression,
    trailing_unit,
    two_numbers_from_sum_and_difference,
    unguessed,
    units_compared,
    units_spelling_fixed,
    unread_words,
)
from cadence.sdk import SURELY, BaseAgent, BasePlugin, PluginMetadata, inline, reads, route_text, tool
from cadence.text import DATE_IN_DIGITS_RE, numbers_from_words, without_pictographs

logger = logging.getLogger(__name__)

Number = int | float

MAX_EXPRESSION_LENGTH = 500
"""Longest expression :func:`evaluate` accepts (characters)."""
MAX_NODES = 300
"""Most syntax-tree nodes an expression may have."""
MAX_INT_BITS = 10_000
"""Largest integer result (bits, about 3,000 decimal digits)."""
MAX_FACTORIAL = 1000
"""Largest argument of ``factorial``."""
MAX_ROUND_DIGITS = 100
"""Largest ``ndigits`` of ``round``."""
MAX_LIST_LENGTH = 10_000
"""Most numbers the list tools (``statistics``) accept."""

_HINT = "use numbers, operators (+ - * / // % **) and functions like sqrt(2)"
_INT_TOO_LARGE = f"Result too large: integers are limited to about {MAX_INT_BITS * 3 // 10} digits"


class CalculationError(BuiltinToolError):
    """An expression is unsupported, malformed, too large or mathematically undefined."""


def _unreadable(message: str) -> CalculationError:
    """An error about the form of an expression (malformed, unsupported), not about its value: when a
    reading of words fails this way, the error about the words themselves is the one to report."""
    error = CalculationError(message)
    error.unreadable = True  # type: ignore[attr-defined]
    return error


_WORD_RE = re.compile(r"[A-Za-z]{2,}")


_AS_FRACTION_RE = re.compile(
    r"^\s*(?:what(?:'s| is)\s+|convert\s+|write\s+|express\s+|turn\s+)?(?P<x>[-+]?[\d.,]*\d[\d.,]*%?)"
    r"(?:\s*(?:/|divided\s+by|over)\s*(?P<y>\d[\d,]*))?\s+"
    r"(?:as|to|into|in)\s+(?:an?\s+)?(?:(?:simplest|lowest|reduced|common)\s+)?fraction(?:al)?"
    r"(?:\s+(?:form|terms))?(?:\s+in\s+(?:its\s+)?(?:simplest|lowest)\s+(?:form|terms))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A number asked as a fraction: "What is 0.75 as a fraction?", "convert 2.5 to a fraction", "40% as a
fraction", "7 divided by 3 as a fraction"."""
_SIMPLIFY_RE = re.compile(
    r"^\s*(?:simplify|reduce)\s+(?:the\s+fraction\s+)?(?P<x>\d[\d,]*)\s*/\s*(?P<y>\d[\d,]*)"
    r"(?:\s+to\s+(?:its\s+)?lowest\s+terms)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A fraction to put in lowest terms: "Simplify 18/24", "reduce 10/4"."""


def _as_fraction(expression: str) -> str | None:
    """A decimal, a percentage or a quotient written as the fraction in lowest terms it is exactly ("0.75 =
    3/4", "2.5 = 5/2 = 2 1/2", "40% = 2/5", "7/3 = 2 1/3"); None unless the text asks just that."""
    match = _AS_FRACTION_RE.match(expression) or _SIMPLIFY_RE.match(expression)
    if match is None:
        return None
    number = match.group("x").replace(",", "")
    percent = number.endswith("%")
    try:
        value = Fraction(decimal.Decimal(number.rstrip("%")))
    except (decimal.InvalidOperation, ValueError):
        return None
    if percent:
        value /= 100
    written = match.group("x")
    if match.group("y"):  # "7 divided by 3": the quotient
        divisor = int(match.group("y").replace(",", ""))
        if divisor == 0:
            raise CalculationError(f"Division by zero: {written}/0 is no number, so no fraction")
        value /= divisor
        written = f"{written}/{match.group('y')}"
    if value.denominator == 1:
        return f"{written} = {value.numerator} (a whole number: {value.numerator}/1)"
    reduced = f"{value.numerator}/{value.denominator}"
    text = written if reduced == written.replace(",", "") else f"{written} = {reduced}"
    whole, rest = divmod(abs(value.numerator), value.denominator)
    if whole:
        text += f" = {'-' if value < 0 else ''}{whole} {rest}/{value.denominator}"
    return text


_FRACTIONS_RE = re.compile(
    r"^\W*(?:(?:what\s+is|what's|whats|calculate|compute|work\s+out|add|simplify)\s+)?"
    r"(?P<x>\(?\s*\d+\s*/\s*\d+\s*\)?(?:\s*(?:[-+*×÷]|plus|minus|times|divided\s+by)\s*\(?\s*\d+\s*/\s*\d+\s*\)?)+)"
    r"\s*[?.!=]*\s*$",
    re.IGNORECASE,
)
"""Arithmetic of fractions only: "1/3 + 1/4", "What is 2/3 times 3/4?"."""
_FRACTION_OPERATIONS = {
    "+": "+", "plus": "+", "-": "-", "minus": "-", "*": "*", "×": "*", "times": "*", "/": "/", "÷": "/",
    "divided by": "/",
}  # fmt: skip


def _with_fractions(expression: str) -> str | None:
    """Fractions added, taken away, multiplied or divided, worked out exactly and said as a fraction in lowest
    terms with its decimal ("1/3 + 1/4 = 7/12 (about 0.5833)"); None unless the text is just that."""
    match = _FRACTIONS_RE.match(expression)
    if match is None:
        return None
    written = " ".join(match.group("x").replace("(", " ").replace(")", " ").split())
    parts = re.split(r"\s*([-+*×÷]|plus|minus|times|divided\s+by)\s*(?=\d)", written, flags=re.IGNORECASE)
    try:
        value = Fraction(parts[0].replace(" ", ""))
        for sign, operand in zip(parts[1::2], parts[2::2], strict=True):
            other = Fraction(operand.replace(" ", ""))
            op = _FRACTION_OPERATIONS[" ".join(sign.lower().split())]
            value = (
                value + other
                if op == "+"
                else value - other
                if op == "-"
                else value * other
                if op == "*"
                else value / other
            )
    except (ValueError, ZeroDivisionError, KeyError):
        return None
    if value.denominator == 1:
        return f"{written} = {value.numerator}"
    return (
        f"{written} = {value.numerator}/{value.denominator} (about {format_number(round(float(value), 4))})"
    )


_SHARE_LEFT_RE = re.compile(
    r"\bwhat\s+(?P<kind>fraction|part|proportion|share|percent(?:age)?)\b(?:\s+of\s+(?:it|them|the\s+\w+))?"
    r"\s+(?:is|are|was|were|do\s+(?:i|we|you|they)\s+have|does\s+(?:he|she|it)\s+have)?\s*(?:still\s+)?"
    r"(?:left(?:\s+over)?|remain(?:s|ing)?)\b",
    re.IGNORECASE,
)
"""A share of the whole asked of what is left: "what fraction is left?", "what percentage of it remains?"."""


def _share_left(text: str, translated: str, left: Number) -> str | None:
    """What is left as a share of the whole: "A pizza is cut into 8 slices and I eat 3: what fraction is
    left?" was read as ``(8 - 3)`` = 5; the share is 5/8 (or 62.5% when a percentage is asked). ``None``
    unless the text asks a share of what is left and was read as a whole minus what was taken."""
    asked = _SHARE_LEFT_RE.search(text)
    whole = re.match(r"\(\s*(\d+(?:\.\d+)?)\s+-\s", translated)
    if asked is None or whole is None or closing_paren(translated, 0) != len(translated.rstrip()) - 1:
        return None
    total = Fraction(Decimal(whole.group(1)))
    rest = Fraction(Decimal(str(left)))
    if total <= 0 or not 0 <= rest <= total:
        return None
    share = rest / total
    if asked.group("kind").lower().startswith("percent"):
        return f"{translated} / {whole.group(1)} * 100 = {format_number(float(share * 100))}%"
    written = f"{share.numerator}/{share.denominator}" if share.denominator != 1 else str(share.numerator)
    return f"{translated} / {whole.group(1)} = {written}"


_SHARED_RE = re.compile(
    r"\b(?:shar(?:e[sd]?|ing)|split(?:ting)?|divid(?:e[sd]?|ing)|distribut(?:e[sd]?|ing)|hand(?:ed|ing)? out"
    r"|deal(?:t|ing)?|give[sn]?|giving)\b.*\b(?:among|amongst|between|by|to|with|equally|evenly)\b",
    re.IGNORECASE | re.DOTALL,
)
"""Things shared out ("share 24 cookies among 5 friends", "split 17 apples between 3 kids")."""
_THINGS_SHARED_RE = re.compile(r"(?<![\d.$€£])(?P<n>\d+)\s+(?P<things>[a-z]+s)\b", re.IGNORECASE)
_NOT_WHOLE_THINGS_TEXT = """dollars euros pounds cents pence bucks kilograms kgs grams kilos ounces litres
    liters millilitres milliliters gallons cups metres meters kilometres kilometers miles feet inches yards
    hours minutes seconds days weeks months years pizzas pies cakes bars loaves sandwiches percent points"""
_NOT_WHOLE_THINGS = frozenset(_NOT_WHOLE_THINGS_TEXT.split())
"""Things that are shared in parts as well (money, measures, what is cut up): never "4 with 4 left over"."""


def _shared_things(text: str, translated: str, result: Number) -> str | None:
    """Whole things shared out that do not divide evenly: "I have 24 cookies and want to share them among 5
    friends. How many does each get?" was answered 4.8; each gets 4, with 4 left over. ``None`` unless the
    text shares a whole number of countable things (not money or a measure) and asks how many, not how
    much."""
    whole = re.fullmatch(r"\(\s*(\d+)\s*/\s*(\d+)\s*\)", translated.strip())
    if whole is None or float(result).is_integer() or len(text) > 500 or not _SHARED_RE.search(text):
        return None
    things = _THINGS_SHARED_RE.search(text)
    if (
        things is None
        or things.group("n") != whole.group(1)
        or things.group("things").lower() in _NOT_WHOLE_THINGS
        or re.search(r"[$€£]|\bhow much\b", text, re.IGNORECASE)
    ):
        return None
    total, people = int(whole.group(1)), int(whole.group(2))
    each, left = divmod(total, people)
    split = format_number(round(float(result), 2))
    return (
        f"Each gets {each}, with {left} left over: {people} × {each} = {people * each} of the {total} "
        f"{things.group('things')} (about {split} each if the rest is split too)."
    )


PRIME_MAX = 10**10
"""Largest number whose primality or prime factors the calculator works out (trial division: a few ms)."""
_IS_PRIME_RE = re.compile(
    r"^\s*(?:is|are)\s+(?:the\s+number\s+)?(?P<n>[\d,]+)\s+(?:a\s+)?prime(?:\s+number)?\s*[?.!]*\s*$"
    r"|^\s*(?:is\s+)?(?P<m>[\d,]+)\s+(?:a\s+)?prime(?:\s+number)?\s*\?\s*$",
    re.IGNORECASE,
)
"""Whether a number is prime: "Is 97 a prime number?", "is 91 prime", "97 prime?"."""
_FACTORS_RE = re.compile(
    r"^\s*(?:what\s+(?:is|are)\s+|what's\s+|find\s+|give\s+me\s+|list\s+)?(?:the\s+)?"
    r"(?:prime\s+(?:factors?|factori[sz]ation|decomposition)\s+of|factori[sz]e)\s+(?P<n>[\d,]+)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""The prime factors of a number: "What are the prime factors of 360?", "factorize 84"."""


def _factors(n: int) -> list[int]:
    """The prime factors of ``n`` (2 or more), smallest first, with repeats."""
    found: list[int] = []
    for p in (2, 3):
        while n % p == 0:
            found.append(p)
            n //= p
    k = 5
    while k * k <= n:
        for p in (k, k + 2):
            while n % p == 0:
                found.append(p)
                n //= p
        k += 6
    if n > 1:
        found.append(n)
    return found


_IS_EVEN_RE = re.compile(
    r"^\s*(?:is|are)\s+(?:the\s+number\s+)?(?P<n>-?[\d,]+)\s+(?:an?\s+)?(?P<asked>even|odd)"
    r"(?P<either>\s+or\s+(?:an?\s+)?(?:even|odd))?(?:\s+number)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""Whether a whole number is even or odd: "Is 42 an even number?", "is 7 odd", "Is 17 even or odd?"."""


def _about_parity(expression: str) -> str | None:
    """ "Yes, 42 is even." / "No, 42 is even, not odd."; None unless the text asks just that."""
    match = _IS_EVEN_RE.match(expression) or _IS_EVEN_RE.match(numbers_from_words(expression))
    if match is None:  # "Is zero even?" as "Is 0 even?"
        return None
    n = int(match.group("n").replace(",", ""))
    parity = "even" if n % 2 == 0 else "odd"
    asked = match.group("asked").lower()
    if match.group("either"):  # "Is 17 even or odd?": which of the two
        return f"{n} is {parity}."
    return f"Yes, {n} is {parity}." if asked == parity else f"No, {n} is {parity}, not {asked}."


def _about_primes(expression: str) -> str | None:
    """Whether a number is prime, or its prime factors ("Is 91 a prime number?": "No: 91 = 7 × 13"); None
    unless the text asks just that of a whole number."""
    asked = _IS_PRIME_RE.match(expression)
    factors = _FACTORS_RE.match(expression)
    match = asked or factors
    if match is None:
        in_digits = numbers_from_words(expression)  # "Is seven prime?" as "Is 7 prime?"
        return _about_primes(in_digits) if in_digits != expression else None
    written = (match.group("n") or match.group("m") or "").replace(",", "")
    n = int(written)
    if n > PRIME_MAX:
        raise CalculationError(
            f"{n} is too large to factor here (at most {PRIME_MAX:,}); ask about a smaller number"
        )
    if n < 2:
        return f"{n} is not a prime number (primes are whole numbers from 2 up)."
    parts = _factors(n)
    product = " × ".join(
        f"{p}^{parts.count(p)}" if parts.count(p) > 1 else str(p) for p in sorted(set(parts))
    )
    if len(parts) == 1:
        return (
            f"Yes, {n} is a prime number."
            if asked
            else f"{n} is a prime number: its only prime factor is {n}."
        )
    if asked:
        return f"No, {n} is not a prime number: {n} = {product}."
    return f"The prime factors of {n}: {n} = {product}."


_DIVISIBLE_RES = tuple(
    re.compile(pattern + r"\s*[?.!]*\s*$", re.IGNORECASE)
    for pattern in (
        r"^\s*(?:is|are)\s+(?P<a>[\d,]+)\s+(?:evenly\s+|exactly\s+)?divisible\s+by\s+(?P<b>[\d,]+)",
        r"^\s*(?:is|are)\s+(?P<a>[\d,]+)\s+an?\s+multiple\s+of\s+(?P<b>[\d,]+)",
        r"^\s*can\s+(?P<a>[\d,]+)\s+be\s+divided\s+(?:evenly\s+|exactly\s+)?by\s+(?P<b>[\d,]+)",
        r"^\s*does\s+(?P<b>[\d,]+)\s+(?:evenly\s+|exactly\s+)?(?:divide(?:\s+into)?|go\s+into)\s+(?P<a>[\d,]+)"
        r"(?:\s+(?:evenly|exactly))?",
    )
)
"""Whether a whole number divides another: "Is 1001 divisible by 7?", "Is 36 a multiple of 4?", "Does 7 go
into 100?"."""


def _about_divisibility(expression: str) -> str | None:
    """ "Yes, 1001 is divisible by 7: 1001 = 7 × 143." / "No, ...: 100 = 7 × 14 + 2."; None unless the text
    asks just that of two whole numbers."""
    match = next((m for m in (p.match(expression) for p in _DIVISIBLE_RES) if m is not None), None)
    if match is None:
        return None
    a, b = (int(match.group(k).replace(",", "")) for k in ("a", "b"))
    if b == 0:
        return f"No number is divisible by 0: dividing {a} by 0 is undefined."
    quotient, remainder = divmod(a, b)
    if remainder == 0:
        return f"Yes, {a} is divisible by {b}: {a} = {b} × {quotient}."
    return f"No, {a} is not divisible by {b}: {a} = {b} × {quotient} + {remainder}."


_WHICH_IS_RE = re.compile(
    r"^\s*(?:which|what)(?:\s+one)?(?:\s+is|'s|’s)\s+(?:the\s+)?(?P<word>larger|bigger|greater|higher|more|smaller|less|"
    r"lower|lesser)(?:\s+number)?\s*[,:]?\s+(?P<a>.+?)\s+or\s+(?P<b>.+?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""Which of two amounts is larger or smaller: "Which is larger, 2^10 or 10^3?"."""
_IS_IT_MORE_RE = re.compile(
    r"^\s*(?:is|does)\s+(?P<a>.+?)\s+(?P<word>larger|bigger|greater|higher|more|smaller|less|lower|equal|equals"
    r"|the same as)\s+(?:than\s+|to\s+)?(?P<b>.+?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""Whether one amount is larger or smaller than another: "Is 0.7 bigger than 2/3?"."""
_LESS_WORDS = frozenset({"smaller", "less", "lower", "lesser"})


def _amount(text: str) -> Number | None:
    """``text`` worked out, as written or read in words; None when the calculator cannot read it."""
    for attempt in (lambda: evaluate(text), lambda: evaluate(to_expression(text))):
        try:
            return attempt()
        except CalculationError:
            continue
    return None


_DEAL = r"(?P<{0}n>\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:for|at)\s+[$€£]?(?P<{0}p>\d+(?:\.\d+)?)"
_CHEAPER_RE = re.compile(
    rf"\b(?:which|what)(?:'s|\s+is)\s+(?:cheaper|the\s+(?:better|best)\s+(?:deal|buy|value|price))\s*[:,]?\s+"
    rf"{_DEAL.format('a')}\s*,?\s+or\s+{_DEAL.format('b')}\b",
    re.IGNORECASE,
)
"""Two prices of several things compared ("Which is cheaper: 3 for $5 or 5 for $8?")."""


def _cheaper_deal(expression: str) -> str | None:
    """Which of two prices for several things is cheaper each ("5 for $8 is cheaper: $1.60 each, against
    $1.67 each for 3 for $5."), or None."""
    match = _CHEAPER_RE.search(expression)
    if match is None:
        return None
    sign = next((c for c in expression if c in "$€£"), "$")
    deals = []
    for side in ("a", "b"):
        count, price = float(match.group(f"{side}n")), float(match.group(f"{side}p"))
        if count <= 0:
            return None
        deals.append((price / count, f"{match.group(f'{side}n')} for {sign}{match.group(f'{side}p')}"))
    (low, cheap), (high, dear) = sorted(deals)
    if math.isclose(low, high):
        return f"They cost the same: {sign}{low:,.2f} each."
    return f"{cheap} is cheaper: {sign}{low:,.2f} each, against {sign}{high:,.2f} each for {dear}."


_RATIO_RE = re.compile(
    r"\b(?:ratio\s+(?:of\s+)?(?P<a>\d+)\s*(?:to|:)\s*(?P<b>\d+)|(?P<a2>\d+)\s*:\s*(?P<b2>\d+))"
    r"(?=.*\b(?:simplest|lowest|simplif|reduce))|\bsimplify\s+(?:the\s+ratio\s+)?(?P<a3>\d+)\s*:\s*(?P<b3>\d+)",
    re.IGNORECASE,
)
"""A ratio asked in its simplest form ("What is the ratio of 12 to 18 in simplest form?", "Simplify
24:36")."""


def _ratio(expression: str) -> str | None:
    """A ratio of whole numbers in its simplest form ("The ratio 12:18 in simplest form is 2:3."), or None."""
    match = _RATIO_RE.search(expression)
    if match is None:
        return None
    a, b = (
        int(next(g for g in (match.group(k), match.group(f"{k}2"), match.group(f"{k}3")) if g)) for k in "ab"
    )
    if a == 0 and b == 0:
        return None
    d = math.gcd(a, b)
    return f"The ratio {a}:{b} in simplest form is {a // d}:{b // d}."


def _compared(expression: str) -> str | None:
    """Which of two amounts is larger or smaller, each worked out ("2^10 (1024) is larger than 10^3
    (1000)."), or whether the first is ("Yes, 0.7 is bigger than 2/3 (0.666667)."); None unless the text
    asks that of two things the calculator reads (places and other things compared are not its)."""
    which, whether = _WHICH_IS_RE.match(expression), _IS_IT_MORE_RE.match(expression)
    match = which or whether
    if match is None:
        return None
    a, b, word = match.group("a").strip(), match.group("b").strip(), match.group("word").lower()
    x, y = _amount(a), _amount(b)
    if x is None or y is None:
        return None

    def said(text: str, value: Number) -> str:
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        return text if text == shown else f"{text} ({shown})"

    if word in ("equal", "equals", "the same as"):  # "Is 0.1 + 0.2 equal to 0.3?": exactly, not in floats
        same = math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12)
        return f"{'Yes' if same else 'No'}, {said(a, x)} is {'' if same else 'not '}equal to {said(b, y)}."
    if x == y:
        return f"They are equal: {said(a, x)} and {said(b, y)}."
    first_wins = (x > y) != (word in _LESS_WORDS)
    if whether is not None:
        return (
            f"Yes, {said(a, x)} is {word} than {said(b, y)}."
            if first_wins
            else (f"No, {said(a, x)} is not {word} than {said(b, y)}.")
        )
    first, second = (said(a, x), said(b, y)) if first_wins else (said(b, y), said(a, x))
    return f"{first} is {word} than {second}."


_DURATION_UNIT = r"hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s"
_ONE_AMOUNT = rf"\d+(?:\.\d+)?\s*(?:{_DURATION_UNIT})\b"
_DURATION_RE = re.compile(rf"{_ONE_AMOUNT}(?:\s*(?:,|and)?\s*{_ONE_AMOUNT})*", re.IGNORECASE)
"""A duration of hours, minutes and seconds ("3 hours 20 minutes", "1h 20m", "2 hours and 30 minutes")."""
_DURATION_PART_RE = re.compile(rf"(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>{_DURATION_UNIT})\b", re.IGNORECASE)
"""One amount of a duration ("20 minutes")."""
_SECONDS_IN = {"h": 3600, "m": 60, "s": 1}
_DURATION_ASKED_RE = re.compile(
    r"^\s*(?:(?:what|how\s+much|how\s+long)(?:'s|\s+is|\s+are)?|calculate|add|compute)?\s*"
    r"(?P<sum>D(?:\s*(?:\+|plus|-|minus|and)\s*D)+|D\s*(?P<op>\*|x|times|multiplied\s+by|/|divided\s+by)\s*"
    r"(?P<k>\d+(?:\.\d+)?))\s*(?:in\s+total|altogether|together)?\s*[?.!=]*\s*$",
    re.IGNORECASE,
)
"""Durations added or taken away, or one multiplied or divided by a number, once each duration is ``D``."""


def _seconds(duration: str) -> float:
    return sum(
        float(m.group("n")) * _SECONDS_IN[m.group("unit")[0].lower()]
        for m in _DURATION_PART_RE.finditer(duration)
    )


def _as_duration(seconds: float) -> str:
    """A duration as people say it: ``5 hours 10 minutes``, ``45 minutes``, ``1 hour 30 seconds``."""
    sign, seconds = ("-" if seconds < 0 else ""), abs(round(seconds, 3))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{format_number(v)} {unit}{'' if v == 1 else 's'}"
        for v, unit in ((int(hours), "hour"), (int(minutes), "minute"), (secs, "second"))
        if v
    ]
    return sign + (" ".join(parts) or "0 minutes")


def _durations(expression: str) -> str | None:
    """Durations added or taken away ("3 hours 20 minutes plus 1 hour 50 minutes" is 5 hours 10 minutes), or
    one multiplied or divided by a number ("2 hours 45 minutes times 3"), in hours, minutes and seconds;
    None unless the text is only that."""
    found = list(_DURATION_RE.finditer(expression))
    if not found:
        return None
    masked, position = [], 0
    for m in found:
        masked.append(expression[position : m.start()] + "D")
        position = m.end()
    masked.append(expression[position:])
    asked = _DURATION_ASKED_RE.match("".join(masked))
    if asked is None or any(re.fullmatch(r"[\d.\s]+m", m.group(0), re.IGNORECASE) for m in found):
        return None  # "3 m": metres as much as minutes
    values = [_seconds(m.group(0)) for m in found]
    if asked.group("op"):
        k = float(asked.group("k"))
        dividing = asked.group("op").strip().lower() == "/" or asked.group("op").lower().startswith("divided")
        if dividing and k == 0:
            raise CalculationError("Division by zero: a duration cannot be divided by 0")
        total = values[0] / k if dividing else values[0] * k
    else:
        signs = re.findall(r"\+|plus|-|minus|and", asked.group("sum"), re.IGNORECASE)
        total = values[0]
        for sign, value in zip(signs, values[1:], strict=True):
            total += -value if sign.lower() in ("-", "minus") else value
    end = found[-1].end()
    if asked.group("op"):
        end += re.match(r"\s*\S+(?:\s+by)?\s*\d+(?:\.\d+)?", expression[end:]).end()  # type: ignore[union-attr]
    written = " ".join(expression[found[0].start() : end].split())
    minutes = f" ({format_number(round(total / 60, 4))} minutes)" if abs(total) >= 3600 else ""
    return f"{_as_duration(total)}{minutes}, from {written}."


_CURRENCY = (
    r"(?:dollars?|usd|us\$|\$|euros?|eur|€|pounds?(?: sterling)?|gbp|£|yen|jpy|¥|yuan|cny|rmb|rupees?|inr|₹|"
    r"francs?|chf|pesos?|mxn|won|krw|rubles?|roubles?|rub|real|reais|brl|kronor|krona|kroner|krone|sek|nok|dkk|"
    r"canadian dollars?|cad|australian dollars?|aud|bitcoins?|btc)"
)
_CURRENCY_CONVERSION_RE = re.compile(
    rf"(?:\d[\d,.]*\s*{_CURRENCY}|{_CURRENCY}\s*\d[\d,.]*)\s+(?:to|in|into|as)\s+{_CURRENCY}(?![a-z])(?!\s*\d)"
    rf"|\b(?:exchange rate|convert(?:ed)? (?:currency|currencies))\b",
    re.IGNORECASE,
)
"""A conversion between two currencies ("100 dollars to euros", "$50 in yen"): no fixed factor to apply (a
currency followed by an amount is that amount: "from $50 to $65" is a change)."""
_UNIT_CONVERSION_ASKED_RE = re.compile(
    r"^\W*(?:(?:please|can you|could you)\s+)?(?:convert|change|turn|express)\s+(?:-?\d[\d,.]*)\s*"
    r"(?P<unit>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)\s+(?:to|in|into)\s+(?P<to>[a-z][a-z -]{0,30}?)\W*$",
    re.IGNORECASE,
)
"""A conversion asked plainly ("Convert 5 parsecs to light years"): read as one or refused by its units."""
UNITS_CONVERTED = (
    "durations (seconds to weeks), lengths (mm, cm, m, km, inches, feet, yards, miles), masses (g, kg, "
    "ounces, pounds, stone), volumes (ml, litres, teaspoons, cups, pints, gallons), areas (square m/ft, "
    "acres, hectares), speeds (km/h, mph, m/s, knots) and temperatures (Celsius, Fahrenheit, Kelvin)"
)
"""The units the calculator converts, as an error about another unit says them."""


_RATE_GIVEN_RE = re.compile(
    rf"^\s*(?:convert\s+|change\s+|what\s+is\s+|what's\s+|how\s+much\s+is\s+)?"
    rf"(?P<amount>\d[\d,]*(?:\.\d+)?)\s*(?P<from>{_CURRENCY})\s+(?:to|in|into)\s+(?P<to>{_CURRENCY})"
    rf"\s*,?\s+(?:at|with|using)\s+(?:a\s+|an\s+)?(?:(?:exchange\s+)?rate\s+(?:of\s+)?)?"
    rf"(?P<rate>\d[\d,]*(?:\.\d+)?)(?:\s+{_CURRENCY}\s+(?:per|a|an|for\s+(?:a|one|1))\s+{_CURRENCY})?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A conversion between two currencies at a rate the question gives ("Convert 100 USD to EUR at 0.92"):
the amount times the rate, as written."""


def _at_rate_given(expression: str) -> str | None:
    """A currency conversion at the rate the question gives ("100 USD to EUR at 0.92" is ``100 * 0.92``), or
    None; the rate is read as the second currency per unit of the first."""
    match = _RATE_GIVEN_RE.match(expression)
    if match is None:
        return None
    amount, rate = (Decimal(match.group(k).replace(",", "")) for k in ("amount", "rate"))
    value = amount * rate
    given, source, target, written = (match.group(k) for k in ("amount", "from", "to", "rate"))
    one = source[:-1] if source.lower().endswith("s") and len(source) > 3 else source  # "per dollar"
    return (
        f"{given} {source} = {format_number(float(value))} {target} at {written} {target} per {one} "
        f"({given} * {written})."
    )


def _on_the_clock(expression: str) -> str | None:
    """The answer of :mod:`cadence.builtins.clock` to a question about times of day that writes one ("a
    train leaves at 08:50 and takes 3 h 25 min"; "from 9:15 to 17:40"): arithmetic on a clock, which adding
    the numbers would get wrong. None when the text writes no time of day or the clock cannot read it."""
    try:
        if not clock.find_times(clock.normalized(expression)):
            return None
        return clock.answer(expression)
    except clock.ClockQuestionError:
        return None  # "sold 45 in the morning": no time of day, a number said with the part of the day


def _no_arithmetic(message: str) -> CalculationError:
    """An error for a text that is no arithmetic at all (words naming no operation): the calculator's
    reader (:func:`reads_arithmetic`) says it does not read such a text."""
    error = CalculationError(message)
    error.no_arithmetic = True  # type: ignore[attr-defined]
    return error


def _not_arithmetic(expression: str, error: CalculationError) -> CalculationError:
    """The error for a text of words that reads as no arithmetic ("What time is it in Tokyo?"), in
    place of the parser's ``error`` ("unterminated string literal", "invalid syntax"); ``error`` itself
    for symbols (``2 +* 3``) or any other error: words are two or more that are no function or constant
    name."""
    if not getattr(error, "malformed", False):
        return error
    open_question = unguessed(expression)
    if open_question is not None:
        return CalculationError(open_question)
    words = [
        w for w in _WORD_RE.findall(expression) if w.lower() not in FUNCTIONS and w.lower() not in CONSTANTS
    ]
    if len(words) < 2:
        return error
    return _no_arithmetic(
        "Could not read the text as arithmetic; give the numbers and the operation, e.g. "
        '"(84 * 1.15) / 4", "15% of 80", "what is 250 divided by 4" or "25% off 40"'
    )


def _unsupported(reason: str) -> CalculationError:
    return _unreadable(f"Unsupported expression: {reason}; {_HINT}")


def _check_int(value: Number) -> Number:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise CalculationError(_INT_TOO_LARGE)
    return value


def _short(value: Number) -> str:
    """A number for an error message: long integers are summarised, negatives parenthesised."""
    text = str(value)
    if len(text) > 24:
        return f"(a {len(text.lstrip('-'))}-digit number)"
    return f"({text})" if text.startswith("-") else text


def _power(base: Number, exponent: Number) -> Number:
    """``base ** exponent`` with the result size estimated before computing it."""
    if isinstance(base, int) and isinstance(exponent, int):
        if exponent < 0:
            if base == 0:
                raise CalculationError("Division by zero: 0 cannot be raised to a negative power")
            if abs(base) > 1 and -exponent * math.log2(abs(base)) > MAX_INT_BITS:
                return 0.0  # underflows to zero as a float
            return float(base**exponent)
        if abs(base) > 1 and exponent * math.log2(abs(base)) > MAX_INT_BITS:
            raise CalculationError(
                f"Result too large: {_short(base)}**{_short(exponent)} has more than "
                f"about {MAX_INT_BITS * 3 // 10} digits"
            )
        return base**exponent
    try:
        result = float(base) ** float(exponent)
    except OverflowError as exc:
        raise CalculationError(f"Result too large: {_short(base)}**{_short(exponent)} overflows") from exc
    except ZeroDivisionError as exc:
        raise CalculationError("Division by zero: 0 cannot be raised to a negative power") from exc
    if isinstance(result, complex):
        raise CalculationError(
            f"Math domain error: {_short(base)}**{_short(exponent)} is not a real number "
            "(negative base, fractional power)"
        )
    return result


def _multiply(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        raise CalculationError(_INT_TOO_LARGE)
    return a * b


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: _multiply,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}

_UNARY: dict[type[ast.unaryop], Callable[[Any], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


def _factorial(n: Number) -> int:
    if isinstance(n, float):
        if not n.is_integer():
            raise CalculationError(f"Math domain error: factorial needs a whole number, got {n}")
        n = int(n)
    if n < 0:
        raise CalculationError(f"Math domain error: factorial needs a non-negative number, got {n}")
    if n > MAX_FACTORIAL:
        raise CalculationError(f"Result too large: factorial is limited to arguments up to {MAX_FACTORIAL}")
    return math.factorial(n)


def _whole(name: str, args: tuple[Number, ...]) -> list[int]:
    """``args`` as whole numbers; a CalculationError naming ``name`` for any other."""
    whole = []
    for n in args:
        if isinstance(n, float) and not n.is_integer():
            raise CalculationError(f"Math domain error: {name} needs whole numbers, got {format_number(n)}")
        whole.append(int(n))
    return whole


def _gcd(*args: Number) -> int:
    return math.gcd(*_whole("gcd", args))


def _lcm(*args: Number) -> int:
    return math.lcm(*_whole("lcm", args))


def _counting(name: str, count: Callable[[int, int], int]) -> Callable[[Number, Number], int]:
    """``count`` (``math.comb``: the ways to choose k of n things, "5 choose 2" is 10; ``math.perm``: to
    arrange them in order, 20) of whole, non-negative numbers, n at most :data:`MAX_FACTORIAL`."""

    def counted(n: Number, k: Number) -> int:
        whole_n, whole_k = _whole(name, (n, k))
        if whole_n < 0 or whole_k < 0:
            raise CalculationError(f"Math domain error: {name} needs non-negative whole numbers")
        if whole_n > MAX_FACTORIAL:
            raise CalculationError(f"Result too large: {name} is limited to n up to {MAX_FACTORIAL}")
        return count(whole_n, whole_k)

    return counted


def _log(x: Number, base: Number | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


def _round(x: Number, ndigits: Number | None = None) -> Number:
    """``x`` rounded to ``ndigits`` decimal places (a whole number when omitted), halves away from zero
    as people round (2.5 → 3, 2.675 → 2.68: the decimal the float is written as, not its binary value)."""
    digits = 0 if ndigits is None else ndigits
    if isinstance(digits, float):
        if not digits.is_integer():
            raise CalculationError("round(x, n) needs a whole number of digits n")
        digits = int(digits)
    if abs(digits) > MAX_ROUND_DIGITS:
        raise CalculationError(f"round(x, n) accepts n between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}")
    if isinstance(x, float) and not math.isfinite(x):
        raise CalculationError("round() needs a finite number")
    if isinstance(x, int) and digits >= 0:
        return x
    with decimal.localcontext() as context:
        context.prec = 4000  # exact for every float and every integer the evaluator allows
        rounded = Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)
    return int(rounded) if ndigits is None or isinstance(x, int) else float(rounded)


def _min(*args: Number) -> Number:
    return min(args)  # min(5) works: one number is a valid call (the evaluator checks arity)


def _max(*args: Number) -> Number:
    return max(args)


# name -> (function, minimum args, maximum args or None for any number)
FUNCTIONS: dict[str, tuple[Callable[..., Number], int, int | None]] = {
    "sqrt": (math.sqrt, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "tan": (math.tan, 1, 1),
    "asin": (math.asin, 1, 1),
    "acos": (math.acos, 1, 1),
    "atan": (math.atan, 1, 1),
    "degrees": (math.degrees, 1, 1),
    "radians": (math.radians, 1, 1),
    "log": (_log, 1, 2),
    "ln": (math.log, 1, 1),
    "log10": (math.log10, 1, 1),
    "log2": (math.log2, 1, 1),
    "exp": (math.exp, 1, 1),
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "factorial": (_factorial, 1, 1),
    "comb": (_counting("comb", math.comb), 2, 2),
    "perm": (_counting("perm", math.perm), 2, 2),
    "gcd": (_gcd, 2, None),
    "lcm": (_lcm, 2, None),
    "min": (_min, 1, None),
    "max": (_max, 1, None),
    "pow": (_power, 2, 2),
}
"""Whitelisted functions: name → (callable, min args, max args)."""

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}
"""Whitelisted constants."""

_NODE_NAMES: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access is not allowed",
    ast.Lambda: "lambda functions are not allowed",
    ast.Subscript: "indexing and slicing are not allowed",
    ast.Compare: "comparisons are not supported",
    ast.BoolOp: "'and'/'or' are not supported",
    ast.IfExp: "conditional expressions are not supported",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "generator expressions are not allowed",
    ast.List: "lists are not allowed (pass several numbers to min/max instead)",
    ast.Tuple: "tuples are not allowed",
    ast.Set: "sets are not allowed",
    ast.Dict: "dictionaries are not allowed",
    ast.NamedExpr: "assignment is not allowed",
    ast.Starred: "star arguments are not allowed",
    ast.JoinedStr: "strings are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
}


_IMPLIED_PRODUCT_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?=\()|(\))\s*(?=[\d(])")
"""A product written without its sign, as on paper: a number or a bracket before a bracket ("2(3+4)",
"(1+2)(3+4)") or a bracket before a number ("(3+4)2"); not a function's name ending in a digit ("log10(")."""


def _normalize(expression: str) -> str:
    """Accept common notations: ``^`` for power, ``×``/``÷``, unicode minus, ``√``, and a product written
    without its sign ("2(3+4)")."""
    text = expression.strip()
    for old, new in (("^", "**"), ("×", "*"), ("·", "*"), ("÷", "/"), ("−", "-"), ("√", "sqrt"), ("π", "pi")):
        text = text.replace(old, new)
    return _IMPLIED_PRODUCT_RE.sub(lambda m: f"{m.group(1) or m.group(2)}*", text)


class _Evaluator:
    """Walks a parsed expression, allowing only whitelisted nodes."""

    def visit(self, node: ast.AST) -> Number:
        if isinstance(node, ast.Expression):
            return self.visit(node.body)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, int | float):
                kind = "complex numbers" if isinstance(value, complex) else f"{type(value).__name__} values"
                raise _unsupported(f"{kind} are not allowed")
            return _check_int(value)
        if isinstance(node, ast.BinOp):
            op = _BINARY.get(type(node.op))
            if op is None:
                raise _unsupported(f"the operator {type(node.op).__name__} is not supported")
            left, right = self.visit(node.left), self.visit(node.right)
            return _check_int(op(left, right))
        if isinstance(node, ast.UnaryOp):
            uop = _UNARY.get(type(node.op))
            if uop is None:
                raise _unsupported(f"the operator {type(node.op).__name__} is not supported")
            return uop(self.visit(node.operand))
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                raise _unsupported(f"{node.id} is a function; call it like {node.id}(...)")
            raise _unsupported(f"unknown name {node.id!r} (allowed: {', '.join([*CONSTANTS, *FUNCTIONS])})")
        if isinstance(node, ast.Call):
            return self._call(node)
        reason = _NODE_NAMES.get(type(node), f"{type(node).__name__} is not allowed")
        raise _unsupported(reason)

    def _call(self, node: ast.Call) -> Number:
        if not isinstance(node.func, ast.Name):
            if isinstance(node.func, ast.Attribute):
                raise _unsupported("attribute access is not allowed")
            raise _unsupported("only the whitelisted functions can be called")
        name = node.func.id
        if name not in FUNCTIONS:
            raise _unsupported(f"unknown function {name!r} (allowed: {', '.join(FUNCTIONS)})")
        if node.keywords:
            raise _unsupported("keyword arguments are not allowed")
        func, low, high = FUNCTIONS[name]
        if len(node.args) < low or (high is not None and len(node.args) > high):
            expected = str(low) if low == high else f"{low} or more" if high is None else f"{low} to {high}"
            raise CalculationError(f"{name}() takes {expected} argument(s), got {len(node.args)}")
        args = [self.visit(arg) for arg in node.args]
        return _check_int(func(*args))


_PERCENT_SIGN_RE = re.compile(r"\d%(?=\s*(?:[-+*/)]|$))")
"""A percent sign written on its number before an operator or the end ("15% + 86"): Python would read the
remainder 15 % +86 = 15."""


def evaluate(expression: str) -> Number:
    """Evaluate an arithmetic expression safely and return the number.

    Raises :class:`CalculationError` for anything outside the whitelist, malformed
    input, results that are too large and undefined operations (division by zero,
    sqrt of a negative number, ...).
    """
    if not isinstance(expression, str) or not expression.strip():
        raise _unreadable(f"Empty expression: {_HINT}")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CalculationError(
            f"Expression too long ({len(expression)} characters, max {MAX_EXPRESSION_LENGTH}); "
            "split it into steps"
        )
    text = _normalize(expression)
    if _PERCENT_SIGN_RE.search(text):
        raise _unreadable(
            f"{expression!r} writes a percent where a number is computed with: write it as arithmetic, e.g. "
            "86 * 1.15 to add 15% to 86 or 0.15 * 86 for 15% of it, or in words ('add 15% to 86'); % between "
            "two numbers is a remainder ('15 % 4')"
        )
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        malformed = _unreadable(f"Malformed expression {expression!r}: {exc.msg}; {_HINT}")
        malformed.malformed = True  # type: ignore[attr-defined]
        raise malformed from exc
    except (RecursionError, MemoryError, ValueError) as exc:
        raise _unreadable(f"Expression too complex or malformed; {_HINT}") from exc
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculationError(f"Expression too complex (more than {MAX_NODES} parts); split it into steps")
    try:
        result = _Evaluator().visit(tree)
    except CalculationError:
        raise
    except ZeroDivisionError as exc:
        raise CalculationError("Division by zero") from exc
    except OverflowError as exc:
        raise CalculationError("Result too large to represent") from exc
    except RecursionError as exc:
        raise CalculationError("Expression nested too deeply; split it into steps") from exc
    except (ValueError, TypeError) as exc:
        detail = str(exc)
        if detail == "math domain error":
            detail = "a function is undefined for that input (e.g. sqrt or log of a negative number)"
        raise CalculationError(f"Math domain error: {detail}") from exc
    if isinstance(result, float) and not math.isfinite(result):
        raise CalculationError("Result too large to represent (or undefined)")
    return result


def format_number(value: Number) -> str:
    """Render a number for people: integers without ``.0``, floats to 12 significant digits."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.12g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        return f"{mantissa}e{int(exp)}"
    return text


_MONEY_RE = re.compile(r"[$€£¥]|\b(?:dollars?|bucks|euros?|usd|eur|gbp)\b", re.IGNORECASE)
_SIGNS = {"dollar": "$", "buck": "$", "usd": "$", "euro": "€", "eur": "€", "gbp": "£"}


_PERCENTAGE_RE = re.compile(r"\*\s*100\s*\)*\s*$")
"""An expression working out a percentage ("(10 / 75 * 100)"): its value is no amount of money."""


_COUNT_ASKED_RE = re.compile(
    r"\bhow many\b|\b(?:number|count) of\b|[$€£]\s?\d[\d,.]*\s+(?:bills|notes|coins|stamps)\b",
    re.IGNORECASE,
)
"""A question counting things that cost money ("How many $5 bills make $100?"): its whole result is no
amount."""


def _in_money(question: str, value: Number, translated: str = "") -> str:
    """An amount of money after a result of a question about money: in cents when it is not a whole number
    (`` ($9.10)`` for 9.1, `` (about $39.68)`` for 39.675), a whole number unless the question counts things
    (`` ($60)`` for "What was the original price?"; "How many $5 bills make $100?" counts bills); "" for a
    percentage ("What percent of $75 is $10?") and a question not about money."""
    money = _MONEY_RE.search(question)
    if money is None or not math.isfinite(value) or _PERCENTAGE_RE.search(translated):
        return ""
    word = money.group(0).lower().rstrip("s")
    sign = _SIGNS.get(word, money.group(0))
    if isinstance(value, int) or value.is_integer():
        if _COUNT_ASKED_RE.search(question):
            return ""
        return f" ({'-' if value < 0 else ''}{sign}{abs(int(value)):,})"
    cents = Decimal(format_number(abs(value))).quantize(Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
    exact = len(format_number(value).partition(".")[2]) <= 2  # 0.28, not 0.27999999999999997
    return f" ({'' if exact else 'about '}{'-' if value < 0 else ''}{sign}{cents:,})"


_CENTS_RE = re.compile(r"\d\s*(?:cents?|¢)(?![a-z])|\d\s*c\b(?=\s+(?:each|a|per|an?)\b)", re.IGNORECASE)
_WHOLE_MONEY_RE = re.compile(r"[$€£]|\b(?:dollars?|euros?|pounds?|bucks?)\b", re.IGNORECASE)


def _in_cents(question: str, value: Number) -> str:
    """`` cents (9.00 dollars)`` after a result worked out from prices in cents only ("36 eggs at 25 cents
    each" is 900 cents, not 900 dollars); "" otherwise."""
    if not _CENTS_RE.search(question) or _WHOLE_MONEY_RE.search(question) or not math.isfinite(value):
        return ""
    unit = "euros" if re.search(r"\beuro", question, re.IGNORECASE) else "dollars"
    whole = Decimal(format_number(value)) / 100
    return f" cents ({whole.quantize(Decimal('0.01'), rounding=decimal.ROUND_HALF_UP):,} {unit})"


_FRACTION_AMOUNT_RE = re.compile(r"^\((\d+) / (\d+)\)(?= )")
"""An amount of a conversion that is a fraction, as the reader wrote it ("(3 / 4) cup")."""


def _converted(amount: str, unit: str, expression: str, value: Number) -> str:
    """A unit conversion's result as people say it, two decimals at most ("26.2 miles = 42.16 km"),
    then the exact value it was rounded from."""
    amount = _FRACTION_AMOUNT_RE.sub(r"\1/\2", amount)  # "(3 / 4) cup" as written: "3/4 cup"
    shown = round(value, 2) if abs(value) >= 1 else float(f"{value:.3g}")
    exact = format_number(value)
    if format_number(shown) == exact:
        return f"{amount} = {exact} {unit} (read as {expression})"
    return f"{amount} = {format_number(shown)} {unit} (exactly {expression} = {exact})"


_TWO_UNITS: dict[str, tuple[str, str, str, int]] = {
    "ft": ("ft", "in", "feet", 12),
    "lb": ("lb", "oz", "pounds", 16),
    "st": ("st", "lb", "stone", 14),
    "h": ("h", "min", "hours", 60),
    "min": ("min", "s", "minutes", 60),
}
"""A larger unit → (its symbol, the smaller one's, the larger one's name, how many smaller make it)."""
_SMALLER_NAMES = {"in": "inches", "oz": "ounces", "lb": "pounds", "min": "minutes", "s": "seconds"}
"""The name of each smaller unit of :data:`_TWO_UNITS`."""
_UNIT_SYMBOLS = {
    "feet": "ft", "foot": "ft", "ft": "ft", "inches": "in", "inch": "in", "in": "in",
    "pounds": "lb", "pound": "lb", "lbs": "lb", "lb": "lb", "ounces": "oz", "ounce": "oz", "oz": "oz",
    "stone": "st", "st": "st", "hours": "h", "hour": "h", "hrs": "h", "hr": "h", "h": "h",
    "minutes": "min", "minute": "min", "mins": "min", "min": "min", "seconds": "s", "second": "s",
    "secs": "s", "sec": "s", "s": "s",
}  # fmt: skip
_TWO_UNITS_RE = re.compile(
    r"\s+(?:in|to|into|as)\s+(?P<big>[a-z]+)\s*(?:and|&|\+|,)\s*(?P<small>[a-z]+)\s*[?.!]*$", re.IGNORECASE
)


def _in_two_units(expression: str) -> str | None:
    """A conversion asked in a larger and a smaller unit ("1.75 m in feet and inches" → "1.75 m = 5 ft 8.9
    in"), worked out in the larger one and split; None for any other question."""
    match = _TWO_UNITS_RE.search(expression)
    if match is None:
        return None
    big, small = (_UNIT_SYMBOLS.get(match.group(k).lower()) for k in ("big", "small"))
    pair = _TWO_UNITS.get(big or "")
    if pair is None or pair[1] != small:
        return None
    conversion = conversion_in(f"{expression[: match.start()]} in {pair[2]}")
    per_larger = pair[3]
    if conversion is None:  # given in the larger unit ("3.75 hours in hours and minutes"): in the smaller one
        conversion = conversion_in(f"{expression[: match.start()]} in {_SMALLER_NAMES[pair[1]]}")
        per_larger = 1
    if conversion is None:
        return None
    total = evaluate(conversion.expression) * per_larger  # in the smaller unit
    whole = int(abs(total) // pair[3])
    rest = round(abs(total) - whole * pair[3], 1)
    if rest >= pair[3]:  # 11.96 in rounds to 12.0: one more foot
        whole, rest = whole + 1, 0.0
    sign = "-" if total < 0 else ""
    shown = f"{sign}{whole} {pair[0]} {format_number(rest)} {pair[1]}"
    times = f" * {per_larger}" if per_larger != 1 else ""
    worked = f"{conversion.expression}{times} = {format_number(total)} {pair[1]}"
    return f"{conversion.amount} = {shown} (exactly {worked})"


def _numbers(values: list[float], what: str) -> list[float]:
    if not values:
        raise CalculationError(f"{what} needs at least one number")
    if len(values) > MAX_LIST_LENGTH:
        raise CalculationError(f"{what} accepts at most {MAX_LIST_LENGTH} numbers")
    if any(not math.isfinite(v) for v in values):
        raise CalculationError(f"{what} needs finite numbers")
    return values


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise CalculationError("Result too large to represent (or not a number); use smaller, finite numbers")
    return value


_CALCULATE_READS = """\
Evaluate an arithmetic expression and return the exact result.

Supports + - * / // % (mod, modulo) ** (or ^), parentheses, and sqrt, sin, cos, tan, asin, acos,
atan, degrees, radians, log (natural, or log(x, base)), ln, log10, log2, exp, abs,
round, floor, ceil, factorial, comb (choose), perm, gcd, lcm, min, max, pow and the constants pi, e, tau.
Trigonometric functions use radians, unless an angle is said in deg ("sin of 30 deg"). Example:
"sqrt(2) * (15 + 23) / 4".
Arithmetic in words also works: plus, minus, multiplied by, divided by, add, subtract, take away, multiply,
divide, double, twice, triple, half, halve, reciprocal, log base 2 of 64, "the log of 100" (base 10, as on a
calculator; "the natural log of 10" is ln), fractions of a value ("two thirds
of 60", "3/4 of 200"), a
decimal or a percentage as a fraction in lowest terms ("0.75 as a fraction": 3/4), whether a number is
even or odd, prime and its prime factors ("is 91 a prime number?", "prime factors of 360"), the next
prime after it and the primes of a range ("primes between 10 and 30"), whether it is a perfect square or
cube, a division with its remainder, how many zeros a number has ("one billion"), a percent or a fraction
as a decimal ("45% as a decimal"), whether it is divisible by another, the greatest common divisor (gcd)
and least common multiple (lcm), which of two amounts is larger,
a linear equation in one unknown ("solve 2x + 3 = 11 for x"), a rate per another
unit ("$52,000 a year: how much per month?"),
sums, products, differences, quotients and remainders, a value increased or decreased (reduced) by a
percent ("increase 80 by 10%"), less than, more than, squared, cubed, powers ("to the third power"),
square roots, percent of, percent change, increase or decrease ("from 80 to 60, by what percent":
signed, -25 is a decrease), factorials ("5!"), rounding ("round 83.333 to 2 decimal places", "...,
then round it") and numbers written in words ("2 to the power of 10", "the square root of 144", "add 7
and 8 then subtract 3", "half of ninety"), and a few forms of word problem of one operation: an amount
each or per unit ("3 boxes with 12 eggs each", "5 tickets at $8 each", "60 km per hour for 3 hours",
"a ticket costs $8: what do 5 tickets cost?"), a share ("24 cookies shared equally among 6"), what is
left ("had 90 sheep, 23 ran away") or a total ("14 stickers, then 9 more"), and unit conversions of
durations (seconds, minutes, hours, days, weeks; months, years), lengths (mm, cm, metres or meters,
km, inches, feet, yards, miles), masses (grams, kilograms, kg, pounds, ounces, stone, tonnes), volumes
(millilitres, litres or liters, US gallons, quarts, pints, cups, fluid ounces, tablespoons,
teaspoons), areas (square metres or feet, acres, hectares), speeds (km/h, mph, m/s, knots) and
temperatures (Celsius, Fahrenheit, Kelvin): "how many seconds in an hour", "convert 5 km to meters",
"72°F in Celsius", "5 ft 9 in to cm" (the result gives both quantities with their units, two decimals,
then the exact value). Also whole questions: a price with a percent off, a discount, a tip, a tax or
VAT ("25% off $40", "$60 plus 8% tax", "split an $84 bill 4 ways with a 15% tip"; "how much is the
tip?" gives the tip), percents in turn ("$120 with 30% off, then 8% tax"), amounts spent from one
("had $500, spent $137.25 and $89.99: how much is left?"), things at a price each ("4 notebooks at
$3.75 each and a pen for $2.40: total?"), a price per unit ("a 750 g box costs $4.50: price per 100
g?"), a bill and a fixed tip shared ("5 of us split a $212.50 fare plus a $15 tip"), an amount per
hour, day, week, month or year over a span in another unit ("save $150 a month: how much after 2
years?"), the area, perimeter or circumference, and volume of a circle, square, rectangle, triangle,
cube or sphere ("the area of a circle with radius 3"), a right triangle's hypotenuse ("legs 3 and
4"), a bill shared ("a $96.30 bill and 3 of us: how much each?"), a recipe scaled ("250 ml of milk
for 4 people: how much for 6?"), fuel for a trip ("520 km at 5.8 L per 100 km"), a speed or a rate in
the unit asked ("42 km in 1 hour 45 minutes: km/h?"), a price per night plus a fee ("$185 a night for 4
nights plus a $60 fee"), a value "as a decimal", and the arithmetic of a question that also asks
something else. Also: a percent added to or taken from a value ("add 15% to 86", "subtract 5% from 200"),
pay with a percent deducted ("22% goes to tax: take-home pay?"), a tank's volume in litres ("60 cm by 30 cm
by 40 cm"; cubic metres, cubic feet, cm3), a price per kg ("3 kg at $1.40 a kg"), friends chipping in for
a gift, a score "27 right out of 30" as a percentage, the duration of a trip at a speed or a pace ("45 km at
18 km/h", "5.5 min per km"), a price for another amount ("a 2 litre bottle costs $3.60: a 250 ml glass?"),
a rental per day plus per km, a ladder against a wall, "half a pound" in grams, and the edging around a
round pond 3 m across; a result in two units ("1.6 m in feet and inches", "kg in stone and pounds", "in
hours and minutes"); a rate in the unit asked ("3 cm per minute: how many metres in 2 hours?"), pay per hour
for hours added ("$19 an hour, 6 hours plus 5"), a result split ("1850 minus 40%, split between 2"), the rest
shared ("I pay 40%, 2 flatmates split the rest"), what percentage survived or is left, a monthly fee plus a
one-off fee for a year, cooking minutes per 500 g, prices up 4% on a weekly spend, a wall's area or a
screen's diagonal by width and height, a triangular sail's area, savings plus $60 a week,
a nightly rate plus a tax per person per night, what percentage of an hour 45 minutes is, 1.5 parts water
per part rice, half a percent of 30,000, a cone's volume, a download of 4.5 GB at 15 MB/s (decimal: 1 GB =
1000 MB), and hours until a battery dropping 8% an hour reaches 20%. The
result then shows the expression it was read as (and an amount of money in cents). Words that name
no known operation are an error, never ignored.
"""
"""The phrasings the calculator reads (its routing text, :func:`cadence.sdk.route_text`): the embedded model
chooses the math agent's tool by these words, hosted models get the short docstring. It avoids "time" and
"times" (both stem to "tim"): the clock part of "What's 15% of 96 and the time in Oslo?" would fit it."""


@inline
@route_text(_CALCULATE_READS)
@tool
def calculate(expression: str) -> str:
    """Evaluate arithmetic and return the exact result.

    Takes an expression (+ - * / // % ** or ^, parentheses; sqrt, log(x, base), log10, exp, sin, cos,
    tan in radians, factorial, round, abs, min, max, gcd, lcm; pi, e) or the same in plain words, a unit
    conversion ("72°F in Celsius", "5 ft 9 in to cm") or a one-step word problem ("$120 with 30% off,
    then 8% tax", "split $84 4 ways with a 15% tip"), or a linear equation in one unknown ("solve
    2x + 3 = 11"). The result shows the expression it was read as; words naming no known operation are an
    error, never ignored. Several calculations joined by "and" ("15% of 80 and 20% of 60") are each worked
    out, one result per line.
    """
    if isinstance(expression, str):
        expression = without_pictographs(expression)  # "what's 2+2 😀": the emoji says nothing to work out
    try:
        return _calculate_one(expression)
    except CalculationError as exc:
        several = _each_calculation(expression)
        if several is not None:
            return several
        undefined = _UNDEFINED_RE.match(str(exc))
        if undefined is None:
            raise
        # "What is 1/0?", "the square root of -4": the answer is that it has none, not a failure to rephrase
        read = undefined.group("read") or (expression.strip() if isinstance(expression, str) else "")
        if undefined.group("zero"):
            return f"{read} is undefined: a number cannot be divided by zero."
        return _out_of_domain(read)


_ONE_CALL_RE = re.compile(
    r"^(?P<name>sqrt|log|ln|log10|log2)\((?P<x>-?\d+(?:\.\d+)?)(?:,\s*\d+(?:\.\d+)?)?\)$"
)
"""One square root or logarithm of a number, as the evaluator read it ("sqrt(-4)", "log10(0)")."""


def _out_of_domain(read: str) -> str:
    """The sentence saying that ``read`` (arithmetic out of a function's domain) has no real value: the
    square root of a negative number with its value in complex numbers ("The square root of -4 is not a real
    number ...: in complex numbers it is 2i."), the logarithm of a number not above zero."""
    call = _ONE_CALL_RE.match(read.strip())
    if call is not None and call.group("name") == "sqrt":
        x = call.group("x")
        root = math.sqrt(abs(float(x)))
        value = format_number(int(root) if root == int(root) else round(root, 4))
        about = "" if root == int(root) else "about "
        return (
            f"The square root of {x} is not a real number (no real number squared is negative); in complex "
            f"numbers it is {about}{'' if value == '1' else value}i."
        )
    if call is not None:
        return (
            f"The logarithm of {call.group('x')} has no value: logarithms are defined for numbers above zero "
            "only."
        )
    return (
        f"The value of {read} is not a real number: that input is outside the function's domain (as for the "
        "square root of a negative number, or the logarithm of zero)."
    )


_UNDEFINED_RE = re.compile(
    r"^(?:(?P<zero>Division by zero)|Math domain error: a function is undefined for that input \(e\.g\. sqrt "
    r"or log of a negative number\))(?: \(read .* as (?P<read>.+)\))?$",
    re.DOTALL,
)
"""The evaluator's error for a division by zero or a square root or logarithm out of its domain, with the
arithmetic a question was read as."""


_SEVERAL_RE = re.compile(r"\s*(?:,\s*and|,|\band\b|;)\s*", re.IGNORECASE)
"""Where calculations asked together are joined ("15% of 80 and 20% of 60")."""
MAX_CALCULATIONS = 4
"""Most calculations read from one text."""
_CALCULATION_TEXT = """squared cubed square cube root roots plus minus times multiplied divided by over
    of sqrt factorial half double twice triple power to the sum product difference quotient mod modulo
    remainder log ln sin cos tan gcd lcm subtract multiply divide"""
_CALCULATION_WORDS = frozenset(_CALCULATION_TEXT.split())
"""Words a bare calculation is made of ("12 squared", "20% of 60"): a part with other words (things, units,
people) belongs to a word problem, which is not cut into calculations."""


def _each_calculation(expression: str) -> str | None:
    """Each of the calculations a text joins with "and" or commas, one result per line, when every part is
    one the calculator reads and holds a number; None otherwise (the whole text's error stands)."""
    if not isinstance(expression, str):
        return None
    parts = [p.strip(" ?.!") for p in _SEVERAL_RE.split(expression) if p.strip(" ?.!")]
    if not 2 <= len(parts) <= MAX_CALCULATIONS or not all(re.search(r"\d", p) for p in parts):
        return None
    lead = re.match(r"^\s*(?:what(?:'s| is| are)|calculate|compute|work out)\s+", parts[0], re.IGNORECASE)
    if any({w.lower() for w in unread_words(part)} - _CALCULATION_WORDS for part in parts):
        return None  # "3 boxes with 12 eggs each and 2 boxes with 6 eggs each": one word problem
    results = []
    for part in parts:
        text = part if lead is None or part is parts[0] else lead.group(0) + part
        try:
            results.append(_calculate_one(text))
        except CalculationError:
            return None
    return "\n".join(results)


def _calculate_one(expression: str) -> str:
    """:func:`calculate` of one calculation."""
    two = _in_two_units(expression) if isinstance(expression, str) else None
    if two is not None:
        return two
    timed = _on_the_clock(expression) if isinstance(expression, str) else None
    if timed is not None:
        return timed
    fraction = (
        (_as_fraction(expression) or _with_fractions(expression)) if isinstance(expression, str) else None
    )
    if fraction is not None:
        return fraction
    primes = _about_primes(expression) if isinstance(expression, str) else None
    if primes is not None:
        return primes
    fact = number_facts.answer(expression)
    if fact is None and isinstance(expression, str):
        fact = constants.answer(expression, evaluate)  # "the boiling point of water in Fahrenheit"
    if fact is not None:
        return fact
    parity = _about_parity(expression) if isinstance(expression, str) else None
    if parity is not None:
        return parity
    lasting = _durations(expression) if isinstance(expression, str) else None
    if lasting is not None:
        return lasting
    solved = (
        solve_equation(expression) or two_numbers_from_sum_and_difference(expression)
        if isinstance(expression, str)
        else None
    )
    if solved is not None:
        return solved
    divisible = _about_divisibility(expression) if isinstance(expression, str) else None
    if divisible is not None:
        return divisible
    compared = (
        (
            units_compared(expression)
            or _compared(expression)
            or _cheaper_deal(expression)
            or _ratio(expression)
        )
        if isinstance(expression, str)
        else None
    )
    if compared is not None:
        return compared
    at_rate = _at_rate_given(expression) if isinstance(expression, str) else None
    if at_rate is not None:
        return at_rate
    if isinstance(expression, str) and _CURRENCY_CONVERSION_RE.search(expression):
        raise CalculationError(
            "Converting between currencies needs an exchange rate, which changes daily and is not known "
            "offline; give the rate, e.g. '100 * 0.92' for 100 dollars at 0.92 euros per dollar"
        )
    try:
        result = evaluate(expression)
    except CalculationError as exc:
        short = isinstance(expression, str) and len(expression) <= 200
        asked = _UNIT_CONVERSION_ASKED_RE.match(expression) if short else None
        respelled = units_spelling_fixed(expression) if asked is not None else expression
        if respelled != expression and conversion_in(respelled) is not None:
            # "convert 10 kilometres to miels": the units it misspells
            return _calculate_one(respelled)
        if asked is not None and conversion_in(expression) is None:
            # "Convert 5 parsecs to light years": a unit the calculator does not know, said (not read as
            # no arithmetic at all, which no agent takes: the small model had made up an answer)
            raise CalculationError(
                f"Cannot convert {asked.group('unit')} to {asked.group('to').strip()}: one of them is no "
                f"unit the calculator converts; it converts {UNITS_CONVERTED}"
            ) from None
        translated = to_expression(expression) if isinstance(expression, str) else ""
        if not translated or translated == expression.strip():
            if getattr(exc, "unreadable", False) and isinstance(expression, str):
                raise _not_arithmetic(expression, exc) from None
            raise
        try:
            result = evaluate(translated)
        except CalculationError as error:
            unit = trailing_unit(translated) if getattr(error, "unreadable", False) else None
            if unit is not None:
                # "25% of 80 cents": the amount's unit is the result's ("(25 / 100) * 80 = 20 cents"); "30% of
                # $5,000 a month": a rate, of money when the question says so ("= 1500 a month ($1,500)")
                with contextlib.suppress(CalculationError):
                    value = evaluate(unit[0])
                    if unit[1].lower() in _RATE_PERIODS:
                        money = _in_money(expression, value, unit[0])
                        return f"{unit[0]} = {format_number(value)} a {unit[1]}{money}"
                    return f"{unit[0]} = {format_number(value)} {unit[1]}"
            counted = _COUNT_OF_THINGS_RE.match(translated)
            body = question_body(expression)
            if counted is not None and numbers_from_words(body) != body:
                # "How much is 3 dozen eggs?": a number said in words, of things ("3 dozen eggs = 36 eggs")
                return f"{body} = {counted.group('n')} {counted.group('things')}"
            if getattr(error, "unreadable", False):
                raise _not_arithmetic(expression, exc) from None
            raise CalculationError(f"{error} (read {expression!r} as {translated})") from None
        words = [] if has_operation(translated) else unread_words(expression)
        if words:
            raise _no_arithmetic(
                f"Operation not understood in {expression!r}: only the number {translated} was read, and "
                f"the words {' '.join(words)!r} name no operation this calculator knows; write the "
                "operation with symbols or functions, e.g. sqrt(225), factorial(5), 3 * 19.99"
            ) from None
        logger.debug("calculated %r as %r", expression, translated)
        share = _share_left(expression, translated, result) or _shared_things(expression, translated, result)
        if share is not None:
            return share
        conversion = conversion_in(expression) or rate_in(expression)
        if conversion is not None and conversion.expression == translated:
            impossible = _below_absolute_zero(conversion.amount)
            if impossible is not None:
                raise CalculationError(impossible) from None
            return _converted(conversion.amount, conversion.unit, translated, result)
        said = read_with_unit(expression) if isinstance(expression, str) else None
        if said is not None and said[0] == translated:  # "2 cups of flour for 12 cookies: for 30?": in cups
            return f"{translated} = {format_number(result)} {said[1]}"
        measured = shape_unit(expression) if isinstance(expression, str) else None
        if measured is not None:  # "A rectangle is 8 m long and 5 m wide. What is its area?": in m²
            return f"{translated} = {format_number(result)} {measured}"
        mixed = sorted(shape_size_units(expression)) if isinstance(expression, str) else []
        if len(mixed) > 1 and shape_quantity_asked(expression) is not None:
            raise CalculationError(
                f"The shape's sizes are in different units ({', '.join(mixed)}); write them in one unit, "
                "e.g. 'a rectangle 4 m by 0.6 m'"
            ) from None
        if _WHAT_FRACTION_RE.search(expression) and isinstance(result, float) and result != int(result):
            # "What fraction are girls?": said as a fraction in lowest terms, its value beside it
            shown = Fraction(result).limit_denominator(1000)
            return f"{translated} = {shown.numerator}/{shown.denominator} ({format_number(result)})"
        money = _in_money(expression, result, translated) + _in_cents(expression, result)
        body = question_body(expression)
        if not has_operation(translated) and numbers_from_words(body) != body:
            return f"{body} = {format_number(result)}{money}"  # "How much is 4 dozen?": "4 dozen = 48"
        other = None if money else _with_other_reading(translated, result)  # "What is log(1000)?"
        return other or f"{translated} = {format_number(result)}{money}"
    logger.debug("calculated %r", expression)
    return _with_other_reading(expression, result) or format_number(result)


_ONE_ARGUMENT_LOG_RE = re.compile(r"(?<![\w.])log\((?P<x>[^(),]+)\)")
"""``log(x)`` with one argument: the natural logarithm here, base 10 on many pocket calculators."""
_TRIG_OF_DEGREES_RE = re.compile(r"(?<![\w.])(?P<f>sin|cos|tan)\((?P<x>\d+)\)")
"""A sine, cosine or tangent of a whole number that reads like degrees ("sin(30)"): radians here."""


def _with_other_reading(expression: str, result: Number) -> str | None:
    """A result written as arithmetic that another convention reads otherwise, with that reading beside it:
    ``log(100) = 4.60517018599 (the natural logarithm; in base 10, log10(100) = 2)``, ``sin(30) =
    -0.988031624093 (30 in radians; in degrees, sin(30°) = 0.5)``; None for any other."""
    text = expression.strip()
    logs = _ONE_ARGUMENT_LOG_RE.findall(text)
    angles = [
        m for m in _TRIG_OF_DEGREES_RE.finditer(text) if int(m.group("x")) % 15 == 0 and m.group("x") != "0"
    ]
    try:
        if len(logs) == 1 and "log10" not in text:
            other = _ONE_ARGUMENT_LOG_RE.sub(lambda m: f"log10({m.group('x')})", text)
            shown = format_number(evaluate(other))
            note = f"the natural logarithm; in base 10, {other} = {shown}"
        elif len(angles) == 1 and len(_TRIG_OF_DEGREES_RE.findall(text)) == 1:
            angle = angles[0]
            degrees = f"{angle.group('f')}(radians({angle.group('x')}))"
            other = text[: angle.start()] + degrees + text[angle.end() :]
            value = evaluate(other)
            shown = format_number(round(value, 12) + 0.0)
            said = text[: angle.start()] + f"{angle.group('f')}({angle.group('x')}°)" + text[angle.end() :]
            note = f"{angle.group('x')} in radians; in degrees, {said} = {shown}"
        else:
            return None
    except CalculationError:
        return None
    return f"{text} = {format_number(result)} ({note})"


_RATE_PERIODS = frozenset({"hour", "day", "night", "week", "month", "year"})
"""Units of time an amount is said "a" of ("$5,000 a month"): a rate, not a unit of the amount."""
_WHAT_FRACTION_RE = re.compile(r"\b(?:what|which)\s+(?:fraction|part)\b|\bas\s+a\s+fraction\b", re.IGNORECASE)
"""A share asked as a fraction ("What fraction are girls?")."""
_COUNT_OF_THINGS_RE = re.compile(r"^(?P<n>\d+)\s+(?P<things>[a-z]+(?:\s+[a-z]+)?)$", re.IGNORECASE)
"""A whole number of things, the number read from words ("3 dozen eggs" read as "36 eggs")."""


_ABSOLUTE_ZERO = {"K": 0.0, "°C": -273.15, "°F": -459.67}
"""Absolute zero on each temperature scale, by the label a conversion writes its amount with."""


def _below_absolute_zero(amount: str) -> str | None:
    """An error message when a temperature read for conversion ("-500 K") is below absolute zero, else
    None (no temperature is that low: a typo or a wrong scale)."""
    number, _, label = amount.partition(" ")
    floor = _ABSOLUTE_ZERO.get(label)
    try:
        value = float(number)
    except ValueError:
        return None
    if floor is None or value >= floor:
        return None
    return (
        f"{amount} is below absolute zero (0 K = -273.15 °C = -459.67 °F), and no temperature is that low; "
        "check the number or the scale"
    )


@inline
@tool
def percentage(part: float, whole: float) -> str:
    """What percentage ``part`` is of ``whole`` (e.g. 30 of 120 → 25%)."""
    if whole == 0:
        raise CalculationError("Division by zero: the whole must not be 0")
    value = _finite(part / whole * 100)
    return f"{format_number(part)} is {format_number(value)}% of {format_number(whole)}"


@inline
@tool
def percent_of(percent: float, value: float) -> str:
    """``percent`` percent of ``value`` (e.g. 15% of 80 → 12)."""
    result = _finite(percent / 100 * value)
    return f"{format_number(percent)}% of {format_number(value)} is {format_number(result)}"


@inline
@tool
def percent_change(old: float, new: float) -> str:
    """The percentage increase or decrease from ``old`` to ``new`` (e.g. 50 → 75 is +50%)."""
    if old == 0:
        raise CalculationError("Percent change from 0 is undefined; give a non-zero starting value")
    change = _finite((new - old) / abs(old) * 100)
    direction = "an increase" if change > 0 else "a decrease" if change < 0 else "no change"
    amount = "" if change == 0 else f" of {format_number(abs(change))}%"
    return f"From {format_number(old)} to {format_number(new)} is {direction}{amount}"


@route_text(
    "Summary statistics of a list of numbers: count, sum, total, mean, average, median, middle value, mode, "
    "most common, min, minimum, lowest, smallest, max, maximum, highest, largest, biggest, range, spread, "
    "standard deviation, variance."
)
@tool
def statistics(numbers: list[float]) -> str:
    """Summary statistics of a list of numbers: count, sum, mean (average), median, mode, min, max,
    range, standard deviation."""
    values = _numbers(list(numbers), "statistics")
    try:
        figures = [
            ("sum", math.fsum(values)),
            ("mean", _stats.fmean(values)),
            ("median", _stats.median(values)),
        ]
        modes = _stats.multimode(values)
        if len(modes) == 1 and values.count(modes[0]) > 1:  # a value more common than all others
            figures.append(("mode", modes[0]))
        figures += [("min", min(values)), ("max", max(values)), ("range", max(values) - min(values))]
        if len(values) > 1:
            figures.append(("sample standard deviation", _stats.stdev(values)))
            figures.append(("population standard deviation", _stats.pstdev(values)))
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise CalculationError(
            "The numbers are too large to summarise (a sum or spread overflows); scale them down first"
        ) from exc
    if any(not math.isfinite(value) for _, value in figures):
        raise CalculationError(
            "The numbers are too large to summarise (a sum or spread overflows); scale them down first"
        )
    return "; ".join([f"count: {len(values)}", *(f"{name}: {format_number(v)}" for name, v in figures)])


_THINGS_COUNTED_RE = re.compile(r"\bhow\s+many\s+(?P<what>[a-z]+)\b", re.IGNORECASE)
"""Things a question counts ("How many pages ...")."""
_TIME_WORDS = frozenset(
    {
        "seconds", "minutes", "hours", "days", "weeks", "months", "years", "nights", "weekdays", "weekends",
        "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays", "times",
    }
)  # fmt: skip
"""Counts of time (the calendar's and the clock's to work out) and "how many times"."""
_WORKED_RE = re.compile(r"^\(?[^=]*[-+*/][^=]*= -?\d")
"""A calculator result worked out with an operation ("(15 * 2 * 7) = 210")."""
_MONEY_RESULT_RE = re.compile(r"\((?:about )?-?[$€£¥][\d,.]+\)$")
"""A result said as an amount of money ("= 8 ($8)")."""
_MATH_FUNCTION_RESULT_RE = re.compile(
    r"^(?:sqrt|sin|cos|tan|asin|acos|atan|degrees|radians|log|ln|log10|log2|exp|factorial|gcd|lcm)\("
    r"|^The (?:square root|logarithm) of -?\d"
)
"""A result worked out by a function of mathematics alone ("log(64, 2) = 6", "factorial(5) = 120"), or out
of its domain ("The logarithm of 0 has no value: ...")."""
_UNIT_RESULT_RE = re.compile(r"^\([^=]*\) = -?[\d,.]+ (?P<unit>[^\W\d_][^()=]*)$")
"""A quantity worked out in the unit the question gives ("(200 * 6 / 4) = 300 g", "(8 * 5) = 40 m²")."""


def reads_arithmetic(text: str) -> bool:
    """The calculator's reader (:func:`cadence.sdk.reads`): whether ``text`` is arithmetic it reads, rightly
    or with an error about the arithmetic itself (``5 / 0`` is read); not a text of words naming no
    operation ("Who won the world cup in 2018?"), nor one that only names a number ("What is 1990?": the
    calculator would give the number back); a unit conversion or a number fact it works out is surely its
    own (:data:`cadence.sdk.SURELY`: "How many ml in a teaspoon?" shares no word with any agent, "How do you
    spell 42?" is no word to spell). Runs the
    calculator: bounded, free of side effects."""
    try:
        result = calculate.func(text)  # type: ignore[misc]
    except CalculationError as exc:
        return not getattr(exc, "no_arithmetic", False)
    except Exception:  # any other failure is the calculator's to report, not a reason to skip it
        return True
    if has_operation(_WRITTEN_AROUND_RE.sub("", text)):
        # arithmetic written out, maybe asked ("cos(pi)", "abs(-5)", "What is 12÷4?"): no word of it need be
        # any agent's ("log" is the docs' word too, "cos" nobody's)
        return SURELY  # type: ignore[return-value]
    if (
        conversion_in(text) is not None
        or result in (number_facts.answer(text), constants.answer(text, evaluate))
        or _UNIT_RESULT_RE.match(result) is not None
        or _MATH_FUNCTION_RESULT_RE.match(result) is not None
    ):
        # "How many ml in a teaspoon?": a unit conversion worked out; "How do you spell 42?": a number fact;
        # "The recipe serves 4 ...: how much sugar for 6 people?": a quantity scaled ("serves" is the
        # docs' word too); "What is log base 2 of 64?": a function of mathematics ("log" is the docs' too)
        return SURELY  # type: ignore[return-value]
    counted = _THINGS_COUNTED_RE.search(text)
    things = counted is not None and counted.group("what").lower() not in _TIME_WORDS
    if _WORKED_RE.match(result) and (things or _MONEY_RESULT_RE.search(result) or gives_a_rate_of_time(text)):
        # "Tom reads 15 pages a day. How many pages in 2 weeks?": things worked out, not days counted;
        # "pens at 3 for $2: how much do 12 pens cost?": a price worked out; "I sleep 8 hours a night. How
        # many hours in a year?": a rate over a time (the clock had read "8 hours from now")
        return SURELY  # type: ignore[return-value]
    if result.startswith("The numbers are "):  # "The sum of two numbers is 20 and their difference is 4"
        return SURELY  # type: ignore[return-value]
    written = _NUMBER_RE.findall(numbers_from_words(text))
    digits = _NUMBER_RE.findall(text)  # "3 dozen" is 36 in words: an operation, not a number given back
    given_back = set(str(result).replace(" ", "").split("=")) == set(written)
    return not (len(written) == 1 and given_back and set(digits) <= set(written))


_WRITTEN_AROUND_RE = re.compile(
    r"^\W*(?:(?:what(?:'s| is)|calculate|compute|evaluate|work out|solve)\s+)?|\s*=?\s*\??\s*$", re.IGNORECASE
)
"""The words around arithmetic written out ("What is 12÷4?", "15 + 27 =")."""
_NUMBER_RE = re.compile(r"(?<!\d)\d+(?:[.,]\d+)?(?!\d|st\b|nd\b|rd\b|th\b)")
"""A number written in digits; not an ordinal ("the 10th")."""


def writes_two_numbers(text: str) -> bool:
    """Whether ``text`` writes two or more numbers (digits or words; a date's are none)."""
    return len(_NUMBER_RE.findall(numbers_from_words(DATE_IN_DIGITS_RE.sub(" ", text)))) >= 2


_PERCENT_WORDS_RE = re.compile(
    r"%|\bper ?cent|\bpercentage|\bproportion|\bshare\b|\bincrease|\bdecrease|\bchange|\bgr[eo]w|\bfell\b"
    r"|\bfall|\brose\b|\brise|\bdrop|\bwent (?:up|down)|\bfrom\b.*\bto\b|\bmark ?up|\bdiscount|\boff\b|\btip"
    r"|\btax",
    re.IGNORECASE,
)
_STATISTIC_WORDS_RE = re.compile(
    r"\b(?:mean|average|avg|median|mode|sum|total|standard deviation|std|variance|range|min|minimum|max"
    r"|maximum|statistics|stats|spread|count|smallest|largest|highest|lowest)\b",
    re.IGNORECASE,
)


def reads_percentages(text: str) -> bool:
    """The reader of the percent tools: two numbers and a word of percentages or change ("45 is what percent
    of 180?", "from 80 to 100"); not two dates ("days between 2026-02-30 and 2026-03-05")."""
    return writes_two_numbers(text) and _PERCENT_WORDS_RE.search(text) is not None


def reads_statistics(text: str) -> bool:
    """The reader of ``statistics``: numbers and a statistic asked of them ("the median of 3, 9, 1")."""
    return writes_two_numbers(text) and _STATISTIC_WORDS_RE.search(text) is not None


reads(not_an_action(reads_arithmetic))(calculate)
for _tool in (percentage, percent_of, percent_change):
    reads(reads_percentages)(_tool)
reads(reads_statistics)(statistics)

MATH_TOOLS: list[BaseTool] = [calculate, percentage, percent_of, percent_change, statistics]
"""The tools of the math agent. All but ``statistics`` (up to 10,000 numbers to sort) are bounded to a few
milliseconds by the limits above and declared :func:`~cadence.sdk.inline`: they run on the event loop."""


class MathAgent(BaseAgent):
    """The math agent: calculator and percentage/statistics tools."""

    def get_tools(self) -> list[BaseTool]:
        """The calculator, percentage and statistics tools."""
        return list(MATH_TOOLS)

    def get_system_prompt(self) -> str:
        """Instructions to compute with the tools and state the result."""
        return agent_prompt(
            "You are the math agent of Cadence. You compute exact answers with your tools.",
            [
                "Translate the question into one expression for `calculate` (use ** for powers, "
                "radians for trigonometry); use several calls for multi-step problems.",
                "Use `percentage`, `percent_of` and `percent_change` for percentages and "
                "`statistics` for averages, medians and spreads of a list of numbers.",
                "Report the result exactly as the tool returned it, with the expression you computed.",
            ],
        )


class MathPlugin(BasePlugin):
    """Built-in plugin ``math``: safe arithmetic, percentages and statistics."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """Metadata of the math plugin."""
        return PluginMetadata(
            name="math",
            version="1.0.0",
            description=(
                "Calculator agent: evaluates arithmetic expressions exactly (+ - * / powers, roots, "
                "logarithms, trigonometry, factorials), percentages, percent changes and statistics "
                "(mean, median, standard deviation) of lists of numbers."
            ),
            capabilities=[
                "arithmetic and calculations: add, subtract, multiply (x) and divide numbers; work "
                "out or compute the sum, difference, product or quotient of numbers",
                "squares, cubes, powers (to the fourth, fifth, ...) and roots; sums, products and averages "
                "written in words",
                "square roots (sqrt), powers, logarithms (log, ln), trigonometry (sine, cosine, tangent), "
                "factorials, absolute values, rounding",
                "double, twice, triple, halve or half a number, a third or a quarter of it, its reciprocal; "
                "a decimal or percentage as a fraction; whether a number is prime, even or odd, divisible by "
                "another; its prime factors; how many digits it has and their sum; the gcd and lcm; solve "
                "an equation for x",
                "percentages, percent of a value, percent change",
                "convert units: seconds, minutes, days, weeks; mm, cm, metres, meters, km, inches, feet, "
                "miles; grams, kilograms, kg, pounds, ounces, stone; millilitres, litres, liters, gallons, "
                "cups; square feet, acres, hectares; km/h, mph, knots",
                "convert temperatures: degrees Celsius, Fahrenheit, Kelvin",
                "physical constants: the boiling and freezing point of water, body temperature, absolute "
                "zero, the speed of light and the speed of sound",
                "convert money between currencies (dollars, euros, pounds, USD, EUR, GBP) at an exchange "
                "rate the question gives",
                "average, median, mode, sum, min, max, range and standard deviation of numbers",
                "word problems: a price or an amount each, a rate per hour or per day for a number of "
                "hours or days, how many are left, in total or altogether",
                "saving, earning or paying an amount a month or a week: how much after so many months, or "
                "at another rate (a salary per month); a "
                "price with a discount, percent off, a tip or a tax, a bill split",
                "area, perimeter, circumference and volume of a circle, square, rectangle, triangle, cube "
                "or sphere",
            ],
            response_schema={
                "type": "object",
                "properties": {
                    "expression": {"type": "string", "description": "The expression that was computed."},
                    "result": {"type": "string", "description": "The computed result."},
                },
            },
            response_suggestion=(
                "State the result first, then the expression it came from; keep it to one line."
            ),
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new math agent."""
        return MathAgent(cls.get_metadata())
