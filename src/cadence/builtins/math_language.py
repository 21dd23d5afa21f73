"""Arithmetic the way people write it: words and phrases turned into an expression.

:func:`to_expression` rewrites "2 to the power of 10", "the square root of 144",
"add 7 and 8 and then subtract 3", "twelve times twelve", "20 percent of 150" or
"What is 12 * 12?" into an expression the safe evaluator of
:mod:`cadence.builtins.math` accepts (``2**10``, ``sqrt(144)``, ``((7 + 8) - 3)``,
``12*12``, ``(20/100*150)``). It only rewrites; evaluation and its limits stay in
the evaluator, so nothing here can run code.

The rewriting is a few ordered, generic steps: a short lead-in before a colon
("quick one: 3.5 * 4") is dropped when it holds no arithmetic and what follows does,
number words become digits (:func:`cadence.text.numbers_from_words`: "forty two",
"a hundred", "two dozen"), question and request boilerplate ("what's", "whats",
"could you") is dropped, and so are plain words before the arithmetic starts
("I need 19 * 21"; never a name before an operator, which the evaluator rejects),
"then" splits a chain of steps that each apply to the running result, verb phrases
("subtract A from B", "multiply A by B", "7 less than 30", "the average of A, B and
C", "add up A, B and C") become operations, and operator words ("plus", "times", "divided by", "squared",
"to the 4th power", "to the third power", "percent of") become symbols; a fraction of a value ("two
thirds of 60", "3/4 of 200") is the fraction times it, and "the remainder when A is divided by B" is
``A % B``. A question that asks for a percentage ("45 is
what percent of 180", "what percentage of 80 is 20", "30 out of 120 as a percentage") becomes the
part over the whole times 100 (``(45 / 180 * 100)``).

Chat around the arithmetic is framing: command words and politeness at either end ("calc 999*999 pls",
"quickly, what's 15 * 4, thx") are dropped. A word one typo away from an operation word of five letters
or more, with the same first and last letter, is read as it ("sqare root", "multipy", "devide",
"substract", "percnt"; never an ordinary word such as "multiple" or "divine"). A comma before an
operation verb starts a step like "then" ("take 250, add 75, then halve it"), and so does an "and"
before one when the text reads as nothing otherwise ("take 100 and subtract 37"). ``5!`` and "5 factorial"
are ``factorial(5)``; "round ... to 2 decimal places / the nearest tenth / the nearest 10", "... rounded"
and "then round it" round (up: ``ceil``, down: ``floor``). A change asked as a percentage ("from 52000
to 57200, by what percent did it go up?", "the percent change from 50 to 75") is ``((B - A) / A * 100)``:
signed, an increase positive and a decrease negative (80 to 60 is -25). Asking for the value "as a
decimal" ("3/8 to a decimal", "in decimal form") is framing, a currency sign before an amount is dropped
("$40"), and a fraction in words alone is read ("one eighth" as a decimal is ``(1 / 8)``).

A shape's area, perimeter or circumference, or volume, named with its sizes is its formula, an operand like
any other ("the area of a circle with radius 3" is ``(pi * 3 ** 2)``, "... then double it"): a circle or a
sphere by radius or diameter, a square or a cube by its side, a rectangle by length and width ("a 4 by 6
rectangle"), a triangle by base and height, a cylinder by radius and height, and the hypotenuse of a right
triangle by its legs ("legs 3 and 4" is ``sqrt(3 ** 2 + 4 ** 2)``, "the hypotenuse when the two shorter
sides are 8 and 15" with no shape named); so is a question about one shape whose sizes are given apart ("A
circle has a radius of 3. What is its area?"). Any other question about a shape is not read (an error, not
"square 25" for "the area of a square is 25").

When the whole text reads as no operation, the one sentence, or else the one clause, that does is taken
and the rest is context ("I bought 3 shirts at 19.99 each. 3 x 19.99?"); "and what ...", "and how ..."
also start a clause, so the arithmetic of a compound question is read when the other question holds none
("what's 5*7 and what time is it in Tokyo?" is 35). A clause left out that computes on the result is a
step on it ("... and what is its square root?") or, when it reads as no step, makes the text an error
(never the first result alone).

A price changed by one percent is a word problem of its own: lowered by a discount, a sale, a markdown, a cut
or "25% off", raised by a tip, a tax, VAT, a markup, a fee or a raise ("A shirt costs $40 and is 25% off",
"$60 plus 8% tax", ``(60 * (100 + 8) / 100)``); a question for the tip, the tax or the discount itself ("how
much is the tip?") is the percent of the price, and a price shared ("split an $84 bill 4 ways with a 15% tip",
"among 4 people") is the changed price over the sharers. A price given after the change ("after a 25% discount
it costs $30", "reduced by 20% to $40") is worked back when the price before is asked ("what was the original
price?" is ``(30 * 100 / (100 - 25))``) or the part itself ("how much did I save?"), and a price before named
so ("originally cost $40", "the regular price is $80") is changed; a price after the change with nothing
asked of it, sharing "with 3 friends" (3 or 4 shares?) or another operation are not read; a tip asked on
what a bill "came to" is the tip on it; a group "with 3 people"
counts the people ("split it with 3 people" is still 3 or 4). Two percents or more applied in turn, each
saying which way ("$120 with 30% off, then 8% sales tax: what do I pay?"), change the price one after the
other; the price may be things bought at a price each ("3 shirts at $24.99 each"). A few other shopping
questions are read when every number has its place: amounts taken from a first one ("had $500, spent $137.25
on groceries and $89.99 on shoes: how much is left?", "started with $1,200, paid $650 rent"), a percent of an
amount taken from it ("I have $500. I spend 35% of it: how much is left?"), things bought at a price each ("4
notebooks at $3.75 each and a pen for $2.40: the total?", "5 tickets at $32 each and a $4.50 fee per ticket",
"$18 for adults and $11 for kids: 2 adults and 3 kids?"), a price or an amount per unit ("a 750 g box costs
$4.50: the price per 100 g?", "42 liters for 600 km: liters per 100 km?", "a 12-pack is $7.80: the price per
can?"), a part "out of" a whole asked as a percentage apart ("18 out of 24 passed. What percent is that?") and
a bill with a fixed tip shared ("5 of us split a $212.50 fare plus a $15 tip"). An amount per unit of time for
a time in another unit is a product with the time converted into the rate's unit ("if I save $150 a month, how
much after 2 years?" is ``(150 * 2 * 12)``, "60 km per hour for 90 minutes" ``(60 * 90 / 60)``; "a quarter of
an hour", "half a day", "an hour and a half" are times): seconds to weeks convert among themselves, months to
centuries among themselves, and a year is 365 days or 52 weeks; a month is never days or weeks, and a percent
per unit (growth, interest) is not read. Last, a text with exactly two numbers may be a word problem of one
operation in a few common forms: an amount each or per unit ("3 boxes with 12 eggs each", "6 rows of 15
plants", "60 km per hour for 3 hours", "7 days in a week: how many in 9 weeks?", "a pizza costs 12 dollars:
what do 4 pizzas cost?") is a product (not when the time is a rate of its own: "$20 an hour, 8 hours a day"),
a share ("24 cookies shared equally among 6 friends", "split a 90 dollar bill between 3", "... 3 ways") a
quotient, what is left of the same things ("had 90 sheep; 23 ran away: how many are left?") a difference, and
more of them or the same things counted twice ("14 stickers, then 9 more"; "42 shells on Monday and 35 shells
on Tuesday: how many in total?") a sum; other word problems are not read (an error beats a wrong operation).
A few more everyday forms are read when every number has its place: a percent of an amount with what it is
for after it ("17.5 percent of 2,360 for an invoice"), a round thing's area by its width ("16 inches across:
how many square inches?"), a fixed amount off then a percent added ("$1,299, $200 off, plus 5% tax"), an
amount at a price per unit of it ("2.4 kg at $3.15 per kg"), things bought from an amount ("had $50, bought
3 tickets at $12.50 and a snack for $7.25: what's left?"), things packed in groups ("96 cookies in boxes of
14": ``96 % 14`` left over, ``96 // 14`` full boxes) and a total done at a rate ("420 pages, 35 a day: how
many days?"); a change asked as a "growth rate" with no time is a percent change, and a trapezoid's area is
read by its parallel sides and height.
An amount done in a time and asked per unit of time is the amount over the time in the unit asked ("96 km in
45 minutes: its speed in km/h?" is ``(96 / (45 / 60))``, "2 hours 30 minutes" ``(2 + 30 / 60)``): a speed
asked with no unit is per hour (per second for metres in seconds), and one that does not convert (km in mph,
days in a month) is not read. A few more forms are read when every number has its place: an amount shared by
people ("the bill is $96.30 and there are 3 of us: how much does each pay?", "$150 divided among 4
flatmates"), a quantity for a number of servings scaled to another ("a recipe for 4 people uses 300 g of
flour: how much for 10 people?" is ``(300 * 10 / 4)``), the fuel for one trip ("520 km at 5.8 L per 100 km",
"300 miles at 40 mpg"), a price per unit for a number of units or things at a price each plus fixed charges,
maybe shared ("$185 a night for 4 nights plus a $60 cleaning fee", "3 pizzas at $14.50 each plus $6
delivery, split between 4"), a named share asked in percent ("what share of 250 is 40, in percent?") and a
question whose first word is mistyped ("hw many", "wat's").
A reading never drops a part of the question: a rate's result is in the unit asked ("3 cm per minute: how
many metres in 2 hours?" is ``(3 * 2 * 60 * 10 / 1000)``) or not read, a question asking two figures of a
list ("the total and average of ...") is not read, a rate left out of the clause read makes the text an
error, and "what percentage survived" after "35 of 140 died" is the rest (``100 -`` the share). More forms
read when every number has its place: a rate for times added ("$19 an hour, 6 hours plus 5 hours"), a result
split ("..., split between 2"), the rest shared after one pays a percent, a rate plus a one-off fee over a
span ("$39 a month plus a one-off $50 fee: the first year?"), a time per amount plus an extra time ("20
minutes per 500 g plus 20 minutes: a 2 kg roast?"), a spend after prices went up or down by a percent, the
area or diagonal of a thing by its width and height (a triangle's area by base and height), a cone's volume,
a year as 365 days and a leap year as 366 among durations, a balance with an amount added or taken each unit
of time, a percent of a unit ("what percentage of an hour is 45 minutes"), "1.5 times as much water as
rice", "half a percent", a nightly rate plus a charge per person per night, a download's time by data sizes
(decimal: a GB is 1000 MB; bits are not read) and the time for a level changing by points of a percent each
unit of time to reach another.
:func:`has_operation` and :func:`unread_words` let the caller refuse a reading that dropped the words of an
operation and kept only a number."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise

from cadence.text import numbers_from_words, spelling_fixed

_LEAD_RE = re.compile(
    r"^(?:(?:now|ok(?:ay)?|so|and|also|then|next|please|hey|hi|can you|could you|would you|will you|"
    r"tell me|show me|let me know|i want to know|i'd like to know|i need to know|i wanna know|do you know|"
    r"what(?:'s|’s|s| is| are| was)|"
    r"what would be|(?:what )?if (?:i|you|we)|how much (?:is|are|does|do)|how many is|calculate|compute|"
    r"evaluate|work out|figure out|"
    r"solve|find|give me|the result of|the value of|result of|value of|the answer to|answer to|"
    r"how do you|start with|starting with|begin with|start from|start at|begin at|"
    r"calc|calculator|quick question|real quick|quickly|quick|kindly|pls|plz|yo|hello|um+|uh+|hm+|btw|"
    r"thanks|thx|ty)\b[\s,:]*)+",
    re.IGNORECASE,
)
_INTRO_RE = re.compile(r"^\s*([^\d:+*/^%()=<>-]{1,40}?)\s*:\s*(?=\S)")
"""A short lead-in before a colon ("quick one: 3.5 * 4", "question: ..."); dropped when it holds no
arithmetic, before number words are read (its "one" is not a number)."""
_POLITE = (
    r"please|pls|plz|thx|thanks(?: in advance)?|thank (?:you|u)|ty|tia|cheers|real quick|quickly|quick|"
    r"asap|rn|right now|if you (?:can|could|would)|if possible|kindly|mate|bro|dude|buddy|lol"
)
"""Chat shorthand and politeness that frame a request ("calc 999*999 pls", "... real quick, thx")."""
_DECIMAL = (
    r"(?:as|to|in|into|expressed as|written as|in the form of)\s+(?:an?\s+)?decimals?"
    r"(?:\s+(?:number|numbers|form|value|notation|fraction))?"
)
"""Asking for the value as a decimal ("3/8 as a decimal", "in decimal form"): the value is the answer."""
_TRAIL_RE = re.compile(
    rf"(?:\s*(?:\b(?:{_POLITE}|{_DECIMAL}|for me|exactly|equal to|equals|make|come to|give|now|again)\b"
    r"|[:;]-?\)|[?!.=,]))+\s*$",
    re.IGNORECASE,
)
_STEP_VERB = (
    r"add|subtract|multiply|multiplied by|divide|divided by|times|plus|minus|take away|take off|halve|double|"
    r"triple|square|cube|round|rounded|raise|take the square root|split|"
    r"shared? (?:equally |evenly )?(?:between|among)"
)
"""Verbs that open a step of a chain ("take 250, add 75, then halve it")."""
_THEN_RE = re.compile(
    r"\s*(?:(?:,?\s*and then|,?\s*then|;|, after that|and after that)\s+"
    rf"|,\s*(?:and\s+)?(?=(?:{_STEP_VERB})\b))",
    re.IGNORECASE,
)
"""Where a chain of steps splits: "then", "after that", a semicolon, or a comma before a step verb."""
_AND_STEP_RE = re.compile(rf"\s+and\s+(?=(?:{_STEP_VERB})\b)", re.IGNORECASE)
"""An "and" before a step verb ("take 100 and subtract 37"): read as "then" when the text reads as
nothing otherwise (in "the difference between 10 and double 3" the "and" joins two operands)."""

MAX_READ_CHARS = 500
"""Longest text read as arithmetic in words (the evaluator's own limit on an expression's length)."""

_NUM = r"-?\d+(?:\.\d+)?"
_NUM_FRACTION = r"(\d+)\s*/\s*(\d+)"
_OPERAND = r"(.+?)"


# Operator words inside one clause, applied in order (longest phrases first).
_OPERATOR_WORDS: tuple[tuple[str, str], ...] = (
    (r"\b(?:raised )?to the (\d+)(?:st|nd|rd|th)(?: power)?\b(?! (?:decimal|place|digit))", r" ** \1 "),
    (r"\bto the power of\b|\braised to the power of\b|\braised to\b|\bto the power\b", " ** "),
    (r"\bsquared\b", " ** 2 "),
    (r"\bcubed\b", " ** 3 "),
    (r"\bdoubled\b", " * 2 "),  # "What is 25 doubled?"
    (r"\btripled\b", " * 3 "),
    (r"\bquadrupled\b", " * 4 "),
    (r"\bhalved\b", " / 2 "),
    (r"\bmultiplied by\b|\btimes\b|(?<=\d)\s*x\s*(?=\d)|\bmultiply by\b|\bx\b", " * "),
    (r"\bdivided by\b|\bover\b|\bdivide by\b", " / "),
    (r"\bplus\b|\badded to\b|\bincreased by\b", " + "),
    (r"\bminus\b|\bless\b|\bdecreased by\b|\btake away\b", " - "),
    (r"\bmodulo\b|\bmod\b|\bremainder of\b", " % "),
)
_FUNCTION_WORDS: tuple[tuple[str, str], ...] = (
    (r"(?:the\s+)?(?:square\s+root|sqrt(?=\s))(?:\s+of)?", "sqrt"),
    (r"(?:the\s+)?cube\s+root(?:\s+of)?", "cbrt"),
    (r"(?:the\s+)?factorial(?=\s)(?:\s+of)?", "factorial"),
    (r"(?:the\s+)?natural\s+log(?:arithm)?\s+of", "ln"),
    # "the log of 100" is the common logarithm (base 10), as calculators have it; ln is the natural one
    (r"(?:(?:the\s+)?(?:common\s+)?log(?:arithm)?\s+of|log(?=\s+\d))", "log10"),
    (r"(?:the\s+)?absolute\s+value\s+of", "abs"),
    (r"(?:the\s+)?(?:sine|sin)(?:\s+of|(?=\s+-?\d))", "sin"),
    (r"(?:the\s+)?(?:cosine|cos)(?:\s+of|(?=\s+-?\d))", "cos"),
    (r"(?:the\s+)?(?:tangent|tan)(?:\s+of|(?=\s+-?\d))", "tan"),
)
_TRIG = {"sine": "sin", "sin": "sin", "cosine": "cos", "cos": "cos", "tangent": "tan", "tan": "tan"}
_ANGLE_DEGREES = r"(?:degrees?|deg|°)"
_ANGLE_IN_DEGREES_RE = re.compile(
    rf"\b(?:the\s+)?(sine|sin|cosine|cos|tangent|tan)\s*(?:of\s+)?\(?\s*({_NUM})\s*{_ANGLE_DEGREES}\s*\)?",
    re.IGNORECASE,
)
"""A trigonometric function of an angle in degrees ("the sine of 30 degrees", "tan 45°"): of it in radians."""
_DEGREES_TO_RADIANS_RE = re.compile(
    rf"(?:convert\s+)?({_NUM})\s*{_ANGLE_DEGREES}\s+(?:in|to|into|as)\s+radians?\b", re.IGNORECASE
)
_RADIANS_TO_DEGREES_RE = re.compile(
    rf"(?:convert\s+)?({_NUM}|pi)\s*radians?\s+(?:in|to|into|as)\s+degrees?\b", re.IGNORECASE
)
_FILLER_RE = re.compile(r"\b(?:the|of|a|an|number|numbers|value|result|is|it|by|what|does|equal)\b", re.I)


def _operand(text: str) -> str:
    """One operand or sub-expression written in words, as an expression."""
    return _clause(text)


def _list(text: str) -> list[str]:
    """``"4, 8 and 12"`` → ``["4", "8", "12"]`` (each item an expression)."""
    parts = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", text.strip())
    return [_operand(p) for p in parts if p.strip()]


Rules = tuple[tuple[re.Pattern[str], str], ...]


def _rules(*pairs: tuple[str, str]) -> Rules:
    """``(regex, form)`` pairs compiled case-insensitively."""
    return tuple((re.compile(pattern, re.IGNORECASE), form) for pattern, form in pairs)


_TOGETHER = r"(?: (?:all )?(?:up|together))?"
"""What may follow a list verb or end its list: "add up", "add together", "multiply them all together"."""
_LIST_ITEM = r"(?:(?! (?:to|plus|by|with|times|into) ).)+?"
_LIST = rf"({_LIST_ITEM}(?:,| and ){_LIST_ITEM})"
"""Two or more operands separated by commas and/or "and" (counted again when the list is read); never
across the word of a two-operand form ("add 3 to the sum of 1 and 2", "multiply the sum of 1 and 2 by 3")."""

_PCT = r"(?:percent(?:age)?|per cent|pct|%)"
_ASK = r"(?:what|which|how many|how much)"
_IS = (
    r"(?:is|are|was|were|=|equals?|makes?(?: up)?|represents?|accounts? for|constitutes?|comes? to|"
    r"amounts? to)"
)
_DOES = r"(?:does|do|did|would|will)"
_MAKE = r"(?:make(?: up)?|represent|account for|constitute|come to|amount to|cover|form|take(?: up)?)"
_AS = r"(?:as|in|into|to|expressed as|written as|in terms of)(?: an?)?"
_EXPRESS = r"(?:(?:express|convert|write|turn|put|give|show)(?: me)? )?"
_PART_OF = r"(?:out of|of)"
_PART_NAME = r"(?:share|proportion|portion|part|fraction)"
"""A part named as such ("what share of 168 is 42, in percent"): a percentage only when one is asked for."""
_NOT_ASKED = rf"(?!.*\b{_ASK} {_PCT}(?!\w))"
"""Not a clause that asks for a percentage ("I wonder what percent of 200 is 50" is not "X percent of Y")."""
_SHARE = "({0} / {1} * 100)"
"""Asking for a percentage: the part ``{0}`` as a percentage of the whole ``{1}``."""
_SHARE_WHOLE_FIRST = "({1} / {0} * 100)"
"""The same when the whole ``{0}`` is named before the part ``{1}``."""

_PERCENT_QUESTIONS: tuple[tuple[str, str], ...] = (
    # "what share of 168 is 42, in percent", "what proportion of 80 is 20 as a percentage"
    (
        rf"^{_ASK} {_PART_NAME} {_PART_OF} {_OPERAND} (?:{_IS}|{_DOES}) {_OPERAND}(?: {_MAKE})?,? "
        rf"{_AS} {_PCT}$",
        _SHARE_WHOLE_FIRST,
    ),
    # "42 is what share of 168, in percent"
    (rf"^{_OPERAND} {_IS} {_ASK} {_PART_NAME} {_PART_OF} {_OPERAND},? {_AS} {_PCT}$", _SHARE),
    # "45 is what percent of 180", "50 makes up how many percent of 200"
    (rf"^{_OPERAND} {_IS} {_ASK} {_PCT} {_PART_OF} {_OPERAND}$", _SHARE),
    # "what percent of 200 is 50", "how many percent of 200 is 50", "what percentage of 200 does 50 make up"
    (rf"^{_ASK} {_PCT} {_PART_OF} {_OPERAND} (?:{_IS}|{_DOES}) {_OPERAND}(?: {_MAKE})?$", _SHARE_WHOLE_FIRST),
    # "what percent is 50 of 200", "what percentage does 50 make of 200", "what percent 12 is of 48"
    (rf"^{_ASK} {_PCT} (?:{_IS}|{_DOES}) {_OPERAND}(?: {_MAKE})? {_PART_OF} {_OPERAND}$", _SHARE),
    (rf"^{_ASK} {_PCT} {_OPERAND} {_IS} {_PART_OF} {_OPERAND}$", _SHARE),
    # "50 out of 200 is what percent", "50 of 200 is what percentage"
    (rf"^{_OPERAND} {_PART_OF} {_OPERAND} {_IS} {_ASK} {_PCT}$", _SHARE),
    # "30 as a percentage of 120", "express 30 as a percent of 120"
    (rf"^{_EXPRESS}{_OPERAND} {_AS} {_PCT} {_PART_OF} {_OPERAND}$", _SHARE),
    # "30 out of 120 as a percentage", "convert 30 of 120 to a percent"
    (rf"^{_EXPRESS}{_OPERAND} {_PART_OF} {_OPERAND} {_AS} {_PCT}$", _SHARE),
    # "the percentage of 50 out of 200", "the percentage of 50 in 200"
    (rf"^(?:the )?{_PCT} of {_OPERAND} (?:out of|in) {_OPERAND}$", _SHARE),
    # "0.25 as a percentage", "convert 3/4 to a percent", "30 over 120 in percent"
    (rf"^{_EXPRESS}{_OPERAND} {_AS} {_PCT}$", "({0} * 100)"),
)
"""Questions that ask for a percentage (the part as a share of the whole, times 100), tried before
"X percent of Y", which gives a percentage rather than asking for one."""

_GCD = r"(?:gcd|gcf|hcf|greatest common (?:divisor|factor)|highest common factor)"
"""The greatest common divisor's names ("the GCD of 48 and 36" is ``gcd(48, 36)``)."""
_LCM = r"(?:lcm|least common multiple|lowest common multiple)"
"""The least common multiple's names ("the LCM of 4 and 6" is ``lcm(4, 6)``)."""

_FIRST_N = rf"^(?:the )?sum of (?:all )?the first {_OPERAND}"
"""The sum of the first whole numbers ("the sum of the first 100 numbers")."""
_WHOLE_NUMBERS = r"(?:natural |whole |positive |counting )?(?:numbers|integers)$"

_VERB_PATTERNS: Rules = _rules(
    *_PERCENT_QUESTIONS,
    (rf"^(?:add|sum|total){_TOGETHER} {_LIST}{_TOGETHER}$", "sum of 2+"),
    (rf"^multiply{_TOGETHER} {_LIST}{_TOGETHER}$", "product of 2+"),
    # "add 15% to 86", "subtract 5% from 200", "take 10% off 90": a percent of the value itself
    (rf"^add {_OPERAND}\s*{_PCT} (?:on )?to {_OPERAND}$", "({1} * (100 + {0}) / 100)"),
    (rf"^(?:subtract|deduct|take) {_OPERAND}\s*{_PCT} (?:away )?(?:from|off(?: of)?) {_OPERAND}$",
     "({1} * (100 - {0}) / 100)"),
    (rf"^add {_OPERAND} (?:and|to|plus) {_OPERAND}$", "({0} + {1})"),
    (rf"^subtract {_OPERAND} from {_OPERAND}$", "({1} - {0})"),
    (rf"^take {_OPERAND} (?:away )?from {_OPERAND}$", "({1} - {0})"),
    (rf"^multiply {_OPERAND} (?:by|and|with|times) {_OPERAND}$", "({0} * {1})"),
    (rf"^times {_OPERAND} by {_OPERAND}$", "({0} * {1})"),
    (rf"^divide {_OPERAND} (?:by|into) {_OPERAND}$", "({0} / {1})"),
    # "the sum of the first 100 numbers": 1 + 2 + ... + 100, by its formula; of the odd ones, n²
    (rf"{_FIRST_N} odd {_WHOLE_NUMBERS}", "({0} ** 2)"),
    (rf"{_FIRST_N} even {_WHOLE_NUMBERS}", "({0} * ({0} + 1))"),
    (rf"{_FIRST_N} {_WHOLE_NUMBERS}", "({0} * ({0} + 1) / 2)"),
    (rf"^(?:the )?sum of {_OPERAND}$", "sum"),
    (rf"^(?:the )?total of {_OPERAND}$", "sum"),
    (rf"^(?:the )?product of {_OPERAND}$", "product"),
    (rf"^(?:the )?(?:average|mean) of {_OPERAND}$", "mean"),
    (rf"^(?:the )?{_GCD} of {_OPERAND}$", "gcd"),
    (rf"^(?:the )?{_LCM} of {_OPERAND}$", "lcm"),
    (rf"^(?:the )?difference (?:between|of) {_OPERAND} and {_OPERAND}$", "({0} - {1})"),
    (rf"^(?:the )?quotient of {_OPERAND} and {_OPERAND}$", "({0} / {1})"),
    (rf"^(?:the )?remainder (?:when|if|after|of) {_OPERAND} (?:is )?divided by {_OPERAND}$", "({0} % {1})"),
    (rf"^(?:the )?remainder (?:when|if|after) (?:you )?divid(?:e|ing) {_OPERAND} by {_OPERAND}$",
     "({0} % {1})"),
    (rf"^(?:twice|double) {_OPERAND}$", "(2 * {0})"),
    (rf"^(?:triple|three times) {_OPERAND}$", "(3 * {0})"),
    (rf"^(?:half (?:of )?|halve ){_OPERAND}$", "({0} / 2)"),
    (rf"^square (?!root){_OPERAND}$", "({0} ** 2)"),
    (rf"^cube (?!root){_OPERAND}$", "({0} ** 3)"),
    (rf"^(?:a |one )?(?:third) of {_OPERAND}$", "({0} / 3)"),
    (rf"^(?:a |one )?quarter of {_OPERAND}$", "({0} / 4)"),
    (rf"^(?:the )?(?:reciprocal|multiplicative inverse) of {_OPERAND}$", "(1 / {0})"),
    (rf"^(?:the )?log(?:arithm)? (?:in |to )?(?:the )?base {_OPERAND} of {_OPERAND}$", "log({1}, {0})"),
    (rf"^(?:the )?log(?:arithm)? of {_OPERAND} (?:in |to )?(?:the )?base {_OPERAND}$", "log({0}, {1})"),
    (rf"^{_NOT_ASKED}{_OPERAND} (?:percent|per cent|%) of {_OPERAND}$", "({0} / 100 * {1})"),
    (rf"^(?:increase|raise) {_OPERAND} by {_OPERAND}\s*{_PCT}$", "({0} * (100 + {1}) / 100)"),
    (rf"^{_NOT_ASKED}{_OPERAND} (?:plus|\+) {_OPERAND}\s*{_PCT}$", "({0} * (100 + {1}) / 100)"),
    (rf"^{_NOT_ASKED}{_OPERAND} (?:minus|less|-) {_OPERAND}\s*{_PCT}$", "({0} * (100 - {1}) / 100)"),
    (rf"^(?:decrease|reduce|lower|cut|discount) {_OPERAND} by {_OPERAND}\s*{_PCT}$",
     "({0} * (100 - {1}) / 100)"),
    (rf"^{_OPERAND} (?:increased|raised) by {_OPERAND}\s*{_PCT}$", "({0} * (100 + {1}) / 100)"),
    (rf"^{_OPERAND} (?:decreased|reduced|lowered|cut|discounted) by {_OPERAND}\s*{_PCT}$",
     "({0} * (100 - {1}) / 100)"),
    (rf"^(?:increase|raise) {_OPERAND} by {_OPERAND}$", "({0} + {1})"),
    (rf"^(?:decrease|reduce|lower) {_OPERAND} by {_OPERAND}$", "({0} - {1})"),
    (rf"^({_NUM}) less than {_OPERAND}$", "({1} - {0})"),
    (rf"^({_NUM}) more than {_OPERAND}$", "({1} + {0})"),
    (rf"^{_NOT_ASKED}{_OPERAND}\s*(?:percent|per cent|%) (?:more than|increase on|up on|higher than|above) "
     rf"{_OPERAND}$",
     "({1} * (1 + {0} / 100))"),
    (rf"^{_NOT_ASKED}{_OPERAND}\s*(?:percent|per cent|%) "
     rf"(?:less than|off|decrease on|down on|lower than|below) {_OPERAND}$",
     "({1} * (1 - {0} / 100))"),
)  # fmt: skip

# A step of a chain, applied to the running result ``{0}``.
_STEP_PATTERNS: Rules = _rules(
    (rf"^(?:plus|add|increase(?: (?:it|that))? by|raise(?: (?:it|that))? by) {_OPERAND}\s*{_PCT}$",
     "({0} * (100 + {1}) / 100)"),
    (rf"^(?:minus|less|subtract|take away|take off|take|decrease(?: (?:it|that))? by|"
     rf"reduce(?: (?:it|that))? by|discount(?: (?:it|that))?(?: by)?) {_OPERAND}\s*{_PCT}(?: off)?$",
     "({0} * (100 - {1}) / 100)"),
    (rf"^(?:add|plus) {_OPERAND}(?: more)?(?: to (?:it|that|the result))?$", "({0} + {1})"),
    (rf"^(?:subtract|minus|take away|take(?! (?:the )?(?:square|cube) root)) {_OPERAND}"
     r"(?: from (?:it|that|the result))?$", "({0} - {1})"),
    (rf"^(?:multiply|multiplied|times)(?: (?:it|that|the result))? by {_OPERAND}$", "({0} * {1})"),
    (rf"^(?:multiply|times) {_OPERAND}$", "({0} * {1})"),
    (rf"^(?:divide|divided)(?: (?:it|that|the result))? by {_OPERAND}$", "({0} / {1})"),
    (rf"^(?:divide|split)(?: (?:it|that|the result))? (?:in|into) {_OPERAND}(?: parts)?$", "({0} / {1})"),
    # "..., split between 2", "then share it equally among 4 people", "split 3 ways"
    (rf"^(?:split|share[sd]?|divided?)(?: (?:it|that|the result|the rest|what is left))?(?: up)?"
     rf"(?: (?:equally|evenly))? (?:between|among|by) ({_NUM})(?: (?:ways|people|persons|of us))?$",
     "({0} / {1})"),
    (rf"^split(?: (?:it|that|the result|the rest))?(?: up)? ({_NUM}) ways$", "({0} / {1})"),
    (r"^(?:square|take the square of)(?: it| that| the result)?$|^squared$", "({0} ** 2)"),
    (r"^(?:cube)(?: it| that| the result)?$|^cubed$", "({0} ** 3)"),
    (r"^(?:take )?(?:(?:the )?square root(?: of (?:it|that|the result))?|its square root)$", "sqrt({0})"),
    (rf"^(?:raise (?:it|that|the result) )?to the power of {_OPERAND}$", "({0} ** {1})"),
    (r"^double(?: it| that| the result)?$|^doubled$", "({0} * 2)"),
    (r"^triple(?: it| that| the result)?$|^tripled$", "({0} * 3)"),
    (r"^halve(?: it| that| the result)?$|^halved$", "({0} / 2)"),
)  # fmt: skip


_AGGREGATES = {
    "sum": ("sum", 1),
    "product": ("product", 1),
    "mean": ("mean", 1),
    "sum of 2+": ("sum", 2),
    "product of 2+": ("product", 2),
    "gcd": ("gcd", 2),
    "lcm": ("lcm", 2),
}
"""Forms that read a list of operands: (aggregate, fewest operands). A list verb ("add up 1, 2 and 3")
needs two; with fewer the later forms are tried."""


def _aggregate(kind: str, items: list[str]) -> str:
    if kind == "sum":
        return "(" + " + ".join(items) + ")"
    if kind == "product":
        return "(" + " * ".join(items) + ")"
    if kind in ("gcd", "lcm"):
        return f"{kind}(" + ", ".join(items) + ")"
    return "((" + " + ".join(items) + f") / {len(items)})"


_COUNTED_UNITS = (
    r"seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|millimet(?:re|er)s?|mm|"
    r"centimet(?:re|er)s?|cm|met(?:re|er)s?|kilomet(?:re|er)s?|km|inch(?:es)?|feet|foot|ft|yards?|miles?|"
    r"grams?|kilograms?|kg|kilos?|pounds?|lbs?|ounces?|oz|litres?|liters?|millilit(?:re|er)s?|ml|"
    r"dollars?|euros?|cents?|pence|bucks?|points?"
)
_COUNTED_UNIT_RE = re.compile(rf"({_NUM})\s+(?:{_COUNTED_UNITS})\b(?!\s+(?:of|per)\b)", re.IGNORECASE)
"""A unit after a number ("45 minutes", "3 dollars")."""


_TRAILING_UNIT_RE = re.compile(rf"^(?P<head>.*[\d)])\s+(?P<unit>{_COUNTED_UNITS})\s*$", re.IGNORECASE)


def trailing_unit(expression: str) -> tuple[str, str] | None:
    """An expression read with the unit of its last number left after it, split into the arithmetic and
    the unit: "(25 / 100) * 80 cents" is ``("(25 / 100) * 80", "cents")``; None otherwise."""
    match = _TRAILING_UNIT_RE.match(expression.strip())
    return (match.group("head"), match.group("unit")) if match else None


def _same_units_dropped(text: str) -> str:
    """``text`` without the units after its numbers when every number has the same one ("45 minutes
    plus 30 minutes" is 45 + 30; "150 km over 3 hours" is left alone: a speed, not a quotient)."""
    units = {
        m.group(0)[len(m.group(1)) :].strip().lower().rstrip("s") for m in _COUNTED_UNIT_RE.finditer(text)
    }
    if len(units) != 1 or len(_COUNTED_UNIT_RE.findall(text)) != len(_NUMBER_RE.findall(text)):
        return text
    return _COUNTED_UNIT_RE.sub(r"\1", text)


_PERCENT_IN_SUM_RE = re.compile(
    rf"(?<![\w.]){_NUM}\s*(?:%|percent\b|per cent\b)(?!\s*(?:of|out of)\b)\s*(?:[-+]|plus\b|minus\b|and\b)"
    rf"|(?:[-+]|\bplus|\bminus|\band)\s*{_NUM}\s*(?:%|percent\b|per cent\b)(?!\s*(?:of|out of)\b)",
    re.IGNORECASE,
)
"""A bare percent added to or taken from a number ("15% + 86"): 15% of what? Read by the forms that say
("86 plus 15%", "add 15% to 86"), never as ``15 % 86`` (a remainder) or ``0.15 + 86``."""


def _symbols(text: str) -> str:
    """Operator and function words of one clause replaced by symbols; leftover words dropped. A bare
    percent in a sum is left as a word (an error, not a guess)."""
    if _PERCENT_IN_SUM_RE.search(text):
        return re.sub(r"\s*%", " percent", text.strip())
    out = _same_units_dropped(f" {text} ")
    out = re.sub(rf"({_NUM})\s*(?:percent|per cent|%)\s+of\s+", r"(\1 / 100) * ", out, flags=re.I)
    for pattern, symbol in _OPERATOR_WORDS:
        out = re.sub(pattern, symbol, out, flags=re.IGNORECASE)
    out = _ANGLE_IN_DEGREES_RE.sub(lambda m: f" {_TRIG[m.group(1).lower()]}(radians({m.group(2)})) ", out)
    out = _DEGREES_TO_RADIANS_RE.sub(r" radians(\1) ", out)
    out = _RADIANS_TO_DEGREES_RE.sub(r" degrees(\1) ", out)
    for pattern, name in _FUNCTION_WORDS:
        out = re.sub(rf"\b{pattern}\s*\(?\s*({_NUM})\s*\)?", rf" {name}(\1) ", out, flags=re.IGNORECASE)
    out = re.sub(rf"({_NUM})\s*(?:percent|per cent)", r"(\1 / 100)", out, flags=re.IGNORECASE)
    out = _FILLER_RE.sub(" ", out)
    out = re.sub(r"\bcbrt\(([^()]*)\)", r"((\1) ** (1 / 3))", out)
    return re.sub(r"\s+", " ", out).strip()


# Misspelled operation words ("sqare root", "multipy", "devide", "substract", "percnt").
_OPERATION_WORDS = (
    "square", "squared", "multiply", "multiplied", "divide", "divided", "subtract", "subtracted", "percent",
    "percentage", "factorial", "average", "quotient", "difference", "remainder", "logarithm", "absolute",
    "modulo", "product",
)  # fmt: skip
"""Operation words (five letters or more) that a word one typo away is read as."""
_NOT_TYPOS = frozenset({"squire", "squired", "divine", "divined", "percept", "reminder"})
"""Ordinary words one edit away from an operation word (with its first and last letters)."""


_WORD_ALIASES = {"procent": "percent", "pourcent": "percent", "prozent": "percent"}
"""Words other languages write for an operation word ("15 procent of 80")."""


def _spelling_fixed(text: str) -> str:
    """``text`` with misspelt operation words written right ("devide", "15 procent of 80")."""
    fixed = re.sub(r"[A-Za-z]+", lambda m: _WORD_ALIASES.get(m.group(0).lower(), m.group(0)), text)
    return spelling_fixed(fixed, _OPERATION_WORDS, _NOT_TYPOS)


def units_spelling_fixed(text: str) -> str:
    """``text`` with misspelt names of units written right ("convert 10 kilometres to miels"): for a
    conversion that read nothing as written (ordinary words are one edit from some units: "pond", "tone")."""
    return spelling_fixed(text, _unit_names())


@functools.cache
def _unit_names() -> tuple[str, ...]:
    """The names of the units the calculator converts, of five letters or more."""
    return tuple(sorted(name for name in _UNIT_OF if len(name) >= 5 and name.isalpha()))


# Postfix factorial: "5!", "(2+3)!", "5 factorial".
_UNSIGNED = r"\d+(?:\.\d+)?"
_FACTORIAL_RES = (
    (re.compile(rf"(?<![\w.])({_UNSIGNED})!(?!=)"), r"factorial(\1)"),
    (re.compile(r"\(([^()]*)\)!(?!=)"), r"factorial((\1))"),
    (re.compile(rf"(?<![\w.])({_UNSIGNED})\s+factorial\b(?!\s+of)", re.IGNORECASE), r"factorial(\1)"),
)


def _factorials(text: str) -> str:
    """``"5!"`` → ``"factorial(5)"`` (never ``!=``); the evaluator bounds the argument."""
    for pattern, form in _FACTORIAL_RES:
        text = pattern.sub(form, text)
    return text


# A change asked as a percentage: "from 52000 to 57200, by what percent did it go up?".
_MONEY_SIGN = r"[$€£¥]?\s*"
_AFTER_UNIT = r"(?:\s*[a-z]+)?"
_CHANGE_WORD_RE = re.compile(
    r"\b(?:change[sd]?|increase[sd]?|decrease[sd]?|rise|rose|risen|drop(?:ped)?|fall|fell|fallen|growth|grew|"
    r"gain(?:ed)?|loss|lost|decline[sd]?|jump(?:ed)?|reduction|reduced|went|gone|go(?:es)?|up|down|grow|grown|"
    r"climb(?:ed)?|difference)\b",
    re.IGNORECASE,
)
_CHANGE_SPANS = (
    re.compile(
        rf"\bfrom\s+{_MONEY_SIGN}({_NUM}){_AFTER_UNIT}\s+(?:to|->|→)\s+{_MONEY_SIGN}({_NUM})", re.IGNORECASE
    ),
    re.compile(
        rf"\bbetween\s+{_MONEY_SIGN}({_NUM}){_AFTER_UNIT}\s+and\s+{_MONEY_SIGN}({_NUM})", re.IGNORECASE
    ),
    re.compile(
        rf"(?<![\w.]){_MONEY_SIGN}({_NUM}){_AFTER_UNIT}\s+(?:to|->|→)\s+{_MONEY_SIGN}({_NUM})", re.IGNORECASE
    ),
    re.compile(
        rf"\b(?:was|were|used\s+to\s+(?:be|cost)|cost)\s+{_MONEY_SIGN}({_NUM}){_AFTER_UNIT}\s*[,;]?\s+"
        rf"(?:and\s+|but\s+)?(?:(?:it|they)\s+)?(?:is\s+|are\s+)?now\s+(?:costs?\s+|is\s+|are\s+|sells?\s+for\s+)?"
        rf"{_MONEY_SIGN}({_NUM})",
        re.IGNORECASE,
    ),
)
"""An old and a new value: "from A to B", "between A and B", "A to B" or "was A and now costs B" (with a
word of change such as
"change", "increase", "went", "drop" elsewhere in the question: "from 1 to 10, what percent are even" is
no change)."""
_RATE_ASKED_RE = re.compile(
    r"\b(?:growth|increase|decrease|decline|change|drop)\s+rate\b"
    r"|\brate\s+of\s+(?:growth|increase|decrease|decline|change)\b",
    re.IGNORECASE,
)
"""A change asked as a rate ("the growth rate"): a percentage when no time is given."""
_OVER_TIME_RE = re.compile(
    r"\b(?:annual(?:ly|ized)?|yearly|monthly|weekly|daily|per|a year|each|every|over|cagr|compound(?:ed)?|"
    r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?)\b",
    re.IGNORECASE,
)
_ASKED_PCT_RE = re.compile(rf"{_PCT}(?!\w)(?!\s+(?:of|out of)\b)", re.IGNORECASE)
_GIVEN_PCT_RE = re.compile(rf"\d\s*{_PCT}(?!\w)", re.IGNORECASE)


def _percent_change(text: str) -> str | None:
    """A question asking by what percentage a value changed from A to B, as ``((B - A) / A * 100)``:
    signed, so an increase is positive and a decrease negative (80 to 60 is -25); ``abs(A)`` when A is
    negative, as the ``percent_change`` tool does. ``None`` when ``text`` asks nothing of the kind
    (no percent asked for, a percentage given such as "10% of 50", or no single old and new value)."""
    if not (_ASKED_PCT_RE.search(text) or _RATE_ASKED_RE.search(text)) or _GIVEN_PCT_RE.search(text):
        return None
    if not _ASKED_PCT_RE.search(text) and (len(_NUMBER_RE.findall(text)) != 2 or _OVER_TIME_RE.search(text)):
        return None  # "from 100 to 200 over 5 years: the growth rate?" is per year
    for span in _CHANGE_SPANS:
        found = span.findall(text)
        if len(found) > 1 or (found and not _CHANGE_WORD_RE.search(text)):
            return None
        if found:
            old, new = found[0]
            base = f"abs({old})" if old.startswith("-") else old
            return f"(({new} - {old}) / {base} * 100)"
    return None


# Rounding: "round 83.333 to the nearest whole number", "22/7 to 3 decimal places", "then round it".
_PRECISION = (
    r"(?:\s+(?:to|at)\s+(?:"
    r"(?:the\s+)?nearest\s+(?P<near>whole(?:\s+numbers?)?|integers?|units?|ones?|dollars?|cents?|penny|pennies|"
    r"tenths?|hundredths?|thousandths?|\d+(?:\.\d+)?)"
    r"|(?:an?\s+|the\s+nearest\s+)?(?:whole\s+numbers?|integers?)"
    r"|(?P<places>\d+)\s+(?:decimal\s+places?|decimals?|d\.?p\.?|places?|decimal\s+digits?|"
    r"digits?\s+after\s+the\s+(?:decimal\s+)?point)))"
)
"""To what a value is rounded (a whole number when nothing is said)."""
_DIRECTION = r"(?:\s+(?P<dir>up|down|off))?"
_ROUND_VERB_RE = re.compile(
    rf"^round{_DIRECTION}\s+(?P<x>.+?)(?:\s+(?P<dir2>up|down))?{_PRECISION}?$", re.IGNORECASE
)
_ROUNDED_RE = re.compile(rf"^(?P<x>.+?),?\s+rounded{_DIRECTION}{_PRECISION}?$", re.IGNORECASE)
_TO_PRECISION_RE = re.compile(rf"^(?P<x>.+?){_PRECISION}$", re.IGNORECASE)
_ROUND_STEP_RE = re.compile(
    rf"^(?:round(?:\s+(?:it|that|this|the (?:result|answer|total)))?|rounded){_DIRECTION}{_PRECISION}?$",
    re.IGNORECASE,
)
_NEAREST_WORDS = {"cent": "0.01", "penny": "0.01", "pennie": "0.01", "tenth": "0.1", "hundredth": "0.01"}
_NEAREST_WORDS["thousandth"] = "0.001"


def _rounded(value: str, match: re.Match[str]) -> str:
    """``value`` rounded as ``match`` (of a rounding pattern) says: to a number of decimal places, to
    the nearest whole number, tenth, cent, 10, 0.5, ...; up (``ceil``) or down (``floor``). Round
    halves go away from zero (the evaluator's ``round``)."""
    groups = match.groupdict()
    direction = (groups.get("dir") or groups.get("dir2") or "").lower()
    function = {"up": "ceil", "down": "floor"}.get(direction, "round")
    near = (groups.get("near") or "").lower()
    if groups.get("places"):
        unit = Decimal(1).scaleb(-int(groups["places"]))
    elif near and near[0].isdigit():
        unit = Decimal(near)
    else:
        unit = Decimal(_NEAREST_WORDS.get(near.removesuffix("s"), "1"))
    if unit == 1:
        return f"{function}({value})"
    _, digits, exponent = unit.normalize().as_tuple()
    if function == "round" and digits == (1,):
        return f"round({value}, {-int(exponent)})"
    if digits == (1,) and int(exponent) < 0:
        scale = 10 ** -int(exponent)
        return f"({function}(({value}) * {scale}) / {scale})"
    return f"({function}(({value}) / {unit}) * {unit})"


def _rounding(text: str) -> str | None:
    """A clause that rounds a value ("round 83.333 to the nearest whole number", "10 / 3 rounded to
    2 decimal places", "22/7 to 3 decimal places"), or ``None``."""
    match = _rounding_match(text)
    if match is None:
        return None
    value = _operand(match.group("x"))
    if not has_operation(value):
        # a conversion rounded ("10 km in miles, rounded to one decimal"): the conversion's arithmetic
        conversion = read_conversion(match.group("x"))
        value = value if conversion is None else conversion.expression
    return _rounded(value, match)


def _rounding_match(text: str) -> re.Match[str] | None:
    """The rounding pattern ``text`` matches (its ``x`` the value rounded, never just "it"), or ``None``."""
    for pattern in (_ROUND_VERB_RE, _ROUNDED_RE, _TO_PRECISION_RE):
        match = pattern.match(text)
        if match is not None and not re.fullmatch(r"it|that|this", match.group("x"), re.IGNORECASE):
            return match
    return None


# Word problems of one operation: "3 boxes with 12 eggs each", "60 km per hour for 3 hours", "a ticket
# costs $8: what do 5 tickets cost?", "share 24 cookies equally among 6 friends".
_LINK = (
    r"(?:with|of|containing|holding|having|has|have|at|for|costing|costs?|priced at|(?:that|which) costs?|"
    r"weighing|weighs?)"
)
"""What joins the things counted to the amount each one has, costs or weighs."""
_NOUN = r"(?!(?:each|apiece|per|with|of|at|for|in|an?|every|and|or)\b)[a-z][a-z'’-]*"
_NOUNS = rf"{_NOUN}(?:\s+{_NOUN}){{0,2}}"
"""What is counted or measured: up to three words ("eggs", "red apples", "US dollars")."""
_MONEY = r"[$€£]?"
_HAS = r"(?:costs?|is|weighs?|holds?|has|contains?|gets?|earns?|makes?|pays?|needs?|takes?|uses?|seats?)"
"""What one thing has, costs or takes ("a ticket costs $8", "a bus seats 40")."""
_ONE = (
    r"(?:\b(?:a|an|each|one|every)|(?<![\w.])1)\s+(?:[a-z]+\s+)?(?P<thing>[a-z]+?)"
    r"(?:\s+of\s+(?:(?:my|our|your|his|her|their|the|a|an)\s+)?[a-z]+)?"
)
"""One thing, maybe with a word before it or what it holds or is part of after it ("a movie ticket", "a box of
pencils", "each row of my scarf")."""
_EACH = r"(?:each|apiece|a piece|per (?:piece|item|unit|one)|(?:in|for|per) (?:each|every) [a-z]+)"
"""How a problem says the amount is for one thing ("each", "apiece", "in each class")."""
_RATE = r"(?:per|an?|every|each|in (?:a|an|one|each|every)|for (?:a|an|one|each|every))"
"""How a problem says the amount is for one unit ("per hour", "a day", "in a week")."""
_GROUPS = (
    r"(?:rows|columns|lines|boxes|packs|packets|bags|crates|cases|cartons|sets|groups|teams|stacks|shelves|"
    r"trays|bundles|batches|rolls|piles|baskets|buckets|jars|bunches|layers|floors|blocks|sheets|pages)"
)
"""Groups that hold a number of things each ("6 rows of 15 plants")."""
_PRODUCTS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "3 boxes with 12 eggs each", "7 apples at 2 dollars each", "12 classes with 25 students in each
        # class"
        rf"(?<![\w.])(?P<a>{_NUM})\s+{_NOUNS}\s+(?:of\s+{_NOUNS}\s+)?{_LINK}\s+{_MONEY}(?P<b>{_NUM})"
        rf"(?:\s+{_NOUNS})?\s+{_EACH}\b",  # "6 rows of chairs with 12 chairs in each row" too
        # "3 boxes, each holding 12 eggs", "my 4 kids each get 5 dollars", "I have 3 kids. If each gets $20"
        rf"(?<![\w.])(?P<a>{_NUM})\s+{_NOUNS}(?:\s*[,.;]\s*|\s+)(?:(?:and|if|so|when)\s+)?"
        rf"each(?:\s+of\s+them|\s+one)?\s+[a-z]+(?:\s+at)?\s+{_MONEY}(?P<b>{_NUM})(?!\w|\.\d)",
        # "each of my 5 shelves holds 30 books"
        rf"\beach of (?:[a-z]+\s+)?(?P<a>{_NUM})\s+{_NOUNS}\s+{_HAS}\s+{_MONEY}(?P<b>{_NUM})(?![\w.])",
        # "6 rows of 15 plants", "4 packs of 6 cans" (not "3 slices of 8": a part of a whole)
        rf"(?<![\w.])(?P<a>{_NUM})\s+(?:[a-z]+\s+)?{_GROUPS}\s+of\s+(?P<b>{_NUM})\s+[a-z]+",
        # "60 km per hour for 3 hours", "7 days in a week: how many in 9 weeks?", "30 pages a minute: in 5
        # minutes?"
        rf"(?<![\w.]){_MONEY}(?P<b>{_NUM})\s+(?:{_NOUNS}\s+)?{_RATE}\s+(?P<unit>[a-z]+)\b"
        rf".*?(?<![\w.])(?P<a>{_NUM})\s+(?P=unit)s?\b",
        # "A pizza costs 12 dollars. How much do 4 pizzas cost?", "a box of pencils has 12 pencils: 5 boxes?"
        rf"{_ONE}\s+{_HAS}\s+{_MONEY}(?P<b>{_NUM})(?!\w|\.\d)"
        rf".*?(?<![\w.])(?P<a>{_NUM})\s+(?P=thing)(?:e?s)?\b",
        # "Each apple costs $2. How much for 6?": the count asked alone at the end
        rf"{_ONE}\s+{_HAS}\s+{_MONEY}(?P<b>{_NUM})(?!\w|\.\d)[^?]*?\bhow\s+much\s+(?:for|would|will|do|does|are|is)\b"
        rf"[^\d?]*?(?<![\w.])(?P<a>{_NUM})\s*[?.!]*\s*$",
        # "Concert tickets are 35 dollars each. How much for 4 tickets?"
        rf"\b(?P<thing>[a-z]+?)(?:e?s)\s+(?:are|cost|sell for|go for)\s+{_MONEY}(?P<b>{_NUM})"
        rf"(?:\s+{_NOUNS})?\s+(?:each|apiece)\b.*?(?<![\w.])(?P<a>{_NUM})\s+(?P=thing)(?:e?s)?\b",
        # "A shop sells apples at $0.50 each. How much for 18 apples?"
        rf"\b(?:sells?|sold|selling)\s+(?P<thing>[a-z]+?)(?:e?s)\s+(?:at|for)\s+{_MONEY}(?P<b>{_NUM})"
        rf"\s+(?:each|apiece|a piece)\b.*?(?<![\w.])(?P<a>{_NUM})\s+(?P=thing)(?:e?s)?\b",
        # "A shirt costs $25 and I buy 4", "Apples are $2 each. I buy 6.": a price, then how many bought
        rf"(?:{_ONE}\s+(?:costs?|is|sells? for)|\b[a-z]+?e?s\s+(?:are|cost|sell for))\s+{_MONEY}(?P<b>{_NUM})"
        rf"(?:\s+{_NOUNS})?(?:\s+{_EACH})?\s*[,.;]?\s*(?:and\s+|so\s+|if\s+)?(?:i|we|you|they|he|she)\s+"
        rf"(?:buy|get|order|purchase|need|want|take)\s+(?P<a>{_NUM})(?!\w|\.\d)",
        # "I buy 4 shirts at $25": bought at a price, each (a price "for" them may be their total)
        rf"\b(?:buy|bought|get|got|order|ordered|purchase|purchased)\s+(?P<a>{_NUM})\s+{_NOUNS}\s+at\s+"
        rf"{_MONEY}(?P<b>{_NUM})(?!\w|\.\d)",
    )
)
_SHARE_VERB = (
    r"(?:shared?|shares|split|splits|divided?|divides|distributed?|distributes|spread|gives?|given|hands?|"
    r"handed|deals?|dealt)"
)
_QUOTIENTS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "24 cookies shared equally among 6 friends", "48 marbles and gives them equally to 8 friends"
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\s+{_NOUNS}\s+(?:(?:and|are|is|were|was)\s+)?(?:[a-z]+\s+){{0,2}}?"
        rf"{_SHARE_VERB}\s+(?:them\s+|it\s+)?(?:out\s+)?(?:equally\s+|evenly\s+)?"
        rf"(?:among|between|across|into|by|to)\s+(?P<b>{_NUM})\b",
        # "split a 90 dollar bill evenly between 3 friends", "share $60 among 4 people"
        rf"\b{_SHARE_VERB}\s+(?:up\s+)?(?:a|an|the|my|our|his|her|their)?\s*{_MONEY}(?P<a>{_NUM})(?:\s+{_NOUNS})?\s+"
        rf"(?:equally\s+|evenly\s+)?(?:among|between|across|into|by|with)\s+(?P<b>{_NUM})\b",
        # "9 people share a $1,386 cabin", "4 friends split a 90 dollar bill": the sharers first
        rf"(?<![\w.])(?P<b>{_NUM})\s+"
        rf"(?:people|persons|friends|of us|roommates|kids|children|colleagues|guests)\s+"
        rf"(?:(?:will|want to|have to|are going to|need to)\s+)?{_SHARE_VERB}\s+(?:up\s+)?"
        rf"(?:a|an|the|my|our|their)?\s*{_MONEY}(?P<a>{_NUM})\b",
        # "A pizza has 8 slices and 3 people share it equally": the things, then the sharers
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\s+{_NOUNS}\s*,?\s+and\s+(?P<b>{_NUM})\s+"
        rf"(?:people|persons|friends|of us|roommates|kids|children|colleagues|guests|students)\s+"
        rf"(?:(?:will|want to|have to|are going to|need to)\s+)?{_SHARE_VERB}\b",
        # "split a 90 dollar bill 3 ways"
        rf"\b{_SHARE_VERB}\s+(?:up\s+)?(?:a|an|the|my|our|his|her|their)?\s*{_MONEY}(?P<a>{_NUM})(?:\s+{_NOUNS})?\s+"
        rf"(?:equally\s+|evenly\s+)?(?P<b>{_NUM})\s+ways\b",
        # "Tim has 45 candies. He wants to share them equally among 9 friends.": the things, then "them"
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\s+{_NOUNS}\b[^?!]{{0,60}}?\b{_SHARE_VERB}\s+(?:them|it)\s+(?:out\s+)?"
        rf"(?:equally\s+|evenly\s+)?(?:among|between|with|to)\s+(?P<b>{_NUM})\b",
        # "There are 24 students and 4 groups. How many students per group?": the things, the groups, and
        # how many in each group asked
        rf"(?<![\w.])(?P<a>{_NUM})\s+{_NOUNS}\s*,?\s+and\s+(?P<b>{_NUM})\s+(?P<group>[a-z]+?)(?:e?s)?\b"
        rf"[^?]*?\bhow many\b[^?]*?\b(?:per|in each|for each|in every|on each|at each)\s+(?P=group)\b",
        # "travels 300 km in 3 hours: what is its speed?", "earns 120 dollars in 8 hours: how much per hour?"
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\s+(?:{_NOUNS}\s+)?in\s+(?P<b>{_NUM})\s+[a-z]+\b"
        rf".*\b(?:speed|rate|pace|per|an? (?:hour|minute|second|day|week|month|year)|each|average)\b",
    )
)
_TAKEN = (
    r"(?:gives?\s+away|gave\s+away|eats?|ate|loses?|lost|sells?|sold|spends?|spent|uses?\s+up|used\s+up|uses?|"
    r"used|breaks?|broke|drops?|dropped|donates?|donated|throws?\s+away|threw\s+away|takes?\s+away|took\s+away|"
    r"removes?|removed|takes?|took|lends?\s+out|lent\s+out|pays?|paid|withdraws?|withdrew|drinks?|drank|cuts?\s+down|"
    r"gives?|gave)"
)
"""What takes some away from an amount one has ("sold 29", "spent 45 dollars", "gives away 18")."""
_WENT = (
    r"(?:(?:are|is|were|was|get|got|have\s+been|has\s+been)\s+(?:[a-z]+\s+)?"
    r"(?:used|sold|eaten|lost|broken|taken|given\s+away|removed|spent|borrowed|lent\s+out)|"
    r"ran\s+away|run\s+away|flew\s+away|fly\s+away|swam\s+away|left|leave|got\s+off|get\s+off|"
    r"went\s+home|go\s+home|melted|died|popped|broke|fell\s+off|(?:have|has)\s+(?:passed|gone(?:\s+by)?|elapsed)|"
    r"passed|went\s+by|are\s+gone|is\s+gone)"
)
"""What some of them did, said after their number ("23 ran away", "180 liters are used", "12 left", "17 have
passed")."""
_LEFT = r"\b(?:left|remain|remains|remaining|still)\b"
"""The question asks what is left."""
_LEFT_OR_HAD_NOW = rf"(?:{_LEFT}|\bhow\s+(?:many|much)\b[^.?!]*\b(?:do|does)\s+\w+\s+have\b)"
"""The question asks what is left, or what there is now ("He eats 2 apples. How many does he have?")."""
_GAINED = (
    r"(?:gets?|got|receives?|received|buys?|bought|finds?|found|earns?|earned|adds?|added|wins?|won|"
    r"picks?|picked|collects?|collected|gains?|gained|gives?|gave|brings?|brought|makes?|made|saves?|saved)"
)
_TOTAL = r"\b(?:in total|altogether|in all|all together|combined|together|total)\b"
"""The question asks for the two amounts together."""
_KINDS = (
    r"(?:pets|animals|fruits?|vegetables|veggies|toys|books|items|things|kids|children|siblings|vehicles"
    r"|pieces|coins|flowers|plants|birds|people|students|balls|snacks|drinks)"
)
"""Words for things of several kinds counted together ("3 cats and 2 dogs": how many pets)."""
_DIFFERENCES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "Maria baked 36 muffins and sold 29 of them: how many are left?", "Ben had 120 dollars and spent 45"
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\b.*?\b{_TAKEN}\s+(?:(?:[a-z]+\s+){{0,3}}?)?{_MONEY}(?P<b>{_NUM})\b"
        rf".*{_LEFT_OR_HAD_NOW}",
        # "A farmer had 90 sheep. 23 ran away: how many are left?", "500 liters … 180 liters are used"
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\b.*?(?<![\w.]){_MONEY}(?P<b>{_NUM})\s+(?:{_NOUNS}\s+)?{_WENT}\b"
        rf".*{_LEFT_OR_HAD_NOW}",
        # "Tom ate 3 of his 12 cookies: how many are left?"
        rf"\b{_TAKEN}\s+{_MONEY}(?P<b>{_NUM})\s+of\s+(?:his|her|their|the|my|our|its|your)\s+{_MONEY}"
        rf"(?P<a>{_NUM})\b.*{_LEFT_OR_HAD_NOW}",
    )
)
_SUMS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "Sam has 14 stickers. His sister gives him 9 more.", "58 people on a train and 17 more got on"
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\b.*?(?<![\w.]){_MONEY}(?P<b>{_NUM})\s+more\b(?!\s+than\b)",
        # "42 shells on Monday and 35 shells on Tuesday: how many in total?" (the same things, counted twice)
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\s+(?P<thing>[a-z]+?)(?:e?s)?\b.*?(?<![\w.]){_MONEY}(?P<b>{_NUM})\s+"
        rf"(?P=thing)(?:e?s)?\b.*{_TOTAL}",
        # "I have 3 cats and 2 dogs. How many pets do I have?": things of a kind, asked for by it or in total
        rf"(?<![\w.]){_MONEY}(?P<a>{_NUM})\s+[a-z]+\b[^.?!:]*?\band\s+{_MONEY}(?P<b>{_NUM})\s+[a-z]+\b"
        rf".*\bhow many\s+(?P<kinds>{_KINDS}\b|(?:(?:do|does|did)\s+\w+\s+(?:have|own|get|keep)\s+"
        rf"|are there\s+)?{_TOTAL})",
    )
)
_NOT_A_THING = frozenset(
    {
        "of",
        "to",
        "on",
        "at",
        "in",
        "for",
        "from",
        "and",
        "or",
        "but",
        "so",
        "then",
        "with",
        "by",
        "into",
        "up",
        "down",
        "over",
        "out",
        "off",
        "away",
        "more",
        "each",
        "today",
        "yesterday",
        "now",
        "later",
        "this",
        "that",
        "these",
        "those",
        "it",
        "them",
        "are",
        "is",
        "were",
        "was",
        "be",
        "been",
        "have",
        "has",
        "had",
        "will",
        "would",
        "can",
        "could",
        "got",
        "get",
        "gets",
        "came",
        "come",
        "comes",
        "arrived",
        "arrive",
        "joined",
        "join",
        "went",
        "go",
        "ran",
        "run",
        "flew",
        "fly",
        "swam",
        "left",
        "leave",
        "melted",
        "died",
        "popped",
        "broke",
        "fell",
        "fewer",
        "less",
    }
)
"""Words that may follow a number without naming what it counts ("sold 29 of them", "23 ran away")."""


def _same_things(text: str, match: re.Match[str]) -> bool:
    """Whether a difference's or a sum's two numbers count the same things: the word after B, when it names
    a thing, is the word after A ("spent 45 dollars" of "120 dollars"; not "3 books" of "20 dollars")."""
    after_a = re.match(r"\s+([a-z]+)", text[match.end("a") :], re.IGNORECASE)
    after_b = re.match(r"\s+(?:more\s+)?([a-z]+)", text[match.end("b") :], re.IGNORECASE)  # "3 more books"
    if after_b is None or after_b.group(1).lower() in _NOT_A_THING:
        return True
    if after_a is None:
        return False
    a, b = after_a.group(1).lower(), after_b.group(1).lower()
    return a == b or a.rstrip("s") == b.rstrip("s") or a.removesuffix("es") == b.removesuffix("es")


_NUMBER_RE = re.compile(rf"(?<![\w.]){_NUM}(?!\w|\.\d)")  # "87." ends a sentence
_A_RATE_RE = re.compile(r"\s+(?:per|an?|every|each)\s+[a-z]+", re.IGNORECASE)
"""A unit per another ("8 hours a day"), after a number of units."""
_ONE_THING_RE = re.compile(r"(?<![\w.])1\s+(?=[a-z])", re.IGNORECASE)
"""A "1" before a word names one thing ("if one apple weighs 150 grams"): it is not an operand."""


_ASKED_UNIT_RE = re.compile(
    r"\bhow (?:many|much)\s+(?P<u>[a-z][a-z ]*?)(?=\s+(?:is|are|does|do|did|will|would|can|in|of|to|for|"
    r"that|it|there)\b|\s*[?.!,]|$)"
    r"|\b(?:in|into) (?P<end>[a-z][a-z ]*?)\s*[?.!]*$",
    re.IGNORECASE,
)
"""The unit a question asks its answer in: "how many metres does it cover", "... in hours"."""


def _in_asked_unit(expression: str, given: str | None, text: str) -> str | None:
    """``expression``, an amount of the unit ``given`` (a word after the amount, maybe no unit: "eggs"), in
    the unit ``text`` asks for ("how many metres", "... in hours"): converted when both are units of one
    kind ("3 cm per minute: how many metres in 2 hours?" is ``((3 * 2 * 60) * 10 / 1000)``), as it is when
    no unit is asked (or the same one), ``None`` when the unit asked is not one the amount converts into
    (an answer in the wrong unit is worse than none)."""
    asked = None
    for match in _ASKED_UNIT_RE.finditer(text):
        word = (match.group("u") or match.group("end")).strip().lower()
        if word in _UNIT_OF and word not in _AMBIGUOUS_UNITS:
            asked = word
    if asked is None:
        return expression
    source = _UNIT_OF.get((given or "").lower())
    goal = _UNIT_OF[asked]
    if source is None or source[0] != goal[0]:
        return None
    if source[1] == goal[1]:
        return expression
    inner = expression[1:-1] if _grouped(expression[1:-1]) == expression else expression
    scale = "" if source[1] == "1" else f" * {source[1]}"
    return f"({inner}{scale} / {goal[1]})"


def _word_problem(text: str) -> str | None:
    """A word problem of one operation on its two numbers, or ``None``.

    A product ``(A * B)``: A things of B each ("3 boxes with 12 eggs each", "7 apples at 2 dollars
    each", "3 boxes, each holding 12 eggs", "each of my 5 shelves holds 30 books", "6 rows of 15
    plants"), B per unit over A units ("60 km per hour for 3 hours", "45 loaves a day: how many in 7
    days?") or one thing at B, then A of them ("A pizza costs 12 dollars. How much do 4 pizzas
    cost?", "tickets are 35 dollars each: 4 tickets?"). A quotient ``(A / B)``: A shared among B ("24
    cookies shared equally among 6 friends", "split a 90 dollar bill between 3"). A difference
    ``(A - B)`` when the question asks what is left: B of A sold, spent, eaten, gone ("baked 36 muffins
    and sold 29: how many are left?", "had 90 sheep; 23 ran away", "ate 3 of his 12 cookies"). A sum
    ``(A + B)``: B more ("has 14 stickers; gets 9 more"), or the same things counted twice and asked
    for in total ("42 shells on Monday and 35 shells on Tuesday: how many in total?"). ``None`` unless
    ``text`` holds exactly two numbers (a "1" naming one thing, "one apple", not counted): with more
    the problem is not one operation.
    """
    if len(_NUMBER_RE.findall(_ONE_THING_RE.sub(" ", text))) != 2 or _GIVEN_PERCENT_RE.search(text):
        return None  # "spend 25% of it" is no count of 25
    for patterns, form in (
        (_QUOTIENTS, "({a} / {b})"),
        (_PRODUCTS, "({a} * {b})"),
        (_DIFFERENCES, "({a} - {b})"),
        (_SUMS, "({a} + {b})"),
    ):
        for pattern in patterns:
            match = pattern.search(text)
            if match is None:
                continue
            if patterns is _DIFFERENCES and re.match(r"\s+more\b", text[match.end("b") :], re.IGNORECASE):
                continue  # "His friend gives him 6 more": gained, not given away
            kinds = match.groupdict().get("kinds") is not None  # cats and dogs are pets: no same things
            if patterns in (_DIFFERENCES, _SUMS) and not kinds and not _same_things(text, match):
                return None  # apples from dollars: not one operation on the same things
            if "unit" in match.groupdict() and _A_RATE_RE.match(text, match.end()):
                return None  # "$20 an hour, 8 hours a day": the time is a rate of its own
            if patterns is _QUOTIENTS and re.match(rf"\s*{_TIME_UNIT}\b", text[match.end("b") :], re.I):
                return None  # "96 km in 45 minutes": read by _amount_per_time, in the unit asked
            expression = form.format(a=match.group("a"), b=match.group("b"))
            if patterns is _PRODUCTS:
                unit = re.match(r"\s*([a-z]+)", text[match.end("b") :], re.IGNORECASE)
                return _in_asked_unit(expression, unit.group(1) if unit else None, text)
            return expression
    return None


# A price changed by a percent: "25% off $40", "$60 plus 8% tax", "split an $84 bill 4 ways with a 15% tip".
_GIVEN_PERCENT_RE = re.compile(rf"(?<![\w.])({_NUM})\s*(?:%|percent\b|per cent\b|pct\b)", re.IGNORECASE)
_LOWERED_RE = re.compile(
    r"\b(?:off|discount(?:s|ed)?|mark(?:ed)?[\s-]?downs?|sales?(?!\s+tax)|clearance|reduced|reductions?|rebates?|"
    r"cheaper|sav(?:e|es|ed|ing|ings)|decrease[sd]?|cuts?|drops?|dropped|lowered|fell|fallen)\b",
    re.IGNORECASE,
)
"""What lowers a price by the percent: a discount, a sale, a markdown, "25% off", a cut."""
_RAISED_RE = re.compile(
    r"\b(?:tips?|tipping|tipped|gratuity|tax(?:es|ed)?|vat|gst|hst|mark(?:ed)?[\s-]?ups?|surcharges?|"
    r"service (?:charges?|fees?)|fees?|increase[sd]?|raise[sd]?|rise|rose|risen|hikes?|hiked)\b",
    re.IGNORECASE,
)
"""What raises a price by the percent: a tip, a tax, VAT, a markup, a surcharge, a fee, a raise."""
_PRICE_PART = (
    r"(?:tips?|gratuity|tax(?:es)?|vat|gst|hst|discount|mark-?up|surcharge|service (?:charge|fee)|fee|"
    r"savings?|reduction|rebate)"
)
_PRICE_PART_ASKED = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "how much is the tip", "what's the tax", "what is a 15% tip on 60", "how much tax do I pay"
        rf"\b(?:how much|how big|what|what's|whats|what’s|calculate|compute|find|work out|figure out)\s+"
        rf"(?:(?:is|are|was|were|will|would|should|be|the|a|an|my|our|your|his|her|their)\s+){{0,3}}"
        rf"(?:{_NUM}\s*{_PCT}\s+)?(?:(?:sales|state|city|local|service)\s+)?{_PRICE_PART}\b"
        r"(?!\s+(?:price|cost|total|bill))",
        # "how much should I tip", "how much money do we save"
        r"\bhow much (?:(?:money|do|does|did|will|would|can|could|should|i|we|you|he|she|they)\s+){1,3}"
        r"(?:save|tip)\b",
        r"\b(?:amount|size|value) of (?:the )?" + _PRICE_PART + r"\b",
        # a tip or a tax named on the price, alone: "tip of 20% on $45.50", "8% tax on 60"
        # (a discount named so is ambiguous: "25% discount on $80" stays the price paid)
        rf"^\W*(?:(?:a|an|the)\s+)?(?:{_NUM}\s*{_PCT}\s+)?(?:tips?|gratuity|tax(?:es)?|vat|gst|hst)\s+"
        rf"(?:of\s+{_NUM}\s*{_PCT}\s+)?on\b",
    )
)
"""A question asking for the tip, the tax or the discount itself rather than the price with it."""
_TOTAL_ASKED_RE = re.compile(
    r"\b(?:total|final|altogether|in all|all together|overall|each|apiece|per (?:person|head)|"
    r"how much (?:do|does|did|will|would|should|must|can) (?:i|we|you|he|she|they) (?:have to )?(?:pay|owe)"
    r"(?!\s+(?:in|as|for)\s+(?:the\s+)?(?:tax|tips?|vat)))\b",
    re.IGNORECASE,
)
"""A question asking for the price with the change (with one asking for the tip itself: two answers)."""
_BEFORE_WORDS = (
    r"original(?:ly)?|before|initial(?:ly)?|pre-?(?:tax|tip|discount|sale)|regular|full price|list price|"
    r"usual(?:ly)?|normal(?:ly)?|used to"
)
"""Words naming the price before a change ("the original price", "before tax", "it used to cost")."""
_AFTER_GIVEN = (
    rf"\b(?:reduced|dropped|fell|fallen|lowered|cut|marked down|discounted|raised|increased|rose|risen|"
    rf"went (?:up|down)|brought|comes|came|goes|gone)\b[^.?!]*?\bto\s+{_NUM}"
    rf"|\bnow\s+(?:(?:costs?|sells?|for|is|are|at|priced|only|just)\s+)*{_NUM}"
    rf"|\bafter\b[^.?!]*?\b(?:costs?|is|are|was|were|sells? for|sold for|paid|pays?|priced at|comes? to|"
    rf"came to|totals?|totall?ed)\s+(?:only\s+|just\s+)?{_NUM}"
    rf"|\b(?:costs?|cost me|paid|pays?|spent|came to|comes to|totals?|totall?ed|was|were|"
    rf"(?<!what )(?<!what's )(?<!how much )(?:is|are))\s+(?:only\s+|just\s+)?{_NUM}\s+"
    rf"(?:including|incl\b|inclusive|after)"
    rf"|\b(?:paid|spent|was charged|were charged|got it for|bought it for|sold (?:it )?for)\s+{_NUM}"
    rf"|\b(?:sale|final|discounted|reduced|new|after-tax)\s+(?:price|cost|amount|bill)\s+"
    rf"(?:is|was|=|comes to|came to)\s+{_NUM}"
)
"""A price given as the one after the change ("after a 25% discount it costs $30", "reduced by 20% to $40",
"paid $45", "$54 including tax")."""
_AFTER_GIVEN_RE = re.compile(_AFTER_GIVEN, re.IGNORECASE)
_PAID_PRICE_RE = re.compile(rf"\b(?:{_BEFORE_WORDS})\b|{_AFTER_GIVEN}", re.IGNORECASE)
"""The price given is the one after the change, or the question is about the price before it ("what was
the original price?"): not one step of the form ``A * (100 ± P) / 100`` (:func:`_price_before_or_after`)."""
_ORIGINAL_GIVEN_RE = re.compile(
    r"\b(?:original(?:ly)?|regular(?:ly)?|list|usual(?:ly)?|normal(?:ly)?|full|initial(?:ly)?|used to)\b"
    r"(?:\s+(?:price[sd]?|cost(?:s|ing)?|sells?|sold|was|were|is|are|of|at|for|be|sell)\b)*"
    rf"\s*[$€£]?\s*(?P<n>{_NUM})(?!\s*{_PCT})",
    re.IGNORECASE,
)
"""A price given as the one before the change: "originally cost $40", "the regular price is $80"."""
_BEFORE_ASKED_RE = re.compile(
    r"\b(?:what|what's|whats|what’s|how much|find|calculate|compute|work out|figure out)\b[^.?!]*?"
    rf"\b(?:{_BEFORE_WORDS}|without (?:the )?(?:tax|tip|vat|discount|mark-?up|raise|fee)|excluding)\b",
    re.IGNORECASE,
)
"""A question asking for the price before the change ("What was the original price?", "the price before
tax?", "How much was it without the tip?")."""
_PEOPLE = (
    r"(?:people|persons|friends|freinds|frends|guests|diners|colleagues|coworkers|co-workers|roommates|"
    r"flatmates|pals|buddies|mates|teammates|players|"
    r"kids|children|students|family members|members|adults|of us|ways)"
)
_SHARE_CUE_RE = re.compile(
    r"\b(?:split|splits|splitting|share[sd]?|sharing|divide[sd]?|dividing|each|apiece|evenly|equally|"
    r"per (?:person|head)|a head)\b|(?<![\w.])\d+(?:\.\d+)?\s+ways\b",
    re.IGNORECASE,
)
_SHARE_COUNT_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"(?<![\w.])(?P<n>{_NUM})\s+ways\b",  # "split it 4 ways"
        rf"\b(?:among|between|by|for)\s+(?:the\s+|us\s+)?(?P<n>{_NUM})(?:\s+{_PEOPLE})?(?![\w.])",
        rf"(?<![\w.])(?P<n>{_NUM})\s+{_PEOPLE}\b",  # "4 friends split a bill"
    )
)
"""How many share the price ("4 ways", "among 4", "4 friends"), with a word of sharing elsewhere."""
_WITH_RE = re.compile(r"\bwith\s+(?:my\s+|our\s+)?$", re.IGNORECASE)
_SHARED_WITH_RE = re.compile(
    r"\b(?:split|splits|splitting|share[sd]?|sharing|divide[sd]?|dividing)\b[^,.;]*$", re.IGNORECASE
)
_PEOPLE_COUNTED_RE = re.compile(r"\b(?:people|persons)$", re.IGNORECASE)


def _with_others(before: str, count: str) -> bool:
    """Whether the number sharing, ``count`` after ``before``, may leave out the one speaking: "split it
    with 3 friends" (3 or 4 shares?). A group "with 3 people" ("We owe $210 for dinner, with 3 people")
    counts the people, unless a word of sharing leads to it ("split it with 3 people": 3 or 4?)."""
    if not _WITH_RE.search(before):
        return False
    return not _PEOPLE_COUNTED_RE.search(count) or _SHARED_WITH_RE.search(before) is not None


_OTHER_OPERATION_RE = re.compile(
    r"[*/^×÷]|\b(?:double|twice|triple|thrice|half|halve|square[sd]?|cube[sd]?|times|multipl\w*|divided by|"
    r"minus|subtract\w*|root|power|factorial|average|mean|sum|product|difference|quotient|remainder|then|"
    r"per cent of|percent of|of it)\b|%\s+of\b",
    re.IGNORECASE,
)
"""Words of another operation: the text is more than a price changed by a percent."""


_CAME_TO_RE = re.compile(r"\b(?:came|comes|come)\s+(?:out\s+)?to\b", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"(?:[^.?!;]|\.(?=\d))+")


def _came_to_stated(text: str) -> str:
    """``text`` with what a bill "came to" said as what it "was", in a sentence without a percent: asked
    for the tip on it ("Our lunch came to $64.50. How much is a 20% tip?"), the amount is the bill before
    the tip; one stated with the percent ("came to $64.50 with a 20% tip") stays the price after it."""
    return _SENTENCE_RE.sub(
        lambda s: s.group() if _GIVEN_PERCENT_RE.search(s.group()) else _CAME_TO_RE.sub("was", s.group()),
        text,
    )


_DEDUCTED_RE = re.compile(
    r"\b(?:goes|go|went|gone|going)\s+(?:to|on|in|towards?)\b|\b(?:is|are|gets?|got|was|were|been)\s+"
    r"(?:taken|deducted|withheld|held back|removed|kept back|paid)\b|\b(?:taken|deducted|withheld)\s+"
    r"(?:off|out|from|for)\b|\b(?:deduct(?:s|ed|ion|ions)?|withh[eo]ld(?:s|ing)?|take[sn]?\s+out|comes?\s+off)\b",
    re.IGNORECASE,
)
"""A percent taken out of an amount ("22% goes to tax", "15% is withheld", "20% is deducted for tax")."""
_KEPT_ASKED_RE = re.compile(
    r"\b(?:take[\s-]?home|takes?\s+home|keep|keeps|kept|net|left|remains?|remaining|after\s+tax(?:es)?|"
    r"in\s+(?:my|your|his|her|their|our)\s+pocket)\b",
    re.IGNORECASE,
)
"""A question asking what is kept of an amount after a part is taken out ("how much do I take home?")."""


# A percent earned on an amount: "6% commission on my sales … I sold $14,500: my commission?".
_EARNED_KIND_RE = re.compile(
    r"\b(?:commission|interest|dividends?|royalt(?:y|ies)|returns?|yield|bonus)\b", re.IGNORECASE
)
"""What a percent earns on an amount (never a discount or a tax: the amount is not changed by it)."""
_INCOME_TAXED_RE = re.compile(
    r"\b(?:earn|earns|earned|earning|salary|income|wages?|gross)\b(?:(?!\bplus\b)[^.?!])*"
    r"\b(?:pay|pays|paying|with|taxed)\b(?:(?!\bplus\b)[^.?!])*\btax(?:es)?\b",
    re.IGNORECASE,
)
"""A tax someone pays on what they earn ("I earn $52,000 a year and pay 20% tax", "a salary of 4000 with 30%
tax"): taken off it, never added ("$3,100 a month plus 18% tax" says neither)."""
_EARNED_ASKED_RE = re.compile(
    r"\b(?:what(?:'s| is| will be)?|how much)\b[^.?!]*\b(?:commission|interest|dividends?|royalt(?:y|ies)|"
    r"returns?|yield|bonus|earn|make|get)\b[^.?!]*(?:\?|$)",
    re.IGNORECASE,
)
_SPAN_RE = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s+(?:years?|months?|weeks?|days?)\b", re.IGNORECASE)


# Interest over several periods and loan payments: "the compound interest on $1000 at 5% for 3 years",
# "the monthly payment on a $20,000 loan at 6% for 5 years".
_COMPOUND_RE = re.compile(r"\bcompound(?:ed|ing)?\b", re.IGNORECASE)
_SIMPLE_RE = re.compile(r"\bsimple interest\b", re.IGNORECASE)
_PERIODS_A_YEAR = {
    "annually": 1, "yearly": 1, "annual": 1, "semi-annually": 2, "semiannually": 2, "half-yearly": 2,
    "quarterly": 4, "monthly": 12, "weekly": 52, "daily": 365,
}  # fmt: skip
_FREQUENCY_RE = re.compile(
    r"\bcompounded\s+(?P<f>semi-?annually|half-yearly|annually|yearly|quarterly|monthly|weekly|daily)\b",
    re.IGNORECASE,
)
_YEARS_RE = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<unit>years?|months?)\b", re.IGNORECASE)
_INTEREST_ASKED_RE = re.compile(
    r"\b(?:(?:compound|simple)\s+)?interest\s+(?:on|of|earned|for)\b|\bhow much interest\b"
    r"|\binterest\s+(?:will|would|do|does|is)\b",
    re.IGNORECASE,
)
"""A question asking for the interest itself, not what the amount grows to."""
_LOAN_RE = re.compile(r"\b(?:loan|mortgage|borrow(?:ed|ing)?|financ(?:e|ed|ing))\b", re.IGNORECASE)
_PAYMENT_ASKED_RE = re.compile(
    r"\b(?:monthly|yearly|annual|weekly)?\s*(?:payments?|installments?|repayments?)\b"
    r"|\bpay (?:each|every|per|a) (?:month|year|week)\b",
    re.IGNORECASE,
)


def _rate_amount_years(text: str) -> tuple[str, str, float] | None:
    """The one percent, the one other amount and the span in years of an interest or loan question."""
    percents = _GIVEN_PERCENT_RE.findall(text)
    spans = list(_YEARS_RE.finditer(text))
    if len(percents) != 1 or len(spans) != 1:
        return None
    rest = _YEARS_RE.sub(" ", _GIVEN_PERCENT_RE.sub(" ", text))
    amounts = _NUMBER_RE.findall(rest)
    if len(amounts) != 1 or _OTHER_OPERATION_RE.search(rest):
        return None
    span = float(spans[0].group("n"))
    years = span / 12 if spans[0].group("unit").lower().startswith("month") else span
    return amounts[0].replace(",", ""), percents[0], years


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def _interest(text: str) -> str | None:
    """Interest over a span of years: compound ("compound interest", "compounded monthly": ``A * (1 + P /
    100 / k) ** (k * n)``) or simple (``A * P / 100 * n``), the interest itself when asked for it ("the
    compound interest on $1000 at 5% for 3 years"), else what the amount grows to ("How much is $5000 after
    10 years at 7% compounded annually?"). ``None`` unless the text says which kind (interest over years
    compounds or not: not guessed), holds one percent, one amount and one span."""
    compound, simple = _COMPOUND_RE.search(text), _SIMPLE_RE.search(text)
    if bool(compound) == bool(simple) or _LOAN_RE.search(text):
        return None
    found = _rate_amount_years(text)
    if found is None:
        return None
    amount, percent, years = found
    if simple:
        grown = f"({amount} * {percent} / 100 * {_number(years)})"
        return grown if _INTEREST_ASKED_RE.search(text) else f"({amount} + {grown})"
    frequency = _FREQUENCY_RE.search(text)
    k = _PERIODS_A_YEAR[frequency.group("f").lower()] if frequency else 1
    total = f"({amount} * (1 + {percent} / 100 / {k}) ** ({k} * {_number(years)}))"
    return f"({total} - {amount})" if _INTEREST_ASKED_RE.search(text) else total


def unguessed(text: str) -> str | None:
    """What a text that reads as no arithmetic leaves open, when it is a question this module refuses to
    guess (interest over several years naming neither compound nor simple interest), as a message saying
    what to add; None otherwise."""
    cleaned = _prepared(text)
    if not re.search(r"\binterest\b", cleaned, re.IGNORECASE) or _COMPOUND_RE.search(cleaned):
        return None
    if _SIMPLE_RE.search(cleaned) or _LOAN_RE.search(cleaned) or _rate_amount_years(cleaned) is None:
        return None
    return (
        "Interest over several years compounds or not: say which, e.g. 'the compound interest on $1000 at 5% "
        "for 3 years' or 'the simple interest on $1000 at 5% for 3 years'"
    )


_GROWTH_RE = re.compile(
    r"\b(?:invest(?:s|ed|ing|ment)?|grows?|growing|grew|grown|growth|appreciat(?:e|es|ed|ing)|inflation"
    r"|returns?|yield(?:s|ing)?|increas(?:e|es|ed|ing)|rises?|rising|rose"
    r"|(?P<down>depreciat(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|shrinks?|shrinking"
    r"|decreas(?:e|es|ed|ing)|drops?|dropping|dropped|falls?|falling|fell"
    r"|shrank|los(?:e|es|ing|t)\s+(?:value\b|[^.?!]{0,24}\bof\s+(?:its|their|the)\s+value)))\b",
    re.IGNORECASE,
)
"""An amount that grows (an investment, a population, a salary, prices under inflation, "rises 10% every
year") or shrinks (a car's value, "loses 15% of its value", "decreases by 5% each year") by a percent each
period: that compounds, by the meaning of a growth rate."""
_EACH_PERIOD_RE = re.compile(
    r"\b(?:per|a|an|each|every)\s+(?P<unit>year|month)\b|\bper annum\b|\b(?:annually|yearly)\b"
    r"|\b(?P<monthly>monthly)\b",
    re.IGNORECASE,
)


def _growth_over_years(text: str) -> str | None:
    """An amount growing or shrinking by a percent each year (or month) over a span, compounding ("If I
    invest $1000 at 5% per year, how much after 10 years?": ``1000 * (1 + 5 / 100) ** 10``; "a car worth
    $20,000 depreciates 15% a year: its value in 3 years?": ``(1 - 15 / 100)``). ``None`` unless it names a
    growth or a decline (:data:`_GROWTH_RE`), a rate each year or month, one percent, one amount and one
    span; interest is :func:`_interest`'s (it compounds or not: asked, not guessed)."""
    growth = _GROWTH_RE.search(text)
    each = _EACH_PERIOD_RE.search(text)
    if growth is None or each is None or re.search(r"\binterest\b", text, re.IGNORECASE):
        return None
    found = _rate_amount_years(text)
    if found is None:
        return None
    amount, percent, years = found
    monthly = (each.group("unit") or "").lower() == "month" or each.group("monthly") is not None
    periods = _number(round(years * 12, 6) if monthly else years)
    sign = "-" if growth.group("down") else "+"
    return f"({amount} * (1 {sign} {percent} / 100) ** {periods})"


def _loan_payment(text: str) -> str | None:
    """The payment of a loan repaid in equal instalments ("the monthly payment on a $20,000 loan at 6% for 5
    years": ``A * r / (1 - (1 + r) ** -n)`` with ``r`` the rate per payment, monthly unless another is
    named). ``None`` unless it names a loan and a payment, one yearly percent, one amount and one span."""
    if not (_LOAN_RE.search(text) and _PAYMENT_ASKED_RE.search(text)):
        return None
    found = _rate_amount_years(text)
    if found is None:
        return None
    amount, percent, years = found
    per = re.search(r"\b(yearly|annual|weekly)\b|\bpay (?:each|every|per|a) (year|week)\b", text, re.I)
    named = (per.group(1) or f"{per.group(2)}ly").lower() if per else "monthly"
    k = _PERIODS_A_YEAR[named]
    rate, count = f"({percent} / 100 / {k})", _number(k * years)
    if float(percent) == 0:
        return f"({amount} / {count})"
    return f"({amount} * {rate} / (1 - (1 + {rate}) ** (-{count})))"


def _percent_earned(text: str) -> str | None:
    """The amount a percent earns on another ("I get 6% commission … I sold $14,500" → ``(14500 * 6 /
    100)``; "$8,000 … paying 3.5% a year: the interest after one year?" → ``(8000 * 3.5 / 100)``).
    ``None`` unless ``text`` names what is earned (commission, interest, a return …), asks for it, holds
    one percent and one amount, and spans at most one period (interest over years compounds or not: not
    guessed)."""
    kind = _EARNED_KIND_RE.search(text)
    if kind is None or not _EARNED_ASKED_RE.search(text):
        return None
    percents = _GIVEN_PERCENT_RE.findall(text)
    if len(percents) != 1:
        return None
    spans = [m for m in _SPAN_RE.finditer(text) if m.group("n") != "1"]
    rest = _SPAN_RE.sub(" ", _GIVEN_PERCENT_RE.sub(" ", text))
    amounts = _NUMBER_RE.findall(rest)
    if spans or len(amounts) != 1 or _OTHER_OPERATION_RE.search(rest):
        return None
    return f"({amounts[0].replace(',', '')} * {percents[0]} / 100)"


def _price_problem(text: str) -> str | None:
    """A price lowered (a discount, a sale, "25% off") or raised (a tip, a tax, VAT, a markup) by a
    percent, as ``(A * (100 - P) / 100)`` or ``(A * (100 + P) / 100)``; asked for the tip, the tax or
    the discount itself ("how much is the tip?"), ``(A * P / 100)``; shared by N ("split an $84 bill 4
    ways with a 15% tip"), the price changed, over N. ``None`` unless ``text`` holds one percent, one
    price and at most the number sharing it, says which kind of change it is (not both), asks nothing
    else and gives the price before the change (not "after a 25% discount it costs $30")."""
    if _EARNED_KIND_RE.search(text):
        return None  # "6% commission on my sales": earned on the amount, never taken off it
    percents = _GIVEN_PERCENT_RE.findall(text)
    lowered, raised = _LOWERED_RE.search(text), _RAISED_RE.search(text)
    part_asked = any(pattern.search(text) for pattern in _PRICE_PART_ASKED)
    deducted, kept = _DEDUCTED_RE.search(text), _KEPT_ASKED_RE.search(text)
    taxed_pay = deducted is None and raised is not None and lowered is None and _INCOME_TAXED_RE.search(text)
    if taxed_pay:
        lowered, raised = (
            raised,
            None,
        )  # the tax on a salary is what it loses ("I earn $2,500 and pay 20% tax")
    elif deducted is not None or (kept is not None and raised is not None and lowered is None):
        if deducted is None or (kept is None and not part_asked) or (kept is not None and part_asked):
            return None  # "22% goes to tax: how much?" (the tax, or what is left?), "$60 plus 8% tax: left?"
        lowered, raised = deducted, None  # "$2,480 and 22% goes to tax: what do I take home?"
    if len(percents) != 1 or (lowered is None) == (raised is None):
        return None
    per = _other_unit_factor(text)
    if per is False:
        return None  # "$3,000 a month, 20% tax: per week?": a month has no fixed number of weeks
    if _PAID_PRICE_RE.search(_came_to_stated(text) if part_asked else text):
        return None
    if re.search(rf"{_GIVEN_PERCENT_RE.pattern}\s+(?:of|out of)\b", text, re.IGNORECASE):
        return None  # "25% of the shirts": a share of something, not a price changed
    bought, text = _bought_each(text)
    if bought is not None and re.search(r"\bhow many\b", text, re.IGNORECASE):
        return None  # "3 shirts at $40 each, 25% off: how many shirts?": not the price
    rest = _GIVEN_PERCENT_RE.sub(" ", text)
    sharers = None
    if _SHARE_CUE_RE.search(text):
        for pattern in _SHARE_COUNT_RES:
            share = pattern.search(rest)
            if share is not None:
                if _with_others(rest[: share.start()], share.group()):
                    return None  # "split with 3 friends": 3 or 4 shares?
                sharers, rest = share.group("n"), rest[: share.start()] + " " + rest[share.end() :]
                break
    prices = _NUMBER_RE.findall(_ONE_THING_RE.sub(" ", rest))
    if bought is not None:
        prices = [] if prices else [f"({bought})"]
    if len(prices) != 1 or _OTHER_OPERATION_RE.search(rest):
        return None
    price, percent = prices[0], percents[0]
    if part_asked:
        if _TOTAL_ASKED_RE.search(text):
            return None  # the tip and the total: not one answer
        part = f"({price} * {percent} / 100)"
        return part if sharers is None else f"({part} / {sharers})"  # "an 18% tip ... split 3 ways": each
    changed = f"({price} * (100 {'-' if lowered else '+'} {percent}) / 100)"
    if per is not None:
        if sharers is not None:
            return None
        return f"({changed}{_scaled_by(per)})"  # "$52,000 a year less 20% tax: per month?"
    return changed if sharers is None else f"({changed} / {sharers})"


def _price_before_or_after(text: str) -> str | None:
    """A price changed by one percent where :func:`_price_problem` cannot tell which price is given: the
    price after the change given and the price before asked ("I paid $45 for a shirt that was 25% off. What
    was the original price?" is ``(45 * 100 / (100 - 25))``), or the discount, tip or tax itself
    (``(45 * 25 / (100 - 25))``); the price before given in words ("originally cost $40 and is 25% off",
    "the regular price is $80") and the price after it asked, or the part itself. ``None`` unless ``text``
    holds one percent and one price, says which way the percent changes it and which price is given."""
    percents = _GIVEN_PERCENT_RE.findall(text)
    lowered, raised = _LOWERED_RE.search(text), _RAISED_RE.search(text)
    if len(percents) != 1 or (lowered is None) == (raised is None) or _EARNED_KIND_RE.search(text):
        return None
    if _SHARE_CUE_RE.search(text) or re.search(rf"{_GIVEN_PERCENT_RE.pattern}\s+(?:of|out of)\b", text, re.I):
        return None  # shared by several, or "25% of the shirts"
    rest = _GIVEN_PERCENT_RE.sub(" ", text)
    prices = _NUMBER_RE.findall(_ONE_THING_RE.sub(" ", rest))
    if len(prices) != 1 or _OTHER_OPERATION_RE.search(rest):
        return None
    price, percent, sign = prices[0].replace(",", ""), percents[0], "-" if lowered else "+"
    part_asked = any(pattern.search(text) for pattern in _PRICE_PART_ASKED)
    if part_asked and _TOTAL_ASKED_RE.search(text):
        return None  # the tip and the total: two answers
    before_asked = _BEFORE_ASKED_RE.search(text) is not None
    original = _ORIGINAL_GIVEN_RE.search(text)
    if original is not None and original.group("n").replace(",", "") == price:
        if before_asked or _AFTER_GIVEN_RE.search(text):
            return None  # the price before is given: asked again, or two prices said given
        return f"({price} * {percent} / 100)" if part_asked else f"({price} * (100 {sign} {percent}) / 100)"
    if not _AFTER_GIVEN_RE.search(_came_to_stated(text) if part_asked else text):
        return None
    if before_asked and not part_asked:
        return f"({price} * 100 / (100 {sign} {percent}))"
    if part_asked and not before_asked:
        return f"({price} * {percent} / (100 {sign} {percent}))"
    return None


# Two percents applied in turn to one price: "$120 with 30% off, and then 8% sales tax: what do I pay?".
_CUE_AFTER_RE = re.compile(r"\s*((?:(?!(?:and|or|then|plus|with|but)\b)[a-z-]+\s*){1,2})", re.IGNORECASE)
"""The words right after a percent that say what it is ("30% off", "8% sales tax"), up to an "and"."""
_CUE_BEFORE_RE = re.compile(r"(?:^|\s)((?:[a-z-]+\s+)?[a-z-]+)\s+(?:of|at|by)\s*$", re.IGNORECASE)
"""The words right before a percent that say what it is ("a discount of 30%", "tax at 8%")."""
_PAY_ASKED_RE = re.compile(
    r"\b(?:what|how much)\b[^.?!]*\b(?:pay|owe|cost|costs|spend|price|total)\b"
    r"|\b(?:final|total|new|sale)\s+(?:price|cost|amount|bill)\b|\btotal\b",
    re.IGNORECASE,
)
"""A question asking for the price to pay ("What do I pay?", "What's the final price?")."""


_PRICE_WORKED_RE = re.compile(r"^\W*(?:what(?:'s|\s+is)|how\s+much\s+is|calculate)\b", re.IGNORECASE)
"""A price worked out asked for as a value ("What's 15% off $80 plus 8% tax?")."""


def _lowers(text: str, percent: re.Match[str]) -> bool | None:
    """Whether the percent ``percent`` lowers the price (``True``: "30% off", "a discount of 30%") or
    raises it (``False``: "8% sales tax", "a tip of 15%"), by the words right after or right before it;
    ``None`` when they name neither or both."""
    after = _CUE_AFTER_RE.match(text, percent.end())
    before = _CUE_BEFORE_RE.search(text[: percent.start()])
    cues = " ".join(m.group(1) for m in (after, before) if m is not None)
    lowered, raised = _LOWERED_RE.search(cues), _RAISED_RE.search(cues)
    return None if (lowered is None) == (raised is None) else lowered is not None


_BOUGHT_EACH_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<thing>{_NOUNS})\s+(?:at|for|costing|priced at|@)\s+(?P<p>{_NUM})"
    rf"(?!\w|\.\d)\s+(?:each|apiece|a piece)\b",
    re.IGNORECASE,
)
"""Things bought at a price each: "3 shirts at $24.99 each" (the price of one said as such)."""


def _bought_each(text: str) -> tuple[str | None, str]:
    """The price of the one kind of things ``text`` buys at a price each ("3 shirts at $24.99 each" is
    ``3 * 24.99``), with ``text`` without them (blanks where they were); ``None`` and ``text`` itself
    unless there is exactly one."""
    bought = list(_BOUGHT_EACH_RE.finditer(text))
    if len(bought) != 1:
        return None, text
    match = bought[0]
    blanked = text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :]
    return f"{match.group('n')} * {match.group('p')}", blanked


def _price_changes(text: str) -> str | None:
    """One price changed by two or more percents in turn, each lowering or raising it ("A jacket is $120
    with 30% off, and then 8% sales tax is added. What do I pay?" is ``(120 * (100 - 30) / 100 * (100 +
    8) / 100)``). ``None`` unless the question asks for the price to pay (not the tip or the tax itself),
    ``text`` holds one price and every percent says which way it changes it (not both), by the words
    right after it ("30% off") or right before ("a discount of 30%"), and nothing is shared or else
    computed."""
    if not _one_question(text):
        return None
    percents = list(_GIVEN_PERCENT_RE.finditer(text))
    asked = _PAY_ASKED_RE.search(text) or _PRICE_WORKED_RE.match(text)  # "What's 15% off $80 plus 8% tax?"
    if len(percents) < 2 or not asked or _PAID_PRICE_RE.search(text):
        return None
    if _DEDUCTED_RE.search(text) or _KEPT_ASKED_RE.search(text):
        return None  # "20% tax and 5% pension are deducted: take-home pay?": parts of one amount, not in turn
    if re.search(rf"{_GIVEN_PERCENT_RE.pattern}\s+(?:of|out of)\b", text, re.IGNORECASE):
        return None
    price, text = _bought_each(text)
    if _SHARE_CUE_RE.search(text) or any(pattern.search(text) for pattern in _PRICE_PART_ASKED):
        return None
    rest = _GIVEN_PERCENT_RE.sub(" ", text)
    prices = _NUMBER_RE.findall(_without_ones(rest))
    if price is not None:
        prices = [] if prices else [price]
    linked = re.sub(
        r"\bthen\b|\bplus\b(?=\s+(?:an?\s+)?(?:sales\s+)?(?:tax|vat|tip)\b)", " ", rest, flags=re.I
    )
    if len(prices) != 1 or _OTHER_OPERATION_RE.search(linked):
        return None
    changes = []
    for percent in percents:
        lowers = _lowers(text, percent)
        if lowers is None:
            return None
        changes.append(f" * (100 {'-' if lowers else '+'} {percent.group(1)}) / 100")
    return f"({prices[0]}{''.join(changes)})"


# A bill and a fixed tip or fee shared: "Five of us split a $212.50 cab fare plus a $15 tip".
_ADDED_AMOUNT_RE = re.compile(
    rf"(?<![\w.])({_NUM})\s+(?:[a-z]+\s+)?(?:tips?|gratuity|tax|fees?|surcharges?|service charges?)\b"
    rf"(?!\s+(?:of|on)\b)",
    re.IGNORECASE,
)


_QUESTION_WORD_RE = re.compile(r"\b(?:what|what's|whats|how|which|when|why|where|who)\b", re.IGNORECASE)


def _one_question(text: str) -> bool:
    """Whether ``text`` asks at most one question ("..., and what is the total?" asks two)."""
    return len(_QUESTION_WORD_RE.findall(text)) <= 1


def _without_ones(text: str) -> str:
    """``text`` with a "1" that names one thing blanked out, every other character where it was."""
    return _ONE_THING_RE.sub(lambda m: " " * len(m.group()), text)


def _shared_with_amounts(text: str) -> str | None:
    """A bill and an amount added to it (a tip, a fee) shared by N: "Five of us are splitting a $212.50
    cab fare plus a $15 tip. How much does each pay?" is ``((212.50 + 15) / 5)``. ``None`` unless
    ``text`` shares among a number of people ("5 of us", "4 ways", not "with 3 friends"), holds no
    percent, and the two other numbers are a bill and, after it, "plus", "and" or "with" a tip or a fee."""
    if not _one_question(text):
        return None
    if _GIVEN_PERCENT_RE.search(text) or not _SHARE_CUE_RE.search(text):
        return None
    rest = text
    for pattern in _SHARE_COUNT_RES:
        share = pattern.search(rest)
        if share is not None:
            if _with_others(rest[: share.start()], share.group()):
                return None
            sharers, rest = share.group("n"), rest[: share.start()] + " " + rest[share.end() :]
            break
    else:
        return None
    numbers = list(_NUMBER_RE.finditer(_without_ones(rest)))
    if len(numbers) != 2 or _OTHER_OPERATION_RE.search(rest) or _PAID_PRICE_RE.search(_came_to_stated(text)):
        return None  # what a bill "came to" is the bill ("Lunch for 3 came to $58.20 plus an $8.73 tip")
    bill, added = numbers
    link = rest[bill.end() : added.start()]
    if not re.search(r"\b(?:plus|and|with|including)\b|\+", link, re.IGNORECASE):
        return None
    if not _ADDED_AMOUNT_RE.match(rest, added.start()) or _ADDED_AMOUNT_RE.match(rest, bill.start()):
        return None
    return f"(({bill.group()} + {added.group()}) / {sharers})"


# Several amounts taken from one: "I had $500 and spent $137.25 on groceries and $89.99 on shoes".
_NOT_TAKEN_RE = re.compile(
    rf"\b(?!(?:{_TAKEN})\b){_GAINED}\b|\bmore\b|\b(?:each|per|every|apiece|twice|times)\b", re.IGNORECASE
)
"""Words of gaining ("found", "earned", "5 more") or of a rate ("5 each day"): not only amounts taken."""


def _spent_from(text: str) -> str | None:
    """Several amounts taken from the first one, asked what is left: "I had $500 and spent $137.25 on
    groceries and $89.99 on shoes. How much is left?" is ``(500 - 137.25 - 89.99)``, "Ana had 80
    stickers, gave 15 to Ben and 22 to Cal" ``(80 - 15 - 22)``. ``None`` unless ``text`` holds three
    numbers or more, a word of taking (spent, gave, sold) comes between the first and the second, every
    later number counts what the first does (not "3 shirts" of "$100"), the question after the last
    asks what is left, and nothing is gained, a rate or a percent."""
    if not _one_question(text):
        return None
    numbers = list(_NUMBER_RE.finditer(_without_ones(text)))
    if len(numbers) < 3 or _GIVEN_PERCENT_RE.search(text) or _NOT_TAKEN_RE.search(text):
        return None
    if not re.search(_LEFT, text[numbers[-1].end() :], re.IGNORECASE):
        return None
    if not re.search(rf"\b{_TAKEN}\b", text[numbers[0].end() : numbers[1].start()], re.IGNORECASE):
        return None
    if _OTHER_OPERATION_RE.search(re.sub(r"\bthen\b", " ", text, flags=re.IGNORECASE)):
        return None
    after_first = re.match(r"\s+([a-z]+)", text[numbers[0].end() :], re.IGNORECASE)
    for number in numbers[1:]:
        after = re.match(r"\s+([a-z]+)", text[number.end() :], re.IGNORECASE)
        if after is None or after.group(1).lower() in _NOT_A_THING or _CURRENCY_WORD_RE.match(after.group(1)):
            continue
        if _paid_for(text, number, after.group(1), after_first):
            continue
        if after_first is None or _stem(after.group(1)) != _stem(after_first.group(1)):
            return None  # "$100 on 3 shirts": not an amount of the same things
    return "(" + " - ".join(n.group() for n in numbers) + ")"


# One person's amount said of another's: "John is twice as old as Mary. Mary is 15. How old is John?".
_TIMES_WORDS = {
    "twice": "2",
    "double": "2",
    "triple": "3",
    "half": "0.5",
    "a third": "1/3",
    "a quarter": "0.25",
}
"""Multiples said in words ("twice as old as", "half as many as")."""
_KIN = (
    r"son|daughter|mother|father|mom|mum|dad|brother|sister|friend|wife|husband|cousin|uncle|aunt|niece|"
    r"nephew|grandfather|grandmother|grandpa|grandma|grandson|granddaughter|boss|teacher|dog|cat"
)
_PERSON = rf"[A-Z][a-z]+|(?:[Hh]is|[Hh]er|[Tt]heir|[Mm]y|[Yy]our|[Oo]ur)\s+(?:{_KIN})"
"""A person named ("Mary") or by a relation ("her son")."""
_MULTIPLE_OF_ANOTHER_RE = re.compile(
    rf"\b(?P<a>{_PERSON})\s+(?:is|has|earns|weighs|owns|reads|runs|gets|makes|scored)\s+"
    rf"(?P<k>twice|double|triple|half|a third|a quarter|(?P<n>{_UNSIGNED})\s+times)\s+"
    rf"(?:as\s+(?P<how>[a-z]+)(?:\s+[a-z]+)?\s+as|the\s+[a-z]+\s+of)\s+(?P<b>{_PERSON})\b"
)
"""A multiple of another's ("John is twice as old as Mary", "Ann has 3 times as many books as Ben")."""
_MORE_THAN_ANOTHER_RE = re.compile(
    rf"\b(?P<a>{_PERSON})\s+(?:is|has|earns|weighs|owns|reads|runs|gets|makes|scored)\s+(?P<n>{_UNSIGNED})\s+"
    rf"(?:[a-z]+\s+)?(?P<cmp>older|younger|taller|shorter|more|less|fewer|heavier|lighter|longer)\s+"
    rf"(?:[a-z]+\s+)?than\s+(?P<b>{_PERSON})\b"
)
"""An amount more or less than another's ("Tom is 5 years older than Ann", "Sue has 3 more apples than
Max")."""
_LESS_WORDS = frozenset({"younger", "shorter", "less", "fewer", "lighter"})


_TIMES_THE_AGE_RE = re.compile(
    rf"\b(?P<b>[A-Z][a-z]+)\s+is\s+(?P<v>{_UNSIGNED})(?:\s+years?\s+old)?\b[^?!]{{0,80}}?\b(?P<a>{_PERSON})\s+is\s+"
    rf"(?P<k>twice|double|triple|half|(?P<n>{_UNSIGNED})\s+times)\s+(?:his|her|their|that)\s+age\b"
)
"""An age said as a multiple of another's just given ("Sam is 12 and his dad is 3 times his age")."""


def _times_the_age(text: str) -> str | None:
    """An age said as a multiple of another's given before it: "Sam is 12 and his dad is 3 times his age.
    How old is his dad?" is ``(12 * 3)``. ``None`` unless ``text`` holds just those numbers and asks how old
    the second one is."""
    found = _TIMES_THE_AGE_RE.search(text) if _one_question(text) else None
    if found is None or len(_NUMBER_RE.findall(text)) != (2 if found.group("n") else 1):
        return None
    if not re.search(rf"\bhow\s+old\s+is\s+{re.escape(found.group('a'))}\b", text[found.end() :], re.I):
        return None
    return f"({found.group('v')} * {found.group('n') or _TIMES_WORDS[found.group('k')]})"


def _said_of_another(text: str) -> str | None:
    """One person's amount said of another's, the other's given and the first's asked: "John is twice as
    old as Mary. Mary is 15. How old is John?" is ``(15 * 2)``, "Tom is 5 years older than Ann. Ann is 12.
    How old is Tom?" ``(12 + 5)``. ``None`` unless ``text`` holds just that relation, the other's value
    ("Mary is 15", "Ann has 12") and a question of how old, how much or how many the first is or has."""
    if not _one_question(text):
        return None
    relation = _MULTIPLE_OF_ANOTHER_RE.search(text) or _MORE_THAN_ANOTHER_RE.search(text)
    if relation is None:
        return None
    a, b = relation.group("a"), relation.group("b")
    kin = re.fullmatch(rf"(?:his|her|their|my|your|our)\s+(?P<kin>{_KIN})", b, re.IGNORECASE)
    # "her son" is then "The son" or "Her son"
    owner = r"(?:[Tt]he|[Hh]is|[Hh]er|[Tt]heir|[Mm]y|[Yy]our|[Oo]ur)"
    said = rf"{owner}\s+{kin.group('kin')}" if kin else re.escape(b)
    given = list(
        re.finditer(
            rf"\b{said}\s+(?:is|has|earns|weighs|owns|reads|runs|gets|makes|scored)\s+(?P<v>{_UNSIGNED})\b"
            rf"(?!\s*(?:%|times|more|less|fewer|older|younger|[a-z]+\s+(?:older|younger|more|less|than)))",
            text[relation.end() :],
        )
    )
    asked = re.search(rf"\b[Hh]ow\s+(?:old|tall|much|many|heavy|long|far)\b[^.?!]*\b{a}\b", text)
    both = re.search(rf"\b[Hh]ow\s+(?:much|many)\b[^.?!]*{_TOTAL}", text[relation.end() :])
    if asked is None and both is not None:  # "How many do they have together?": the two amounts added
        asked = both
    if len(given) != 1 or asked is None or a == b:
        return None
    value = given[0].group("v")
    numbers = {m.start() for m in _NUMBER_RE.finditer(text)}
    used = {relation.end() + given[0].start("v")} | ({relation.start("n")} if relation.group("n") else set())
    later = _YEARS_ON_RE.search(text, asked.start()) if re.search(r"\bold\b", asked.group(0)) else None
    years = (later.group("y") or later.group("y2")) if later else None
    if later is not None:  # "How old will Anna be in 5 years?": her age then
        used.add(later.start("y") if later.group("y") else later.start("y2"))
    if numbers != used:
        return None  # another number: not this relation alone
    shift = f" {'-' if later.group('ago') else '+'} {years}" if later else ""
    if "cmp" in relation.groupdict() and relation.groupdict().get("cmp"):
        sign = "-" if relation.group("cmp") in _LESS_WORDS else "+"
        if asked is both:
            return f"({value} {sign} {relation.group('n')} + {value})"
        return f"({value} {sign} {relation.group('n')}{shift})"
    factor = relation.group("n") or _TIMES_WORDS[relation.group("k")]
    if asked is both:
        return f"({value} * {factor} + {value})"
    return f"({value} * {factor}{shift})"


_YEARS_ON_RE = re.compile(
    rf"\bin\s+(?P<y>{_UNSIGNED})\s+years?\b"
    rf"|\b(?P<y2>{_UNSIGNED})\s+years?\s+(?:from now|later|(?P<ago>ago))\b",
    re.IGNORECASE,
)
"""Years on or back from now ("in 5 years", "3 years ago")."""


# Things put in groups of a size: "24 cupcakes in boxes of 6: how many boxes?".
_GROUPS_OF_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_UNSIGNED})\s+(?P<things>[a-z]+)\b[^.?!]*?\b(?:in|into)\s+(?P<group>[a-z]+)\s+of\s+"
    rf"(?P<m>{_UNSIGNED})\b(?!\s*{_PCT})",
    re.IGNORECASE,
)
"""Things packed or seated in groups of a size ("24 cupcakes ... in boxes of 6", "30 kids in teams of 4")."""
_PACKED_IN_RE = re.compile(
    r"\b(?P<things>[a-z]+)\s+(?:come|are sold|are packed|are packaged|go|are put)\s+in\s+"
    rf"(?P<group>[a-z]+)\s+of\s+(?P<m>{_UNSIGNED})\b",
    re.IGNORECASE,
)
"""Things that come in groups of a size ("Eggs come in cartons of 12")."""
_GROUP_HOLDS_RE = re.compile(
    r"\b(?:each|every|one|an?)\s+(?P<group>[a-z]+)\s+(?:holds|contains|has|fits|takes|carries|seats|can\s+hold|"
    rf"can\s+fit|can\s+carry|can\s+seat)\s+(?P<m>{_UNSIGNED})\s+(?P<things>[a-z]+)\b",
    re.IGNORECASE,
)
"""A group said by what one holds ("Each box holds 12 pencils", "A bus seats 40 people")."""
_FULL_ONLY_RE = re.compile(r"\bfull\b|\bcomplete\b", re.IGNORECASE)
"""Only full groups asked ("How many full cars?")."""
_NEEDED_RE = re.compile(
    r"\b(?:need|needs|needed|required|require|does it take|will it take|to (?:hold|fit|pack|seat|carry))\b",
    re.IGNORECASE,
)
"""Groups needed asked ("How many boxes does he need?"): the last one partly filled counts."""


def _groups_needed(text: str) -> str | None:
    """How many groups things fill: "A baker makes 24 cupcakes and sells them in boxes of 6. How many boxes
    does he need?" is ``ceil(24 / 6)`` (the last group partly filled counts when groups are needed),
    ``floor`` when full ones are asked, a plain division when the groups come out even. ``None`` unless
    ``text`` holds just those two numbers and asks how many of the groups ("100 eggs in cartons of 12: how
    many cartons?" asks neither full ones nor those needed: None)."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    packed = _PACKED_IN_RE.search(text) or _GROUP_HOLDS_RE.search(text)
    if packed is not None and len(_NUMBER_RE.findall(text)) == 2:
        # "Eggs come in cartons of 12. How many cartons for 100 eggs?": the cartons needed
        asked = re.search(
            rf"\bhow\s+many\s+{re.escape(_stem(packed.group('group')))}\w*\s+(?:[a-z]+\s+){{0,3}}?"
            rf"(?:for|to\s+(?:hold|pack|fit|carry|seat|take))\s+(?:all\s+)?(?:the\s+)?(?P<n>{_UNSIGNED})\s+"
            r"(?P<things>[a-z]+)",
            text,
            re.IGNORECASE,
        )
        if asked is not None and _stem(asked.group("things")) == _stem(packed.group("things")):
            return f"ceil({asked.group('n')} / {packed.group('m')})"
    found = _GROUPS_OF_RE.search(text)
    if found is None or len(_NUMBER_RE.findall(text)) != 2:
        return None
    group = _stem(found.group("group"))
    if not re.search(rf"\bhow\s+many\s+(?:full\s+|complete\s+)?{re.escape(group)}", text, re.IGNORECASE):
        return None
    n, m = found.group("n"), found.group("m")
    if _FULL_ONLY_RE.search(text):
        return f"floor({n} / {m})"
    if _NEEDED_RE.search(text):
        return f"ceil({n} / {m})"
    # neither asked: only groups that come out even ("100 eggs in cartons of 12": 8 full or 9 in all?)
    return f"({n} / {m})" if float(m) and float(n) % float(m) == 0 else None


# How many things a sum of money buys: "A book costs $15 and I have $100. How many books can I buy?".
_AFFORD_ASKED_RE = re.compile(
    r"\bhow\s+many\s+(?P<things>[a-z]+)\s+(?:[a-z]+\s+){0,2}?(?:can|could|will|would)\s+(?:i|we|you|he|she|they)"
    r"\s+(?:buy|afford|get|purchase|order)\b",
    re.IGNORECASE,
)
"""The things a sum buys asked ("How many books can I buy?")."""
_MONEY_HAD_RE = re.compile(
    rf"\b(?:i|we|you|he|she|they)\s+(?:have|has|had|got|'ve\s+got)\s+(?:only\s+|just\s+)?(?P<a>{_NUM})"
    r"(?:\s+(?:dollars?|euros?|pounds?|bucks))?(?=[\s,.;?!]|$)(?!\s+[a-z]+s\b)"
    rf"|\bbudget\s+(?:of|is)\s+(?P<b>{_NUM})",
    re.IGNORECASE,
)
"""A sum of money had ("I have $100", "a budget of $50")."""


def _things_affordable(text: str) -> str | None:
    """How many things a sum buys at a price each: "If a book costs $15 and I have $100, how many books can I
    buy?" is ``floor(100 / 15)`` (whole things only). ``None`` unless ``text`` holds just the price of one
    thing of the kind asked and the sum."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or len(_NUMBER_RE.findall(text)) != 2:
        return None
    asked, had = _AFFORD_ASKED_RE.search(text), _MONEY_HAD_RE.search(text)
    if asked is None or had is None:
        return None
    prices = [
        (m.group(kind), m.group(price))
        for m in _KIND_COSTS_RE.finditer(text)
        for kind, price in [_kind_and_price_groups(m)]
    ]
    if len(prices) != 1 or _stem(prices[0][0]) != _stem(asked.group("things")):
        return None
    return f"floor({had.group('a') or had.group('b')} / {prices[0][1]})"


# The rest of a count of two kinds: "A class has 28 students. 12 are girls. How many are boys?".
_KIND_PART_RE = re.compile(
    rf"(?<![\w.])(?P<m>{_UNSIGNED})\s+(?:of\s+(?:them|the\s+[a-z]+)\s+)?(?:are|were|is)\s+(?P<kind>[a-z]+)\b",
    re.IGNORECASE,
)
"""A count of one kind among a total ("12 are girls", "18 of them are apples")."""
_REST_KIND_ASKED_RE = re.compile(
    r"\bhow\s+many\s+(?:of\s+them\s+)?(?:are|were)\s+(?P<kind>[a-z]+)\b"
    r"|\bhow\s+many\s+(?P<kind2>[a-z]+)\s+(?:are\s+there|(?:are|were)\s+in\s+(?:the|it|them))\b",
    re.IGNORECASE,
)
"""The count of another kind asked ("How many are boys?", "how many pears are there?")."""


def _rest_of_a_count(text: str) -> str | None:
    """The count of one kind from a total and the count of the other: "A class has 28 students. 12 are
    girls. How many are boys?" is ``(28 - 12)``. ``None`` unless ``text`` holds just the two counts, the
    total first, and asks for a kind other than the one counted."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    numbers = list(_NUMBER_RE.finditer(text))
    part, asked = _KIND_PART_RE.search(text), _REST_KIND_ASKED_RE.search(text)
    if len(numbers) != 2 or part is None or asked is None or part.start("m") != numbers[1].start():
        return None
    wanted = _stem(asked.group("kind") or asked.group("kind2"))
    if wanted == _stem(part.group("kind")) or asked.start() < part.end():
        return None
    if not re.match(r"\s+[a-z]+", text[numbers[0].end() :]):
        return None  # the total counts things ("28 students")
    return f"({numbers[0].group()} - {part.group('m')})"


# A part of a total given in percent and the rest asked: "30 students, 40% are boys: how many girls?".
_PART_PERCENT_RE = re.compile(
    rf"(?<![\w.])(?P<p>{_NUM})\s*{_PCT}\s+(?:of\s+(?:them|the\s+[a-z]+)\s+)?(?:are|were|is|was)\s+(?P<kind>[a-z]+)\b",
    re.IGNORECASE,
)
"""A percent of a total said of one kind ("40% are boys")."""


def _rest_of_percent(text: str) -> str | None:
    """The things of a total that a percent of it is not: "There are 30 students in a class. 40% are boys.
    How many girls are there?" is ``(30 * (100 - 40) / 100)``; the percent's own asked, ``(30 * 40 /
    100)``. ``None`` unless ``text`` holds the total and one percent, says what the percent are, and asks how
    many of those or of another kind."""
    if not _one_question(text):
        return None
    part = _PART_PERCENT_RE.search(text)
    totals = [m for m in _NUMBER_RE.finditer(text) if not (part and part.start() <= m.start() < part.end())]
    asked = re.search(r"\bhow\s+many\s+(?P<kind>[a-z]+)\b", text, re.IGNORECASE)
    if part is None or len(totals) != 1 or asked is None or asked.start() < part.end():
        return None
    kind, wanted = _stem(part.group("kind")), _stem(asked.group("kind"))
    if wanted in ("are", "were", "is", "of"):
        return None
    total, percent = totals[0].group(), part.group("p")
    if wanted == kind:
        return f"({total} * {percent} / 100)"
    return f"({total} * (100 - {percent}) / 100)"


# Two numbers from their sum and their difference: "The sum of two numbers is 20 and their difference is 4."
_SUM_AND_DIFFERENCE_RE = re.compile(
    rf"\bsum\s+(?:of\s+(?:the\s+)?two\s+numbers\s+)?is\s+(?P<s>{_NUM})\b[^.?!]*?\bdifference\s+"
    rf"(?:of\s+(?:them|the\s+two)\s+)?is\s+(?P<d>{_NUM})\b",
    re.IGNORECASE,
)
"""Two numbers given by their sum and difference."""


def two_numbers_from_sum_and_difference(text: str) -> str | None:
    """The two numbers whose sum and difference ``text`` gives ("The sum of two numbers is 20 and their
    difference is 4. What are the numbers?": 12 and 8), said with their working; ``None`` for any other
    text."""
    found = _SUM_AND_DIFFERENCE_RE.search(text) if len(text) <= MAX_READ_CHARS else None
    if found is None or len(_NUMBER_RE.findall(text)) != 2:
        return None
    total, difference = (Fraction(found.group(k)) for k in ("s", "d"))
    larger, smaller = (total + difference) / 2, (total - difference) / 2
    shown = [str(x.numerator) if x.denominator == 1 else str(float(x)) for x in (larger, smaller)]
    given_sum, given_difference = found.group("s"), found.group("d")
    return (
        f"The numbers are {shown[0]} and {shown[1]}: the larger is (sum + difference) / 2 = "
        f"({given_sum} + {given_difference}) / 2, the smaller (sum - difference) / 2 = "
        f"({given_sum} - {given_difference}) / 2."
    )


# What is still needed to reach an amount: "A bike costs $240. Jake has saved $90. How much more?".
_GOAL_RE = re.compile(
    r"\b(?:costs?|is priced at|price is|goal is|target is|needs?|wants?|aims? for)\s+"
    rf"{_MONEY}(?P<goal>{_NUM})\b",
    re.IGNORECASE,
)
"""An amount to reach ("costs $240", "I need $500")."""
_HELD_RE = re.compile(
    rf"\b(?:has|have|had)\s+(?:already\s+)?(?:saved|collected|raised|got|earned)?\s*{_MONEY}(?P<held>{_NUM})\b"
    rf"|\b(?:saved|collected|raised|got|earned)\s+{_MONEY}(?P<held2>{_NUM})\b",
    re.IGNORECASE,
)
"""What is held already ("Jake has saved $90")."""
_MORE_ASKED_RE = re.compile(r"\bhow\s+(?:much|many)\s+more\b", re.IGNORECASE)
"""What is still needed asked ("How much more does he need?")."""


def _still_needed(text: str) -> str | None:
    """What is still needed to reach an amount: "A bike costs $240. Jake has saved $90. How much more does
    he need?" is ``(240 - 90)``. ``None`` unless ``text`` holds just the goal and what is held, and asks
    how much (or how many) more."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or not _MORE_ASKED_RE.search(text):
        return None
    goal, held = _GOAL_RE.search(text), _HELD_RE.search(text)
    if goal is None or held is None or len(_NUMBER_RE.findall(text)) != 2:
        return None
    amount = held.group("held") or held.group("held2")
    return f"({goal.group('goal')} - {amount})"


# The change from paying: "4 apples at $0.75 each, paid with a $5 bill: how much change?".
_PAID_WITH_RE = re.compile(
    rf"\b(?:pay|pays|paid|paying|give|gives|gave|hand|hands|handed)\s+(?:with\s+)?(?:an?\s+)?{_MONEY}(?P<p>{_NUM})\b"
    rf"(?:\s+(?:bill|note|banknote))?",
    re.IGNORECASE,
)
"""The amount paid with ("pay with a $5 bill")."""


def _change_from_paying(text: str) -> str | None:
    """The change from paying for things: "If you buy 4 apples at $0.75 each and pay with a $5 bill, how
    much change do you get?" is ``(5 - (4 * 0.75))``. ``None`` unless ``text`` asks the change and the rest,
    without the amount paid, reads as the price."""
    if not _one_question(text) or not re.search(r"\bchange\b", text, re.IGNORECASE):
        return None
    paid = _PAID_WITH_RE.search(text)
    if paid is None:
        return None
    rest = text[: paid.start()] + " " + text[paid.end() :]
    rest = re.sub(r"\bhow\s+much\s+change\b[^?.!]*", "how much is that in total", rest, flags=re.IGNORECASE)
    cost = to_expression(rest)
    prices = _NUMBER_RE.findall(rest)
    if (not cost or not has_operation(cost) or cost.strip() == rest.strip()) and len(prices) == 1:
        cost = prices[0]  # "A book costs $12. I pay with a $20 bill.": the one price
    elif not cost or not has_operation(cost) or cost.strip() == rest.strip():
        return None
    return f"({paid.group('p')} - {cost})"


# A ratio and one of its terms: "The ratio of cats to dogs is 3:2. There are 15 cats. How many dogs?".
_RATIO_RE = re.compile(
    rf"\bratio\s+of\s+(?P<a>[a-z]+)\s+to\s+(?P<b>[a-z]+)\s+(?:is|was|=)\s+(?P<x>{_UNSIGNED})\s*(?::|to)\s*"
    rf"(?P<y>{_UNSIGNED})\b",
    re.IGNORECASE,
)
"""A ratio of two kinds ("the ratio of cats to dogs is 3:2")."""


def _from_a_ratio(text: str) -> str | None:
    """One term of a ratio from the other: "The ratio of cats to dogs is 3:2. There are 15 cats. How many
    dogs?" is ``(15 * 2 / 3)``; the two together asked, ``(15 * (3 + 2) / 3)``. ``None`` unless ``text``
    holds the ratio and one count of one of its terms and asks the other (or the total)."""
    if not _one_question(text):
        return None
    ratio = _RATIO_RE.search(text)
    if ratio is None:
        return None
    terms = {_stem(ratio.group("a")): ratio.group("x"), _stem(ratio.group("b")): ratio.group("y")}
    counts = [
        m
        for m in re.finditer(rf"(?<![\w.:])(?P<n>{_UNSIGNED})\s+(?P<kind>[a-z]+)\b", text[ratio.end() :])
        if _stem(m.group("kind")) in terms
    ]
    asked = re.search(r"\bhow\s+many\s+(?P<kind>[a-z]+)\b", text[ratio.end() :], re.IGNORECASE)
    if len(counts) != 1 or asked is None or len(_NUMBER_RE.findall(text[ratio.end() :])) != 1:
        return None
    known, count = _stem(counts[0].group("kind")), counts[0].group("n")
    wanted = _stem(asked.group("kind"))
    if wanted in terms and wanted != known:
        return f"({count} * {terms[wanted]} / {terms[known]})"
    if re.search(_TOTAL, text[ratio.end() :], re.IGNORECASE) or wanted in ("animal", "pet", "thing", "in"):
        return f"({count} * ({ratio.group('x')} + {ratio.group('y')}) / {terms[known]})"
    return None


# An amount changed step by step: "I have 3 apples and buy 5 more. Then I eat 2. How many do I have?".
_STEP_RE = re.compile(rf"\b(?:(?P<taken>{_TAKEN})|(?P<gained>{_GAINED}))\b", re.IGNORECASE)
"""A word of taking or of gaining before a step's number."""
_STEPS_ASKED_RE = re.compile(
    rf"\bhow\s+(?:many|much)\b[^.?!]*(?:\b(?:have|has|had|now|are|is)\b|{_LEFT})",
    re.IGNORECASE,
)
"""The question of how many or how much there is at the end ("How many do I have?", "how many are left",
"How many birds are on the tree?")."""
_NOT_STEPS_RE = re.compile(
    r"\b(?:each|per|every|apiece|twice|times|half|double|triple|a\s+(?:day|week|month|year))\b", re.IGNORECASE
)
"""A rate, a multiple or a part: no step of adding or taking some."""


def _changes_in_steps(text: str) -> str | None:
    """An amount changed in several steps, asked how many (or how much) there are at the end: "I have 3
    apples and buy 5 more. Then I eat 2. How many do I have?" is ``(3 + 5 - 2)``, "A bus has 20 people. 5
    get off and 8 get on. How many are on the bus now?" ``(20 - 5 + 8)``. ``None`` unless ``text`` holds
    three numbers or more, each after the first said with a word of gaining (buys, finds, "5 more", "8 get
    on") or of taking (eats, gives away, "gives 4 to Sam", "5 get off") in its own clause, no other things
    named after them than the first's, all amounts of money or none, and the question after the last asks
    what there is; nothing at a rate or a percent."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    numbers = list(_NUMBER_RE.finditer(_without_ones(text)))
    # a product to start from ("Sarah has 5 bags with 8 marbles each."): one amount of its things
    start = _EACH_HELD_RE.match(text, numbers[0].start()) if numbers else None
    start_said = f"({start.group('n')} * {start.group('m')})" if start else None
    if start is not None:
        numbers = numbers[1:]
    if _NOT_STEPS_RE.search(text[start.end() :] if start else text):
        return None
    if len(numbers) + bool(start) < 3 or _STEPS_ASKED_RE.search(text, numbers[-1].end()) is None:
        return None
    if _OTHER_OPERATION_RE.search(re.sub(r"\bthen\b", " ", text, flags=re.IGNORECASE)):
        return None
    if len({bool(_MONEY_AT_RE.match(text, max(n.start() - 1, 0))) for n in numbers}) > 1:
        return None  # "3 apples ... for $2": a price among counted things
    if _STEP_RE.search(text, 0, numbers[0].start()) and not re.search(
        r"\b(?:have|has|had)\b", text[: numbers[0].start()], re.IGNORECASE
    ):
        return None  # "I bought 3 ...": the first number is no amount had
    first = re.match(r"\s+([a-z]+)", text[numbers[0].end() :], re.IGNORECASE)
    terms = [start_said or numbers[0].group()]
    for before, number in pairwise(numbers):
        after = re.match(r"\s+([a-z]+)", text[number.end() :], re.IGNORECASE)
        word = after.group(1).lower() if after else ""
        said_after = _STEP_AFTER_RE.match(text, number.end())  # "5 get off", "8 get on"
        steps = list(_STEP_RE.finditer(text, before.end(), number.start()))
        if said_after is None and not steps and word != "more":
            return None
        other = word and word not in _NOT_A_THING | _STEP_WORDS
        if said_after is None and other and (first is None or _stem(word) != _stem(first.group(1))):
            return None  # "buy 5 oranges": other things
        if said_after is not None:
            gained = said_after.group("on") is not None
        else:
            away = re.match(r"\s+(?:[a-z]+\s+)?(?:away|to)\b", text[number.end() :], re.IGNORECASE)
            gained = word == "more" or (steps[-1].group("taken") is None and away is None)
        terms.append(f"{'+' if gained else '-'} {number.group()}")
    return f"({' '.join(terms)})"


_EACH_HELD_RE = re.compile(
    rf"(?P<n>{_UNSIGNED})\s+[a-z]+\s+(?:with|of|holding|containing|that hold|that each hold)\s+"
    rf"(?P<m>{_UNSIGNED})\s+[a-z]+\s+each\b",
    re.IGNORECASE,
)
"""An amount said as groups of a size ("5 bags with 8 marbles each")."""
_MONEY_AT_RE = re.compile(r"[$€£]")
_STEP_WORDS = frozenset({"away", "and", "back", "then", "more"})
"""Words after a step's number that name no other things ("gets 45 back", "eat 2 and")."""
_STEP_AFTER_RE = re.compile(
    rf"\s+(?:[a-z]+\s+)?(?:(?P<on>(?:get|gets|got)\s+(?:on|in)|join(?:s|ed)?|arrive[sd]?|board(?:s|ed)?|"
    rf"c[ao]mes?(?:\s+(?:in|on|back))?)|{_WENT})\b",
    re.IGNORECASE,
)
"""A step said after its number: some joining ("8 get on", "3 more arrive") or going ("5 get off", "2 ran
away")."""


_BUDGET_RE = re.compile(
    r"^\W*(?:(?:my|our|the)\s+(?:total\s+)?(?:budget|balance|savings|allowance)\s+(?:is|was)"
    r"|(?:i|we)\s+(?:have|had|started\s+with|saved|budgeted|set\s+aside)(?:\s+a\s+budget\s+of)?)"
    rf"\s+{_MONEY}(?P<n>{_NUM})(?:\s+(?:dollars|euros|pounds|bucks))?\s*(?:[.,;]\s*|\s+and\s+)",
    re.IGNORECASE,
)
"""An amount of money to start with, said first: "My budget is $2,000.", "I have $500 and"."""
_LEFT_ASKED_RE = re.compile(
    rf"\bhow\s+much\s+(?:money\s+)?(?:(?:is|will\s+be|would\s+be|do\s+i\s+have|will\s+i\s+have|would\s+i\s+have"
    rf"|does\s+that\s+leave|is\s+there)\s+)?(?:{_LEFT}|over)(?:\s+over)?",
    re.IGNORECASE,
)
"""The question of what is left ("how much is left", "how much will I have left", "how much remains")."""


def _left_of_budget(text: str) -> str | None:
    """An amount of money to start with, then a cost the rest works out, asked what is left: "My budget is
    $2,000. If the hotel is $150 a night for 5 nights, how much is left?" is ``(2000 - (5 * 150))``.
    ``None`` unless the rest, asked as a total, is read as arithmetic."""
    start = _BUDGET_RE.match(text)
    if start is None or not _one_question(text):
        return None
    rest = text[start.end() :]
    asked = _LEFT_ASKED_RE.search(rest)
    if asked is None or _GIVEN_PERCENT_RE.search(rest) or re.search(r"\bof\s+(?:it|that|this)\b", rest, re.I):
        return None  # "spend 25% of it": a part of the amount itself
    total = rest[: asked.start()] + "how much is that in total" + rest[asked.end() :]
    cost = to_expression(total)
    if not cost or cost.strip() == total.strip() or not _NUMBER_RE.search(cost):
        return None
    return f"({start.group('n')} - {cost})"


_SPENT_OF_RE = re.compile(
    rf"\b(?:spend|spent|use|used|pay|paid|eat|ate|give\s+away|gave\s+away|lose|lost)\s+{_MONEY}(?P<a>{_NUM})"
    rf"\s+(?:[a-z]+\s+)?(?:of|out\s+of|from)\s+(?:my\s+|the\s+|a\s+|our\s+)?{_MONEY}(?P<b>{_NUM})(?!\w|\.\d)",
    re.IGNORECASE,
)
"""An amount taken out of another ("spend $30 of $100", "ate 3 of the 8 slices")."""


_WHOLE_RE = re.compile(
    rf"\b(?:has|have|had|holds?|held|contains?|is|are|of)\s+(?P<n>{_UNSIGNED})\s+(?P<things>[a-z]+)\b", re.I
)
"""A whole said with its things ("A book has 240 pages", "A tank holds 500 liters")."""
_PART_OF_WHOLE_RE = re.compile(
    rf"(?:\((?P<a>{_UNSIGNED})\s*/\s*(?P<b>{_UNSIGNED})\)\s*\*\s*(?:it|them|that)\b"
    rf"|(?P<p>{_UNSIGNED})\s*{_PCT}\s+(?:of\s+(?:it|them|that)\b|full\b)"
    rf"|\b(?P<half>half)\s+(?:of\s+(?:it|them|that)\b|full\b|(?=(?:to|away)\b)))",
    re.IGNORECASE,
)
"""A part of the whole said before ("3/4 of it", read as "(3 / 4) * it"; "40% full"; "half of it")."""
_PART_ASKED_RE = re.compile(r"\bhow\s+(?:many|much)\b", re.IGNORECASE)
"""A part asked for ("how many pages", "how much")."""
_GAINED_BEFORE_RE = re.compile(rf"\b(?!(?:{_TAKEN})\b){_GAINED}\b|\bearns?\b|\bearned\b", re.IGNORECASE)
"""A word of gaining before a part ("earn 10% of it"): nothing was taken."""


def _part_of_whole(text: str) -> str | None:
    """A part of a whole given as a fraction or a percent, or the rest of it: "A book has 240 pages. Sam has
    read 3/4 of it. How many pages are left?" is ``(240 - 240 * 3 / 4)``, "A tank holds 500 liters. It is
    40% full. How many liters are in it?" ``(500 * 40 / 100)``. ``None`` unless ``text`` holds just the
    whole and the part and asks how many or how much (the rest when it asks what is left)."""
    if not _one_question(text):
        return None
    whole, part = _WHOLE_RE.search(text), _PART_OF_WHOLE_RE.search(text)
    asked = _PART_ASKED_RE.search(text, part.end()) if part else None
    if whole is None or part is None or asked is None or whole.end() > part.start():
        return None
    numbers = [m.start() for m in _NUMBER_RE.finditer(text)]
    used = [whole.start("n"), *(part.start(g) for g in ("a", "b", "p") if part.group(g))]
    if sorted(numbers) != sorted(used):
        return None
    n = whole.group("n")
    if part.group("half"):
        share = f"{n} / 2"
    elif part.group("p"):
        share = f"{n} * {part.group('p')} / 100"
    else:
        share = f"{n} * {part.group('a')} / {part.group('b')}"
    left = re.search(_LEFT + r"|\bmore\b|\bto (?:go|fill|read|finish)\b", text[part.end() :], re.IGNORECASE)
    if left and _GAINED_BEFORE_RE.search(text[whole.end() : part.start()]):
        return None  # "I have $500 and earn 10% of it. How much is left?": nothing was taken
    taken = re.search(rf"\b{_TAKEN}\s+$", text[whole.end() : part.start()], re.IGNORECASE)
    if taken and re.search(r"\bhow\s+(?:many|much)\b[^.?!]*\b(?:have|has|now)\b", text[part.end() :], re.I):
        left = taken  # "I give half to my friend. How many do I have now?": what is left
    return f"({n} - {share})" if left else f"({share})"


_CHANGED_BY_RE = re.compile(
    rf"\b(?:was|is|were|are|at|of|started at|starts at|began at)\s+(?P<a>{_NUM})\b[^.?!%]*?"
    r"\b(?:and\s+|then\s+|but\s+)?(?:(?P<up>rose|rises|risen|increased|increases|went up|goes up|climbed|"
    r"climbs|grew|grows|gained|gains|warmed)|(?P<down>fell|falls|fallen|dropped|drops|decreased|decreases|"
    rf"went down|goes down|sank|sinks|lost|loses|cooled))\s+(?:by\s+)?(?P<b>{_UNSIGNED})\b(?!\s*{_PCT})",
    re.IGNORECASE,
)
"""A value and a change of it by an amount ("The temperature was -5 degrees and rose by 12 degrees")."""
_VALUE_AFTER_ASKED_RE = re.compile(
    r"\b(?:now|new|then|after(?:wards)?|final|end|current(?:ly)?)\b|\bwhat\s+(?:is|was)\s+it\b"
    r"|\bwhat\s+(?:is|was)\s+the\s+temperature\b(?!\s+(?:before|at\s+first))",
    re.IGNORECASE,
)
"""The value after a change asked ("What is it now?", "the new price")."""


def _changed_by(text: str) -> str | None:
    """A value changed by an amount, asked what it is after: "The temperature was -5 degrees and rose by 12
    degrees. What is it now?" is ``(-5 + 12)``. ``None`` unless ``text`` holds just the two numbers and
    asks the value after (not by how much, nor a percent)."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    changed = _CHANGED_BY_RE.search(text)
    if changed is None or len(_NUMBER_RE.findall(text)) != 2:
        return None
    if not _VALUE_AFTER_ASKED_RE.search(text, changed.end()):
        return None
    return f"({changed.group('a')} {'+' if changed.group('up') else '-'} {changed.group('b')})"


_TWO_KINDS_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_UNSIGNED})\s+(?P<a>[a-z]+)\s+and\s+(?P<m>{_UNSIGNED})\s+(?P<b>[a-z]+)\b",
    re.IGNORECASE,
)
"""Two kinds of things counted together ("12 boys and 18 girls")."""
_SHARE_OF_KIND_RE = re.compile(
    r"\bwhat\s+(?P<how>fraction|percent(?:age)?|proportion|share|part|ratio)\b[^?.!]*?\b(?:are|is|were)\s+"
    r"(?P<kind>[a-z]+)\b|\bwhat\s+(?P<how2>fraction|percent(?:age)?|proportion|share)\s+of\s+(?:the\s+)?"
    r"[a-z]+\s+(?:are|is|were)\s+(?P<kind2>[a-z]+)\b",
    re.IGNORECASE,
)
"""A word of gaining before a part ("earn 10% of it"): nothing was taken."""


def _share_of_a_kind(text: str) -> str | None:
    """The share of one kind among two counted together: "A class has 12 boys and 18 girls. What fraction are
    girls?" is ``(18 / (12 + 18))`` (said as a fraction), as a percentage ``(18 / (12 + 18) * 100)``.
    ``None`` unless ``text`` holds just the two counts and asks the share of one of their kinds."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    kinds, asked = _TWO_KINDS_RE.search(text), _SHARE_OF_KIND_RE.search(text)
    if kinds is None or asked is None or len(_NUMBER_RE.findall(text)) != 2:
        return None
    wanted = _stem(asked.group("kind") or asked.group("kind2"))
    counts = {_stem(kinds.group("a")): kinds.group("n"), _stem(kinds.group("b")): kinds.group("m")}
    if wanted not in counts or len(counts) != 2:
        return None
    share = f"{counts[wanted]} / ({kinds.group('n')} + {kinds.group('m')})"
    how = (asked.group("how") or asked.group("how2")).lower()
    return f"({share} * 100)" if how.startswith("percent") else f"({share})"


def _taken_of(text: str) -> str | None:
    """An amount taken out of another, asked what is left: "How much is left if I spend $30 of $100?" is
    ``(100 - 30)``. ``None`` unless ``text`` holds just the two numbers and asks what is left."""
    taken = _SPENT_OF_RE.search(text)
    if taken is None or not _one_question(text) or not re.search(_LEFT, text, re.IGNORECASE):
        return None
    if len(_NUMBER_RE.findall(text)) != 2 or _GIVEN_PERCENT_RE.search(text):
        return None
    return f"({taken.group('b')} - {taken.group('a')})"


_PAID_RE = re.compile(r"\b(?:pays?|paid|paying|spends?|spent|spending)\s+$", re.IGNORECASE)


def _paid_for(text: str, number: re.Match[str], word: str, after_first: re.Match[str] | None) -> bool:
    """Whether ``number`` is an amount of money paid for ``word`` ("paid $650 rent"), from a first amount
    of money ("started with $1,200"): right after a word of paying, and ``word`` names one thing (not
    "paid 3 bills")."""
    first_is_money = after_first is None or _CURRENCY_WORD_RE.match(after_first.group(1)) is not None
    return first_is_money and bool(_PAID_RE.search(text[: number.start()])) and _stem(word) == word.lower()


def _stem(word: str) -> str:
    """``word`` without a plural ending ("notebooks", "boxes", "children", "liters")."""
    word = word.lower()
    irregular = {"children": "child", "people": "person", "men": "man", "women": "woman", "feet": "foot"}
    if word in irregular:
        return irregular[word]
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 2 else word


# A price for a number of things asked for another number of them ("If 5 pens cost $3.50, how much do 12 pens
# cost?"), or the time a number of workers take asked for another number of them.
_PRICED_COUNT_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<things>[a-z]+)\s+(?:cost|costs|are|were|is|was|sell for|sold for|"
    rf"go for|went for|come to|came to)\s+(?P<a>{_NUM})\b(?!\s*{_PCT})"
    rf"|(?<![\w.])(?P<a2>{_NUM})\s+(?:buys|bought|gets|got|for|pays for|paid for)\s+(?P<n2>{_NUM})\s+"
    rf"(?P<things2>[a-z]+)"
    rf"|\b(?P<things3>[a-z]+)\s+(?:at|are|is|cost|costs)\s+(?P<n3>{_NUM})\s+for\s+(?P<a3>{_NUM})\b(?!\s*{_PCT})",
    re.IGNORECASE,
)
"""A price given for a number of things: "5 pens cost 3.50", "3.50 for 5 pens", "pens at 3 for 2"."""
_DOERS = (
    r"workers?|people|persons?|men|women|machines?|pumps?|pipes?|taps?|printers?|painters?|builders?|"
    r"cooks?|robots?|cleaners?|employees?"
)
"""The share of one kind asked ("What fraction are girls?")."""
_DONE_IN_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<things>{_DOERS})\b[^.?!]*?\b(?:in|takes?|took|need|needs)\s+"
    rf"(?P<a>{_NUM})\s+(?P<unit>seconds?|minutes?|hours?|days?|weeks?|months?)\b",
    re.IGNORECASE,
)
"""A job done by a number of workers (machines, pumps) in a time: "4 workers build a wall in 6 days"."""
_TIME_ASKED_RE = re.compile(
    r"\bhow long\b|\bhow many (?:seconds|minutes|hours|days|weeks|months)\b", re.IGNORECASE
)
_QUESTION_START_RE = re.compile(r"\b(?:how much|how many|how long|what)\b", re.IGNORECASE)


def time_for_workers(text: str) -> tuple[str, str] | None:
    """The time a number of workers take for a job, from another number's time, and its unit ("If 4 workers
    build a wall in 6 days, how long would 8 workers take?": ``(6 * 4 / 8)`` days); ``None`` for any other
    question."""
    done = _DONE_IN_RE.search(text)
    expression = _proportion(text) if done is not None else None
    if expression is None or not expression.startswith(f"({done.group('a')} * "):
        return None
    unit = done.group("unit").lower()
    return expression, unit if unit.endswith("s") else f"{unit}s"


def _proportion(text: str) -> str | None:
    """A price for a number of things scaled to another number of them: "If 5 pens cost $3.50, how much do 12
    pens cost?" is ``(3.50 / 5 * 12)``; the time a number of workers (machines, pumps) take for a job, for
    another number of them, the other way ("If 4 workers build a wall in 6 days, how long would 8 workers
    take?" is ``(6 * 4 / 8)``). ``None`` unless ``text`` holds just those three numbers, the question names
    the same things with the third, and nothing is each, per or in percent."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    if re.search(r"\b(?:each|per|every|apiece|a piece)\b", text, re.IGNORECASE):
        return None
    starts = list(_QUESTION_START_RE.finditer(text))
    if not starts or len(_NUMBER_RE.findall(text)) != 3:
        return None
    given, question = text[: starts[-1].start()], text[starts[-1].start() :]
    wanted = re.search(rf"(?<![\w.])({_NUM})\s+([a-z]+)", question, re.IGNORECASE)
    if wanted is None:
        return None
    done = _DONE_IN_RE.search(given) if _TIME_ASKED_RE.search(question) else None
    priced = _PRICED_COUNT_RE.search(given) if re.search(r"\bhow much\b", question, re.I) else None
    found = done or priced
    if found is None:
        return None
    groups = found.groupdict()
    count = groups["n"] or groups.get("n2") or groups.get("n3")
    amount = groups["a"] or groups.get("a2") or groups.get("a3")
    things = groups["things"] or groups.get("things2") or groups.get("things3")
    if _stem(things) != _stem(wanted.group(2)) or float(count.replace(",", "")) == 0:
        return None
    if priced is not None and re.fullmatch(_SERVED, things, re.IGNORECASE):
        return None  # "a bus for 40 people costs $600": people are not what is bought
    count, amount, other = (x.replace(",", "") for x in (count, amount, wanted.group(1)))
    if done is not None:
        return f"({amount} * {count} / {other})"
    return f"({amount} / {count} * {other})"


# A total of several things bought at a price each: "4 notebooks at $3.75 each and a pen for $2.40".
_ITEM_RE = re.compile(
    rf"(?:(?<![\w.])(?P<n>{_NUM})|\b(?P<one>an?|one))\s+(?P<thing>{_NOUNS}(?:\s+of\s+{_NOUNS})?)\s+"
    rf"(?P<link>at|for|costing|priced at|@)\s+(?P<p>{_NUM})(?!\w|\.\d)"
    rf"(?:\s+(?P<each>each|apiece|a piece)|\s*(?:(?:per|an?|for each|for every)\s+|/\s*)(?P<per>[a-z]+)\b)?",
    re.IGNORECASE,
)
_PRICE_PER_SLASH_RE = re.compile(r"(?<=\d)\s*/\s*(?=[a-z]+\b)", re.IGNORECASE)
"""A price per unit written with a slash ("$2/lb"): read as "2 per lb"."""


def _item_term(item: re.Match[str]) -> str | None:
    """``count * price`` of one item of :data:`_ITEM_RE`, or ``None`` when a count above one has no price
    "at" it or "each" ("3 shirts for $45": the price of all three?), or its price is per another unit than its
    quantity's ("3 kg of potatoes at $1.40 a lb")."""
    count = item.group("n") or "1"
    per = item.group("per")
    if per is not None:
        if not _same_unit(per, item.group("thing").split()[0]):
            return None
    elif count != "1" and not (item.group("each") or item.group("link").lower() == "at"):
        return None
    return f"{count} * {item.group('p')}"


_ITEM_GAP_RE = re.compile(r"[\s,]*(?:(?:and|plus)(?:\s+also)?)?\s*", re.IGNORECASE)
_KIND_PRICE_RE = re.compile(
    rf"(?<![\w.])(?P<p>{_NUM})\s+(?:each\s+|apiece\s+)?(?:for|per)\s+(?:an?\s+|each\s+)?(?P<kind>[a-z]+)\b",
    re.IGNORECASE,
)
_KIND_COSTS_RE = re.compile(
    rf"\b(?:an?|one|each|every)\s+(?P<kind>[a-z]+)\s+(?:costs?|is|sells\s+for)\s+(?P<p>{_NUM})(?!\s*%)"
    rf"|\b(?P<kind2>[a-z]+s)\s+(?:are|cost)\s+(?P<p2>{_NUM})(?:\s+(?:each|apiece))?(?!\s*%)"
    rf"|\b(?:sells?|sold|selling)\s+(?P<kind3>[a-z]+s)\s+(?:at|for)\s+(?P<p3>{_NUM})"
    r"\s+(?:each|apiece|a piece)\b",
    re.IGNORECASE,
)
"""A price said of one thing ("A book costs $15", "pens are $2 each", "sells apples at $0.50 each")."""


def _kind_and_price_groups(match: re.Match[str]) -> tuple[str, str]:
    """The names of the groups of :data:`_KIND_COSTS_RE` that ``match`` filled: its kind's and its price's."""
    return next((k, p) for k, p in (("kind", "p"), ("kind2", "p2"), ("kind3", "p3")) if match.group(k))


_KIND_COUNT_RE = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<kind>[a-z]+)\b", re.IGNORECASE)
_KIND_ONE_RE = re.compile(r"\b(?:an?|one)\s+(?P<kind>[a-z]+)\b", re.IGNORECASE)
"""One thing of a kind counted after the prices ("2 coffees and a muffin")."""
_SPEND_ASKED_RE = re.compile(
    rf"{_TOTAL}|\b(?:what|how much)\b[^.?!]*\b(?:spend|spent|pay|paid|cost|costs|owe)\b"
    r"|\bhow much\s+(?:for|would|will)\b",
    re.IGNORECASE,
)
"""A question asking what the things cost together ("What do I pay?", "How much for 3 books and 4 pens?")."""


def _items_total(text: str) -> str | None:
    """What several things bought at a price each cost together: "I bought 4 notebooks at $3.75 each
    and a pen for $2.40. What did I spend in total?" is ``(4 * 3.75 + 1 * 2.40)``; with the prices
    named per kind, then the count of each ("Tickets are $18 each for adults and $11 for kids. What do
    2 adults and 3 kids pay?"), ``(2 * 18 + 3 * 11)``. ``None`` unless two kinds of things or more are
    bought, every number is a count or a price of one, a count above one has its price "at" or "each"
    (not "3 shirts for $45"), and the question asks for the total."""
    if not _one_question(text):
        return None
    text = _PRICE_PER_SLASH_RE.sub(" per ", text)
    if not _SPEND_ASKED_RE.search(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    numbers = {m.start() for m in _NUMBER_RE.finditer(text)}
    items = list(_ITEM_RE.finditer(text))
    if len(items) >= 2 and all(_ITEM_GAP_RE.fullmatch(text, a.end(), b.start()) for a, b in pairwise(items)):
        terms = []
        for item in items:
            term = _item_term(item)
            if term is None:
                return None  # "3 shirts for $45": the price of all three?
            terms.append(term)
        used = {i.start(g) for i in items for g in ("n", "p") if i.start(g) >= 0}
        return f"({' + '.join(terms)})" if used == numbers else None
    # each kind's price (its number's place and as written) and where it is said
    prices: dict[str, tuple[int, str, int]] = {
        _stem(m.group("kind")): (m.start("p"), m.group("p"), m.end()) for m in _KIND_PRICE_RE.finditer(text)
    }
    for m in _KIND_COSTS_RE.finditer(text):  # "A book costs $15 and a pen costs $2"
        kind, price = _kind_and_price_groups(m)
        # a price already read per kind is not another kind ("Tickets are $18 each for adults")
        if all(start != m.start(price) for start, _, _ in prices.values()):
            prices.setdefault(_stem(m.group(kind)), (m.start(price), m.group(price), m.end()))
    # each count (where, as written, its kind): "3 books", or one thing after the prices, "a muffin"
    counts = [
        (m.start(), m.group("n"), _stem(m.group("kind")))
        for m in _KIND_COUNT_RE.finditer(text)
        if _stem(m.group("kind")) in prices and m.start() != prices[_stem(m.group("kind"))][0]
    ]
    said = max((end for _, _, end in prices.values()), default=0)
    counts += [
        (m.start(), "1", _stem(m.group("kind")))
        for m in _KIND_ONE_RE.finditer(text, said)
        if _stem(m.group("kind")) in prices
    ]
    counts.sort()
    kinds = [kind for _, _, kind in counts]
    if len(prices) < 2 or sorted(kinds) != sorted(prices):
        return None
    if min(start for start, _, _ in counts) < said:
        return None  # the prices first, then the counts
    used = {start for start, _, _ in prices.values()} | {start for start, _, _ in counts}
    if not numbers <= used:
        return None
    return "(" + " + ".join(f"{n} * {prices[kind][1]}" for _, n, kind in counts) + ")"


# A fee on each thing bought: "5 tickets at $32 each and a $4.50 booking fee per ticket. Total?".
_FEE_EACH_RE = re.compile(
    rf"(?<![\w.])(?P<f>{_NUM})\s+(?:[a-z-]+\s+){{0,2}}?(?:fees?|charges?|surcharges?|commissions?)\s+"
    rf"(?:(?:per|for each|on each|for every|on every|an?)\s+(?P<thing>[a-z]+)\b|(?:each|apiece)\b)",
    re.IGNORECASE,
)


def _fee_per_item(text: str) -> str | None:
    """Things bought at a price each with a fee on each one, asked for the total: "I need to buy 5
    tickets at $32 each and pay a $4.50 booking fee per ticket. Total?" is ``(5 * (32 + 4.50))``.
    ``None`` unless ``text`` holds just those three numbers, the fee comes after the things and is
    "per" one of them (the same things, "each", "per item"), and the question asks for the total."""
    if not _one_question(text) or not _SPEND_ASKED_RE.search(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    bought = list(_BOUGHT_EACH_RE.finditer(text))
    fees = list(_FEE_EACH_RE.finditer(text))
    if len(bought) != 1 or len(fees) != 1 or fees[0].start() < bought[0].end():
        return None
    item, fee = bought[0], fees[0]
    thing = fee.group("thing")
    each = thing is None or thing.lower() in ("item", "one", "piece", "unit")
    if not each and _stem(thing) != _stem(item.group("thing").split()[-1]):
        return None  # "a $2 fee per order": not on each thing
    if len(_NUMBER_RE.findall(text)) != 3 or _OTHER_OPERATION_RE.search(text):
        return None
    return f"({item.group('n')} * ({item.group('p')} + {fee.group('f')}))"


# A price or an amount per unit: "A 750 g box costs $4.50: the price per 100 g?", "42 liters for 600 km".
_PER_ASKED_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "How many liters per 100 km?", "how many km do I get per liter?"
        rf"\bhow many\s+(?P<top>[a-z]+)\s+(?:[a-z]+\s+){{0,4}}?(?:per|for each|for every)\s+"
        rf"(?:(?P<per>{_NUM})\s*)?(?P<unit>[a-z]+)\b",
        # "What is the price per 100 g?", "how much per kg?", "the cost per yogurt"
        rf"\b(?P<price>price|cost|how much)\s+(?:(?:is it|does it cost|is that)\s+)?"
        rf"(?:per|for each|for every)\s+"
        rf"(?:(?P<per>{_NUM})\s*)?(?P<unit>[a-z]+)\b",
        # "How much is one yogurt?", "what does 1 yogurt cost?"
        r"\b(?P<price>how much|what)\s+(?:is|are|does|do|would|will|for)\s+(?:a single|1|each|an?)\s+"
        r"(?P<unit>[a-z]+)\b",
        # "What is its fuel consumption per 100 km?": the fuel (a volume) per the distance
        rf"\b(?P<fuel>(?:fuel|petrol|gas|gasoline|diesel)\s+(?:consumption|use|usage)|consumption)\s+(?:is\s+)?"
        rf"(?:per|for each|for every)\s+(?:(?P<per>{_NUM})\s*)?(?P<unit>[a-z]+)\b",
    )
)
_PRICE_GIVEN_RE = re.compile(
    r"\b(?:costs?|cost me|is|are|was|were|for|priced at|sells? for|sold for|paid|pay|at)\s+$", re.IGNORECASE
)
_CURRENCY_WORD_RE = re.compile(r"(?:dollars?|euros?|bucks|usd|eur|gbp)\b", re.IGNORECASE)


_PACK = r"(?:pack|packet|box|case|carton|bag|set|crate|tray|bundle)s?"
_PACK_BEFORE_RE = re.compile(rf"\b{_PACK}\s+of\s+$", re.IGNORECASE)
_PACK_AFTER_RE = re.compile(r"-?\s*(?:pack|pk|count|ct)\b", re.IGNORECASE)
_NO_NAME_RE = re.compile(rf"{_HAS}|are|was|were|for|at|sells?|sold|costing|priced", re.IGNORECASE)


def _pack_count(given: str, number: re.Match[str], name: str) -> bool:
    """Whether ``number`` counts the things of a pack without naming them: "a 12-pack of soda", "a
    pack of 12 is $6" (the things are what the price per one asks for)."""
    if _PACK_AFTER_RE.match(given, number.end()):
        return True
    named = bool(name) and not _NO_NAME_RE.fullmatch(name)
    return not named and _PACK_BEFORE_RE.search(given[: number.start()]) is not None


def _same_unit(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return _stem(a) == _stem(b) or (a in _UNIT_OF and _UNIT_OF.get(a) == _UNIT_OF.get(b))


def _unit_price(text: str) -> str | None:
    """A price or an amount per unit of another amount: "A 750 g box of cereal costs $4.50. What is the
    price per 100 g?" is ``(4.50 / 750 * 100)``, "A pack of 6 yogurts costs $4.38. How much is one
    yogurt?" ``(4.38 / 6)``, "My car used 42 liters for 600 km. How many liters per 100 km?" ``(42 /
    600 * 100)``. ``None`` unless the question asks for a price or an amount per one named unit of the
    other, ``text`` gives exactly those two amounts before it (the price after "costs", "for", ...; the
    other with its unit), and nothing there is already per unit or each."""
    if not _one_question(text):
        return None
    for pattern in _PER_ASKED_RES:
        asked = pattern.search(text)
        if asked is not None:
            break
    else:
        return None
    given, after = text[: asked.start()], text[asked.end() :]
    if _NUMBER_RE.search(after) or re.search(r"\b(?:each|per|every|apiece|a piece)\b", given, re.IGNORECASE):
        return None
    if _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(given):
        return None
    numbers = list(_NUMBER_RE.finditer(_without_ones(given)))
    if len(numbers) != 2:
        return None
    units = [re.match(r"\s*([a-z]+)\b", given[n.end() :], re.IGNORECASE) for n in numbers]
    names = ["" if u is None else u.group(1) for u in units]
    if asked.groupdict().get("price") is not None:
        prices = [
            i
            for i, n in enumerate(numbers)
            if _PRICE_GIVEN_RE.search(given[: n.start()])
            and (not names[i] or names[i].lower() in _NOT_A_THING or _CURRENCY_WORD_RE.match(names[i]))
        ]
        if len(prices) != 1:
            return None
        top = prices[0]
    else:
        if asked.groupdict().get("fuel") is not None:  # the fuel given: the amount that is a volume
            tops = [i for i, name in enumerate(names) if _UNIT_OF.get(name.lower(), ("",))[0] == "volume"]
        else:
            tops = [i for i, name in enumerate(names) if name and _same_unit(name, asked.group("top"))]
        if len(tops) != 1:
            return None
        top = tops[0]
    other = 1 - top
    between = given[numbers[min(top, other)].end() : numbers[max(top, other)].start()]
    if asked.groupdict().get("price") is None and re.search(r"\b(?:with|of|containing|holding)\b", between):
        return None  # "3 boxes with 12 eggs": 12 in all or in each?
    if _pack_count(given, numbers[other], names[other]) and asked.groupdict().get("price") is not None:
        unit = asked.group("unit").lower()
        if asked.groupdict().get("per") is not None or unit in _UNIT_OF or re.fullmatch(f"{_PACK}|pk", unit):
            return None  # "a 12-pack is $7.80: the price per 100 ml?", "... per pack?"
        return f"({numbers[top].group()} / {numbers[other].group()})"
    if not names[other] or not _same_unit(names[other], asked.group("unit")):
        return None
    per = asked.groupdict().get("per")
    top_amount = numbers[top].group() if per is None else f"{numbers[top].group()} * {per}"
    return f"({top_amount} / {numbers[other].group()})"


# An amount per unit of time over a time in another unit: "save $150 a month: how much after 2 years?".
_TIME_UNIT = (
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|fortnights?|months?|mos?|quarters?|"
    r"years?|yrs?|decades?|century|centuries)"
)
_TIME_UNIT_NAMES = {
    "sec": "second", "min": "minute", "hr": "hour", "h": "hour", "wk": "week", "mo": "month", "yr": "year",
    "centurie": "century", "hourly": "hour", "daily": "day", "weekly": "week", "fortnightly": "fortnight",
    "monthly": "month", "quarterly": "quarter", "yearly": "year", "annually": "year", "annual": "year",
    "per annum": "year",
}  # fmt: skip
_DAYS = {"second": Fraction(1, 86400), "minute": Fraction(1, 1440), "hour": Fraction(1, 24), "day": 1}
_DAYS.update(week=7, fortnight=14)
_MONTHS = {"month": 1, "quarter": 3, "year": 12, "decade": 120, "century": 1200}
_YEARS = {"year": 1, "decade": 10, "century": 100}
_PER_YEAR = {"week": 52, "fortnight": 26}
"""Weeks in a year as people count them (52, not 365 / 7); other units count 365 days a year. Months
have no fixed number of days or weeks: a month is never converted to either."""
_RATE_OF_TIME_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "$150 a month", "60 km per hour", "2 litres every minute", "150 dollars each month"
        rf"(?<![\w.])(?P<b>{_NUM})\s+(?:(?P<noun>{_NOUNS})\s+(?:of\s+{_NOUNS}\s+)?)?"
        rf"(?:per|an?|every|each|(?:in|for) (?:a|an|one|each|every))\s+(?P<unit>{_TIME_UNIT}|night)\b",
        # "150/month", "60 km/h"
        rf"(?<![\w.])(?P<b>{_NUM})\s*(?:(?P<noun>[a-z]+)\s*)?/\s*(?P<unit>{_TIME_UNIT}|h)\b",
        # "$150 monthly", "20 dollars hourly", "5000 per annum"
        rf"(?<![\w.])(?P<b>{_NUM})\s+(?:(?P<noun>{_NOUNS})\s+)?"
        rf"(?P<unit>hourly|daily|weekly|fortnightly|monthly|quarterly|yearly|annually|per annum)\b",
        # "60 mph", "80 kph", "100 kmh": a speed in one word, per hour
        rf"(?<![\w.])(?P<b>{_NUM})\s*(?P<noun>mp|kp|km)(?P<unit>h)\b",
    )
)
_DURATION_RE = re.compile(
    r"(?:\b(?:for|after|in|over|within|during|across|throughout|lasting)\s+"
    r"(?:(?:the|a|an|next|first|coming|following|whole|entire|full)\s+)*)?"
    rf"(?:(?<![\w.])(?P<a>{_NUM})|\b(?:a|an|one))[\s-]+(?P<unit>{_TIME_UNIT})\b",
    re.IGNORECASE,
)
_SPAN_OF_RE = re.compile(rf"\s*(?:(?:work|working)\s*)?(?:{_TIME_UNIT}|shift)\b", re.IGNORECASE)
"""A time that names a span it is part of ("a 40-hour week", "an 8 hour work day"): hours worked in it."""
_NOT_ONE_RATE_RE = re.compile(r"\b(?:once|twice|thrice|how long|when)\b|%|\bper ?cent\b", re.IGNORECASE)
"""A rate given more than once a unit, a time asked for, or a percentage (growth, interest): no product."""


def gives_a_rate_of_time(text: str) -> bool:
    """Whether ``text`` gives an amount per unit of time ("8 hours a night", "$150 a month", "60 km/h"): a
    question working with it is arithmetic, not the clock's."""
    return any(pattern.search(text) for pattern in _RATE_OF_TIME_RES)


def _time_unit(word: str) -> str:
    word = word.lower()
    if word in ("night", "nights"):
        return "day"  # "8 hours a night": one night a day
    if word not in _TIME_UNIT_NAMES and word.endswith("s") and word != "s":
        word = word[:-1]
    return _TIME_UNIT_NAMES.get(word, word)


def _units_in(rate_unit: str, time_unit: str) -> Fraction | None:
    """How many ``rate_unit`` make one ``time_unit`` (hours in a day: 24; months in a year: 12; days in
    a year: 365; weeks in a year: 52), or ``None`` (days in a month: not fixed)."""
    if rate_unit in _DAYS and time_unit in _DAYS:
        return Fraction(_DAYS[time_unit]) / _DAYS[rate_unit]
    if rate_unit in _MONTHS and time_unit in _MONTHS:
        return Fraction(_MONTHS[time_unit], _MONTHS[rate_unit])
    per_year = {u: Fraction(_PER_YEAR.get(u, 365 / Fraction(d))) for u, d in _DAYS.items()}
    if time_unit in _YEARS and rate_unit in _DAYS:
        return _YEARS[time_unit] * per_year[rate_unit]
    if rate_unit in _YEARS and time_unit in _DAYS:
        return 1 / (_YEARS[rate_unit] * per_year[time_unit])
    return None


_PER_UNIT_ASKED_RE = re.compile(
    rf"\b(?:per|an?|each|every|in\s+(?:a|an|one|each|every))\s+(?P<unit>{_TIME_UNIT})\b"
    r"|\b(?P<adverb>hourly|daily|weekly|fortnightly|monthly|yearly|annually)\b",
    re.IGNORECASE,
)
"""A unit of time a rate is asked per: "how many hours a week?", "in a week", "weekly"."""


def _rates_chained(text: str) -> str | None:
    """Two rates, the second counting the first one's unit of time: "I work 8 hours a day, 5 days a week.
    How many hours a week?" is ``(8 * 5)``, "I walk 5 km a day, 6 days a week: how far in a week?" ``(5 *
    6)``. ``None`` unless ``text`` holds just the two rates (no other number or operation) and asks per
    the second one's unit, if it names a unit."""
    if _NOT_ONE_RATE_RE.search(text):
        return None
    found = {m.start("b"): m for pattern in _RATE_OF_TIME_RES for m in pattern.finditer(text)}
    if len(found) != 2:
        return None
    first, second = (found[start] for start in sorted(found))
    counted = (second.group("noun") or "").split()
    per = _time_unit(first.group("unit"))
    if not counted or _time_unit(counted[-1]) != per or _time_unit(second.group("unit")) == per:
        return None  # "5 days a week" counts the days the first rate is per
    rest = _blanked(_blanked(text, first), second)
    if _NUMBER_RE.search(_ONE_THING_RE.sub(" ", rest)) or _OTHER_OPERATION_RE.search(rest):
        return None
    for asked in _PER_UNIT_ASKED_RE.finditer(text, second.end()):
        unit = _time_unit(asked.group("adverb") or asked.group("unit"))  # "weekly" is the week's
        if unit != _time_unit(second.group("unit")):
            return None  # "how many hours a month?": weeks are no whole part of a month
    return f"({first.group('b')} * {second.group('b')})"


def _chained_rates_for_a_time(text: str) -> str | None:
    """Two rates chained, for a time in the second one's unit: "Mike earns $15 per hour. He works 6 hours a
    day for 5 days. How much does he earn?" is ``(15 * 6 * 5)``, "I earn $20 an hour and work 8 hours a
    day. How much do I make in 5 days?" the same. ``None`` unless ``text`` holds just the two rates (the
    second counting the first's unit of time) and one time in the second's unit."""
    if _NOT_ONE_RATE_RE.search(text):
        return None
    found = {m.start("b"): m for pattern in _RATE_OF_TIME_RES for m in pattern.finditer(text)}
    if len(found) != 2:
        return None
    first, second = (found[start] for start in sorted(found))
    counted = (second.group("noun") or "").split()
    per, over = _time_unit(first.group("unit")), _time_unit(second.group("unit"))
    if not counted or _time_unit(counted[-1]) != per or over == per:
        return None
    rest = _blanked(_blanked(text, first), second)
    times = [m for m in _DURATION_RE.finditer(rest) if m.group("a") is not None]
    if len(times) != 1 or _time_unit(times[0].group("unit")) != over:
        return None
    if len(_NUMBER_RE.findall(_ONE_THING_RE.sub(" ", rest))) != 1 or _OTHER_OPERATION_RE.search(rest):
        return None
    return f"({first.group('b')} * {second.group('b')} * {times[0].group('a')})"


def _rate_for_a_time(text: str) -> str | None:
    """An amount per unit of time for a time given in another unit, the time converted into the rate's
    unit: "if I save $150 a month, how much after 2 years?" is ``(150 * 2 * 12)``, "60 km per hour for
    90 minutes" ``(60 * 90 / 60)``, "70 beats a minute: how many in an hour?" ``(70 * 60)``. ``None``
    unless ``text`` holds exactly one rate and one time (no other number, no other operation), the
    units convert exactly (a month has no fixed number of days or weeks) and no time is asked for."""
    if _NOT_ONE_RATE_RE.search(text):
        return None
    rates = [m for pattern in _RATE_OF_TIME_RES for m in pattern.finditer(text)]
    if len({m.start("b") for m in rates}) != 1:
        return None
    rate = rates[0]
    times = [m for m in _DURATION_RE.finditer(text) if m.end() <= rate.start() or m.start() >= rate.end()]
    if len(times) != 1:
        return None
    time = times[0]
    first, second = sorted((rate, time), key=lambda m: m.start())
    rest = text[: first.start()] + " " + text[first.end() : second.start()] + " " + text[second.end() :]
    if _NUMBER_RE.search(_ONE_THING_RE.sub(" ", rest)) or _OTHER_OPERATION_RE.search(rest):
        return None
    rate_unit, time_unit = _time_unit(rate.group("unit")), _time_unit(time.group("unit"))
    if rate_unit != time_unit and _SPAN_OF_RE.match(text, time.end()):
        return None  # "$28 a day: in a 40-hour week?": 40 hours of work, not 40 / 24 days
    noun = (rate.group("noun") or "").split()
    if noun and _time_unit(noun[-1]) == time_unit:
        return None  # "8 hours a day ... 40 hours": the hours are the amount, not the time
    asked = re.search(rf"\bhow many\s+({_TIME_UNIT})\b", text, re.IGNORECASE)
    if asked is not None and _time_unit(asked.group(1)) == rate_unit:
        return None  # "how many months (to save ...)": a number of the rate's units asked for
    factor = _units_in(rate_unit, time_unit)
    if factor is None:
        return None
    parts = [rate.group("b")]
    if time.group("a") is not None:
        parts.append(time.group("a"))
    if factor.numerator != 1:
        parts.append(str(factor.numerator))
    expression = " * ".join(parts) + (f" / {factor.denominator}" if factor.denominator != 1 else "")
    if len(parts) == 1 and factor.denominator == 1:
        return None
    noun = [word for word in noun if word.lower() in _UNIT_OF] or noun
    return _in_asked_unit(f"({expression})", noun[0] if noun else None, text)


_OTHER_UNIT_ASKED_RE = re.compile(
    rf"\b(?:(?:per|an?|every|each)\s+(?P<unit>{_TIME_UNIT})|(?P<adverb>hourly|daily|weekly|fortnightly|monthly|"
    r"quarterly|yearly|annually))\b(?=[^.;!]*\??\s*$)",
    re.IGNORECASE,
)
"""A rate asked in the question's last clause: "how much is that per month?", "what is it weekly?"."""


def _rate_and_unit_asked(text: str) -> tuple[re.Match[str], re.Match[str], str, str] | None:
    """The one rate of time of ``text`` and the one other unit of time asked after it ("$52,000 a year …
    per month?"): the two matches and the two units, or None."""
    rates = [m for pattern in _RATE_OF_TIME_RES for m in pattern.finditer(text)]
    if len({m.start("b") for m in rates}) != 1:
        return None
    asks = [m for m in _OTHER_UNIT_ASKED_RE.finditer(text) if m.start() >= rates[0].end()]
    if len(asks) != 1:
        return None
    rate_unit = _time_unit(rates[0].group("unit"))
    asked_unit = _time_unit(asks[0].group("unit") or asks[0].group("adverb"))
    return None if rate_unit == asked_unit else (rates[0], asks[0], rate_unit, asked_unit)


def _other_unit_factor(text: str) -> Fraction | bool | None:
    """For a text with one rate of time asking it per another unit ("$52,000 a year … per month?"), how many
    of the rate's units make the one asked (1/12); ``False`` when they do not convert exactly (a month in
    weeks); ``None`` when the text asks no other unit of one rate."""
    found = _rate_and_unit_asked(text)
    if found is None:
        return None
    factor = _units_in(found[2], found[3])
    return False if factor is None else factor


def _scaled_by(factor: Fraction) -> str:
    """`` * n / d`` for a factor (the parts that are not 1)."""
    return (f" * {factor.numerator}" if factor.numerator != 1 else "") + (
        f" / {factor.denominator}" if factor.denominator != 1 else ""
    )


_PERIOD = r"(?P<period>day|week|fortnight|month|year)"
_HOURS_AT_PAY_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "38 hours a week at $22 an hour"
        rf"(?<![\w.])(?P<h>{_NUM})\s*(?:hours?|hrs?|h)\s+(?:an?|per|each|every)\s+{_PERIOD}\s+"
        rf"(?:at|for|earning|on|paid)\s+(?P<r>{_NUM})\s*(?:dollars|euros|pounds)?\s+(?:an?|per|each)\s+hour\b",
        # "$22 an hour and (I) work 38 hours a week"
        rf"(?<![\w.])(?P<r>{_NUM})\s*(?:dollars|euros|pounds)?\s+(?:an?|per|each)\s+hour\b[^.?!\d]{{0,30}}?"
        rf"\b(?P<h>{_NUM})\s*(?:hours?|hrs?|h)\s+(?:an?|per|each|every)\s+{_PERIOD}\b",
    )
)
"""Hours worked a period at pay per hour: "38 hours a week at $22 an hour", "$22 an hour, 38 hours a week"."""


def _pay_for_hours(text: str) -> str | None:
    """The pay of hours worked each period at a rate per hour, in the period asked ("I work 38 hours a week
    at $22 an hour. How much do I earn a week?" is ``(38 * 22)``; "… a year?" ``(38 * 22 * 52)``).
    ``None`` unless ``text`` holds just those two numbers, asks for one unit of time or none (the
    period's), and the period converts exactly into it (a week has no fixed share of a month)."""
    found = [m for pattern in _HOURS_AT_PAY_RES for m in pattern.finditer(text)]
    if len(found) != 1:
        return None
    match = found[0]
    rest = text[: match.start()] + " " + text[match.end() :]
    if _NUMBER_RE.search(_ONE_THING_RE.sub(" ", rest)) or _OTHER_OPERATION_RE.search(rest):
        return None
    asks = list(_OTHER_UNIT_ASKED_RE.finditer(text, match.end()))
    if len(asks) > 1:
        return None
    period = match.group("period").lower()
    asked = _time_unit(asks[0].group("unit") or asks[0].group("adverb")) if asks else period
    if period == "day" and asked != period:
        return None  # hours a day: how many days a week are worked is not said
    factor = _units_in(period, asked) if asked != period else Fraction(1)
    if factor is None or asked in ("hour", "minute", "second"):
        return None
    return f"({match.group('h')} * {match.group('r')}{_scaled_by(factor)})"


_TAKEN_EACH_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<thing>[a-z]+)\b[^?!]*?\b(?P<m>{_NUM})\s+(?:people|persons|friends|kids|"
    r"children|guests|students|players|workers|of us|of them|family members)\b[^.?!]*?\b(?P<each>each\s+)?"
    r"(?:eat|eats|ate|take|takes|took|get|gets|got|use|uses|used|have|has|had|drink|drinks|drank|buy|buys|"
    rf"bought)\s+(?P<k>{_NUM})\s*(?:[a-z]+\s+)?(?(each)|each\b)",
    re.IGNORECASE,
)
"""Things shared out: "8 slices … 3 people eat 2 slices each" ("3 friends each eat 2 slices"), in one
sentence or the next ("A pizza is cut into 8 slices. If 3 people eat 2 slices each, ...")."""


def _left_after_each(text: str) -> str | None:
    """What is left of some things after several people take the same number each: "A pizza is cut into 8
    slices and 3 people eat 2 slices each. How many slices are left?" is ``(8 - 3 * 2)``. ``None`` unless
    the text holds just those three numbers, asks what is left, and they take no more than there is."""
    taken = _TAKEN_EACH_RE.search(text)
    if taken is None or not _LEFT_OVER_RE.search(text):
        return None
    rest = text[: taken.start()] + " " + text[taken.end() :]
    if _NUMBER_RE.search(_ONE_THING_RE.sub(" ", rest)) or _OTHER_OPERATION_RE.search(rest):
        return None
    n, m, k = (Fraction(taken.group(g)) for g in ("n", "m", "k"))
    if m * k > n:
        return None  # more taken than there was: something else is meant
    return f"({taken.group('n')} - {taken.group('m')} * {taken.group('k')})"


def _rate_in_another_unit(text: str) -> str | None:
    """One rate of time asked per another unit of time: "I earn $52,000 a year. How much is that per month?"
    is ``(52000 / 12)``, "45 a week on food: how much per year?" ``(45 * 52)``, "$20 an hour: how much a
    minute?" ``(20 / 60)``. ``None`` unless ``text`` holds exactly one rate, asks one other unit after it,
    writes no other number or operation, and the units convert exactly (a month has no fixed number of
    days or weeks); a time to spend it over is :func:`_rate_for_a_time`'s."""
    found = None if _NOT_ONE_RATE_RE.search(text) else _rate_and_unit_asked(text)
    if found is None:
        return None
    rate, ask, rate_unit, asked_unit = found
    if any(m.start() >= rate.end() for m in _DURATION_RE.finditer(text)):
        return None  # a time to spend it over: _rate_for_a_time's
    rest = text[: rate.start()] + " " + text[rate.end() : ask.start()] + " " + text[ask.end() :]
    if _NUMBER_RE.search(_ONE_THING_RE.sub(" ", rest)) or _OTHER_OPERATION_RE.search(rest):
        return None
    noun = (rate.group("noun") or "").split()
    if noun and _time_unit(noun[-1]) in (rate_unit, asked_unit):
        return None  # "8 hours a day": hours are the amount, not a rate's money
    factor = _units_in(rate_unit, asked_unit)
    return None if factor is None else f"({rate.group('b')}{_scaled_by(factor)})"


# A shape's area, perimeter or volume: "the area of a circle with radius 3", "a 4 by 6 rectangle's perimeter".
_LENGTH_UNIT = (
    r"(?:mm|cm|m|km|inch(?:es)?|ft|feet|foot|yards?|yd|miles?|(?:milli|centi|kilo)?met(?:re|er)s?|units?)"
)
_MEASURE = rf"(?<![\w.-])(?P<n>{_UNSIGNED})(?:[\s-]*{_LENGTH_UNIT}\b)?"
_SECOND_MEASURE = rf"(?<![\w.-])(?P<m>{_UNSIGNED})(?:[\s-]*{_LENGTH_UNIT}\b)?"
"""A size: a number (never negative) and maybe its unit."""
_SIZE_NAME = (
    r"radius|diameter|side length|side|sides|legs|edge length|edge|edges|length|width|breadth|base|height"
)
_SIZE_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "sides 4 and 6", "sides of 4 cm by 6 cm": a rectangle's length and width (a right triangle's legs,
        # a trapezoid's parallel sides)
        rf"(?:(?:2|both|the)\s+)?(?:(?:shorter|short|perpendicular|parallel)\s+)?(?:sides?|legs|bases)\s+"
        rf"(?:(?:are|measure|measuring|of|of lengths?|with lengths?|lengths?|=|:)\s+)?"
        rf"{_MEASURE}\s*(?:and|,|by|x|×)\s*{_SECOND_MEASURE}",
        # "radius 3", "a radius of 3 cm", "side length = 4", "whose diameter is 10"
        rf"(?P<name>{_SIZE_NAME})\s*(?:(?:is|of|=|:|equal to|equals|measuring|measures|that is|which is)\s*)*"
        rf"{_MEASURE}",
        # "4 by 6", "4 cm x 6 cm": a length and a width
        rf"{_MEASURE}\s*(?:by|x|×|\*)\s*{_SECOND_MEASURE}",
        # "a 3 cm radius", "a 6-inch diameter"
        rf"{_MEASURE}[\s-]+(?P<name>radius|diameter|sides?|edges?|base|height|length|width)\b",
        # "4 m long and 6 m wide", "5 cm high"
        rf"{_MEASURE}\s+(?P<name>long|wide|high|tall)\b",
        # "r = 3", "d=6"
        rf"\b(?P<name>[rdslwbh])\s*=\s*{_MEASURE}",
        # "a 4 cm square", "a 3 m cube": the side
        rf"{_MEASURE}[\s-]+(?=(?:square|cube)\b)",
    )
)
"""A size of a shape, with its name or what it is (a "4 by 6" rectangle, a "4 cm" square)."""
_SIZE_OF = {
    "radius": "r", "diameter": "d", "side length": "s", "side": "s", "sides": "s", "edge length": "s",
    "edge": "s", "edges": "s", "length": "l", "long": "l", "width": "w", "breadth": "w", "wide": "w",
    "base": "b", "height": "h", "high": "h", "tall": "h",
}  # fmt: skip
_QUANTITY = r"(?:surface\s+area|area|circumference|perimeter|volume|hypotenuse)"
_SHAPE = (
    rf"(?:circle|sphere|square(?!\s+{_LENGTH_UNIT}\b)|rectangle|right(?:[\s-]angled?)?\s+triangle|triangle|"
    r"cube|cylinder|cone|trapez(?:oid|ium))"
)
"""A shape ("square feet" is an area's unit, not a square)."""
_FORMULAS = {
    ("area", "circle", "r"): "(pi * {r} ** 2)",
    ("area", "circle", "d"): "(pi * ({d} / 2) ** 2)",
    ("circumference", "circle", "r"): "(2 * pi * {r})",
    ("circumference", "circle", "d"): "(pi * {d})",
    ("perimeter", "circle", "r"): "(2 * pi * {r})",
    ("perimeter", "circle", "d"): "(pi * {d})",
    ("area", "square", "s"): "({s} ** 2)",
    ("perimeter", "square", "s"): "(4 * {s})",
    ("area", "rectangle", "lw"): "({l} * {w})",
    ("perimeter", "rectangle", "lw"): "(2 * ({l} + {w}))",
    ("area", "triangle", "bh"): "({b} * {h} / 2)",
    ("area", "right triangle", "bh"): "({b} * {h} / 2)",
    ("area", "right triangle", "lw"): "({l} * {w} / 2)",
    ("hypotenuse", "right triangle", "lw"): "sqrt({l} ** 2 + {w} ** 2)",
    ("hypotenuse", "triangle", "lw"): "sqrt({l} ** 2 + {w} ** 2)",
    ("volume", "cube", "s"): "({s} ** 3)",
    ("surface area", "cube", "s"): "(6 * {s} ** 2)",
    ("volume", "sphere", "r"): "(4 / 3 * pi * {r} ** 3)",
    ("volume", "sphere", "d"): "(4 / 3 * pi * ({d} / 2) ** 3)",
    ("surface area", "sphere", "r"): "(4 * pi * {r} ** 2)",
    ("surface area", "sphere", "d"): "(pi * {d} ** 2)",
    ("volume", "cylinder", "hr"): "(pi * {r} ** 2 * {h})",
    ("volume", "cylinder", "dh"): "(pi * ({d} / 2) ** 2 * {h})",
    ("volume", "cone", "hr"): "(pi * {r} ** 2 * {h} / 3)",
    ("volume", "cone", "dh"): "(pi * ({d} / 2) ** 2 * {h} / 3)",
    ("area", "trapezoid", "hlw"): "(({l} + {w}) / 2 * {h})",
}
"""Formulas by (quantity, shape, the sizes they take, in alphabetical order)."""
_SIZE_LINK_RE = re.compile(
    r"(?:\s|,|\b(?:and|with|of|having|has|have|that|which|whose|where|if|its|a|an|the|is|are|"
    r"measuring|measures)\b)*",
    re.IGNORECASE,
)
_SPACES_RE = re.compile(r"\s*")
_SHAPE_HEAD_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b(?:the\s+)?(?P<q>{_QUANTITY})\s+of\s+(?:(?:a|an|the|one|each|this|that)\s+)?",
        rf"\b(?:(?:a|an|the)\s+)?(?=(?:{_SHAPE})(?:'s|’s)?\s+{_QUANTITY}\b)",
    )
)
"""Where a shape's quantity is named: "the area of a ...", "a circle's area ..." (the shape next)."""


def _sizes(text: str, start: int, *, linked: bool = True) -> tuple[dict[str, str], int] | None:
    """The sizes named one after another from ``start`` ("with radius 3", "with length 4 and width 6",
    "4 by 6"), by their letter (``r``, ``d``, ``s``, ``l``, ``w``, ``b``, ``h``), and where they end;
    ``None`` when a size is named twice. Unless ``linked``, only spaces may come between them (before
    the shape's name: "a 4 by 6 rectangle")."""
    sizes: dict[str, str] = {}
    end = start
    while True:
        link = (_SIZE_LINK_RE if linked else _SPACES_RE).match(text, end)
        position = end if link is None else link.end()
        for pattern in _SIZE_RES:
            match = pattern.match(text, position)
            if match is None:
                continue
            groups = match.groupdict()
            if groups.get("m") is not None:
                found = {"l": groups["n"], "w": groups["m"]}
            elif groups.get("name") is not None:
                name = groups["name"].lower()
                found = {_SIZE_OF.get(name, name): groups["n"]}
            else:
                found = {"s": groups["n"]}
            if set(found) & set(sizes):
                return None
            sizes.update(found)
            end = match.end()
            break
        else:
            return sizes, end


def _formula(quantity: str, shape: str, sizes: dict[str, str]) -> str | None:
    quantity = re.sub(r"\s+", " ", quantity.lower())
    shape = re.sub(r"^right\W*(?:angled?\s+)?triangle$", "right triangle", shape.lower())
    shape = "trapezoid" if shape == "trapezium" else shape
    form = _FORMULAS.get((quantity, shape, "".join(sorted(sizes))))
    return None if form is None else form.format(**sizes)


def _shapes_read(text: str) -> str:
    """``text`` with a shape's area, perimeter or volume and its sizes, named together ("the area of a
    circle with radius 3", "the perimeter of a 4 by 6 rectangle", "a cube's volume with side 3"),
    replaced by its formula (``(pi * 3 ** 2)``, ``(2 * (4 + 6))``, ``(3 ** 3)``); one whose sizes do
    not fit the formula is left as it is."""
    if not re.search(_QUANTITY, text, re.IGNORECASE):
        return text
    for head_re in _SHAPE_HEAD_RES:
        for head in head_re.finditer(text):
            before = _sizes(text, head.end(), linked=False)
            if before is None:
                continue
            sizes, end = before
            shape = re.compile(rf"\s*(?:-\s*)?({_SHAPE})(?:'s|’s)?\b", re.IGNORECASE).match(text, end)
            if shape is None:
                continue
            end = shape.end()
            quantity = head.groupdict().get("q")
            if quantity is None:
                named = re.compile(rf"\s*({_QUANTITY})\b", re.IGNORECASE).match(text, end)
                if named is None:
                    continue
                quantity, end = named.group(1), named.end()
            after = _sizes(text, end)
            if after is None or set(after[0]) & set(sizes):
                continue
            formula = _formula(quantity, shape.group(1), {**sizes, **after[0]})
            if formula is not None:
                return _shapes_read(text[: head.start()] + formula + text[after[1] :])
    return text


_UNIT_SYMBOLS_OF_LENGTH = {
    "millimetre": "mm", "millimeter": "mm", "centimetre": "cm", "centimeter": "cm", "metre": "m",
    "meter": "m", "kilometre": "km", "kilometer": "km", "inch": "in", "inches": "in", "foot": "ft",
    "feet": "ft", "yard": "yd", "mile": "mi",
}  # fmt: skip
"""The symbol of each unit of length a shape's size may be written in."""
_SIZE_UNIT_RE = re.compile(rf"(?<![\w.-]){_UNSIGNED}[\s-]*(?P<unit>{_LENGTH_UNIT})\b", re.IGNORECASE)
_POWER_OF = {"area": "²", "surface area": "²", "volume": "³"}
"""The power of the length unit a shape's quantity is in (a perimeter, circumference or side: none)."""


def shape_unit(text: str) -> str | None:
    """The unit of a shape's quantity ``text`` asks, when it asks one quantity of one shape and gives every
    size in one unit of length: "A rectangle is 8 m long and 5 m wide. What is its area?" is in m², "the
    perimeter of a square with side 7 cm" in cm; None otherwise (no unit, several, or units mixed)."""
    prepared = _prepared(text) if len(text) <= MAX_READ_CHARS else ""
    if _size_from_a_quantity(prepared) is not None:
        unit = _unit_of_a_size(prepared)  # a size asked from a quantity: in the unit of length
        other = _other_quantity(prepared)
        return f"{unit}²" if unit is not None and other is not None and other[1] == "area" else unit
    quantity = shape_quantity_asked(_sized_as_a_rectangle(text))  # "a garden 10 m long and 4 m wide" too
    units = shape_size_units(text)
    if quantity is None or len(units) != 1:
        return None
    return units.pop() + _POWER_OF.get(quantity, "")


def shape_quantity_asked(text: str) -> str | None:
    """The one quantity of one shape ``text`` asks ("area", "perimeter", "volume", ...), or None."""
    quantities = {" ".join(q.lower().split()) for q in re.findall(rf"\b{_QUANTITY}\b", text, re.IGNORECASE)}
    shapes = {m.lower() for m in re.findall(rf"\b{_SHAPE}\b", text, re.IGNORECASE)}
    if len(quantities) != 1 or len(shapes) > 1 or (not shapes and quantities != {"hypotenuse"}):
        return None
    return quantities.pop()


def shape_size_units(text: str) -> set[str]:
    """The units of length the sizes in ``text`` are written in, by symbol ({"m", "cm"} for "4 m by 60
    cm"); "4 units" names none."""
    units = set()
    for found in _SIZE_UNIT_RE.finditer(text):
        word = found.group("unit").lower()
        if word.startswith("unit"):
            continue
        singular = (word, word[:-1], word[:-2])  # "metres", "inches"
        units.add(next((_UNIT_SYMBOLS_OF_LENGTH[w] for w in singular if w in _UNIT_SYMBOLS_OF_LENGTH), word))
    return units


_GIVEN_QUANTITY_RE = re.compile(
    rf"\b(?P<q>area|perimeter|circumference)\s+(?:of\s+(?:the|a|an|its)\s+[a-z]+\s+)?(?:of\s+|is\s+|=\s*|:\s*)"
    rf"(?P<n>{_UNSIGNED})\b(?:\s*(?P<unit>{_LENGTH_UNIT})(?:²|\^?2\b|\b))?",
    re.IGNORECASE,
)
"""A shape's quantity given, maybe with its unit ("an area of 49 cm²", "the area of a square is 25")."""
_SIZE_ASKED_RE = re.compile(
    r"\b(?:what|how\s+long|find|how\s+wide)\b[^.?!]*?\b(?P<size>side(?:\s+length)?|radius|diameter|length|"
    r"width)\b|\bhow\s+(?P<how>long|wide)\s+is\s+(?:it|each\s+side|its\s+side|the\s+side)\b",
    re.IGNORECASE,
)
"""A shape's size asked ("What is its side length?", "How long is each side?")."""


_OTHER_QUANTITY_ASKED_RE = re.compile(
    r"\b(?:what|find|how\s+(?:big|large|long))\b[^.?!]*?\b(?P<q>area|perimeter|circumference)\b",
    re.IGNORECASE,
)
"""A shape's quantity asked ("What is its area?"), after another one given."""


def _other_quantity(text: str) -> tuple[str, str] | None:
    """The quantity a square or a circle is asked of from another given ("A square has a perimeter of 36 cm.
    What is its area?" is ``((36 / 4) ** 2)``), with the quantity asked; ``None`` for any other question."""
    shapes = {m.lower() for m in re.findall(rf"\b{_SHAPE}\b", text, re.IGNORECASE)}
    given = _GIVEN_QUANTITY_RE.search(text)
    asked = _OTHER_QUANTITY_ASKED_RE.search(text, given.end()) if given is not None else None
    if len(shapes) != 1 or given is None or asked is None or len(_NUMBER_RE.findall(text)) != 1:
        return None
    shape, n = shapes.pop(), given.group("n")
    have, want = given.group("q").lower(), asked.group("q").lower()
    rim = ("perimeter", "circumference")
    if shape == "square" and have == "perimeter" and want == "area":
        return f"(({n} / 4) ** 2)", want
    if shape == "square" and have == "area" and want == "perimeter":
        return f"(4 * sqrt({n}))", want
    if shape == "circle" and have in rim and want == "area":
        return f"(pi * ({n} / (2 * pi)) ** 2)", want
    if shape == "circle" and have == "area" and want in rim:
        return f"(2 * pi * sqrt({n} / pi))", want
    return None


def _size_from_a_quantity(text: str) -> str | None:
    """A shape's size from its area, perimeter or circumference (and, for a rectangle, its other side): "A
    square has an area of 49 cm². What is its side length?" is ``sqrt(49)``, a circle's radius from its area
    ``sqrt(A / pi)``, "a rectangle's perimeter is 30 cm and its width 5 cm: its length?" ``(30 / 2 - 5)``; a
    square's or a circle's area from its perimeter and back (:func:`_other_quantity`). ``None`` for any
    other question."""
    other = _other_quantity(text)
    if other is not None:
        return other[0]
    shapes = {m.lower() for m in re.findall(rf"\b{_SHAPE}\b", text, re.IGNORECASE)}
    given, asked = _GIVEN_QUANTITY_RE.search(text), _SIZE_ASKED_RE.search(text)
    if len(shapes) != 1 or given is None or asked is None or asked.start() < given.end():
        return None
    shape, quantity, n = shapes.pop(), given.group("q").lower(), given.group("n")
    size = (asked.group("size") or "side").lower().split()[0]
    others = [m for m in _NUMBER_RE.finditer(text) if m.start() != given.start("n")]
    if shape == "square" and not others and size in ("side", "length", "width"):
        return f"sqrt({n})" if quantity == "area" else f"({n} / 4)" if quantity == "perimeter" else None
    if shape == "circle" and not others and size in ("radius", "diameter"):
        double = "2 * " if size == "diameter" else ""
        if quantity == "area":
            return f"({double}sqrt({n} / pi))"
        return f"({double}{n} / (2 * pi))" if quantity in ("circumference", "perimeter") else None
    if shape == "rectangle" and len(others) == 1 and size in ("length", "width", "side"):
        side = others[0].group()
        if quantity == "area":
            return f"({n} / {side})"
        return f"({n} / 2 - {side})" if quantity == "perimeter" else None
    return None


def _unit_of_a_size(prepared: str) -> str | None:
    """The unit of length of the size :func:`_size_from_a_quantity` works out of the ``prepared`` text (the
    given quantity's, "49 cm²": cm), or None."""
    given = _GIVEN_QUANTITY_RE.search(prepared)
    if given is None:
        return None
    units = shape_size_units(prepared) | ({given.group("unit")} if given.group("unit") else set())
    names = {_UNIT_SYMBOLS_OF_LENGTH.get(u.lower(), u.lower()) for u in units}
    return names.pop() if len(names) == 1 else None


def _shape_problem(text: str) -> str | None:
    """A shape's area, perimeter or volume asked for apart from its sizes ("A circle has a radius of 3
    cm. What is its area?", "a rectangle is 4 by 6: what is its perimeter?"): one shape, one quantity,
    and every number a size of it. ``text`` itself (an error) when anything else is asked of the shape
    ("the area of a square is 25: what is its side?", "... what is double its area?": not 25 squared),
    unless a symbol asks for arithmetic of its own; ``None`` when ``text`` names no shape or no quantity."""
    quantities = re.findall(rf"\b{_QUANTITY}\b", text, re.IGNORECASE)
    shapes = {m.lower() for m in re.findall(rf"\b{_SHAPE}\b", text, re.IGNORECASE)}
    implied = not shapes and [q.lower() for q in quantities] == ["hypotenuse"]
    if implied:
        shapes = {"right triangle"}  # only a right triangle has one
    if not quantities or not shapes:
        return None
    if len(quantities) > 1 or len(shapes) > 1:
        return None if re.search(r"[-+*/^×÷]", text) else text
    sizes: dict[str, str] = {}
    rest, position = "", 0
    for match in re.finditer(rf"(?<![\w.])(?:{_SIZE_NAME}|[rdslwbh]\s*=|{_NUM})", text, re.IGNORECASE):
        if match.start() < position:
            continue
        found = _sizes(text, match.start(), linked=False)
        if found is None or not found[0] or set(found[0]) & set(sizes):
            continue
        sizes.update(found[0])
        rest, position = rest + text[position : match.start()] + " ", found[1]
    rest += text[position:]
    rest = re.sub(rf"\b(?:{_QUANTITY}|{_SHAPE})\b", " ", rest, flags=re.IGNORECASE)
    formula = None
    other = _NUMBER_RE.search(rest) or _OTHER_OPERATION_RE.search(rest) or _has_arithmetic(rest)
    if sizes and not other and not any(_has_arithmetic(part) for part in _CLAUSE_END_RE.split(rest)):
        formula = _formula(quantities[0], shapes.pop(), sizes)
    if formula is None and implied:
        return None  # "the hypotenuse of 5": no shape to ask about
    if formula is None and not re.search(r"[-+*/^×÷]", text):
        return text  # a shape's size or quantity asked another way ("the area of a square is 25: its side?")
    return formula


def _clause(text: str) -> str:
    """One clause (no "then") as an expression."""
    cleaned = text.strip().strip(",.;:?!").strip()
    special = _percent_change(cleaned) or _rounding(cleaned)
    if special is not None:
        return special
    fraction = _FRACTION_ONLY_RE.fullmatch(cleaned)
    if fraction is not None:  # "one eighth" (as a decimal), "three quarters"
        count, part = fraction.group(1).lower(), fraction.group(2).lower()
        denominator = 2 if part in ("half", "halves") else _DENOMINATORS[part.removesuffix("s")]
        return f"({'1' if count in ('a', 'an') else count} / {denominator})"
    for pattern, form in _VERB_PATTERNS:
        match = pattern.match(cleaned)
        if match is None:
            continue
        if form in _AGGREGATES:
            kind, fewest = _AGGREGATES[form]
            if kind != "product" and _PERCENT_IN_SUM_RE.search(match.group(1)):
                return match.group(1)  # "add 12 percent and 250": 12% of what? (left in words: an error)
            items = _list(match.group(1))
            if len(items) >= fewest:
                return _aggregate(kind, items)
            continue
        return form.format(*(_operand(g) for g in match.groups()))
    unframed = _without_framing(cleaned)
    return _clause(unframed) if unframed != cleaned else _symbols(cleaned)


_ARITHMETIC_START_RE = re.compile(r"^(?:[\d(√-]|[a-z]\w*\s*\(|(?:pi|e|tau)\b)", re.IGNORECASE)


_OPERAND_FIRST = ("^(.+?)", f"^{_NOT_ASKED}", f"^{_EXPRESS}(.+?)")
_LEADING_VERB_PATTERNS = tuple(p for p, _ in _VERB_PATTERNS if not p.pattern.startswith(_OPERAND_FIRST))
"""The operation forms that begin with a word of their own ("add ...", "the sum of ..."), not with an
operand: only these say where arithmetic starts (an operand starts it by its own first word), and
trying the others at every word of a long text took time growing with its square."""


def _starts_arithmetic(text: str) -> bool:
    """Whether ``text`` begins with a number, a parenthesis, a function call, an operator or
    function word, or an operation verb."""
    if _ARITHMETIC_START_RE.match(text) or any(p.match(text) for p in _LEADING_VERB_PATTERNS):
        return True
    if _ROUND_VERB_RE.match(text):
        return True
    return any(re.match(p, text, re.IGNORECASE) for p, _ in (*_OPERATOR_WORDS, *_FUNCTION_WORDS))


def _without_framing(text: str) -> str:
    """``text`` without the leading words that frame a computation ("I need 19 * 21", "what do you
    get if you divide 144 by 12"): plain words are dropped up to where arithmetic starts. Anything
    else first (a symbol, a quote, an identifier such as ``x`` before an operator) keeps ``text``
    whole, for the evaluator to reject."""
    words = text.split()
    for i, word in enumerate(words):
        rest = " ".join(words[i:])
        if i and words[i - 1].lower() in ("a", "an") and word.lower() in ("square", "cube"):
            continue  # "the diagonal of a square with side 2": a shape, not "square 2"
        if _starts_arithmetic(rest):
            return rest
        if not re.fullmatch(r"[A-Za-z]+(?:['’][A-Za-z]+)?,?", word):
            return text
    return text


def _grouped(expression: str) -> str:
    """``expression`` as one operand: parenthesised unless it is a number, a name, a call or already
    enclosed ("5 + 3" then "divided by 2" is ``(5 + 3) / 2``, not ``5 + 3 / 2``)."""
    text = expression.strip()
    if re.fullmatch(rf"{_NUM}|\w+", text):
        return text
    start = re.match(r"\w*\(", text)
    if start is not None and closing_paren(text, start.end() - 1) == len(text) - 1:
        return text
    return f"({text})"


def closing_paren(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at ``start`` in ``text`` (-1 when it is not closed)."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return -1


def _step(running: str, text: str) -> str:
    """A "then" step applied to ``running``; an unrecognised step is a clause of its own."""
    running = _grouped(running)
    cleaned = text.strip().strip(",.;:?!").strip()
    rounding = _ROUND_STEP_RE.match(cleaned)
    if rounding is not None:
        return _rounded(running, rounding)
    for pattern, form in _STEP_PATTERNS:
        match = pattern.match(cleaned)
        if match is not None:
            return form.format(running, *(_operand(g) for g in match.groups()))
    return _clause(cleaned)


def _has_arithmetic(text: str) -> bool:
    """Whether ``text`` holds an operator, an operator or function word, or an operation verb."""
    if re.search(r"[-+*/^%√×÷]|\d!", text) or _percent_change(text) or _rounding(text):
        return True
    if any(re.search(p, text, re.IGNORECASE) for p, _ in (*_OPERATOR_WORDS, *_FUNCTION_WORDS)):
        return True
    cleaned = _LEAD_RE.sub("", numbers_from_words(text)).strip().strip(",.;:?!")
    return any(p.match(cleaned) for p, _ in _VERB_PATTERNS)


def _drop_intro(text: str) -> str:
    """``text`` without a lead-in of at most four words before a colon, when the lead-in holds no
    arithmetic and what follows the colon does ("quick one: 3.5 * 4" but not "lambda: 1")."""
    match = _INTRO_RE.match(text)
    if match is None:
        return text
    intro, rest = match.group(1), text[match.end() :]
    if len(intro.split()) > 4 or _has_arithmetic(intro) or not _has_arithmetic(rest):
        return text
    return rest


_DANGLING_RE = re.compile(
    r"(?:plus|take away|added to|times(?!\s+\S+\s+by\b)|multiplied by|divided by|over|to the power)\b",
    re.IGNORECASE,
)
"""A clause that opens with a binary operation has lost its left operand (a follow-up without context)."""


def _read(text: str) -> str:
    """``text`` (prepared: number words read, misspellings fixed) as an expression: framing dropped,
    then a clause, or a chain of steps each applied to the running result."""
    cleaned = _TRAIL_RE.sub("", _LEAD_RE.sub("", text))
    steps = [s for s in _THEN_RE.split(cleaned) if s.strip()]
    if not steps:
        return cleaned
    first = _TRAIL_RE.sub("", _LEAD_RE.sub("", steps[0]))
    if _DANGLING_RE.match(first.strip()):
        return first  # "take away 2" of what? Left in words: the evaluator rejects it (not -2)
    expression = _clause(first)
    if len(steps) > 1 and not has_operation(expression):
        # a conversion then a step ("How many pounds is 5 kg, rounded?"): the step works on the conversion
        conversion = read_conversion(first)
        expression = expression if conversion is None else conversion.expression
    for step in steps[1:]:
        expression = _step(expression, _TRAIL_RE.sub("", _LEAD_RE.sub("", step)))
    return expression


_ORDINALS = {
    "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
"""Ordinal words, as powers ("to the third power") and as the parts of a fraction ("two thirds of")."""
_ORDINAL_POWER_RE = re.compile(
    rf"\bto the ({'|'.join(_ORDINALS)})\b(?! (?:decimal|place|digit))", re.IGNORECASE
)
"""A power written as an ordinal: "to the third power", "raised to the fifth", "to the fourth"."""
_DENOMINATORS = {**{k: v for k, v in _ORDINALS.items() if k != "second"}, "quarter": 4}
_WORD_FRACTION_RE = re.compile(
    rf"(?<![\w.])(a|an|{_NUM})[\s-]+({'|'.join(_DENOMINATORS)})s?\s+of\b", re.IGNORECASE
)
"""A fraction of a value in words: "two thirds of 60" (number words already read), "a fifth of 50",
"3 quarters of 80"."""
_FRACTION_ONLY_RE = re.compile(
    rf"(?:the\s+)?(?:fraction\s+)?(a|an|{_NUM})[\s-]+(half|halves|(?:{'|'.join(_DENOMINATORS)})s?)",
    re.IGNORECASE,
)
"""A fraction in words that is the whole clause: "one eighth" (as a decimal), "three quarters"."""
_SYMBOL_FRACTION_RE = re.compile(rf"(?<![\w.)]){_NUM_FRACTION}\s+of\b", re.IGNORECASE)
"""A fraction of a value in symbols: "3/4 of 200"."""


_AND_A_PART_RE = re.compile(r"(?<![\w.])(\d+) and (?:a|one) (half|quarter)\b", re.IGNORECASE)
"""A whole number and a half or a quarter: "3 and a half" is 3.5."""
_PART_OF_TIME_RE = re.compile(
    r"\b(?:(?P<q>a|one|\d+)\s+quarters?\s+of|(?P<half>half)(?:\s+of)?)\s+(?:an?|one)\s+"
    r"(?P<unit>second|minute|hour|day|week|month|year)\b"
    r"|\b(?:an?|one)\s+(?P<whole>second|minute|hour|day|week|month|year)\s+and\s+an?\s+(?P<part>half|quarter)\b"
    r"|(?<![\w./])(?P<top>\d+)\s*/\s*(?P<bottom>[1-9]\d*)\s+of\s+(?:an?|one)\s+"
    r"(?P<of>second|minute|hour|day|week|month|year)\b",
    re.IGNORECASE,
)
"""A part of a time in words: "a quarter of an hour" is ``0.25 hours``, "half a day" ``0.5 days``, "an
hour and a half" ``1.5 hours``, "3/4 of an hour" ``0.75 hours``."""
_PART_OF_UNIT_RE = re.compile(
    r"\bhalf\s+(?:of\s+)?(?:a|an|one)\s+(?P<half>[a-z]+(?:\s+[a-z]+)?)"
    r"|\b(?:a|one)\s+quarter(?:\s+of)?(?:\s+(?:a|an|one))?\s+(?P<quarter>[a-z]+(?:\s+[a-z]+)?)"
    r"|\b(?:a|an|one)\s+(?P<whole>[a-z]+(?:\s+[a-z]+)?)\s+and\s+a\s+(?P<part>half|quarter)\b",
    re.IGNORECASE,
)
"""A part of a unit in words: "half a pound" is ``0.5 pound``, "a quarter pound" ``0.25 pound``, "a pound and
a half" ``1.5 pound`` (only for units of length, mass and volume; a unit's name may be two words: "fluid
ounce")."""
_PART_OF_PERCENT_RE = re.compile(
    r"\b(?:(half)(?:\s+of)?|(?:a|one)\s+quarter(?:\s+of)?)\s+(?:a|one)\s+(?:percent|per\s+cent|%)(?!\w)",
    re.IGNORECASE,
)
"""A part of one percent in words: "half a percent" is ``0.5 percent``, "a quarter of a percent" ``0.25``."""
_SIGNED_POWER_RE = re.compile(
    r"(^|[^\w\s).]\s*|\b(?:is|of|what'?s|calculate|compute)\s+)-(\d+(?:\.\d+)?)"
    r"(?=\s+(?:squared|cubed|to the)\b)",
    re.IGNORECASE,
)
"""A number with its sign before a power said in words ("what is -5 squared"): the signed number is raised,
as "negative 5 squared" is (25), not 5 squared then negated; "10 -5 squared" keeps its subtraction."""
_NEGATIVE_RE = re.compile(r"\bnegative\s+(\d+(?:\.\d+)?)", re.IGNORECASE)
"""A negative number in words: "negative 5" is ``(-5)`` (the word was dropped: 5 + 3 for -5 + 3)."""


def _part_of_unit(match: re.Match[str]) -> str:
    for group, amount in (("half", "0.5"), ("quarter", "0.25"), ("whole", None)):
        words = match.group(group)
        if words is None:
            continue
        for unit in (words, words.split()[0]):
            kind = _UNIT_OF.get(unit.lower(), ("",))[0]
            if len(unit) > 2 and kind in ("length", "mass", "volume"):
                if amount is None:
                    amount = "1.5" if match.group("part").lower() == "half" else "1.25"
                tail = words[len(unit) :]
                return f"{amount} {unit}{tail}"
    return match.group(0)


def _part_of_time(match: re.Match[str]) -> str:
    """A part of a time in words as a decimal amount of the unit, said in the plural as decimals are
    ("1.5 hours", "0.25 hours"; "4 quarters of an hour" is "1 hour")."""
    if match.group("of") is not None:
        part = Fraction(int(match.group("top")), int(match.group("bottom")))
        amount, unit = format(Decimal(part.numerator) / Decimal(part.denominator), ".6g"), match.group("of")
    elif match.group("whole") is not None:
        amount = "1.5" if match.group("part").lower() == "half" else "1.25"
        unit = match.group("whole")
    elif match.group("q") is None:
        amount, unit = "0.5", match.group("unit")
    else:
        quarters = match.group("q")
        amount = str(Decimal(1 if quarters.lower() in ("a", "one") else int(quarters)) / 4)
        unit = match.group("unit")
    return f"{amount} {unit}" if Decimal(amount) == 1 else f"{amount} {unit}s"


def _fractions_and_ordinals(text: str) -> str:
    """``text`` with ordinal powers as ``to the 3th power`` (read by :data:`_OPERATOR_WORDS`),
    "3 and a half" as ``3.5``, "negative 5" as ``(-5)`` and fractions of a value as ``(2 / 3) *``
    ("two thirds of 60", "3/4 of 200")."""
    text = _ORDINAL_POWER_RE.sub(lambda m: f"to the {_ORDINALS[m.group(1).lower()]}th", text)
    text = _PART_OF_PERCENT_RE.sub(lambda m: "0.5 percent" if m.group(1) else "0.25 percent", text)
    text = _PART_OF_TIME_RE.sub(_part_of_time, text)
    text = _PART_OF_UNIT_RE.sub(_part_of_unit, text)
    text = _AND_A_PART_RE.sub(lambda m: m.group(1) + (".5" if m.group(2).lower() == "half" else ".25"), text)
    text = _NEGATIVE_RE.sub(r"(-\1)", text)
    text = _SIGNED_POWER_RE.sub(r"\1(-\2)", text)

    def fraction(match: re.Match[str]) -> str:
        count = match.group(1).lower()
        numerator = "1" if count in ("a", "an") else count
        return f"({numerator} / {_DENOMINATORS[match.group(2).lower()]}) *"

    text = _WORD_FRACTION_RE.sub(fraction, text)
    return _SYMBOL_FRACTION_RE.sub(r"(\1 / \2) *", text)


_CURRENCY_RE = re.compile(r"(?<![\w.])[$€£¥]\s*(?=\d)")
"""A currency sign before an amount ("$40"): the amount is the number."""
_OPENER_TYPO_RES = (
    (
        re.compile(
            r"(?:^|(?<=[.?!:;,]\s))(?:hw|hwo|hiw|hpw|hoq)(?=\s+(?:many|much|long|far|big|old|tall)\b)", re.I
        ),
        "how",
    ),
    (
        re.compile(r"(?:^|(?<=[.?!:;,]\s))(?:wat|wht|waht|whta|hwat)(?=(?:['’]?s)?\s+\S)", re.I),
        "what",
    ),
)
"""A question's first word mistyped ("hw many ounces is 1.2 kg", "wat's 5 km in miles"): read as it only at
the start of a sentence and before the words that follow it there ("hw many", "wat is")."""


_RATE_NAMED_RE = re.compile(
    r"\b(?P<per>hourly|daily|weekly|monthly|yearly|annual)\s+(?:rate|wage|pay|salary|income|fee|rent)"
    r"\s+(?P<verb>is|was|of)\s+(?P<amount>[$€£]?\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)
"""A rate named by its period ("my hourly rate is $45", "a monthly fee of $12"): an amount per period."""


_BY_ITSELF_RE = re.compile(
    r"\b(?:multiply\s+)?(?P<n>-?\d+(?:\.\d+)?)\s+(?:multiplied\s+by|by|times)\s+itself\b", re.IGNORECASE
)
"""A number multiplied by itself ("multiply 12 by itself", "12 times itself")."""


_PERCENT_WORD_RE = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(?:percent|per\s+cent)(?=\s+of\b)", re.IGNORECASE
)
"""A percentage of a value written in words after its number ("20 percent of 50")."""


def _prepared(text: str) -> str:
    """``text`` with misspelled operation words fixed, a lead-in before a colon dropped, number words
    as digits, thousands separators and currency signs removed, ordinal powers and fractions of a value
    read, postfix factorials as calls and a shape's area, perimeter or volume as its formula."""
    cleaned = text.strip()
    for typo, word in _OPENER_TYPO_RES:
        cleaned = typo.sub(word, cleaned)
    cleaned = _drop_intro(_spelling_fixed(cleaned))
    cleaned = _RATE_NAMED_RE.sub(
        lambda m: (
            f"rate {m.group('verb')} {m.group('amount')} per {_TIME_UNIT_NAMES[m.group('per').lower()]}"
        ),
        cleaned,
    )  # "my hourly rate is $45" is "my rate is $45 per hour"
    cleaned = numbers_from_words(cleaned)
    # "20 percent of 50 plus 10 percent of 30" read as "20% of 50 plus 10% of 30" (each percent of its own
    # value; read in words, the first had taken all the rest as its value)
    cleaned = _PERCENT_WORD_RE.sub(r"\1%", cleaned)
    cleaned = re.sub(r"(?<=\d),(?=\d{3}\b)", "", cleaned)  # 1,000 -> 1000
    cleaned = _CURRENCY_RE.sub("", cleaned)  # $40 -> 40
    cleaned = _BY_ITSELF_RE.sub(r"\g<n> * \g<n>", cleaned)  # "multiply 12 by itself" -> 12 * 12
    cleaned = _sized_as_a_rectangle(cleaned)
    return _shapes_read(_factorials(_fractions_and_ordinals(cleaned)))


_SIZED_AS_A_RECTANGLE_RE = re.compile(
    rf"^(?P<lead>\W*(?:an?|the|my|our|his|her|their|this)\s+)(?:rectangular\s+)?(?P<thing>[a-z]+)"
    rf"(?=\s+(?:is|measures)\s+{_UNSIGNED}\s*(?:{_LENGTH_UNIT}\s+)?long\s+and\s+{_UNSIGNED}\s*"
    rf"(?:{_LENGTH_UNIT}\s+)?wide\b)",
    re.IGNORECASE,
)
"""A thing sized by its length and width alone ("A garden is 10 m long and 4 m wide"): a rectangle."""


def _sized_as_a_rectangle(text: str) -> str:
    """``text`` with a thing sized by its length and width named a rectangle when it names no shape and
    asks its area or perimeter ("A garden is 10 m long and 4 m wide. What is its perimeter?": the
    rectangle's, 28 m); as it is otherwise."""
    asked = re.findall(r"\b(area|perimeter|diagonal|volume|circumference)\b", text, re.IGNORECASE)
    if len(asked) != 1 or asked[0].lower() not in ("area", "perimeter"):
        return text  # "its area and diagonal": more than one quantity
    if re.search(rf"\b{_SHAPE}\b", text, re.IGNORECASE) or len(shape_size_units(text)) > 1:
        return text  # a shape named, or sizes in two units ("3 m long and 2 ft wide")
    return _SIZED_AS_A_RECTANGLE_RE.sub(lambda m: f"{m.group('lead')}rectangle", text, count=1)


_SENTENCE_END_RE = re.compile(r"(?<=[.?!])\s+(?=\S)")
_CONTINUES_RE = re.compile(r"^(?:and\s+)?(?:then|after that|next|finally)\b", re.IGNORECASE)
_CLAUSE_END_RE = re.compile(r"\s*[,;]\s+|\s+(?:but|so)\s+", re.IGNORECASE)
_AND_QUESTION_RE = re.compile(
    r"\s+and\s+(?=(?:what|what's|whats|what’s|how|when|where|who|which|why)\b)", re.IGNORECASE
)
"""Where a second question starts: "what's 5 * 7 and what time is it in Tokyo?"."""


def _sentences(text: str) -> list[str]:
    """``text`` cut into sentences; one that opens with "then" ("... Then double it.") stays with
    the sentence before it."""
    sentences: list[str] = []
    for part in _SENTENCE_END_RE.split(text):
        if sentences and _CONTINUES_RE.match(part):
            sentences[-1] += " " + part
        else:
            sentences.append(part)
    return sentences


_FIGURE = (
    r"(?:sum|total|average|mean|median|mode|product|difference|range|min(?:imum)?|max(?:imum)?|highest|lowest|"
    r"smallest|largest|biggest)"
)
_TWO_FIGURES_RE = re.compile(
    rf"\b{_FIGURE}\s*(?:,|and|&|\+|plus|as well as)\s*(?:(?:the|an?|on|in|its|their)\s+)?{_FIGURE}\b",
    re.IGNORECASE,
)
"""A question asking two figures of its numbers ("the total and average of my bills: ..."): one expression is
one figure, so it is not read (answered with the average alone, the total was dropped)."""


_CONDITION_LAST_RE = re.compile(
    r"^(?P<question>(?:how much|how many|what)\b[^?]*?),?\s+if\s+(?P<condition>[^?]+?)\s*\?*\s*$",
    re.IGNORECASE,
)
"""A question asked before its condition ("How much do 5 tickets cost if one ticket costs $8?")."""
_STATED_THEN_ASKED_RE = re.compile(
    r"^(?P<stated>[^.?!]*\d[^.?!]*)\.\s+(?P<question>(?:how much|how many|what)\b[^.?!]*\?)\s*$",
    re.IGNORECASE,
)
"""A statement of numbers, then the question ("A ticket costs $8. What do 5 tickets cost?")."""


def _said_in_order(text: str) -> str | None:
    """``text`` with its condition or statement first and the question after a comma, as the word problems
    are read ("If one ticket costs $8, how much do 5 tickets cost?"), or None when it has neither form."""
    last = _CONDITION_LAST_RE.match(text)
    if last is not None:
        return f"If {last.group('condition')}, {last.group('question')}?"
    stated = _STATED_THEN_ASKED_RE.match(text)
    if stated is not None:
        return f"{stated.group('stated')}, {stated.group('question')}"
    return None


_GROUP_SIZES = {"dozen": 12, "gross": 144, "score": 20, "pair": 2, "pairs": 2}
"""Things a group word counts: "3 dozen eggs" are 36."""
_COUNTED_IN_GROUPS_RE = re.compile(
    r"^\W*how many (?:[a-z]+ ){1,2}(?:are |is )?(?:there )?in "
    r"(?P<n>\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|half an?) "
    r"(?P<group>dozen|gross|score|pairs?)\s*[?.!]*$",
    re.IGNORECASE,
)
"""How many things a number of groups holds ("How many eggs are in 3 dozen?", "in a gross")."""
_COIN_CENTS = {"quarter": 25, "dime": 10, "nickel": 5, "penny": 1, "pennie": 1, "cent": 1}
_COINS_IN_RE = re.compile(
    r"^\W*how many (?P<coin>quarters|dimes|nickels|pennies|cents) (?:are |is )?(?:there )?in "
    r"(?:(?P<a>an?|one) dollar|\$\s?(?P<n>\d+(?:\.\d+)?)|(?P<m>\d+(?:\.\d+)?) (?:dollars?|bucks|usd))"
    r"\s*[?.!]*$",
    re.IGNORECASE,
)
"""How many coins make an amount of dollars ("How many quarters in $5?": 20)."""


_ARTICLE_COUNTS = {"a": "1", "an": "1", "half a": "0.5", "half an": "0.5"}
"""How many groups "a dozen" and "half a dozen" are."""


def _counted_in_groups(text: str) -> str | None:
    """ "How many eggs are in 3 dozen?" is ``(3 * 12)``; None for any other text."""
    match = _COUNTED_IN_GROUPS_RE.match(" ".join(text.split()))
    if match is None:
        return None
    written = match.group("n").lower()
    count = _ARTICLE_COUNTS.get(written) or numbers_from_words(written)
    if not re.fullmatch(r"\d+(?:\.\d+)?", count):
        return None
    return f"({count} * {_GROUP_SIZES[match.group('group').lower()]})"


_COINS_HAD_RE = re.compile(
    r"^\W*(?:i|we|you|he|she|they)\s+(?:have|has|had|got)\s+(?:\$\s?(?P<n>\d+(?:\.\d+)?)|(?P<m>\d+(?:\.\d+)?)\s+"
    r"(?:dollars?|bucks))\s+in\s+(?P<coin>quarters|dimes|nickels|pennies)\b[.,]?\s+how\s+many\s+(?P=coin)\b"
    r"[^?.!]*[?.!]*$",
    re.IGNORECASE,
)
"""Dollars had in one kind of coin, and how many coins asked ("I have $5 in quarters. How many quarters?")."""
_COIN_FACT_RE = re.compile(
    r"^\W*there\s+are\s+(?P<count>\d+)\s+(?P<coin>quarters|dimes|nickels|pennies)\s+in\s+(?:a|one)\s+dollar\s*"
    r"[.,;]\s*",
    re.IGNORECASE,
)
"""A coin's worth stated before the question ("There are 4 quarters in a dollar. ...")."""


def _coins_in(text: str) -> str | None:
    """ "How many quarters in $5?" and "I have $5 in quarters. How many quarters do I have?" are ``(5 * 100 /
    25)``, the same after a sentence stating the coin's worth rightly ("There are 4 quarters in a dollar.");
    None for any other text."""
    flat = " ".join(text.split())
    fact = _COIN_FACT_RE.match(flat)
    if fact is not None:
        cents = _COIN_CENTS[fact.group("coin").lower().removesuffix("s")]
        if int(fact.group("count")) * cents != 100:
            return None  # a worth of its own: not this reading
        flat = flat[fact.end() :]
    match = _COINS_IN_RE.match(flat) or _COINS_HAD_RE.match(flat)
    if match is None:
        return None
    dollars = match.group("n") or match.group("m") or "1"
    cents = _COIN_CENTS[match.group("coin").lower().removesuffix("s")]
    return f"({dollars} * 100 / {cents})"


def _arithmetic(read: Callable[[str], tuple[str, str] | None], text: str) -> str | None:
    """The arithmetic of a reader that also knows its result's unit, or ``None``."""
    found = read(text)
    return None if found is None else found[0]


def read_with_unit(text: str) -> tuple[str, str] | None:
    """The arithmetic and the unit of a word problem whose reader knows its result's unit: a quantity scaled
    by servings ("(2 * 30 / 12)" in cups, :func:`scaled_quantity`), fuel for a distance (:func:`fuel_needed`),
    an amount cut into pieces (:func:`cut_into_pieces`), workers' time (:func:`time_for_workers`); ``None``
    for any other question. The calculator says such a result in its unit, and such a question is surely
    the calculator's."""
    if len(text) > MAX_READ_CHARS:
        return None
    prepared = _prepared(text)
    for read in (amounts_combined, scaled_quantity, fuel_needed, cut_into_pieces, time_for_workers):
        found = read(prepared)
        if found is not None:
            return found
    return None


def to_expression(text: str) -> str:
    """An arithmetic expression for ``text`` (see :func:`_to_expression`); a question asked before its
    condition, or after a sentence stating its numbers, that reads as nothing is read again with the
    condition first and the question after a comma ("How much do 5 tickets cost if one ticket costs
    $8?" as "If one ticket costs $8, how much do 5 tickets cost?"). Ways to choose, an amount changed by a
    percent, "1 in 8 as a percentage", amounts of one kind divided or combined and a cost added to a price
    (:data:`_READ_FIRST`) are read first."""
    if len(text) > MAX_READ_CHARS:
        return _to_expression(text)  # as it is: the reading's work grows faster than the text
    prepared = _prepared(text)
    for read, prepared_first in _READ_FIRST:
        found = read(prepared if prepared_first else text)
        if found is not None:
            return found
    reading = _to_expression(text)
    if has_operation(reading):
        return reading
    reordered = _said_in_order(prepared)
    if reordered is not None:
        again = _to_expression(reordered)
        if has_operation(again):
            return again
    narrowed = _of_the_kind_asked(text)
    if narrowed is not None:
        again = to_expression(narrowed)
        if has_operation(again):
            return again
    grouped = with_named_operations(text)
    if grouped != text:
        again = _to_expression(grouped)
        if has_operation(again):
            return again
    return reading


_GOES_UP = r"(?:goes\s+up|went\s+up|rises|rose|rise|increases|increased|grows|grew|(?:is|was)\s+raised)"
_GOES_DOWN = (
    r"(?:goes\s+down|went\s+down|falls|fell|drops|dropped|decreases|decreased|declines|declined"
    r"|(?:is|was)\s+(?:reduced|cut|lowered))"
)
_CHANGE_FROM_RE = re.compile(
    rf"(?:(?P<up>{_GOES_UP})|(?P<down>{_GOES_DOWN}))\s+(?:by\s+)?(?P<p>{_NUM})\s*(?:%|percent\b|per\s+cent\b)"
    rf"\s+from\s+(?P<a>{_NUM})\b"
    rf"|(?<![\w.])(?P<a2>{_NUM})(?:\s+[a-z]+){{0,3}}?\s+(?:(?P<up2>{_GOES_UP})|(?P<down2>{_GOES_DOWN}))\s+"
    rf"(?:by\s+)?(?P<p2>{_NUM})\s*(?:%|percent\b|per\s+cent\b)",
    re.IGNORECASE,
)
"""An amount changed by a percent ("goes up 3% from 1500", "1500 ... drops by 10%")."""
_NEW_VALUE_ASKED_RE = re.compile(
    r"\b(?:new|now|become|becomes|after\s+(?:that|it)|what\s+(?:is|will)\s+(?:it|the\s+\w+)\s+be"
    r"|how\s+much\s+(?:is\s+it|will\s+it\s+be|will\s+i\s+pay|do\s+i\s+pay))\b",
    re.IGNORECASE,
)


def _changed_by_percent(text: str) -> str | None:
    """An amount gone up or down by a percent, asked what it is now ("If my rent goes up 3% from $1,500, what
    is the new rent?" is ``(1500 * (100 + 3) / 100)``); None unless the text holds just those two numbers."""
    match = _CHANGE_FROM_RE.search(text)
    if match is None or _NEW_VALUE_ASKED_RE.search(text) is None or len(_NUMBER_RE.findall(text)) != 2:
        return None
    amount, percent = match.group("a") or match.group("a2"), match.group("p") or match.group("p2")
    sign = "+" if match.group("up") or match.group("up2") else "-"
    return f"({amount} * (100 {sign} {percent}) / 100)"


_ONE_IN_AS_PERCENT_RE = re.compile(
    rf"^\W*(?:(?:what(?:'s|\s+is)|how\s+much\s+is)\s+)?(?P<a>{_NUM})\s+(?:in|out\s+of)\s+(?P<b>{_NUM})\s+"
    r"(?:as\s+an?\s+|in\s+)?(?:percent(?:age)?|per\s+cent|%)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A share said "1 in 8", asked as a percentage."""
_CHOOSE_RES = (
    # "5 choose 2", "10C3", "combinations of 5 choose 2"
    (re.compile(r"(?<![\w.])(?P<n>\d+)(?:\s*choose\s*|[cC])(?P<k>\d+)(?![\w.])", re.IGNORECASE), "comb"),
    # "how many ways to choose 3 books from 10", "combinations of 2 from 5"
    (
        re.compile(
            r"\b(?:ways\s+(?:can\s+\w+\s+|to\s+|are\s+there\s+to\s+|of\s+)?(?:choose|chose|pick|select)"
            r"|combinations\s+of)\s+(?P<k>\d+)\s+(?:[a-z]+\s+)?(?:from|out\s+of|of|among)\s+(?P<n>\d+)\b",
            re.IGNORECASE,
        ),
        "comb",
    ),
    # "how many ways to arrange 3 of 5 books", "permutations of 5 taken 2 at a time"
    (
        re.compile(
            r"\bways\s+(?:can\s+\w+\s+|to\s+|are\s+there\s+to\s+)?(?:arrange|order|line\s+up)\s+(?P<k>\d+)\s+"
            r"(?:[a-z]+\s+)?(?:from|out\s+of|of)\s+(?P<n>\d+)\b",
            re.IGNORECASE,
        ),
        "perm",
    ),
    (
        re.compile(
            r"\bpermutations\s+of\s+(?P<n>\d+)\s+(?:[a-z]+\s+)?(?:taken|choose)\s+(?P<k>\d+)\b", re.IGNORECASE
        ),
        "perm",
    ),
)
"""Ways to choose or to arrange some of a number of things: ``comb(n, k)``, ``perm(n, k)``."""


def _ways_to_choose(text: str) -> str | None:
    """The ways to choose (or arrange) k of n things, as ``comb(n, k)`` (``perm(n, k)``): "5 choose 2", "How
    many ways to choose 3 books from 10?"; None for any other text."""
    for pattern, function in _CHOOSE_RES:
        match = pattern.search(text)
        if match is not None:
            return f"{function}({match.group('n')}, {match.group('k')})"
    return None


_NAMED_OPERATION_RE = re.compile(
    rf"\bthe\s+(?P<op>sum|product|difference|quotient)\s+(?:of|between)\s+(?P<a>{_NUM})\s+and\s+(?P<b>{_NUM})\b",
    re.IGNORECASE,
)
"""An operation named with its two numbers inside a longer one ("3 times the sum of 4 and 5")."""
_NAMED_SIGNS = {"sum": "+", "product": "*", "difference": "-", "quotient": "/"}


def with_named_operations(text: str) -> str:
    """``text`` with each operation named with its two numbers written in brackets ("What is 3 times the sum
    of 4 and 5?" as "What is 3 times (4 + 5)?"), so the operation around it reads it as one number."""
    return _NAMED_OPERATION_RE.sub(
        lambda m: f"({m.group('a')} {_NAMED_SIGNS[m.group('op').lower()]} {m.group('b')})", text
    )


def _one_in_as_percent(text: str) -> str | None:
    """ "What's 1 in 8 as a percentage?" as ``(1 / 8 * 100)``, or None."""
    match = _ONE_IN_AS_PERCENT_RE.match(text.strip())
    return None if match is None else f"({match.group('a')} / {match.group('b')} * 100)"


def _combined_expression(text: str) -> str | None:
    """The arithmetic of :func:`amounts_combined`, or None."""
    combined = amounts_combined(text)
    return None if combined is None else combined[0]


_READ_FIRST: tuple[tuple[Callable[[str], str | None], bool], ...] = (
    (lambda text: _ways_to_choose(text), False),
    (lambda text: _changed_by_percent(text), True),
    (lambda text: _one_in_as_percent(text), False),
    (lambda text: _amounts_divided(text), False),
    (lambda text: _combined_expression(text), True),
    (lambda text: _with_extra_cost(text), False),
)
"""Readers :func:`to_expression` tries before the general reading, in order, each of the text as written or
as prepared (``True``: :func:`_prepared`); lambdas, as the readers are defined further down."""


_LISTED_KINDS_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<kind>[a-z]+)(?P<rest>(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
    rf"{_NUM}\s+[a-z]+\b(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+){_NUM}\s+[a-z]+\b)*)",
    re.IGNORECASE,
)
"""Counts of several kinds listed ("3 cats and 2 dogs", "4 red, 5 blue and 2 green")."""
_ONE_LISTED_RE = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s+(?P<kind>[a-z]+)\b", re.IGNORECASE)
_KIND_ASKED_RE = re.compile(r"\bhow\s+many\s+(?P<kind>[a-z]+)\b", re.IGNORECASE)


def _of_the_kind_asked(text: str) -> str | None:
    """``text`` with a list of counts of several kinds cut to the kind the question asks of ("I have 3 cats
    and 2 dogs. If I get 2 more cats, how many cats will I have?" is read as "I have 3 cats. If ..."), or None
    when it lists none or asks of none of them (or of several: "How many cats and dogs?")."""
    asked = list(_KIND_ASKED_RE.finditer(text))
    if len(asked) != 1:
        return None
    wanted = _stem(asked[0].group("kind"))

    def cut(listed: re.Match[str]) -> str:
        counts = list(_ONE_LISTED_RE.finditer(listed.group(0)))
        kinds = {_stem(c.group("kind")) for c in counts}
        own = [c for c in counts if _stem(c.group("kind")) == wanted]
        if len(own) != 1 or len(kinds) != len(counts) or kinds & _NOT_A_THING:
            return listed.group(0)
        return own[0].group(0)

    narrowed = _LISTED_KINDS_RE.sub(cut, text[: asked[0].start()]) + text[asked[0].start() :]
    return None if narrowed == text else narrowed


def _to_expression(text: str) -> str:
    """An arithmetic expression for ``text`` written in words and/or symbols (see the module docs).

    When the whole text does not read as an operation, the one sentence (or else the one clause)
    that does is taken and the rest is context ("I bought 3 shirts at 19.99 each. 3 x 19.99?");
    with none or several, the whole reading is returned.

    The result is not validated: pass it to the evaluator, which rejects anything
    that is not arithmetic. A text longer than :data:`MAX_READ_CHARS` is returned as it is (the
    reading's work grows faster than the text; the evaluator refuses such a length anyway).
    """
    if len(text) > MAX_READ_CHARS or _TWO_FIGURES_RE.search(text):
        return text
    counted = _counted_in_groups(text) or _coins_in(text)
    if counted is not None:
        return counted
    cleaned = _prepared(text)
    leg = _leg_from_hypotenuse(cleaned) or _size_from_a_quantity(cleaned)
    if leg is not None:
        return leg  # "the hypotenuse of a right triangle is 25 and one leg is 7: the other leg?"
    shape = _shape_problem(cleaned)
    if shape is not None:
        return shape
    covered = _distance_at_speed(cleaned)
    if covered is not None:
        return covered.expression  # "60 mph for 2.5 hours: how far?", in the distance's unit
    whole = _read(cleaned)
    if has_operation(whole):
        return whole
    chained = _read(_AND_STEP_RE.sub(" then ", cleaned))
    if has_operation(chained):
        return chained
    paid = _rate_for_times(cleaned)
    if paid is not None:
        return paid  # "$19 an hour, 6 hours plus 5 hours": not 6 + 5 with the rate left out
    for parts, other_question in (
        (_sentences(cleaned), False),
        (_CLAUSE_END_RE.split(cleaned), False),
        (_AND_QUESTION_RE.split(cleaned), True),
    ):
        if len(parts) > 1:
            reading = _the_one_reading(parts, other_question=other_question)
            if reading is not None:
                return reading
    return (
        _interest(cleaned)
        or _growth_over_years(cleaned)
        or _loan_payment(cleaned)
        or _percent_earned(cleaned)
        or _price_problem(cleaned)
        or _price_before_or_after(cleaned)
        or _word_problem(cleaned)
        or _amount_per_time(cleaned)
        or _rates_chained(cleaned)
        or _chained_rates_for_a_time(cleaned)
        or _rate_for_a_time(cleaned)
        or _unit_conversion(cleaned)
        or _price_changes(cleaned)
        or _shared_with_amounts(cleaned)
        or _spent_from(cleaned)
        or _changes_in_steps(cleaned)
        or _said_of_another(cleaned)
        or _times_the_age(cleaned)
        or _groups_needed(cleaned)
        or _things_affordable(cleaned)
        or _rest_of_a_count(cleaned)
        or _rest_of_percent(cleaned)
        or _taken_of(cleaned)
        or _part_of_whole(cleaned)
        or _changed_by(cleaned)
        or _share_of_a_kind(cleaned)
        or _arithmetic(cut_into_pieces, cleaned)
        or _from_a_ratio(cleaned)
        or _still_needed(cleaned)
        or _change_from_paying(cleaned)
        or _items_total(cleaned)
        or _unit_price(cleaned)
        or _fee_per_item(cleaned)
        or _out_of_as_percent(cleaned)
        or _percent_taken(cleaned)
        or _average_of_listed(cleaned)
        or _percent_of_for(cleaned)
        or _round_area(cleaned)
        or _fixed_off_then_percent(cleaned)
        or _priced_by_unit(cleaned)
        or _items_bought_from(cleaned)
        or _packed_into(cleaned)
        or _time_to_finish(cleaned)
        or _by_dimensions(cleaned)
        or _arithmetic(fuel_needed, cleaned)
        or _total_with_charges(cleaned)
        or _amount_shared(cleaned)
        or _arithmetic(scaled_quantity, cleaned)
        or _price_rescaled(cleaned)
        or _rates_for_amounts(cleaned)
        or _leg_from_hypotenuse(cleaned)
        or _rest_shared(cleaned)
        or _share_of_a_unit(cleaned)
        or _flat_by_sides(cleaned)
        or _balance_after_a_time(cleaned)
        or _time_to_a_level(cleaned)
        or _amount_after_prices_changed(cleaned)
        or _rate_plus_one_off(cleaned)
        or _times_as_much(cleaned)
        or _time_per_amount(cleaned)
        or _stay_with_a_charge_per_head(cleaned)
        or _pay_for_hours(cleaned)
        or _left_after_each(cleaned)
        or _proportion(cleaned)
        or _rate_in_another_unit(cleaned)
        or _left_of_budget(cleaned)
        or whole
    )


# A part of a whole asked as a percentage apart from it: "18 out of 24 passed. What percent is that?".
_OUT_OF_RE = re.compile(
    rf"(?<![\w.])(?P<a>{_NUM})\s+(?:(?:[a-z]+\s+){{1,2}}(?=out\s+of\b))?(?:out\s+)?of\s+"
    rf"(?:the\s+|a\s+total\s+of\s+|(?:my|our|his|her|their|your)\s+)?(?P<b>{_NUM})(?!\w|\.\d)",
    re.IGNORECASE,
)
_PERCENT_OF_THAT_RE = re.compile(
    rf"\b(?:what|which)\s+{_PCT}(?!\w)\s+(?:is|was|are|were|would be)\s+(?:that|this|it|they)\b"
    rf"|\b(?:as|in|into)\s+(?:a\s+)?{_PCT}(?!\w)"
    rf"|\bwhat(?:'s|’s|s|\s+is|\s+was)\s+(?:my|your|his|her|their|our|the)\s+(?:score\s+as\s+an?\s+)?"
    rf"(?:percentage|percent)(?:\s+score)?\s*[?.!]*$"
    rf"|\b(?:what|which)\s+{_PCT}(?!\w)\s+(?:of\s+(?:them|the\s+[a-z]+)\s+)?(?:did\s+)?(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)


_COMPLEMENT_ASKED_RE = re.compile(
    r"\b(?:surviv\w*|remain\w*|left|stayed|lived|alive|didn['’]?t|did\s+not|don['’]?t|weren['’]?t|"
    r"were\s+not|aren['’]?t|not|still|rest)\b",
    re.IGNORECASE,
)
"""A question asking for the rest of a whole ("what percentage survived / are left / didn't")."""
_GONE_RE = re.compile(
    r"\b(?:died|dead|failed|lost|broke|broken|sold|eaten|ate|wilted|gone|missing|spoiled|spoilt|rotted|"
    r"melted|popped|quit|dropped\s+out|fell\s+off|ran\s+away|were\s+(?:sold|lost|eaten|broken|used))\b",
    re.IGNORECASE,
)
"""What the part given did that leaves the rest ("35 of my 140 plants died": 105 survived)."""


def _out_of_as_percent(text: str) -> str | None:
    """A part "out of" a whole, asked as a percentage apart from it: "18 out of 24 students passed. What
    percent is that?" is ``(18 / 24 * 100)``. ``None`` unless ``text`` holds those two numbers only and
    asks what percentage "that" is, or what percentage did what the part did ("What percentage
    passed?", not "What percentage failed?")."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or len(_NUMBER_RE.findall(text)) != 2:
        return None
    part = _OUT_OF_RE.search(text)
    asked = _PERCENT_OF_THAT_RE.search(text)
    if part is None or asked is None or asked.start() < part.end():
        return None
    verb = asked.group("verb")
    share = _SHARE.format(part.group("a"), part.group("b"))
    if _OTHER_OPERATION_RE.search(text):
        return None
    if verb is not None and re.search(rf"\b{re.escape(verb)}\b", text[part.end() : asked.start()], re.I):
        return share  # "42 out of 50 seeds sprouted. What percentage sprouted?"
    if _COMPLEMENT_ASKED_RE.search(text, asked.start()) or _COMPLEMENT_ASKED_RE.search(text, part.end()):
        if _GONE_RE.search(text, part.end(), asked.start()) and _COMPLEMENT_ASKED_RE.search(
            text, asked.start()
        ):
            return f"(100 - {share})"  # "35 of my 140 plants died. What percentage survived?"
        return None  # "35 of 140 as a percentage survived": the part given, or the rest?
    if verb is not None:
        return None  # "18 out of 24 passed. What percentage failed?"
    return share


# A percentage of an amount taken from it: "I have 500 dollars. I spend 35% of it on a bike. What is left?".
_PERCENT_TAKEN_RE = re.compile(
    rf"\b{_TAKEN}\s+(?:away\s+)?(?P<p>{_NUM})\s*{_PCT}(?!\w)\s+of\s+"
    rf"(?:it|that|this|them|(?:my|our|his|her|their|the)\s+(?:[a-z]+\s+)?(?:money|savings|budget|salary|pay|"
    rf"cash|income|allowance|wages|paycheck|amount|total))\b",
    re.IGNORECASE,
)


def _percent_taken(text: str) -> str | None:
    """A percentage of an amount taken from it, asked what is left: "I have 500 dollars. I spend 35% of it
    on a bike. How much money do I have left?" is ``(500 * (100 - 35) / 100)``. ``None`` unless ``text``
    holds one amount before one percentage taken "of it" (spent, given, lost), nothing gained or else
    computed, and the question after it asks what is left."""
    if not _one_question(text) or len(_GIVEN_PERCENT_RE.findall(text)) != 1 or _NOT_TAKEN_RE.search(text):
        return None
    taken = _PERCENT_TAKEN_RE.search(text)
    if taken is None or not re.search(_LEFT, text[taken.end() :], re.IGNORECASE):
        return None
    rest = text[: taken.start()] + " " + text[taken.end() :]
    amounts = list(_NUMBER_RE.finditer(_without_ones(rest)))
    if len(amounts) != 1 or amounts[0].start() > taken.start() or _OTHER_OPERATION_RE.search(rest):
        return None
    return f"({amounts[0].group()} * (100 - {taken.group('p')}) / 100)"


_DIMENSION = rf"(?P<{{name}}>{_NUM})\s*(?P<{{name}}_unit>(?!(?:by|x)\b)[a-z]{{{{1,12}}}}\b)?"
_BY_RE = re.compile(
    _DIMENSION.format(name="a")
    + r"\s*(?:by|x|×)\s*"
    + _DIMENSION.format(name="b")
    + rf"(?:\s*(?:by|x|×)\s*{_DIMENSION.format(name='c')})?(?!\w|\.\d)",
    re.IGNORECASE,
)
_BY_AREA_ASKED_RE = re.compile(
    r"\b(?:area|square (?:feet|foot|meters?|metres?|inches|yards?)|sq\.? ?(?:ft|m)|m2|m²)\b", re.I
)
_VOLUME_ASKED_RE = re.compile(r"\b(?:volume|capacity|cubic|hold)\b", re.IGNORECASE)


def _by_dimensions(text: str) -> str | None:
    """The area of "A by B" or the volume of "A by B by C" ("My garden is 18 m by 7.5 m. What is its area?" is
    ``(18 * 7.5)``), the sizes in one unit or none; asked in another unit of area or volume ("How many litres
    does a tank of 60 cm by 30 cm by 40 cm hold?"), the product converted into it (``(60 * 30 * 40 / 1000)``).
    ``None`` unless the question asks for an area (two sizes) or a volume (three), writes no other number and
    names no unit it cannot be converted into."""
    conversion = _dimensions_converted(text)
    if conversion is not None:
        return conversion.expression
    found = _BY_RE.search(text)
    if found is None:
        return None
    for name, _, _ in _asked_measure_units(text, found):
        if not re.search(r"cubic|square|sq\b|[23²³]$", name, re.IGNORECASE):
            return (
                None  # a unit the sizes do not convert into ("how many kg does it hold?", "2 by 3: litres?")
            )
    sizes = [found.group(k) for k in ("a", "b", "c") if found.group(k)]
    units = {(found.group(f"{k}_unit") or "").lower().rstrip("s") for k in ("a", "b", "c") if found.group(k)}
    if len(units - {""}) > 1 or len(_NUMBER_RE.findall(text)) != len(sizes):
        return None
    if len(sizes) == 2 and _BY_AREA_ASKED_RE.search(text) and not _VOLUME_ASKED_RE.search(text):
        return f"({sizes[0]} * {sizes[1]})"
    if len(sizes) == 3 and _VOLUME_ASKED_RE.search(text):
        return f"({sizes[0]} * {sizes[1]} * {sizes[2]})"
    return None


_AMBIGUOUS_UNITS = frozenset({"in", "s", "h", "m", "g", "l", "min", "mi", "kn", "kt", "pt", "cc", "ha"})
"""Unit names that are also words or letters ("in", "a 3 m tank"): asked only after "cubic" or "square"."""


def _asked_measure_units(text: str, found: re.Match[str]) -> list[tuple[str, str, Fraction]]:
    """The units named in ``text`` outside the sizes ``found`` of an "A by B (by C)" shape, as (the name
    as written, its kind, its size in mm² for an area or ml for a volume; any other kind has size 0)."""
    rest = _blanked(text, found)
    named = []
    for match in re.finditer(
        rf"(?<![\w.])(?:(?P<power>cubic|square|sq\.?)\s+)?(?P<u>{_UNIT}){_UNIT_END}", rest, re.IGNORECASE
    ):
        unit = match.group("u").lower()
        power = (match.group("power") or "").lower()
        if unit in _AMBIGUOUS_UNITS and not power:
            continue
        kind, size = _UNIT_OF[unit]
        if kind == "length" and power == "cubic":
            named.append((match.group(0), "volume", Fraction(size) ** 3 / 1000))
        elif kind == "length" and power:
            named.append((match.group(0), "area", Fraction(size) ** 2))
        elif kind in ("volume", "area"):
            named.append((match.group(0), kind, Fraction(size)))
        else:
            named.append((match.group(0), kind, Fraction(0)))
    return named


def _dimensions_converted(text: str) -> Conversion | None:
    """An area "A by B" or a volume "A by B by C" with its sizes in one unit of length, asked in another unit
    of area or volume: "How many litres does a fish tank of 60 cm by 30 cm by 40 cm hold?" is ``(60 * 30 *
    40 / 1000)`` (a cm³ is a ml), "a room 4 m by 5 m: how many square feet?" ``(4 * 5 * 1000000 /
    92903.04)``. ``None`` unless one such unit is asked (of the kind the sizes make), every size has the one
    unit of length and no other number is written."""
    found = _BY_RE.search(text)
    if found is None:
        return None
    keys = [k for k in ("a", "b", "c") if found.group(k)]
    units = {(found.group(f"{k}_unit") or "").lower() for k in keys} - {""}
    asked = _asked_measure_units(text, found)
    if not asked or len(units) != 1 or len(_NUMBER_RE.findall(text)) != len(keys):
        return None
    unit = units.pop()
    if _UNIT_OF.get(unit, ("",))[0] != "length":
        return None
    kind = "volume" if len(keys) == 3 else "area"
    if kind == "volume" and not _VOLUME_ASKED_RE.search(text) and not re.search(r"\bhow many\b", text, re.I):
        return None
    if kind == "area" and not _BY_AREA_ASKED_RE.search(text) and not re.search(r"\bhow many\b", text, re.I):
        return None
    goals = {(kind_, size) for _, kind_, size in asked}
    if len(goals) != 1 or next(iter(goals))[0] != kind:
        return None  # "how many kg does it hold?", litres and gallons asked
    length = Fraction(_UNIT_OF[unit][1])
    size = length**3 / 1000 if kind == "volume" else length**2
    factor = size / next(iter(goals))[1]
    product = " * ".join(found.group(k) for k in keys)
    if factor == 1:
        expression = f"({product})"
    elif factor.numerator == 1:
        expression = f"({product} / {factor.denominator})"
    elif factor.denominator == 1:
        expression = f"({product} * {factor.numerator})"
    else:
        expression = f"({product} * {factor.numerator} / {factor.denominator})"
    return Conversion(expression, re.sub(r"\s+", " ", found.group(0).strip()), asked[0][0])


_AVERAGE_ASKED_RE = re.compile(r"\b(?:average|mean|on average)\b", re.IGNORECASE)
_SEPARATOR = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
_END = r"(?![\w]|\.\d)"
_LISTED_RE = re.compile(
    rf"(?<![\w.]){_NUM}(?P<unit>\s*[a-z]{{1,12}}\b)(?:{_SEPARATOR}{_NUM}(?P=unit))+{_END}"
    rf"|(?<![\w.]){_NUM}(?:{_SEPARATOR}{_NUM})+{_END}(?!\s*[a-z])",
    re.IGNORECASE,
)
"""Numbers written as a list, each with the same unit or none ("5.2 km, 6.8 km, 4.5 km and 7.1 km")."""


def _average_of_listed(text: str) -> str | None:
    """The mean of the one list of numbers a question asks the average of, apart from it ("I ran 5.2 km,
    6.8 km, 4.5 km and 7.1 km this week. What was my average run?" is ``((5.2 + 6.8 + 4.5 + 7.1) /
    4)``). ``None`` unless ``text`` asks for an average, writes one list (the same unit after each number,
    or none) and no other number."""
    if not _AVERAGE_ASKED_RE.search(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    lists = list(_LISTED_RE.finditer(text))
    if len(lists) != 1:
        return None
    numbers = _NUMBER_RE.findall(lists[0].group(0))
    if len(numbers) < 2 or len(_NUMBER_RE.findall(text)) != len(numbers):
        return None
    return f"(({' + '.join(numbers)}) / {len(numbers)})"


# A percent of an amount with words of context after it: "What is 17.5 percent of 2,360 for an invoice?".
_PERCENT_OF_FOR_RE = re.compile(
    rf"(?P<p>{_NUM})\s*{_PCT}(?!\w)\s+of\s+(?P<v>{_NUM})(?!\w|\.\d)\s+(?:for|on|in)\s+(?:[a-z'’]+\s*){{1,5}}",
    re.IGNORECASE,
)


def _percent_of_for(text: str) -> str | None:
    """A percentage of an amount followed by what it is for: "What is 17.5 percent of 2,360 for an
    invoice?" is ``(17.5 / 100 * 2360)``. ``None`` unless, after the lead-in, ``text`` is just that (a
    few words, no other number or operation after "for", "on" or "in")."""
    cleaned = _TRAIL_RE.sub("", _LEAD_RE.sub("", text)).strip()
    match = _PERCENT_OF_FOR_RE.fullmatch(cleaned)
    if match is None or _OTHER_OPERATION_RE.search(cleaned[match.end("v") :]):
        return None
    if re.search(r"\b(?:decimals?|fractions?|percent|hex|binary|words)\b", cleaned[match.end("v") :], re.I):
        return None
    return f"({match.group('p')} / 100 * {match.group('v')})"


# A round thing by its width, asked its area: "A pizza is 16 inches across. How many square inches is it?".
_AREA_UNIT = r"(?:inch(?:es)?|in|cm|mm|m|met(?:er|re)s?|centimet(?:er|re)s?|feet|foot|ft|yards?|yd|km|miles?)"
_ACROSS_RE = re.compile(
    rf"(?<![\w.-])(?P<d>{_UNSIGNED})[\s-]*(?P<u>{_AREA_UNIT})\s+(?P<how>across|in diameter|wide)\b",
    re.IGNORECASE,
)
_ROUND_THING_RE = re.compile(
    r"\b(?:pizzas?|pies?|tortillas?|plates?|circles?|circular|round|discs?|disks?|coins?|pans?|cakes?|wheels?|"
    r"ponds?|fountains?|trampolines?)\b",
    re.IGNORECASE,
)
_AREA_ASKED_RE = re.compile(
    rf"\bhow many square (?P<u>{_AREA_UNIT})\b|\b(?:what(?:'s|’s| is)|how big is|find|calculate)\s+"
    rf"(?:its|the|the [a-z]+'s)\s+area\b",
    re.IGNORECASE,
)


def _round_area(text: str) -> str | None:
    """The area of a round thing given by its width: "A pizza is 16 inches across. How many square inches
    is it?" is ``(pi * (16 / 2) ** 2)``. ``None`` unless ``text`` holds that one number "across" or "in
    diameter" (or "wide" for a round thing: a pizza, a pie, a plate), and asks for the area, in square
    units of the same length when named."""
    sizes = list(_ACROSS_RE.finditer(text))
    asked = _AREA_ASKED_RE.search(text)
    if len(sizes) != 1 or asked is None or len(_NUMBER_RE.findall(text)) != 1:
        return None
    size = sizes[0]
    if size.group("how").lower() == "wide" and not _ROUND_THING_RE.search(text):
        return None  # "a 3 m wide room": not round
    if re.search(rf"\b(?:{_SHAPE})\b", text, re.IGNORECASE) and not re.search(r"\bcircle", text, re.I):
        return None
    unit = asked.group("u")
    if unit is not None and _LENGTH_NAMES.get(_stem(unit), _stem(unit)) != _LENGTH_NAMES.get(
        _stem(size.group("u")), _stem(size.group("u"))
    ):
        return None
    return f"(pi * ({size.group('d')} / 2) ** 2)"


_AROUND_ASKED_RE = re.compile(
    r"\b(?:go(?:es|ing)?\s+(?:all\s+the\s+way\s+)?(?:a?round|round)|(?:distance|way|length)\s+(?:a?round)|"
    r"circumference|perimeter|edging|edge|fenc(?:e|es|ing)|border|trim|rim)\b",
    re.IGNORECASE,
)
"""A question about the length around a thing ("edging to go around", "the circumference")."""


def _round_perimeter(text: str) -> Conversion | None:
    """The length around a round thing given by its width: "How much edging do I need to go around a
    circular pond that is 3 m across?" is ``(pi * 3)`` m. ``None`` unless ``text`` holds that one number
    "across" or "in diameter" (or "wide"), names a round thing, and asks for the length around it (not an
    area)."""
    sizes = list(_ACROSS_RE.finditer(text))
    if len(sizes) != 1 or len(_NUMBER_RE.findall(text)) != 1 or not _AROUND_ASKED_RE.search(text):
        return None
    if not _ROUND_THING_RE.search(text) or _AREA_ASKED_RE.search(text):
        return None
    if re.search(rf"\b(?:area|square|cover|covers|{_SHAPE})\b", text, re.IGNORECASE) and not re.search(
        r"\bcircle", text, re.I
    ):
        return None
    size = sizes[0]
    return Conversion(
        f"(pi * {size.group('d')})",
        f"the length around a circle {size.group('d')} {size.group('u')} across",
        size.group("u"),
    )


_LENGTH_NAMES = {"inche": "inch", "in": "inch", "foot": "ft", "feet": "ft", "meter": "m", "metre": "m"}


# A fixed amount off a price, then a percent added: "a $1,299 laptop, $200 off, plus 5% tax".
_FIXED_OFF_RE = re.compile(
    rf"(?<![\w.])(?P<off>{_NUM})(?:\s+(?:dollars?|euros?|bucks))?\s+(?:off|discount|rebate|coupon)\b"
    rf"|\b(?:minus|less|with|and|after)\s+(?:an?\s+)?(?P<off2>{_NUM})(?:\s+(?:dollars?|euros?))?\s+"
    rf"(?:off|discount|rebate|coupon)\b",
    re.IGNORECASE,
)
_PERCENT_ADDED_RE = re.compile(
    rf"\b(?:plus|with|and|add|adding|then|including)\s+(?:an?\s+)?(?P<p>{_NUM})\s*{_PCT}(?!\w)\s*"
    rf"(?:[a-z]+\s+)?(?:tax|vat|gst|hst|tip|fee|surcharge|service charge)\b",
    re.IGNORECASE,
)


def _fixed_off_then_percent(text: str) -> str | None:
    """A price with a fixed amount off, then a tax or a tip by a percent: "a $1,299 laptop, $200 off,
    plus 5% tax" is ``((1299 - 200) * (100 + 5) / 100)``. ``None`` unless ``text`` holds just the price
    first, the amount "off" next and the percent added last."""
    if not _one_question(text) or _OTHER_OPERATION_RE.search(text) or _DEDUCTED_RE.search(text):
        return None
    numbers = list(_NUMBER_RE.finditer(_without_ones(text)))
    offs = list(_FIXED_OFF_RE.finditer(text))
    added = list(_PERCENT_ADDED_RE.finditer(text))
    if len(numbers) != 3 or len(offs) != 1 or len(added) != 1 or len(_GIVEN_PERCENT_RE.findall(text)) != 1:
        return None
    off = offs[0].group("off") or offs[0].group("off2")
    price, second, third = numbers
    off_start = offs[0].start("off") if offs[0].group("off") else offs[0].start("off2")
    if second.start() != off_start or third.start() != added[0].start("p"):
        return None
    if re.search(r"\b(?:after|then|each|per|apiece)\b", text[: second.start()], re.IGNORECASE):
        return None  # "after $200 off it costs $1,099": the price after the change
    return f"(({price.group()} - {off}) * (100 + {added[0].group('p')}) / 100)"


# A quantity at a price per unit: "2.4 kg of apples at $3.15 per kg, how much?".
_PRICED_BY_UNIT_RE = re.compile(
    rf"(?<![\w.])(?P<q>{_NUM})\s*(?P<u>[a-z]+)\s+(?:of\s+(?:[a-z]+\s+){{1,2}})?"
    rf"(?:at|for|@|costing|priced at)\s+"
    rf"(?P<p>{_NUM})(?:\s*(?:dollars?|euros?|bucks))?\s*(?:per|an?|/|for each|each)\s*(?P<u2>[a-z]+)\b",
    re.IGNORECASE,
)
_COST_ASKED_RE = re.compile(
    rf"{_TOTAL}|\bhow much\b|\bwhat\b[^.?!]*\b(?:cost|costs|pay|owe|price)\b", re.IGNORECASE
)


def _priced_by_unit(text: str) -> str | None:
    """A quantity of something at a price per unit of it, asked what it costs: "2.4 kg of apples at $3.15
    per kg, how much?" is ``(2.4 * 3.15)``. ``None`` unless ``text`` holds just those two numbers, the
    units are the same ("kg" and "kg", "pounds" and "pound") and the question asks for the cost."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    matches = list(_PRICED_BY_UNIT_RE.finditer(text))
    if len(matches) != 1 or len(_NUMBER_RE.findall(text)) != 2 or not _COST_ASKED_RE.search(text):
        return None
    match = matches[0]
    if not _same_unit(match.group("u"), match.group("u2")):
        return None
    return f"({match.group('q')} * {match.group('p')})"


def _items_bought_from(text: str) -> str | None:
    """Things bought at a price each from an amount, asked what is left: "I had $50, bought 3 tickets at
    $12.50 and a snack for $7.25. What's left?" is ``(50 - (3 * 12.50 + 1 * 7.25))``. ``None`` unless
    the first number is the amount, a word of buying or spending comes next, every other number is in a
    thing bought at a price (a count above one "at" it or "each"), and the question asks what is left."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    numbers = list(_NUMBER_RE.finditer(text))
    items = list(_ITEM_RE.finditer(text))
    if len(numbers) < 3 or not items or not re.search(_LEFT, text[numbers[-1].end() :], re.IGNORECASE):
        return None
    if not all(_ITEM_GAP_RE.fullmatch(text, a.end(), b.start()) for a, b in pairwise(items)):
        return None
    first = numbers[0]
    between = text[first.end() : items[0].start()]
    if first.start() >= items[0].start() or not re.search(
        r"\b(?:bought|buy|buys|purchased|spent|spend|paid|pay|got|ordered)\b", between, re.IGNORECASE
    ):
        return None
    if re.search(
        r"\b(?:more|earn\w*|found|won|received|got back|refund\w*|sold|gift\w*)\b", text, re.IGNORECASE
    ):
        return None
    terms = []
    for item in items:
        term = _item_term(item)
        if term is None:
            return None
        terms.append(term)
    used = {first.start()} | {i.start(g) for i in items for g in ("n", "p") if i.start(g) >= 0}
    if used != {n.start() for n in numbers}:
        return None
    return f"({first.group()} - ({' + '.join(terms)}))"


# Things packed in groups of a size: "96 cookies go in boxes of 14. How many are left over?".
_PACKED_RE = re.compile(
    r"(?<![\w.])(?P<n>\d+)\s+(?P<thing>[a-z]+)\s+(?:(?:are|get|will be|can be|must be|need to be)\s+)?"
    r"(?:go|goes|packed|put|placed|packaged|sorted|split|divided|grouped|fit|arranged|pack|sort|split up)\s+"
    r"(?:in|into|in groups of)\s+(?P<box>[a-z]+)\s+of\s+(?P<k>\d+)(?!\w|\.\d)"
    r"|(?<![\w.])(?P<n2>\d+)\s+(?P<thing2>[a-z]+)\s+(?:in|into)\s+(?P<box2>[a-z]+)\s+"
    r"(?:of|holding)\s+(?P<k2>\d+)"
    r"(?!\w|\.\d)",
    re.IGNORECASE,
)
_LEFT_OVER_RE = re.compile(
    r"\b(?:left\s*over|leftover|left out|remain(?:s|ing)?|spare|extra)\b|\bhow many\b[^.?!]*\bleft\b",
    re.IGNORECASE,
)


def _packed_into(text: str) -> str | None:
    """Things packed in groups of a size: "96 cookies go in boxes of 14. How many cookies are left over?"
    is ``(96 % 14)``, "... How many full boxes?" ``(96 // 14)``. ``None`` unless ``text`` holds just
    those two whole numbers and asks for what is left over or for the full groups ("full", "filled")."""
    if not _one_question(text) or _OTHER_OPERATION_RE.search(text) or len(_NUMBER_RE.findall(text)) != 2:
        return None
    match = _PACKED_RE.search(text)
    if match is None:
        return None
    n, box, k = (match.group(g) or match.group(g + "2") for g in ("n", "box", "k"))
    after = text[match.end() :]
    full = re.search(
        rf"\bhow many\s+(?:full\s+{_stem(box)}e?s?\b|{_stem(box)}e?s?\s+(?:are|can be|will be|get|do)\s+"
        rf"(?:(?:completely|totally)\s+)?(?:full|filled)\b|{_stem(box)}e?s?\s+can\s+(?:i|we|you|they)\s+fill\b)",
        after,
        re.IGNORECASE,
    )
    left = _LEFT_OVER_RE.search(after)
    if bool(full) == bool(left):
        return None
    return f"({n} // {k})" if full else f"({n} % {k})"


# A total done at a rate: "A book has 420 pages and I read 35 a day. How many days to finish?".
_AT_A_RATE_RE = re.compile(
    rf"(?<![\w.])(?P<r>{_NUM})\s+(?:(?P<thing>[a-z]+)\s+)?(?:a|an|per|each|every)\s+(?P<unit>{_TIME_UNIT})\b",
    re.IGNORECASE,
)
_FINISH_ASKED_RE = re.compile(
    rf"\bhow many\s+(?P<unit>{_TIME_UNIT})\s+(?:will it take|does it take|would it take|to|until|till|before|"
    r"do (?:i|we|you|they) need|does (?:it|he|she) need)\b|\bhow long\b",
    re.IGNORECASE,
)


def _time_to_finish(text: str) -> str | None:
    """A total of things done at a number of them per unit of time, asked how many units it takes: "A
    book has 420 pages and I read 35 a day. How many days to finish?" is ``(420 / 35)``. ``None`` unless
    ``text`` holds just the total first and the rate after it, the question asks for a number of the
    rate's unit, and the rate counts what the total does (when it names them)."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    numbers = list(_NUMBER_RE.finditer(text))
    rates = list(_AT_A_RATE_RE.finditer(text))
    asked = _FINISH_ASKED_RE.search(text)
    if len(numbers) != 2 or len(rates) != 1 or asked is None or asked.groupdict().get("unit") is None:
        return None
    total, rate = numbers
    if rates[0].start() != rate.start() or asked.start() < rates[0].end():
        return None
    if _time_unit(asked.group("unit")) != _time_unit(rates[0].group("unit")):
        return None
    thing = re.match(r"\s+([a-z]+)", text[total.end() :], re.IGNORECASE)
    named = rates[0].group("thing")
    if thing is None or (named is not None and _stem(named) != _stem(thing.group(1))):
        return None
    if re.fullmatch(_TIME_UNIT, thing.group(1), re.IGNORECASE) or re.search(
        r"\b(?:each|per|every|apiece)\b", text[: rate.start()], re.I
    ):
        return None
    return f"({total.group()} / {rate.group()})"


def _time_to_reach(text: str) -> Conversion | None:
    """A number of things (or money) per unit of time, then a total to reach, asked how long: "I save $50 a
    week. How long until I have $1,000?" is ``(1000 / 50)`` weeks, "If I read 30 pages a day, how long to
    finish a 450 page book?" ``(450 / 30)`` days, "How long to read 300 pages at 20 pages an hour?" ``(300 /
    20)`` hours. ``None`` unless ``text`` holds just the rate and the total (in either order), of the same
    things (or both amounts without things: money), and asks how long or how many of the rate's unit."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    if _NOT_ONE_WAY_RE.search(_AT_A_RATE_RE.sub(" ", text)):  # "there and back", "twice": not one total
        return None  # at one rate ("every week" of the rate itself is one)
    numbers = list(_NUMBER_RE.finditer(text))
    rates = list(_AT_A_RATE_RE.finditer(text))
    asked = _FINISH_ASKED_RE.search(text)
    if len(numbers) != 2 or len(rates) != 1 or asked is None:
        return None
    first, second = numbers
    if rates[0].start() == first.start() and second.start() >= rates[0].end():
        rate, total = first, second
    elif rates[0].start() == second.start():
        total, rate = first, second  # the total first: "How long to read 300 pages at 20 pages an hour?"
    else:
        return None
    per = _time_unit(rates[0].group("unit"))
    if per not in _DAYS:
        return None
    if asked.groupdict().get("unit") is not None and _time_unit(asked.group("unit")) != per:
        return None
    named = rates[0].group("thing")
    thing = re.match(r"[\s-]+([a-z]+)", text[total.end() :], re.IGNORECASE)
    if named is not None:
        if thing is None or _stem(named) != _stem(thing.group(1)):
            return None  # "30 pages a day ... a 450 page book": the same things
    elif thing is not None and not _CURRENCY_WORD_RE.match(thing.group(1)):
        return None  # "$50 a week ... $1,000" (read without its signs): amounts of one kind, not things
    # "600 at 40 weekly" (the total, then the rate): said as a quantity is, so the answer can quote it
    things = f" {named}" if named is not None else ""
    said = f"{total.group()}{things} at {rate.group()} {_ADVERB_OF.get(per, f'per {per}')}"
    return Conversion(f"({total.group()} / {rate.group()})", said, f"{per}s")


_ADVERB_OF = {unit: word for word, unit in _TIME_UNIT_NAMES.items() if word.endswith("ly") and unit in _DAYS}
"""A unit of time of whole days or less as the adverb of a rate ("40 weekly")."""


# An amount done in a time, asked per unit of time: "A train covers 96 km in 45 minutes. Its speed in km/h?".
_IN_A_TIME_RE = re.compile(
    rf"(?<![\w.])(?P<a>{_NUM})\s*(?P<what>{_NOUNS})?\s+in\s+(?:(?:just|only|exactly|about|under)\s+)?"
    rf"(?:(?<![\w.])(?P<t>{_NUM})|\b(?P<one>an?|one))\s*(?P<u>{_TIME_UNIT}|h)\b"
    rf"(?:,?\s*(?:and\s+)?(?P<t2>{_NUM})\s*(?P<u2>{_TIME_UNIT}|m|s)\b)?",
    re.IGNORECASE,
)
"""An amount and the time it took: "96 km in 45 minutes", "75 km in 2 hours 30 minutes", "6 km in an hour"."""
_TAKES_A_TIME_RE = re.compile(
    rf"(?<![\w.])(?P<a>{_NUM})[\s-]*(?P<what>[a-z]+)(?:\s+[a-z]+)?\s+(?:takes|took|lasts|lasted)\s+"
    rf"(?:(?:just|only|exactly|about|under)\s+)?"
    rf"(?:(?<![\w.])(?P<t>{_NUM})|\b(?P<one>an?|one))\s*(?P<u>{_TIME_UNIT}|h)\b"
    rf"(?:,?\s*(?:and\s+)?(?P<t2>{_NUM})\s*(?P<u2>{_TIME_UNIT}|m|s)\b)?",
    re.IGNORECASE,
)
"""A distance and the time it takes: "A 2,150 km flight takes 2.5 hours" (the unit right after it)."""
_PER_TIME_ASKED_RE = re.compile(
    rf"(?<![\w/])(?P<abbr>kmh|kph|mph)\b"
    rf"|(?:\b(?P<x>[a-z]+)\s*)?(?:\b(?:per|an?|every|each)\s+|/\s*)(?P<unit>{_TIME_UNIT}|h|s)\b",
    re.IGNORECASE,
)
"""A rate asked per unit of time: "in km/h", "mph", "m/s", "per hour", "how many pages a minute"."""
_SPEED_ABBREVIATIONS = {"kmh": "km", "kph": "km", "mph": "mile"}
"""Speeds written as one word, by their length (all per hour)."""
_SHORT_TIME_UNITS = {"h": "hour", "m": "minute", "s": "second"}
_NO_RATE_ASKED_RE = re.compile(
    r"\b(?:how long|how far|pace|when|once|twice)\b|\bhow many\s+" + _TIME_UNIT, re.I
)
"""A time or a distance asked for, or a pace (minutes per km): not an amount per unit of time."""
_SPEED_WORD_RE = re.compile(r"\b(?:speed|velocity)\b", re.IGNORECASE)
_RATE_WORD_RE = re.compile(r"\brate\b", re.IGNORECASE)


def _short_time_unit(word: str) -> str:
    return _SHORT_TIME_UNITS.get(word.lower()) or _time_unit(word)


def _in_unit(unit: str, count: str, of: str) -> str | None:
    """``count`` of the time unit ``of`` in ``unit`` as an expression (45 minutes in hours: ``45 / 60``),
    or ``None`` when they do not convert (days in a month)."""
    factor = _units_in(unit, of)
    if factor is None:
        return None
    if factor == 1:
        return count
    if factor.numerator == 1:
        return f"{count} / {factor.denominator}"
    if factor.denominator == 1:
        return f"{count} * {factor.numerator}"
    return f"{count} * {factor.numerator} / {factor.denominator}"


def _measure_factor(given: str | None, asked: str) -> str | None:
    """What turns an amount of the unit ``given`` into the unit ``asked`` ("" when the same, `` / 1000``
    for metres in km, `` * 1.609344`` for miles in km), or ``None`` when they are not of one kind."""
    if given is None:
        return None
    if _same_unit(given, asked):
        return ""
    source, goal = _UNIT_OF.get(given.lower()), _UNIT_OF.get(asked.lower())
    if source is None or goal is None or source[0] != goal[0]:
        return None
    factor = Fraction(source[1]) / Fraction(goal[1])
    if factor.denominator == 1:
        return f" * {factor.numerator}"
    if factor.numerator == 1:
        return f" / {factor.denominator}"
    operator, value = (" * ", factor) if factor > 1 else (" / ", 1 / factor)
    written = _finite_decimal(value)
    if written is not None:  # miles in km: " * 1.609344"; km in miles: " / 1.609344"
        return operator + written
    return f" * {source[1]} / {goal[1]}"


def _finite_decimal(value: Fraction) -> str | None:
    """``value`` written as a decimal when it has a finite one (``1.609344``), else ``None``."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator != 1:
        return None
    return f"{Decimal(value.numerator) / Decimal(value.denominator):f}".rstrip("0").rstrip(".")


def _amount_per_time(text: str) -> str | None:
    """The arithmetic of :func:`_per_time`, or ``None``."""
    read = _per_time(text)
    return None if read is None else read[0]


_RATE_SYMBOLS = {("km", "hour"): "km/h", ("mile", "hour"): "mph", ("m", "second"): "m/s"}
"""Speeds written with their symbols."""


def rate_in(text: str) -> Conversion | None:
    """A speed or a rate of a measure a question asks (:func:`_per_time`, of the question as the calculator
    reads it) with its unit: "I drive 300 km in 4 hours. What's my average speed?" is ``(300 / 4)`` in
    km/h; ``None`` for any other question and for a rate of things or money (said as the calculator says
    them)."""
    read = _per_time(_prepared(text))
    if read is None or read[1] is None:
        return None
    expression, unit, amount = read
    return Conversion(expression, amount, unit)


def _per_time(text: str) -> tuple[str, str | None, str] | None:
    """An amount done in a time, asked per unit of time, the time converted into the unit asked: "A train
    covers 96 km in 45 minutes. What's its average speed in km/h?" is ``(96 / (45 / 60))``, "75 km in 2
    hours 30 minutes: speed in km/h?" ``(75 / (2 + 30 / 60))``, "400 m in 50 seconds: in km/h?" ``(400 /
    1000 / (50 / 3600))``, "I earn 120 dollars in 8 hours: how much per hour?" ``(120 / 8)``. A speed asked
    with no unit is per hour (per second for metres or feet in seconds); a rate, per the unit of the time.
    ``None`` unless ``text`` holds just the amount and the time, asks one rate, the units convert (a month
    has no fixed number of days) and no time, distance or pace is asked for. Returns the arithmetic, the
    rate's unit when its amount is a measure ("km/h", "litres per minute"; else None) and the amount and
    time as written."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    if _OTHER_OPERATION_RE.search(
        re.sub(r"\baverage\b|(?<=[a-z])/(?=[a-z])", " ", text, flags=re.IGNORECASE)
    ):
        return None  # an average speed is a speed, "km/h" a unit
    found = list(_IN_A_TIME_RE.finditer(text)) + [
        m
        for m in _TAKES_A_TIME_RE.finditer(text)
        if _UNIT_OF.get(m.group("what").lower(), ("",))[0] == "length"
    ]
    if len(found) != 1 or _NO_RATE_ASKED_RE.search(text):
        return None
    match = found[0]
    if re.search(r"\d", _blanked(text, match)):
        return None  # another number
    what = (match.group("what") or "").split()
    given = what[0] if what else None
    time_unit = _short_time_unit(match.group("u"))
    second_unit = _short_time_unit(match.group("u2")) if match.group("u2") else None
    if second_unit is not None and (_units_in(second_unit, time_unit) or 0) <= 1:
        return None  # "2 hours 30 minutes", not "30 minutes 2 hours"
    asks = list(_PER_TIME_ASKED_RE.finditer(text, match.end()))
    rates = {_short_time_unit(a.group("unit")) if a.group("unit") else "hour" for a in asks}
    if len(rates) > 1:
        return None
    factor = ""
    if asks:
        ask, rate_unit = asks[0], rates.pop()
        named = _SPEED_ABBREVIATIONS.get((ask.group("abbr") or "").lower()) or ask.group("x")
        many = re.search(r"\bhow many\s+([a-z]+)", text[match.end() : ask.end()], re.IGNORECASE)
        if named is not None and named.lower() in _UNIT_OF and named.lower() not in _NOT_A_THING:
            factor = _measure_factor(given, named)
        elif many is not None:
            factor = "" if given is not None and _same_unit(given, many.group(1)) else None
        if factor is None:
            return None  # "96 km in 45 minutes: mph?", "45 pages in an hour: how many words per minute?"
    elif _SPEED_WORD_RE.search(text):
        rate_unit = "hour" if second_unit is not None else time_unit
        metres = given is not None and _UNIT_OF.get(given.lower(), ("", ""))[1] in ("1000", "304.8")
        if not (rate_unit == "hour" or (rate_unit == "second" and metres)):
            return None  # "96 km in 45 minutes: its speed?": km per minute, or per hour?
    elif _RATE_WORD_RE.search(text):
        rate_unit = time_unit
    else:
        return None
    count = match.group("t") or "1"
    time = _in_unit(rate_unit, count, time_unit)
    if time is not None and second_unit is not None:
        second = _in_unit(rate_unit, match.group("t2"), second_unit)
        time = None if second is None else f"{time} + {second}"
    if time is None:
        return None
    time = time if re.fullmatch(_NUM, time) else f"({time})"
    measure = named if asks and named is not None else given
    unit = None
    if measure is not None and measure.lower() in _UNIT_OF and measure.lower() not in _NOT_A_THING:
        unit = _RATE_SYMBOLS.get((measure.lower().rstrip("s"), rate_unit), f"{measure} per {rate_unit}")
    return f"({match.group('a')}{factor} / {time})", unit, " ".join(match.group(0).split())


# The time a distance takes at a speed or a pace: "I cycle at 18 km/h. How long to ride 45 km?".
_TRIP_LENGTH = r"(?:km|kilomet(?:er|re)s?|miles?|mi|m|met(?:er|re)s?)"
_SPEED_GIVEN_RE = re.compile(
    rf"(?<![\w.])(?P<v>{_NUM})\s*(?:(?P<abbr>kmh|kph|mph)\b|(?P<d>{_TRIP_LENGTH})\s*(?:/|per|an?|every)\s*"
    rf"(?P<u>{_TIME_UNIT}|h|s)\b)",
    re.IGNORECASE,
)
"""A speed: "18 km/h", "12 miles per hour", "30 mph"."""
_PACE_GIVEN_RE = re.compile(
    rf"(?<![\w.])(?P<p>{_NUM})\s*(?P<u>{_TIME_UNIT})\s*(?:/|per|an?|every|each|for each|for every)\s*"
    rf"(?P<d>{_TRIP_LENGTH})\b",
    re.IGNORECASE,
)
"""A pace: "5.5 min per km", "9 minutes a mile"."""
_TRIP_DISTANCE_RE = re.compile(rf"(?<![\w.])(?P<x>{_NUM})[\s-]*(?P<d>{_TRIP_LENGTH})\b", re.IGNORECASE)
_DURATION_ASKED_RE = re.compile(rf"\bhow long\b|\bhow many\s+(?P<u>{_TIME_UNIT})\b", re.IGNORECASE)
_NOT_ONE_WAY_RE = re.compile(
    r"\b(?:there and back|round[\s-]?trip|return|both ways|each way|twice|laps?|times|every|rest|stops?|"
    r"breaks?|how far)\b|%",
    re.IGNORECASE,
)
"""A trip made more than once or with stops, or a distance asked: more than one distance at one speed."""


def _rate_units(rate: re.Match[str]) -> tuple[str, str]:
    """The unit of length and the unit of time of a speed ("30 mph": mile, hour; "18 km/h": km, hour) or a
    pace ("9 minutes a mile": mile, minute)."""
    groups = rate.groupdict()
    if groups.get("abbr"):
        return _SPEED_ABBREVIATIONS[groups["abbr"].lower()], "hour"
    return groups["d"], _short_time_unit(groups["u"])


def _time_for_a_distance(text: str) -> Conversion | None:
    """The time a distance takes at a speed or a pace: "I cycle at 18 km/h. How long will it take me to
    ride 45 km?" is ``(45 / 18)`` hours, "a 42.2 km marathon at 5.5 min per km: how long?" ``(42.2 *
    5.5)`` minutes. In the speed's (or the pace's) unit of time, or the one asked ("how many minutes").
    ``None`` unless ``text`` holds just the distance and the speed or pace, in one unit of length (or units
    that convert), asks how long, once and one way."""
    if not _one_question(text) or _NOT_ONE_WAY_RE.search(text):
        return None
    asked = _DURATION_ASKED_RE.search(text)
    rates = [*_SPEED_GIVEN_RE.finditer(text), *_PACE_GIVEN_RE.finditer(text)]
    if asked is None or len(rates) != 1:
        return None
    rate = rates[0]
    rest = _blanked(text, rate)
    distances = list(_TRIP_DISTANCE_RE.finditer(rest))
    if len(distances) != 1 or len(_NUMBER_RE.findall(_without_ones(rest))) != 1:
        return None
    if _OTHER_OPERATION_RE.search(
        re.sub(r"(?<=[a-z])/(?=[a-z])|\bhalf[\s-]marathon\b", " ", rest, flags=re.I)
    ):
        return None
    distance = distances[0]
    groups = rate.groupdict()
    per, rate_time = _rate_units(rate)
    factor = _measure_factor(distance.group("d"), per)
    if factor is None:
        return None  # "45 miles at 18 km/h"
    goal = rate_time if asked.group("u") is None else _time_unit(asked.group("u"))
    scale = _units_in(goal, rate_time)
    if scale is None:
        return None
    amount = f"{distance.group('x')}{factor}"
    if groups.get("v") is not None:
        expression = f"{amount} / {groups['v']}"
        said = f"{distance.group(0)} at {rate.group(0)}"
    else:
        expression = f"{amount} * {groups['p']}"
        said = f"{distance.group(0)} at {rate.group(0)}"
    if scale != 1:
        expression += (
            f" * {scale.numerator}"
            if scale.denominator == 1
            else f" * {scale.numerator} / {scale.denominator}"
        )
    return Conversion(f"({expression})", said, f"{goal}s")


# The distance covered at a speed for a time: "A car travels 60 mph for 2.5 hours. How far does it go?".
_DISTANCE_ASKED_RE = re.compile(
    rf"\bhow far\b|\bwhat(?:'s|\s+is|\s+was)?\s+(?:the\s+)?distance\b"
    rf"|\bhow many\s+(?P<d>{_TRIP_LENGTH})\b(?!\s*(?:/|per|an?|every|each)\b)",
    re.IGNORECASE,
)
"""A distance asked: "how far", "what distance", "how many km" (not "how many km per hour")."""
_DURATION_GIVEN_RE = re.compile(rf"(?<![\w.])(?P<t>{_NUM})\s*(?P<u>{_TIME_UNIT}|h)\b", re.IGNORECASE)
_LENGTH_PLURALS = {"mile": "miles", "kilometer": "kilometers", "kilometre": "kilometres", "meter": "meters",
                   "metre": "metres", "mi": "miles"}  # fmt: skip


def _distance_at_speed(text: str) -> Conversion | None:
    """The distance covered at a speed for a time: "If a car travels 60 miles per hour for 2.5 hours, how
    far does it go?" is ``(60 * 2.5)`` miles, "80 km/h for 45 minutes: how far?" ``(80 * 45 / 60)`` km. In
    the speed's unit of length, or the one asked ("how many km") when the units convert. ``None`` unless
    ``text`` holds just the speed and the time and asks one distance."""
    if not _one_question(text):
        return None
    asked = _DISTANCE_ASKED_RE.search(text)
    speeds = list(_SPEED_GIVEN_RE.finditer(text))
    if asked is None or len(speeds) != 1:
        return None
    speed = speeds[0]
    rest = _blanked(text, speed)
    times = list(_DURATION_GIVEN_RE.finditer(rest))
    if len(times) != 1 or len(_NUMBER_RE.findall(_without_ones(rest))) != 1:
        return None
    if _OTHER_OPERATION_RE.search(re.sub(r"(?<=[a-z])/(?=[a-z])", " ", rest)) or _NOT_ONE_WAY_RE.search(
        _DISTANCE_ASKED_RE.sub(" ", rest)
    ):
        return None
    groups = speed.groupdict()
    per, rate_time = _rate_units(speed)
    duration = times[0]
    scale = _units_in(rate_time, _short_time_unit(duration.group("u")))
    if scale is None:
        return None
    unit, factor = per, ""
    if asked.group("d") is not None:
        unit = asked.group("d")
        factor = _measure_factor(per, unit)
        if factor is None:
            return None  # "60 mph for 2 hours: how many kg?": no length
    expression = f"{groups['v']} * {duration.group('t')}"
    if scale != 1:
        expression += f" * {scale.numerator}" if scale.numerator != 1 else ""
        expression += f" / {scale.denominator}" if scale.denominator != 1 else ""
    said = f"{' '.join(speed.group(0).split())} for {' '.join(duration.group(0).split())}"
    name = _LENGTH_PLURALS.get(unit.lower(), unit)
    return Conversion(f"({expression}{factor})", said, name)


# The pace of a trip: "If I run 10 km in 55 minutes, what is my pace per km?".
_PACE_ASKED_RE = re.compile(
    rf"\bpace\b(?:[^.?!]*?\b(?:per|a|an|each|every|/)\s*(?P<d>{_TRIP_LENGTH})\b)?"
    rf"|\b(?P<u>minutes?|mins?|seconds?|secs?)\s*(?:per|a|an|each|every|/)\s*(?P<d2>{_TRIP_LENGTH})\b",
    re.IGNORECASE,
)
"""A pace asked: "my pace per km", "what pace", "how many minutes per mile"."""


def _pace_for_a_trip(text: str) -> Conversion | None:
    """The pace of a distance covered in a time: "If I run 10 km in 55 minutes, what is my pace per km?" is
    ``(55 / 10)`` minutes per km ("1 hour 5 minutes" counts as 65; per the unit asked, else the one given;
    in seconds when seconds are asked). ``None`` unless ``text`` holds just the distance and its time and
    asks a pace."""
    asked = _PACE_ASKED_RE.search(text)
    if asked is None or not _one_question(text):
        return None
    found = [
        m
        for m in _IN_A_TIME_RE.finditer(text)
        if _UNIT_OF.get((m.group("what") or "x").split()[0].lower(), ("",))[0] == "length"
    ]
    if len(found) != 1 or re.search(r"\d", _blanked(_blanked(text, found[0]), asked)):
        return None
    trip = found[0]
    given = trip.group("what").split()[0]
    per = asked.group("d") or asked.group("d2") or given
    per = re.sub(r"(?<=[a-z]{3})s$", "", per)  # per mile, not "per miles"
    factor = _measure_factor(given, per)
    goal = _time_unit(asked.group("u")) if asked.group("u") else "minute"
    time = _in_unit(goal, trip.group("t") or "1", _short_time_unit(trip.group("u")))
    if trip.group("u2") and time is not None:
        second = _in_unit(goal, trip.group("t2"), _short_time_unit(trip.group("u2")))
        time = None if second is None else f"({time} + {second})"
    if factor is None or time is None:
        return None
    distance = f"{trip.group('a')}{factor}"
    distance = distance if re.fullmatch(_NUM, distance) else f"({distance})"
    return Conversion(f"({time} / {distance})", " ".join(trip.group(0).split()), f"{goal}s per {per}")


# Fuel for a distance at a consumption: "I drive 340 km and my car uses 6.5 L per 100 km: how much fuel?".
_DISTANCE_UNIT = r"(?:km|kilomet(?:er|re)s?|miles?|mi)"
_FUEL_UNIT = r"(?:l|lit(?:er|re)s?|gal(?:lon)?s?)"
_FUEL_USE_RE = re.compile(
    rf"(?<![\w.])(?P<c>{_NUM})\s*(?P<fuel>{_FUEL_UNIT})\s*(?:of\s+(?:fuel|petrol|gas|gasoline|diesel)\s+)?"
    rf"(?:per|/|every|for every|each|a|an)\s*"
    rf"(?:(?P<per>{_NUM})\s*)?(?P<dist>{_DISTANCE_UNIT})\b",
    re.IGNORECASE,
)
"""A car's consumption: "6.5 L per 100 km", "6.5 l/100km", "0.08 liters per km"."""
_FUEL_ECONOMY_RE = re.compile(
    rf"(?<![\w.])(?P<e>{_NUM})\s*(?:(?P<dist>{_DISTANCE_UNIT})\s*(?:per|/|to the|to a|an?|for every|each)\s*"
    rf"(?P<fuel>{_FUEL_UNIT})|(?P<mpg>mpg))\b",
    re.IGNORECASE,
)
"""A car's distance per fuel: "15 km per liter", "40 miles to the gallon", "40 mpg"."""
_DISTANCE_RE = re.compile(rf"(?<![\w.])(?P<d>{_NUM})\s*(?P<dist>{_DISTANCE_UNIT})\b", re.IGNORECASE)
_FUEL_ASKED_RE = re.compile(
    rf"\bhow (?:much|many)\s+(?:(?:fuel|petrol|gas|gasoline|diesel)\b|(?P<fuel>{_FUEL_UNIT})\b)"
    r"|\bhow much (?:will|would|does|do|did|is) (?:it|i|we|you|the car|my car|the trip|that) "
    r"(?:use|need|burn|take|consume)\b",
    re.IGNORECASE,
)
_NOT_ONE_TRIP_RE = re.compile(
    rf"\b(?:there and back|round[\s-]?trip|return|both ways|each way|twice|{_TIME_UNIT}|daily|weekly|monthly|"
    r"yearly|annually|cost|costs|price|pay)\b",
    re.IGNORECASE,
)
"""A trip driven more than once, over a time, or a price asked: more than the fuel for one distance."""


def fuel_needed(text: str) -> tuple[str, str] | None:
    """The fuel a car needs for a distance at its consumption, and the fuel's unit as written: "if I drive
    340 km and my car uses 6.5 L per 100 km, how much fuel do I need?" is ``(340 * 6.5 / 100)`` in L; at a
    distance per fuel ("40 mpg", "15 km per liter") the distance over it. ``None`` unless ``text`` holds
    just the distance and the consumption, in one unit of distance, asks how much fuel (in the
    consumption's unit when named), and the trip is driven once (not "there and back", "a day")."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    asked = _FUEL_ASKED_RE.search(text)
    if asked is None or _NOT_ONE_TRIP_RE.search(text):
        return None
    rates = [*_FUEL_USE_RE.finditer(text), *_FUEL_ECONOMY_RE.finditer(text)]
    if len(rates) != 1:
        return None
    rate = rates[0]
    rest = _blanked(text, rate)
    distances = list(_DISTANCE_RE.finditer(rest))
    if len(distances) != 1 or len(_NUMBER_RE.findall(rest)) != 1 or _OTHER_OPERATION_RE.search(rest):
        return None
    groups = rate.groupdict()
    per_distance, fuel = ("mile", "gallon") if groups.get("mpg") else (groups["dist"], groups["fuel"])
    if not _same_unit(distances[0].group("dist"), per_distance):
        return None  # "340 km at 40 mpg"
    if asked.group("fuel") is not None and not _same_unit(asked.group("fuel"), fuel):
        return None  # "6.5 L per 100 km: how many gallons?"
    distance = distances[0].group("d")
    unit = _FUEL_PLURALS.get(fuel.lower(), fuel)
    if groups.get("e") is not None:
        return f"({distance} / {groups['e']})", unit
    per = f" / {groups['per']}" if groups.get("per") else ""
    return f"({distance} * {groups['c']}{per})", unit


_CUT_INTO_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_UNSIGNED})\s*(?P<unit>{_LENGTH_UNIT}|(?:kilo)?grams?|kg|g|lit(?:er|re)s?|l|ml)\b"
    rf"[^.?!]*?[.?!]?[^.?!]*?\b(?:cut|divided|split|shared|broken|poured)\s+(?:\w+\s+)?(?:into|in)\s+"
    rf"(?P<m>{_UNSIGNED})\s+(?:equal\s+|even\s+|same[- ]size\s+)?(?:pieces|parts|lengths|sections|portions|"
    r"bottles|glasses|cups|bags|strips|slices)\b",
    re.IGNORECASE,
)
"""An amount cut into a number of equal pieces ("A rope is 15 m long. It is cut into 4 equal pieces")."""


def cut_into_pieces(text: str) -> tuple[str, str] | None:
    """An amount cut into equal pieces, each one asked, and its unit: "A rope is 15 m long. It is cut into 4
    equal pieces. How long is each piece?" is ``(15 / 4)`` in m. ``None`` unless ``text`` holds just those
    two numbers and asks how long, how much or how big each one is."""
    if not _one_question(text) or len(_NUMBER_RE.findall(text)) != 2:
        return None
    cut = _CUT_INTO_RE.search(text)
    if cut is None or not re.search(r"\bhow\s+(?:long|much|big|heavy)\b", text[cut.end() :], re.I):
        return None
    return f"({cut.group('n')} / {cut.group('m')})", cut.group("unit")


_FUEL_PLURALS = {"liter": "liters", "litre": "litres", "gallon": "gallons", "l": "L"}
"""A fuel's unit as an amount of it is said ("28 liters", "6.8 gallons")."""


# A price per unit for a number of units or things at a price each, plus fixed charges, maybe shared: "A hotel
# is $129 per night for 3 nights, plus a $25 cleaning fee", "3 pizzas at $14.50 each plus $6 delivery, split
# between 4 friends".
_PER_UNIT_FOR_RE = re.compile(
    rf"(?<![\w.])(?P<p>{_NUM})\s*(?:(?:dollars?|euros?|bucks)\s*)?(?:per|an?|/|each|every)\s*(?P<unit>[a-z]+)\s+"
    rf"(?:for|over|x)\s+(?P<n>{_NUM})\s+(?P<units>[a-z]+)"
    rf"|(?<![\w.])(?P<n2>{_NUM})\s+(?P<units2>[a-z]+)\s+(?:at|for|@)\s+(?P<p2>{_NUM})\s*"
    rf"(?:(?:dollars?|euros?|bucks)\s*)?(?:per|an?|/|every)\s*(?P<unit2>[a-z]+)\b",
    re.IGNORECASE,
)
"""A price per unit for a number of the units: "129 per night for 3 nights", "3 nights at 129 a night"."""
_CHARGE = r"(?:fees?|charges?|surcharges?|tips?|delivery|shipping|postage|tax(?:es)?)"
_EXTRA_CHARGE_RE = re.compile(
    rf"(?<![\w.])(?P<x>{_NUM})\s+(?:[a-z-]+\s+){{0,2}}?{_CHARGE}\b"
    rf"|\b(?:[a-z-]+\s+)?{_CHARGE}\s+(?:of|is|was|costs?|=)\s+(?P<x2>{_NUM})(?![\w.])",
    re.IGNORECASE,
)
"""A fixed amount added to a price: "a 25 cleaning fee", "6 delivery", "a delivery fee of 6"."""
_CHARGE_LINK_RE = re.compile(
    r"(?:\bplus|\band|\bwith|\+|\balso|\bincluding|\bthere(?:'s|’s|\s+is))\s+(?:(?:an?|the|one)\s+)?$", re.I
)
"""What adds a charge: "plus a $25 fee", "and $6 delivery", "there's a $30 resort fee"."""
_CHARGE_EACH_RE = re.compile(r"\s*(?:per|each|for each|on each|for every|on every|an?|every|apiece)\b", re.I)
_SPLIT_RE = re.compile(
    r"\b(?:split|splits|splitting|share[sd]?|sharing|divide[sd]?|dividing|"
    r"(?:chip|chips|chipping|chipped|pitch|pitches|pitching|pitched)\s+in)\b",
    re.I,
)
"""Words of sharing an amount ("split", "share", "chip in", "pitch in")."""


def _blanked(text: str, match: re.Match[str]) -> str:
    """``text`` with ``match`` blanked out, every other character where it was."""
    return text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :]


def _total_with_charges(text: str) -> str | None:
    """A price per unit for a number of units, or things at a price each, plus fixed charges, maybe shared:
    "A hotel is $129 per night for 3 nights, plus a $25 cleaning fee. What's the total?" is ``(129 * 3 +
    25)``, "3 pizzas at $14.50 each plus $6 delivery, split between 4 friends. How much each?" ``((3 *
    14.50 + 6) / 4)``. ``None`` unless ``text`` holds one such price, each charge added once ("plus a $25
    fee", not "a $2 fee per ticket"), at most the number sharing it (shared: split, or asked per person;
    not "with 3 friends"), no other number or percent, and asks for the total when nothing is shared."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    bases = [*_BOUGHT_EACH_RE.finditer(text), *_PER_UNIT_FOR_RE.finditer(text)]
    if len(bases) != 1:
        return None
    base = bases[0]
    if base.re is _BOUGHT_EACH_RE:
        subtotal = f"{base.group('n')} * {base.group('p')}"
    else:
        unit, units = base.group("unit") or base.group("unit2"), base.group("units") or base.group("units2")
        if _stem(unit) != _stem(units):
            return None  # "$129 per night for 3 people"
        subtotal = f"{base.group('p') or base.group('p2')} * {base.group('n') or base.group('n2')}"
    rest = _blanked(text, base)
    charges = []
    for charge in list(_EXTRA_CHARGE_RE.finditer(rest)):
        if not _CHARGE_LINK_RE.search(rest[: charge.start()]) or _CHARGE_EACH_RE.match(rest, charge.end()):
            return None  # "a $4.50 fee per ticket", "the fee was $6 before"?
        charges.append(charge.group("x") or charge.group("x2"))
        rest = _blanked(rest, charge)
    sharers = None
    for pattern in _SHARE_COUNT_RES:
        share = pattern.search(rest)
        if share is not None:
            if _with_others(rest[: share.start()], share.group()) or not _counts_people(rest, share):
                return None  # "split with 3 friends": 3 or 4 shares? "for 4 hours": no people
            sharers, rest = share.group("n"), _blanked(rest, share)
            break
    if _NUMBER_RE.search(rest) or not (charges or sharers):
        return None
    if sharers is not None and not (_SPLIT_RE.search(text) or _SHARE_CUE_RE.search(rest)):
        return None  # "dinner for 4 people: 3 pizzas at $12 each plus $5 delivery. Total?"
    if sharers is None and not (_SPEND_ASKED_RE.search(text) or _COST_ASKED_RE.search(text)):
        return None
    total = " + ".join([subtotal, *charges])
    return f"({total})" if sharers is None else f"(({total}) / {sharers})"


# An amount shared by a number of people: "Our bill is $96.30 and there are 3 of us. How much does each owe?".
_WE_ARE_RE = re.compile(
    rf"\b(?:we\s+are|we're|we\s+were)\s+(?P<n>{_NUM})\b(?!\s*[a-z]+\s+(?:old|years)\b)", re.I
)
_BILL_WORD_RE = re.compile(
    r"\b(?:bills?|rent|total|tab|check|cheque|invoice|expenses|utilities|subscription|dinner|meal|lunch|"
    r"breakfast|groceries|order|taxi|cab|came to|comes to|altogether|together|pizzas?|cakes?|gifts?|presents?"
    r"|food|drinks|fuel|gas|petrol|ride|room|flat|apartment|house)\b",
    re.IGNORECASE,
)
"""What a group pays together, something shared (not a price, a fee or a fare: "tickets cost $24" may be each
one's): "a pizza costs $18 and we are 4"."""
_EACH_PAYS_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "How much does each person owe?", "how much should each of us pay?", "how much do each of us get"
        r"\bhow much\s+(?:money\s+)?(?:does|do|did|will|would|should|must|has|have)\s+(?:each|every)"
        r"(?:\s+(?:one|1|person|(?:one\s+)?of\s+(?:us|them)|[a-z]+mates?|roommates?|friends?|guests?))?"
        r"\s+(?:(?:have|has|need|needs)\s+to\s+)?"
        r"(?:owe|pay|get|contribute|chip in|pitch in|put in|cover|receive|spend)\b",
        # "how much each?", "how much is it per person?", "how much is that a head"
        r"\bhow much\s+(?:(?:is|will|would)\s+(?:it|that|this)\s+(?:be\s+)?)?"
        r"(?:each|apiece|per (?:person|head)|a head)\s*[?.!]*$",
        # "what is each person's share?", "what's my share?"
        r"\bwhat(?:'s|’s|s|\s+is|\s+will\s+be)\s+(?:each\s+(?:person|one|roommate|flatmate)['’]s|everyone['’]s|"
        r"each|my|the\s+per[\s-]person)\s+(?:share|part|portion)\b",
        # "how much do I owe?"
        r"\bhow much\s+(?:do|should|will|must)\s+i\s+(?:owe|pay|contribute|chip in|put in)\b",
    )
)
"""A question asking what one of a group pays or gets."""


def _counts_people(text: str, share: re.Match[str]) -> bool:
    """Whether the number sharing, ``share`` in ``text``, counts people ("4 of us", "between 4 friends",
    "among 4."), not other things ("for 4 hours")."""
    after = re.match(r"\s*([a-z]+)", text[share.end() :], re.IGNORECASE)
    return (
        after is None
        or after.group(1).lower() in _NOT_A_THING
        or re.fullmatch(_PEOPLE, after.group(1), re.IGNORECASE) is not None
        or re.search(rf"\b{_PEOPLE}$", share.group(), re.IGNORECASE) is not None
    )


def _amount_shared(text: str) -> str | None:
    """An amount shared by a number of people: "Our electricity bill is $237.60 and there are 4 of us in
    the flat. How much does each person owe?" or "$237.60 split between 4 people" is ``(237.60 / 4)``.
    ``None`` unless ``text`` holds just the amount and how many share it ("4 of us", "between 4 people",
    "we are 4"; not "with 3 friends": 3 or 4?), says it is split or asks what each pays of a bill, a rent,
    a total, and says nothing is each's or per unit before that ("4 of us each paid $20")."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    asked = next((m for pattern in _EACH_PAYS_RES if (m := pattern.search(text)) is not None), None)
    split = _SPLIT_RE.search(text)
    if asked is None and split is None:
        return None
    given = text if asked is None else text[: asked.start()]
    if re.search(r"\b(?:each|per|every|apiece|a head)\b", given, re.IGNORECASE):
        return None  # "4 of us each paid $20", "$20 per person"
    for pattern in (*_SHARE_COUNT_RES, _WE_ARE_RE):
        share = pattern.search(given)
        if share is not None:
            break
    else:
        return None
    if _with_others(given[: share.start()], share.group()) or not _counts_people(given, share):
        return None  # "split it with 3 friends": 3 or 4 shares? "for 4 hours": no people
    if "." in share.group("n"):
        return None
    rest = _blanked(given, share)
    amounts = list(_NUMBER_RE.finditer(_without_ones(rest)))
    if len(amounts) != 1 or len(_NUMBER_RE.findall(_without_ones(text))) != 2:
        return None
    if split is None and not _BILL_WORD_RE.search(given):
        return None  # "4 of us ran 10 km. How much did each run?"
    return f"({amounts[0].group()} / {share.group('n')})"


# A quantity for a number of servings scaled to another: "A recipe for 4 people uses 300 g of flour. How much
# flour do I need for 10 people?".
_SERVED = r"(?:people|persons?|servings?|portions?|guests?|adults|kids|children|diners|eaters)"
_SERVINGS_RE = re.compile(
    rf"\b(?P<how>for|serves|serving|feeds|to serve|to feed|makes|make|yields|to make)\s+(?P<n>{_NUM})"
    rf"(?:\s+(?P<who>[a-z]+))?(?P<end>\s*[?.!]*$)?",
    re.IGNORECASE,
)
"""A number served or made: "for 4 people", "serves 4", "makes 24 cookies", "for 10?" (a question's end)."""
_RECIPE_RE = re.compile(
    rf"\b(?:recipes?|serves|feeds|to serve|to feed|{_SERVED}|batch(?:es)?|ingredients?|bake|cook)\b", re.I
)
_HOW_MUCH_RE = re.compile(r"\bhow (?:much|many)\b(?:\s+(?P<thing>[a-z]+))?", re.IGNORECASE)


def _served(match: re.Match[str]) -> str | None:
    """Who a number of :data:`_SERVINGS_RE` serves ("people" for people, servings and guests; "cookie" for
    cookies made), "" when not said (a question's "for 10?", "serves 4"), ``None`` when unclear."""
    who, how = (match.group("who") or "").lower(), match.group("how").lower()
    if re.fullmatch(_SERVED, who):
        return "people"
    if not who or who in _NOT_A_THING or who in ("needs", "uses", "takes", "calls", "requires"):
        return "" if how in ("serves", "feeds", "to serve", "to feed") or match.group("end") else None
    return _stem(who) if how in ("makes", "make", "yields", "to make", "for") else None


def scaled_quantity(text: str) -> tuple[str, str] | None:
    """A quantity for a number of people or servings, scaled to another number of them: "A recipe for 4
    people uses 300 g of flour. How much flour do I need for 10 people?" is ``(300 * 10 / 4)``; "makes 24
    cookies with 2 cups of flour: how much flour for 36 cookies?" ``(2 * 36 / 24)``. ``None`` unless
    ``text`` holds just those three numbers, the two counts are of the same (people, servings, cookies),
    the question asks for the quantity (the thing it names given with it) for the second, it is a recipe
    (or the quantity a mass or a volume), and nothing is each or per one. Returns the arithmetic and the
    quantity's unit as written ("cups")."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    asked = _HOW_MUCH_RE.search(text)
    numbers = list(_NUMBER_RE.finditer(text))
    if asked is None or len(numbers) != 3 or re.search(r"\b(?:each|per|every|apiece|a head)\b", text, re.I):
        return None
    servings = [m for m in _SERVINGS_RE.finditer(text) if (m.group("who") or "").lower() not in _UNIT_OF]
    if len(servings) != 2 or servings[0].end() > asked.start() or servings[1].start() < asked.start():
        return None
    first, second = (_served(m) for m in servings)
    if first is None or second is None or (first and second and first != second):
        return None  # "for 4 people" then "for 10 cakes"
    counted = {servings[0].start("n"), servings[1].start("n")}
    quantities = [n for n in numbers if n.start() not in counted]
    quantity = quantities[0]
    if quantity.start() > asked.start():
        return None
    unit = re.match(r"\s*([a-z]+)", text[quantity.end() :], re.IGNORECASE)
    if unit is None or unit.group(1).lower() in _NOT_A_THING:
        return None
    measured = _UNIT_OF.get(unit.group(1).lower(), ("", ""))[0] in ("mass", "volume")
    named = _stem((asked.group("thing") or "").lower()) == _stem(unit.group(1).lower())
    if not (measured or _RECIPE_RE.search(text) or (named and asked.group(0).lower().startswith("how many"))):
        # "a bus for 40 people costs $600": no recipe, the cost does not scale; "3 eggs for 1 cake: how many
        # eggs for 7 cakes?" asks the things counted for the first by name
        return None
    thing = (asked.group("thing") or "").lower()
    if thing and thing not in _NOT_A_THING and thing not in ("do", "does", "will", "would", "should", "we"):
        given = {_stem(w) for w in re.findall(r"[a-z]+", text[quantity.end() : asked.start()], re.IGNORECASE)}
        if _stem(thing) not in given:
            return None  # "300 g of flour: how much sugar?"
    return f"({quantity.group()} * {servings[1].group('n')} / {servings[0].group('n')})", unit.group(1)


# A price rescaled to another amount of the same kind: "A 2 litre bottle costs $3.60. What does a 250 ml glass
# cost?".
_MEASURED_RE = re.compile(rf"(?<![\w.])(?P<q>{_NUM})[\s-]*(?P<u>[a-z]+(?:\s+[a-z]+)?)\b", re.IGNORECASE)


def _measured(text: str) -> list[tuple[re.Match[str], str]]:
    """The amounts of a unit of length, mass or volume in ``text``, each with its unit's name as in
    :data:`_UNIT_OF` ("2 litre", "250 ml", "1.5 fluid ounces")."""
    found = []
    for match in _MEASURED_RE.finditer(text):
        words = match.group("u")
        for unit in (words, words.split()[0]):
            if _UNIT_OF.get(unit.lower(), ("",))[0] in ("length", "mass", "volume"):
                found.append((match, unit.lower()))
                break
    return found


def _price_rescaled(text: str) -> str | None:
    """A price for an amount of something, asked for another amount of the same kind: "A 2 litre bottle of
    juice costs $3.60. What does one 250 ml glass cost?" is ``(3.60 * 250 / 1000 / 2)``. ``None`` unless
    ``text`` holds just the amount, its price ("costs", "is", "for") and, in the question after them, the
    other amount (both of one kind: volumes, masses or lengths), and asks what it costs."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    text = re.sub(r"(?<![\w.])1\s+(?=\d)", "  ", text)  # "one 250 ml glass"
    asked = re.search(r"\b(?:what|how much)\b", text, re.IGNORECASE)
    if asked is None or not _COST_ASKED_RE.search(text, asked.start()):
        return None
    if re.search(r"\b(?:each|per|every|apiece|a piece)\b", text, re.IGNORECASE):
        return None  # a price per unit is read elsewhere
    numbers = list(_NUMBER_RE.finditer(_without_ones(text)))
    amounts = _measured(text)
    if len(numbers) != 3 or len(amounts) != 2:
        return None
    (given, unit), (wanted, wanted_unit) = amounts
    if given.end() > asked.start() or wanted.start() < asked.start():
        return None
    prices = [n for n in numbers if n.start() not in (given.start(), wanted.start())]
    if len(prices) != 1 or not (given.end() <= prices[0].start() < asked.start()):
        return None
    if not _PRICE_GIVEN_RE.search(text[given.end() : prices[0].start()]):
        return None
    if _UNIT_OF[unit][0] != _UNIT_OF[wanted_unit][0]:
        return None  # "a 2 kg bag costs $5: what do 3 litres cost?"
    factor = Fraction(_UNIT_OF[wanted_unit][1]) / Fraction(_UNIT_OF[unit][1])
    scale = ""
    if factor.numerator != 1:
        scale += f" * {factor.numerator}"
    if factor.denominator != 1:
        scale += f" / {factor.denominator}"
    return f"({prices[0].group()} * {wanted.group('q')}{scale} / {given.group('q')})"


# Several prices per unit, each for its amount: "$45 a day plus $0.25 per km. I rent it for 3 days and
# drive 200 km. What's the cost?".
_PRICE_PER_UNIT_RE = re.compile(
    rf"(?<![\w.])(?P<p>{_NUM})\s*(?:(?:dollars?|euros?|bucks|cents?)\s*)?(?:(?:per|an?|each|every)\s+|/\s*)"
    rf"(?P<unit>[a-z]+)\b",
    re.IGNORECASE,
)
_UNITS_COUNTED_RE = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s*(?P<unit>[a-z]+)\b", re.IGNORECASE)


def _rates_for_amounts(text: str) -> str | None:
    """Two prices per unit or more, each for an amount of its unit, asked the cost: "A rental car is $45 a day
    plus $0.25 per km. I rent it for 3 days and drive 200 km. What's the cost?" is ``(45 * 3 + 0.25 * 200)``.
    ``None`` unless every number is such a price or the one amount of its unit, the question asks what it
    costs, and nothing is shared or a percent."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _SHARE_CUE_RE.search(text):
        return None
    if not (_SPEND_ASKED_RE.search(text) or _COST_ASKED_RE.search(text)):
        return None
    if _OTHER_OPERATION_RE.search(re.sub(r"(?<=[\d\s])/(?=\s*[a-z])", " ", text)):
        return None
    rates = list(_PRICE_PER_UNIT_RE.finditer(text))
    if len(rates) < 2 or len({_stem(r.group("unit")) for r in rates}) != len(rates):
        return None
    rest = text
    for rate in rates:
        rest = _blanked(rest, rate)
    counts = list(_UNITS_COUNTED_RE.finditer(rest))
    if len(counts) != len(rates) or len(_NUMBER_RE.findall(rest)) != len(counts):
        return None
    terms = []
    for rate in rates:
        matching = [c for c in counts if _same_unit(c.group("unit"), rate.group("unit"))]
        if len(matching) != 1 or matching[0].start() < rate.start():
            return None
        terms.append(f"{rate.group('p')} * {matching[0].group('n')}")
    return "(" + " + ".join(terms) + ")"


# A leg of a right triangle from the hypotenuse and the other leg: "A 5 m ladder reaches 4 m up a wall.
# How far is its foot from the wall?".
_LADDER_RE = re.compile(
    rf"(?<![\w.])(?P<c>{_UNSIGNED})[\s-]*(?:{_LENGTH_UNIT}\b)?[\s-]*(?:long\s+)?ladder\b"
    rf"|\bladder\s+(?:is|of|that is|which is|measuring)\s+(?P<c2>{_UNSIGNED})[\s-]*(?:{_LENGTH_UNIT}\b)?"
    rf"(?:\s+long)?"
    rf"|\b(?:hypotenuse|diagonal)(?:\s+of\s+(?:a|an|the)\s+(?:right\s+triangle|rectangle))?\s+"
    rf"(?:is|of|=|measures|measuring)\s+(?P<c3>{_UNSIGNED})",
    re.IGNORECASE,
)
_LEG_ASKED_RE = re.compile(
    r"\bhow (?:far|high|tall|long)\b|\b(?:distance|height)\b|\bother (?:leg|side)\b",
    re.IGNORECASE,
)


def _leg_from_hypotenuse(text: str) -> str | None:
    """A leg of a right triangle from its hypotenuse and the other leg: "A 5 m ladder reaches 4 m up a
    wall. How far is its foot from the wall?" is ``sqrt(5 ** 2 - 4 ** 2)``; "the hypotenuse is 13 and one
    leg is 5: the other leg?". ``None`` unless ``text`` says which number is the ladder (with a wall or the
    ground), the hypotenuse or the diagonal, holds one other number, smaller, and asks for a distance, a
    height or the other leg."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    hypotenuses = list(_LADDER_RE.finditer(text))
    if len(hypotenuses) != 1 or not _LEG_ASKED_RE.search(text):
        return None
    match = hypotenuses[0]
    numbers = list(_NUMBER_RE.finditer(_without_ones(_blanked(text, match))))
    if len(numbers) != 1 or len(_NUMBER_RE.findall(_without_ones(text))) != 2:
        return None
    hypotenuse = match.group("c") or match.group("c2") or match.group("c3")
    leg = numbers[0].group()
    if not Fraction(leg) < Fraction(hypotenuse):
        return None
    if match.group("c3") is not None and not re.search(r"\b(?:leg|side)\b", text, re.IGNORECASE):
        return None
    if match.group("c3") is None and not re.search(
        r"\b(?:wall|ground|floor|building|house|window|roof|fence|tree)\b", text, re.IGNORECASE
    ):
        return None  # "a 5 m ladder and a 4 m plank": the other number is no distance along a wall
    return f"sqrt({hypotenuse} ** 2 - {leg} ** 2)"


_BARE_TIME_END_RE = re.compile(r"\s*(?:$|[,.?!;]|(?:on|in|at|this|last|next|the|over|during)\b)", re.I)
"""What may follow a time that leaves its unit out ("and 5 on Sunday"); not a thing ("and 5 apples")."""
_TIMES_JOINED_RE = re.compile(r"^\W*(?:[a-z]+\s+){0,3}?(?:and|plus|\+|,)\s*$|^\s*(?:\+|and|plus|,)\s*$", re.I)


def _rate_for_times(text: str) -> str | None:
    """An amount per unit of time for several times in that unit added up: "$19 an hour, 6 hours plus 5
    hours" is ``(19 * (6 + 5))``, "I earn $19 an hour and worked 6 hours on Saturday and 5 on Sunday" too.
    ``None`` unless ``text`` holds one rate (not of time itself: "8 hours a day"), then two times or more
    in its unit joined by "and", "plus" or commas (a later one may leave the unit out: "and 5 on Sunday"),
    no other number, percent or operation, and asks at most one question."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _NOT_ONE_RATE_RE.search(text):
        return None
    rates = [m for pattern in _RATE_OF_TIME_RES for m in pattern.finditer(text)]
    if len({m.start("b") for m in rates}) != 1:
        return None
    rate = rates[0]
    unit = _time_unit(rate.group("unit"))
    noun = (rate.group("noun") or "").split()
    if noun and (_time_unit(noun[-1]) in _DAYS or _time_unit(noun[-1]) in _MONTHS):
        return None  # "8 hours a day, 5 days plus 2 days": hours, not money, per day
    rest = text[rate.end() :]
    if _NUMBER_RE.search(text[: rate.start()]) or _OTHER_OPERATION_RE.search(rest.replace("+", " plus ")):
        return None
    numbers = list(_NUMBER_RE.finditer(rest))
    if len(numbers) < 2:
        return None
    times, previous = [], None
    for number in numbers:
        named = re.match(rf"\s*({_TIME_UNIT})\b", rest[number.end() :], re.IGNORECASE)
        if named is not None and _time_unit(named.group(1)) != unit:
            return None  # "6 hours plus 30 minutes" at a rate per hour
        if previous is not None and not _TIMES_JOINED_RE.search(rest[previous : number.start()]):
            return None
        if named is None and (
            previous is None
            or not re.search(r"(?:and|plus|\+|,)\s*$", rest[: number.start()])
            or not _BARE_TIME_END_RE.match(rest, number.end())
        ):
            return None  # a number of something else ("and 5 apples")
        times.append(number.group())
        previous = number.end() + (named.end() if named is not None else 0)
    return f"({rate.group('b')} * ({' + '.join(times)}))"


_SIDE_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_UNSIGNED})[\s-]*(?P<u>{_LENGTH_UNIT})?\s+(?P<w>wide|long|tall|high|across)\b"
    rf"|\b(?:an?\s+)?(?P<w2>base|height|width|length)\s+(?:of|is)\s+(?P<n2>{_UNSIGNED})[\s-]*(?P<u2>{_LENGTH_UNIT})?\b",
    re.IGNORECASE,
)
"""A side of a flat thing said with what it measures: "4.2 m wide", "30 inches tall", "a base of 3.2 m"."""
_ACROSS_SIDES = {"wide": "w", "width": "w", "across": "w", "base": "w", "long": "l", "length": "l"}
_SIDES_ASKED_RE = re.compile(r"\b(?P<area>area|surface)\b|\b(?P<diagonal>diagonal)\b", re.IGNORECASE)
_SQUARE_UNIT_RE = re.compile(
    rf"\b(?:square|sq\.?)\s+(?P<u>{_LENGTH_UNIT})\b|(?<![\w.])(?P<u2>{_LENGTH_UNIT})(?:2|²)(?!\w)",
    re.IGNORECASE,
)


def _flat_by_sides(text: str) -> str | None:
    """The area or the diagonal of a flat thing by two sides said with what they measure: "a wall that is 4.2
    m wide and 2.6 m tall: its area?" is ``(4.2 * 2.6)``, "a screen 40 inches wide and 30 inches tall: the
    diagonal?" ``sqrt(40 ** 2 + 30 ** 2)``, "a triangular sail with a base of 3.2 m and a height of 5 m: its
    area?" ``(3.2 * 5 / 2)``. ``None`` unless ``text`` holds just those two sizes, across and up (or long and
    wide), in one unit, asks one of area or diagonal (no diagonal of a triangle) and no area in another
    unit."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    if _OTHER_OPERATION_RE.search(_SQUARE_UNIT_RE.sub(" ", text)):
        return None
    sides = list(_SIDE_RE.finditer(text))
    asked = {bool(m.group("area")) for m in _SIDES_ASKED_RE.finditer(text)}
    if _SQUARE_UNIT_RE.search(text):
        asked.add(True)
    if len(sides) != 2 or len(asked) != 1:
        return None
    kinds = [_ACROSS_SIDES.get((m.group("w") or m.group("w2")).lower(), "h") for m in sides]
    names = [(m.group("u") or m.group("u2") or "").lower().rstrip("s") for m in sides]
    units = {_LENGTH_NAMES.get(name, name) for name in names}
    if sorted(kinds) not in (["h", "w"], ["l", "w"]) or len(units) != 1:
        return None
    rest = _blanked(_blanked(text, sides[0]), sides[1])
    if _NUMBER_RE.search(_without_ones(rest)):
        return None
    for square in _SQUARE_UNIT_RE.finditer(text):
        unit = (square.group("u") or square.group("u2")).lower().rstrip("s")
        if _LENGTH_NAMES.get(unit, unit) not in units:
            return None  # asked in another unit
    a, b = (m.group("n") or m.group("n2") for m in sides)
    triangle = re.search(r"\btriang", text, re.IGNORECASE) is not None
    if not asked.pop():
        return None if triangle else f"sqrt({a} ** 2 + {b} ** 2)"
    return f"({a} * {b} / 2)" if triangle else f"({a} * {b})"


_ADDED_EACH_TIME_RE = re.compile(
    r"\b(?P<verb>add(?:s|ing)?|sav(?:e|es|ing)|put(?:s|ting)?(?:\s+(?:in|away|aside))?|deposit(?:s|ing)?|"
    r"spend(?:s|ing)?|withdraw(?:s|ing)?|tak(?:e|es|ing)\s+out|us(?:e|es|ing))\s+(?:another\s+|an?\s+extra\s+)?$",
    re.IGNORECASE,
)
"""What is done with an amount each unit of time: "I add $60 every week", "I spend $20 a day"."""
_BALANCE_ASKED_RE = re.compile(
    r"\bhow much\b.*\b(?:have|be|left|balance|total|there)\b|\bwhat(?:'s|’s|s|\s+is|\s+will\s+be)\s+"
    r"(?:my|the)\s+(?:balance|total)\b",
    re.IGNORECASE,
)
_TAKEN_EACH_TIME_RE = re.compile(r"^(?:spend|withdraw|take|us)", re.IGNORECASE)


def _balance_after_a_time(text: str) -> str | None:
    """An amount one has, with an amount added (or taken) each unit of time, asked what one has after a
    time: "I have $1,240 saved and I add $60 every week. How much will I have after 10 weeks?" is ``(1240 + 60
    * 10)``. ``None`` unless ``text`` holds the amount first, one rate said as added or taken, one time in a
    unit it converts into, nothing else, and asks what one has."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    rates = [m for pattern in _RATE_OF_TIME_RES for m in pattern.finditer(text)]
    if len({m.start("b") for m in rates}) != 1 or not _BALANCE_ASKED_RE.search(text, rates[0].end()):
        return None
    rate = rates[0]
    verb = _ADDED_EACH_TIME_RE.search(text[: rate.start()])
    start = list(_NUMBER_RE.finditer(text[: rate.start()]))
    if verb is None or len(start) != 1:
        return None
    times = list(_DURATION_RE.finditer(text, rate.end()))
    if len(times) != 1 or times[0].group("a") is None:
        return None
    rest = _blanked(_blanked(text, times[0]), rate)[start[0].end() :]
    if _NUMBER_RE.search(rest):
        return None
    time = _in_unit(_time_unit(rate.group("unit")), times[0].group("a"), _time_unit(times[0].group("unit")))
    if time is None:
        return None
    sign = "-" if _TAKEN_EACH_TIME_RE.match(verb.group("verb")) else "+"
    if sign == "-" and not re.search(_LEFT, text[rate.end() :], re.IGNORECASE):
        return None  # "I have $500 and spend $20 a day: how much after 10 days?" (spent, or left?)
    return f"({start[0].group()} {sign} {rate.group('b')} * {time})"


_LEVEL_RATE_RE = re.compile(
    rf"\b(?P<verb>drops?|dropping|falls?|falling|goes\s+down|go(?:es)?\s+down|loses?|losing|uses?|"
    rf"decreases?|decreasing|discharges?|drains?|draining|rises?|rising|goes\s+up|gains?|gaining|charges?|"
    rf"charging|increases?|increasing|fills?|filling)\s+(?:by\s+)?(?P<p>{_NUM})\s*{_PCT}(?!\w)\s+"
    rf"(?:per|an?|every|each)\s+(?P<unit>{_TIME_UNIT})\b",
    re.IGNORECASE,
)
_LEVEL_START_RE = re.compile(
    rf"\b(?:start(?:s|ing)?\s+(?:at|from)|from|(?:it'?s|is|at)\s+(?:now\s+)?at|begin(?:s|ning)?\s+at)\s+"
    rf"(?P<p>{_NUM})\s*{_PCT}(?!\w)",
    re.IGNORECASE,
)
_LEVEL_END_RE = re.compile(
    rf"\b(?:until|till|til|to\s+(?:reach|get\s+to|hit)|before)\s+(?:[a-z'’]+\s+){{0,3}}?(?:at\s+)?"
    rf"(?P<p>{_NUM})\s*{_PCT}(?!\w)",
    re.IGNORECASE,
)
_RISING = ("ris", "goes up", "go up", "gain", "charg", "increas", "fill")


def _time_to_a_level(text: str) -> str | None:
    """A level that changes by a percent each unit of time, asked how long from one level to another: "my
    battery drops 8% every hour. starting at 100%, how many hours until it's at 20%?" is ``((100 - 20) /
    8)`` (percentage points, not a percent of what is left). ``None`` unless ``text`` holds that rate, the
    start and the end, nothing else, the change goes the way the rate does and the time is asked in the
    rate's unit (or "how long")."""
    if not _one_question(text):
        return None
    rate, start, end = (list(p.finditer(text)) for p in (_LEVEL_RATE_RE, _LEVEL_START_RE, _LEVEL_END_RE))
    start = [
        m for m in start if not any(e.start() <= m.start() < e.end() for e in end)
    ]  # "until it's at 20%"
    if len(rate) != 1 or len(start) != 1 or len(end) != 1 or len(_GIVEN_PERCENT_RE.findall(text)) != 3:
        return None
    if len(_NUMBER_RE.findall(text)) != 3:
        return None
    unit = _time_unit(rate[0].group("unit"))
    asked = re.search(rf"\bhow (?:many\s+(?P<u>{_TIME_UNIT})|long)\b", text, re.IGNORECASE)
    if asked is None or (asked.group("u") and _time_unit(asked.group("u")) != unit):
        return None
    rising = rate[0].group("verb").lower().startswith(_RISING)
    first, last = start[0].group("p"), end[0].group("p")
    if (Fraction(last) > Fraction(first)) != rising or first == last:
        return None
    change = f"{last} - {first}" if rising else f"{first} - {last}"
    return f"(({change}) / {rate[0].group('p')})"


_WENT_UP_RE = re.compile(
    r"\b(?P<up>went\s+up|gone\s+up|go(?:es)?\s+up|rose|risen|rise|increased|climbed|jumped)|"
    r"\b(?P<down>went\s+down|gone\s+down|go(?:es)?\s+down|fell|fallen|dropped|decreased|came\s+down)",
    re.IGNORECASE,
)
_USED_TO_RE = re.compile(r"\b(?:used\s+to|would|was|were)\s+(?:spend|pay|cost|be|charge)", re.IGNORECASE)
_NOW_ASKED_RE = re.compile(
    r"\b(?:now|these\s+days|today|anymore|after\s+the\s+(?:rise|increase|drop))\b", re.I
)


def _amount_after_prices_changed(text: str) -> str | None:
    """An amount one used to spend after the prices changed by a percent, asked what it is now: "Grocery
    prices went up 4% this year. I used to spend $150 a week, what do I spend now?" is ``(150 * (100 + 4) /
    100)``. ``None`` unless ``text`` holds one percent said as up or down (not both) before or by "prices",
    one amount said as what one used to spend, nothing else, and asks what it is now."""
    if not _one_question(text) or _OTHER_OPERATION_RE.search(text):
        return None
    percents = list(_GIVEN_PERCENT_RE.finditer(text))
    moves = list(_WENT_UP_RE.finditer(text))
    if len(percents) != 1 or len(moves) != 1 or not re.search(r"\bprices?\b", text, re.IGNORECASE):
        return None
    used = _USED_TO_RE.search(text)
    if used is None or not _NOW_ASKED_RE.search(text, used.end()):
        return None
    amounts = _NUMBER_RE.findall(_without_ones(_blanked(text, percents[0])))
    if len(amounts) != 1:
        return None
    sign = "+" if moves[0].group("up") else "-"
    return f"({amounts[0]} * (100 {sign} {percents[0].group(1)}) / 100)"


_ONE_OFF_RE = re.compile(
    rf"\b(?:plus|and|with)\s+(?:an?\s+)?(?:1[\s-]off|one[\s-]off|one[\s-]time|single|(?:an?\s+)?initial|"
    rf"upfront|up-front)\s+(?P<x>{_NUM})\s+(?:[a-z-]+\s+){{0,2}}?(?:fee|charge|payment|cost|deposit)\b"
    rf"|\b(?:plus|and|with)\s+(?:an?\s+)?(?P<x2>{_NUM})\s+(?:(?:1[\s-]off|one[\s-]off|one[\s-]time|joining|"
    rf"sign[\s-]?up|setup|set-up|activation|registration|enrol(?:l?ment)?)\s+)+(?:fee|charge|payment|cost)\b",
    re.IGNORECASE,
)
"""A fixed charge paid once on top of a rate: "plus a one-off $50 joining fee", "and a $25 setup fee"."""
_FIRST_SPAN_RE = re.compile(
    rf"\b(?:in|for|over|during)\s+(?:the\s+|my\s+|our\s+)?(?:first|whole|entire|full)\s+(?P<unit>{_TIME_UNIT})\b",
    re.IGNORECASE,
)


def _rate_plus_one_off(text: str) -> str | None:
    """An amount per unit of time for a time, plus a charge paid once: "A gym membership is $39 a month plus a
    one-off $50 joining fee. What do I pay in the first year?" is ``(39 * 12 + 50)``. The rate for the time
    is :func:`_rate_for_a_time`'s reading of the text without the charge ("the first year" is one year);
    ``None`` unless that reads and there is one such charge."""
    if not _one_question(text):
        return None
    charges = list(_ONE_OFF_RE.finditer(text))
    if len(charges) != 1:
        return None
    rest = _blanked(text, charges[0])
    rest = _FIRST_SPAN_RE.sub(lambda m: f"in one {m.group('unit')}", rest)
    product = _rate_for_a_time(rest)
    if product is None:
        return None
    return f"({product[1:-1]} + {charges[0].group('x') or charges[0].group('x2')})"


_AS_MUCH_AS_RE = re.compile(
    rf"(?<![\w.])(?P<k>{_NUM})\s+times\s+(?:as\s+(?:much|many)\s+)?(?P<what>[a-z]+)(?:\s+as\s+(?P<of>[a-z]+))?\b",
    re.IGNORECASE,
)
_AS_MUCH_AMOUNT_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s*(?P<u>[a-z]+)\s+(?:of\s+)?(?P<of>[a-z]+)\b", re.I
)


def _times_as_much(text: str) -> str | None:
    """A ratio of one thing to another and an amount of the other, asked the first: "I cook rice with 1.5
    times as much water as rice. How much water do I need for 400 g of rice?" is ``(1.5 * 400)``. ``None``
    unless ``text`` holds the ratio, one amount of the thing it is measured against, nothing else, and asks
    how much of the first."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text):
        return None
    ratios = list(_AS_MUCH_AS_RE.finditer(text))
    if len(ratios) != 1 or ratios[0].group("of") is None:
        return None
    ratio = ratios[0]
    what, of = ratio.group("what").lower(), ratio.group("of").lower()
    amounts = list(_AS_MUCH_AMOUNT_RE.finditer(text, ratio.end()))
    if len(amounts) != 1 or _stem(amounts[0].group("of")) != _stem(of) or what == of:
        return None
    if len(_NUMBER_RE.findall(text)) != 2:
        return None
    asked = re.search(rf"\bhow (?:much|many)\s+{re.escape(what)}\b", text, re.IGNORECASE)
    if asked is None or asked.start() < ratio.end():
        return None
    return f"({ratio.group('k')} * {amounts[0].group('n')})"


_TIME_PER_AMOUNT_RE = re.compile(
    rf"(?<![\w.])(?P<t>{_NUM})\s*(?P<tu>{_TIME_UNIT})\s+(?:per|for\s+(?:each|every)|a|an|every)\s+"
    rf"(?:(?P<q>{_NUM})\s*)?(?P<qu>[a-z]+)\b",
    re.IGNORECASE,
)
"""A time for an amount of something: "20 minutes per 500 g", "25 minutes for every 450 g", "30 minutes a
kg"."""
_EXTRA_TIME_RE = re.compile(
    rf"\b(?:plus|and|then)\s+(?:an?\s+)?(?:extra|additional|further|another)\s+(?P<e>{_NUM})\s*(?P<eu>{_TIME_UNIT})\b"
    rf"|\bplus\s+(?P<e2>{_NUM})\s*(?P<eu2>{_TIME_UNIT})\b",
    re.IGNORECASE,
)


def _time_per_amount(text: str) -> str | None:
    """A time per amount of something, maybe plus a fixed time, for another amount of it: "A roast needs 20
    minutes per 500 g plus an extra 20 minutes. How long should a 2 kg roast cook?" is ``(20 * 2 * 1000000 /
    (500 * 1000) + 20)`` minutes. ``None`` unless ``text`` holds that rate, at most one extra time in the
    same unit, one amount in a unit of the same kind as the rate's, nothing else, and asks how long (or how
    many of the rate's unit of time)."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    asked = _DURATION_ASKED_RE.search(text)
    rates = list(_TIME_PER_AMOUNT_RE.finditer(text))
    if asked is None or len(rates) != 1:
        return None
    rate = rates[0]
    unit = _time_unit(rate.group("tu"))
    if asked.group("u") and _time_unit(asked.group("u")) != unit:
        return None
    rest = _blanked(text, rate)
    extras = list(_EXTRA_TIME_RE.finditer(rest))
    if len(extras) > 1:
        return None
    extra = ""
    if extras:
        if _time_unit(extras[0].group("eu") or extras[0].group("eu2")) != unit:
            return None  # "plus 1 hour" on minutes: read it in one unit
        extra = f" + {extras[0].group('e') or extras[0].group('e2')}"
        rest = _blanked(rest, extras[0])
    amounts = list(_MEASURED_RE.finditer(rest))
    numbers = _NUMBER_RE.findall(_without_ones(rest))
    if len(amounts) != 1 or len(numbers) != 1:
        return None
    given, per = (
        _UNIT_OF.get(amounts[0].group("u").split()[0].lower()),
        _UNIT_OF.get(rate.group("qu").lower()),
    )
    if given is None or per is None or given[0] != per[0]:
        return None  # "20 minutes per 500 g: a 2-rib roast?"
    amount, per_amount = amounts[0].group("q"), rate.group("q") or "1"
    if given[1] != per[1]:
        amount, per_amount = f"{amount} * {given[1]}", f"({per_amount} * {per[1]})"
    return f"({rate.group('t')} * {amount} / {per_amount}{extra})"


_MONEY_WORD = r"(?:\s*(?:dollars?|euros?|pounds?|bucks|usd|eur|gbp))?"
_STAY = r"(?P<unit>night|day)"
_PER_STAY_RE = re.compile(
    rf"(?<![\w.])(?P<p>{_NUM}){_MONEY_WORD}\s+(?:a|an|per|each|every)\s+{_STAY}\b(?!\s+(?:per|a|an|each)\s)",
    re.IGNORECASE,
)
_PER_HEAD = r"(?:per|a|an|each|every)\s+(?:person|guest|head|adult|visitor)"
_PER_HEAD_PER_STAY_RE = re.compile(
    rf"(?<![\w.])(?P<x>{_NUM}){_MONEY_WORD}\s+(?:{_PER_HEAD}\s+(?:per|a|an|each|every)\s+(?P<u1>night|day)|"
    rf"(?:per|a|an|each|every)\s+(?P<u2>night|day)\s+{_PER_HEAD})\b",
    re.IGNORECASE,
)
_GUESTS_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s+(?:of\s+us|people|persons|guests|adults)\b|\b(?:we\s+are|we're)\s+(?P<n2>{_NUM})\b",
    re.IGNORECASE,
)
_STAYS_RE = re.compile(rf"(?<![\w.])(?P<d>{_NUM})\s+(?P<unit>nights?|days?)\b", re.IGNORECASE)


def _stay_with_a_charge_per_head(text: str) -> str | None:
    """A price per night and a charge per person per night, for a number of people and nights: "The hotel is
    85 euros a night plus a city tax of 2.50 euros per person per night. Two of us stay 4 nights. What's the
    total?" is ``(85 * 4 + 2.50 * 2 * 4)``. ``None`` unless ``text`` holds each of those once, nothing else,
    the nights in the unit of both rates, and asks for the total."""
    if not _one_question(text) or _GIVEN_PERCENT_RE.search(text) or _OTHER_OPERATION_RE.search(text):
        return None
    found = [list(p.finditer(text)) for p in (_PER_HEAD_PER_STAY_RE, _PER_STAY_RE, _GUESTS_RE)]
    if any(len(f) != 1 for f in found):
        return None
    charge, base, guests = (f[0] for f in found)
    rest = _blanked(_blanked(_blanked(text, charge), base), guests)
    stays = list(_STAYS_RE.finditer(rest))
    units = {(charge.group("u1") or charge.group("u2")).lower(), base.group("unit").lower()}
    if len(stays) != 1 or len(units) != 1 or _stem(stays[0].group("unit")) != units.pop():
        return None
    if _NUMBER_RE.search(_without_ones(_blanked(rest, stays[0]))):
        return None
    if not (_SPEND_ASKED_RE.search(text) or _COST_ASKED_RE.search(text)):
        return None
    nights, people = stays[0].group("d"), guests.group("n") or guests.group("n2")
    return f"({base.group('p')} * {nights} + {charge.group('x')} * {people} * {nights})"


_REST_SHARED_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s+(?:(?:other|remaining)\s+)?(?:{_PEOPLE}|others|housemates|siblings|brothers|"
    rf"sisters)\s+(?:will\s+|then\s+)?(?:split|share|divide|cover|pay)\s+(?:the\s+)?(?:rest|remainder|balance)\b"
    rf"|\b(?:the\s+)?(?:rest|remainder|balance)\s+(?:is|gets|will be)\s+(?:split|shared|divided)\s+"
    rf"(?:equally\s+|evenly\s+)?(?:between|among)\s+(?:the\s+)?(?:other\s+)?(?P<n2>{_NUM})\b",
    re.IGNORECASE,
)
"""The rest of an amount shared by a number of others ("my 2 flatmates split the rest")."""
_EACH_ASKED_RE = re.compile(r"\b(?:each|per (?:person|head)|a head|apiece)\b", re.IGNORECASE)


def _rest_shared(text: str) -> str | None:
    """One percent of an amount paid by one, the rest shared by others, asked what each of them pays: "Rent
    is $1,850. I pay 40%, and my two flatmates split the rest equally. What does each flatmate pay?" is
    ``(1850 * (100 - 40) / 100 / 2)``. ``None`` unless ``text`` holds one amount, one percent and the
    number sharing the rest, nothing else, and asks what each pays after the sharing."""
    if not _one_question(text) or _OTHER_OPERATION_RE.search(text):
        return None
    percents = list(_GIVEN_PERCENT_RE.finditer(text))
    shared = list(_REST_SHARED_RE.finditer(text))
    if len(percents) != 1 or len(shared) != 1 or not _EACH_ASKED_RE.search(text, shared[0].end()):
        return None
    if percents[0].start() > shared[0].start():
        return None  # the rest of what?
    rest = _blanked(_blanked(text, percents[0]), shared[0])
    amounts = _NUMBER_RE.findall(rest)
    if len(amounts) != 1:
        return None
    sharers = shared[0].group("n") or shared[0].group("n2")
    return f"({amounts[0]} * (100 - {percents[0].group(1)}) / 100 / {sharers})"


_REFERS_BACK_RE = re.compile(
    r"\b(?:it|its|that|this|these|the (?:result|answer|total|sum|product|difference|number))\b", re.IGNORECASE
)
"""A clause that refers to the result of another ("and what is its square root?")."""


def _the_one_reading(parts: list[str], *, other_question: bool) -> str | None:
    """The reading of the one part (sentence or clause) of ``parts`` that reads as an operation, or
    ``None`` with none or several, or when a part left out goes on computing with the result ("what's
    5 * 7, and what is its square root?": not 35). With ``other_question`` (the parts were cut at "and
    what ...", "and how ..."), a part left out must be a question without numbers or arithmetic of its
    own ("what's 5 * 7 and what time is it in Tokyo?")."""
    readings = [(part, _read(part)) for part in parts]
    read = [reading for _, reading in readings if has_operation(reading)]
    if len(read) != 1:
        return None
    result = None
    for part, reading in readings:
        if has_operation(reading):
            result = reading
            continue
        if _REFERS_BACK_RE.search(part) and _has_arithmetic(part):
            result = None if result is None else _step_on(result, part)
            if result is None:
                return None  # "what's 5 * 7, and what is 10% of that?": not 35
            continue
        if other_question and (
            _NUMBER_RE.search(part) or _has_arithmetic(part) or _unit_conversion(part) is not None
        ):
            return None
        if any(pattern.search(part) for pattern in _RATE_OF_TIME_RES):
            return None  # "$19 an hour, 6 hours plus 5 hours": the rate left out is not context
        if _NUMBER_RE.search(part) and _SPLIT_RE.search(part):
            return None  # "1850 minus 40%, split with 2 friends": 2 or 3 shares, never none
        if _NUMBER_RE.search(part) and (_GIVEN_PERCENT_RE.search(part) or _THEN_STEP_RE.match(part)):
            return None  # "15% off $60, then another 10% off": a change of the result, never context
    return result


_THEN_STEP_RE = re.compile(r"^\W*(?:and\s+)?then\b", re.IGNORECASE)
"""A part that goes on from the one before it ("then $5 off", "and then add 3")."""


_RESULT_RE = re.compile(r"^(?:that|it|this|the (?:result|answer))\s+(?=\S)", re.IGNORECASE)


def _step_on(running: str, text: str) -> str | None:
    """``text`` read as a step on the result ``running`` ("and what is that plus 1?", "what is its square
    root?"), or ``None`` when it reads as no step."""
    cleaned = _RESULT_RE.sub("", _TRAIL_RE.sub("", _LEAD_RE.sub("", text.strip())).strip())
    cleaned = cleaned.strip().strip(",.;:?!").strip()
    if not (_ROUND_STEP_RE.match(cleaned) or any(p.match(cleaned) for p, _ in _STEP_PATTERNS)):
        return None
    return _step(running, cleaned)


# Unit conversions: "how many seconds in an hour", "convert 5 km to metres", "90 minutes in hours".
_UNIT_SIZES: dict[str, dict[str, str]] = {
    "duration": {
        "second": "1", "sec": "1", "s": "1", "minute": "60", "min": "60", "hour": "3600", "hr": "3600",
        "h": "3600", "day": "86400", "week": "604800", "leap year": "31622400",
    },
    "length": {
        "millimetre": "1", "millimeter": "1", "mm": "1", "centimetre": "10", "centimeter": "10", "cm": "10",
        "metre": "1000", "meter": "1000", "m": "1000", "kilometre": "1000000", "kilometer": "1000000",
        "km": "1000000", "inch": "25.4", "inches": "25.4", "in": "25.4", "foot": "304.8", "feet": "304.8",
        "ft": "304.8", "yard": "914.4", "yd": "914.4", "mile": "1609344", "mi": "1609344",
        "nautical mile": "1852000", "marathon": "42195000", "half marathon": "21097500",
    },
    "mass": {
        "milligram": "1", "mg": "1", "gram": "1000", "g": "1000", "kilogram": "1000000", "kilo": "1000000",
        "kg": "1000000", "pound": "453592.37", "lb": "453592.37", "lbs": "453592.37", "ounce": "28349.523125",
        "oz": "28349.523125", "stone": "6350293.18", "tonne": "1000000000", "metric ton": "1000000000",
    },
    "volume": {
        "millilitre": "1", "milliliter": "1", "ml": "1", "centilitre": "10", "centiliter": "10", "cl": "10",
        "litre": "1000", "liter": "1000", "l": "1000", "cubic metre": "1000000", "cubic meter": "1000000",
        "m3": "1000000", "m³": "1000000", "cubic centimetre": "1", "cubic centimeter": "1", "cm3": "1",
        "cm³": "1", "cc": "1", "cubic millimetre": "0.001", "cubic millimeter": "0.001", "mm3": "0.001",
        "mm³": "0.001", "cubic foot": "28316.846592", "cubic feet": "28316.846592", "ft3": "28316.846592",
        "ft³": "28316.846592", "cubic inch": "16.387064", "cubic inches": "16.387064", "in3": "16.387064",
        "in³": "16.387064", "cubic yard": "764554.857984", "cubic yards": "764554.857984",
        "gallon": "3785.411784", "gal": "3785.411784", "quart": "946.352946", "qt": "946.352946",
        "pint": "473.176473", "pt": "473.176473", "cup": "236.5882365", "fluid ounce": "29.5735295625",
        "fl oz": "29.5735295625", "tablespoon": "14.78676478125", "tbsp": "14.78676478125",
        "teaspoon": "4.92892159375", "tsp": "4.92892159375",
    },
    "area": {
        "square millimetre": "1", "square millimeter": "1", "mm2": "1", "mm²": "1",
        "square centimetre": "100", "square centimeter": "100", "cm2": "100", "cm²": "100",
        "square metre": "1000000", "square meter": "1000000", "sq m": "1000000", "m2": "1000000",
        "m²": "1000000", "square kilometre": "1000000000000", "square kilometer": "1000000000000",
        "sq km": "1000000000000", "km2": "1000000000000", "km²": "1000000000000", "hectare": "10000000000",
        "ha": "10000000000", "square inch": "645.16", "square inches": "645.16", "sq in": "645.16",
        "square foot": "92903.04", "square feet": "92903.04", "sq ft": "92903.04", "ft2": "92903.04",
        "ft²": "92903.04", "square yard": "836127.36", "sq yd": "836127.36", "acre": "4046856422.4",
        "square mile": "2589988110336", "sq mi": "2589988110336",
    },
    "speed": {  # in millimetres per hour
        "km/h": "1000000", "kmh": "1000000", "kph": "1000000", "kilometre per hour": "1000000",
        "kilometer per hour": "1000000", "kilometres per hour": "1000000", "kilometers per hour": "1000000",
        "mph": "1609344", "mile per hour": "1609344", "miles per hour": "1609344", "m/s": "3600000",
        "metre per second": "3600000", "meter per second": "3600000", "metres per second": "3600000",
        "meters per second": "3600000", "knot": "1852000", "kn": "1852000", "kt": "1852000",
        "ft/s": "1097280", "foot per second": "1097280", "feet per second": "1097280",
    },
    "calendar": {"month": "1", "year": "12", "decade": "120", "century": "1200", "centuries": "1200"},
    "data": {
        "byte": "1", "kilobyte": "1000", "kb": "1000", "megabyte": "1000000", "mb": "1000000",
        "gigabyte": "1000000000", "gb": "1000000000", "terabyte": "1000000000000", "tb": "1000000000000",
    },
}  # fmt: skip
"""Units by what they measure, each with its size in the smallest unit listed (exact definitions: months
and years are a kind of their own, never a number of days; US customary gallons, quarts, pints, cups,
fluid ounces and spoons). Data sizes are decimal, as drives and download speeds are sold: a kilobyte
(KB) is 1000 bytes, a megabyte (MB) 1000 KB, a gigabyte (GB) 1000 MB, a terabyte (TB) 1000 GB (not the
binary 1024: that is a KiB, a MiB, a GiB)."""
_UNIT_OF = {
    name + plural: (kind, size)
    for kind, sizes in _UNIT_SIZES.items()
    for name, size in sizes.items()
    for plural in (
        ("", "s") if len(name) > 2 and not name.endswith(("s", "feet", "²", "³", "/h", "/s")) else ("",)
    )
    if not (plural and (" per " in name or name[-1].isdigit()))
}
_UNIT = "|".join(sorted(map(re.escape, _UNIT_OF), key=len, reverse=True))
_UNIT_END = r"(?![\w²/])"
"""A unit's name ends where no letter, ², or "/" goes on ("m" is not the start of "mph" or "m/s")."""
_AMOUNT_NUMBER = rf"{_NUM}(?:\s*/\s*[1-9]\d*)?"
"""An amount of a unit, maybe a fraction ("3/4 cup")."""
_AMOUNT = rf"(?P<n>{_AMOUNT_NUMBER}) ?(?P<from>{_UNIT}){_UNIT_END}"
_MORE = rf"(?:,? (?:and )?(?P<n2>{_NUM}) ?(?P<from2>{_UNIT}){_UNIT_END})?"
"""A second amount of the same quantity ("5 ft 9 in", "1 hour and 45 minutes")."""
_UNIT_FORMS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "how many seconds (are there) in an hour", "how many minutes in 2.5 hours"
        rf"how many (?P<to>{_UNIT}) (?:are |is )?(?:there )?(?:in|make|per|is|are|equals?) "
        rf"(?:an? |one |(?P<n>{_AMOUNT_NUMBER}) ?)"
        rf"(?P<from>{_UNIT})",
        # "how long is a marathon in km", "how heavy is a stone in kg"
        rf"how (?:long|far|heavy|big|much|tall|wide|deep) (?:is|are) (?:an? |one |(?P<n>{_AMOUNT_NUMBER}) ?)"
        rf"(?P<from>{_UNIT}) (?:in|into|to|as) (?P<to>{_UNIT})",
        # "how many km is 26.2 miles", "how many cups are 3 litres"
        rf"how many (?P<to>{_UNIT}) (?:is|are|equals?|makes?|make up) {_AMOUNT}",
        # "kg in 150 pounds", "(the number of) metres in 3 miles" (the unit asked for first)
        rf"(?:the number of )?(?P<to>{_UNIT}){_UNIT_END} (?:are )?(?:there )?in {_AMOUNT}",
        # "convert 5 km to metres", "90 minutes in hours", "5 miles is how many km", "5 ft 9 in to cm"
        rf"(?:convert |change )?{_AMOUNT}{_MORE} "
        rf"(?:in|into|to|as|is how many|are how many|equals how many|is what in|in terms of) (?P<to>{_UNIT})",
    )
)
_DEGREES = r"(?:(?:degrees?|deg)\.? ?|° ?)"
_SCALE_NAMES = {"celsius": "c", "centigrade": "c", "fahrenheit": "f", "kelvin": "k", "kelvins": "k"}
_SCALE = rf"(?:celsius|centigrade|fahrenheit|kelvins?|{_DEGREES}[cfk]\b|(?:(?<=\d)|(?<=\d ))[cfk]\b)"
"""A temperature scale: by its name, or its letter after "degrees", "°" or the number itself ("72F")."""
_TEMPERATURE = rf"(?P<n>{_NUM}) ?(?:{_DEGREES})?(?P<from>{_SCALE})"
_TARGET_SCALE = rf"(?:{_DEGREES})?(?:celsius|centigrade|fahrenheit|kelvins?|°? ?[cfk])\b"
_TEMPERATURE_FORMS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "convert 72 degrees Fahrenheit to Celsius", "72°F in C", "-40 c to f", "300 K is how many degrees C"
        rf"(?:convert |change )?{_TEMPERATURE} (?:in|into|to|as|is how many"
        rf"|are how many|equals how many|is what in|in terms of) (?P<to>{_TARGET_SCALE})",
        # "how many degrees celsius is 72 fahrenheit"
        rf"how many (?P<to>{_TARGET_SCALE}) (?:is|are|equals?) {_TEMPERATURE}",
    )
)
_TO_CELSIUS = {"c": "({n})", "f": "(({n} - 32) * 5 / 9)", "k": "({n} - 273.15)"}
_FROM_CELSIUS = {"c": "{c}", "f": "({c} * 9 / 5 + 32)", "k": "({c} + 273.15)"}
_SCALE_LABELS = {"c": "°C", "f": "°F", "k": "K"}
_LOOSE_AMOUNT_RE = re.compile(rf"(?<![\w.]){_AMOUNT}{_MORE}", re.IGNORECASE)
_LOOSE_TARGET_RE = re.compile(
    rf"\bhow many (?P<to>{_UNIT}){_UNIT_END}|\b(?:in|into|to|as) (?P<end>{_UNIT})\s*[?.!]*$", re.IGNORECASE
)
_LOOSE_DEGREES_RE = re.compile(rf"(?<![\w.]){_TEMPERATURE}", re.IGNORECASE)
_LOOSE_SCALE_RE = re.compile(
    rf"\bhow many (?P<to>{_TARGET_SCALE})|\b(?:in|into|to|as) (?P<end>{_TARGET_SCALE})\s*[?.!]*$"
    rf"|\b(?:in|into) (?P<first>{_TARGET_SCALE}),? (?:that'?s|that is|is that|it'?s|it is|is it|"
    r"that would be|would that be|that makes|does that make) (?:what|how much|how many degrees)\s*[?.!]*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Conversion:
    """A quantity read in one unit and asked for in another."""

    expression: str
    """The arithmetic that converts it ("(26.2 * 1609344 / 1000000)")."""
    amount: str
    """The quantity as it was written ("26.2 miles", "5 ft 9 in", "72 °F")."""
    unit: str
    """The unit asked for, as it was written ("km", "°C")."""


def _scale(word: str) -> str:
    """The letter of a temperature scale written as a name or a letter ("Fahrenheit", "°F", "deg c")."""
    word = re.sub(_DEGREES, "", word.strip(), flags=re.IGNORECASE).strip("° ").lower()
    return _SCALE_NAMES.get(word, word)


def _temperature(n: str, source: str, target: str) -> Conversion | None:
    source, target = _scale(source), _scale(target)
    if source == target:
        return None
    expression = _FROM_CELSIUS[target].format(c=_TO_CELSIUS[source].format(n=n))
    return Conversion(expression, f"{n} {_SCALE_LABELS[source]}", _SCALE_LABELS[target])


_SECONDS_IN_A_MONTH_OF_A_YEAR = 2628000
"""A twelfth of a year of 365 days in seconds: what a year, a decade or a century is as a duration."""


def _in_seconds(unit: tuple[str, str]) -> tuple[str, str]:
    """A unit of the calendar of whole years (a year, a decade, a century) as a duration: a year is 365 days
    ("a leap year" is a unit of its own, 366 days). A month has no fixed length and stays a month."""
    kind, size = unit
    if kind != "calendar" or size == "1":
        return unit
    return "duration", str(int(size) * _SECONDS_IN_A_MONTH_OF_A_YEAR)


def _fluid_ounce(unit: tuple[str, str]) -> tuple[str, str]:
    """An ounce (of mass) as a fluid ounce, any other unit as it is: said of a volume ("ounces in a cup"),
    an ounce is a fluid ounce."""
    if unit == _UNIT_OF["ounce"]:
        return _UNIT_OF["fluid ounce"]
    return unit


def _units(match: re.Match[str], target: str) -> Conversion | None:
    """The conversion of ``match``'s amount (``n``/``from``, maybe ``n2``/``from2``) into ``target``."""
    groups = match.groupdict()
    source, goal = _UNIT_OF[groups["from"].lower()], _UNIT_OF[target.lower()]
    if source[0] != goal[0]:
        source, goal = _in_seconds(source), _in_seconds(goal)
    if {source[0], goal[0]} == {"volume", "mass"}:
        # "how many ounces in 2 cups": an ounce of a volume is a fluid ounce
        source, goal = (_fluid_ounce(source), _fluid_ounce(goal))
    if source[0] != goal[0]:
        return None  # minutes are no metres, and a month no number of minutes
    if not groups.get("n2"):
        if source == goal and groups["from"].lower().rstrip("s") == target.lower().rstrip("s"):
            return None  # "55 litres … how many litres": nothing to convert, something else is asked
        n = groups.get("n") or "1"
        n = "({} / {})".format(*(part.strip() for part in n.split("/"))) if "/" in n else n
        return Conversion(f"({n} * {source[1]} / {goal[1]})", f"{n} {groups['from']}", target)
    second = _UNIT_OF[groups["from2"].lower()]
    if second[0] != source[0]:
        return None
    return Conversion(
        f"(({groups['n']} * {source[1]} + {groups['n2']} * {second[1]}) / {goal[1]})",
        f"{groups['n']} {groups['from']} {groups['n2']} {groups['from2']}",
        target,
    )


def _loose(text: str, amounts: re.Pattern[str], targets: re.Pattern[str]) -> tuple[re.Match[str], str] | None:
    """The one amount with a unit and the unit asked for in a question that says more ("How many km is
    a marathon of 26.2 miles?", "I'm 5 ft 9 in. How tall is that in cm?"): every number of ``text`` is
    in that amount, or ``None``."""
    target = targets.search(text)
    if target is None:
        return None
    rest = text[: target.start()] + " " * (target.end() - target.start()) + text[target.end() :]
    found = list(amounts.finditer(rest))
    if len(found) != 1 or len(_NUMBER_RE.findall(rest)) != len(_NUMBER_RE.findall(found[0].group(0))):
        return None
    return found[0], next(
        target.group(g) for g in ("to", "end", "first") if g in target.re.groupindex and target.group(g)
    )


_WHOLE_UNIT = rf"(?:an?\s+|one\s+|(?P<n1>{_NUM})\s*)(?P<u1>{_UNIT}){_UNIT_END}"
_PART_UNIT = rf"(?P<n2>{_NUM})\s*(?P<u2>{_UNIT}){_UNIT_END}"
_SHARE_OF_A_UNIT_RES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "what percentage of an hour is 45 minutes", "what percent of 2 km are 500 m"
        rf"(?:what|which|how many)\s+{_PCT}\s+of\s+{_WHOLE_UNIT}\s+(?:is|are|makes?)\s+{_PART_UNIT}",
        # "45 minutes is what percent of an hour", "500 g as a percentage of 2 kg"
        rf"{_PART_UNIT}\s+(?:is\s+what\s+{_PCT}\s+of|are\s+what\s+{_PCT}\s+of|as\s+an?\s+{_PCT}\s+of)"
        rf"\s+{_WHOLE_UNIT}",
        # the same asked as a fraction: "what fraction of a day is 6 hours", "45 minutes as a fraction of an
        # hour"
        rf"(?:what|which)\s+(?P<frac>fraction|part)\s+of\s+{_WHOLE_UNIT}\s+(?:is|are|makes?)\s+{_PART_UNIT}",
        rf"{_PART_UNIT}\s+(?:(?:is|are)\s+what|as\s+a)\s+(?P<frac>fraction|part)\s+of\s+{_WHOLE_UNIT}",
    )
)


def _share_of_a_unit(text: str) -> str | None:
    """An amount as a percentage of another in a unit of the same kind: "What percentage of an hour is 45
    minutes?" is ``(45 * 60 / (1 * 3600) * 100)``. ``None`` unless the two units measure the same thing."""
    cleaned = _TRAIL_RE.sub("", _LEAD_RE.sub("", text)).strip()
    for pattern in _SHARE_OF_A_UNIT_RES:
        match = pattern.fullmatch(cleaned)
        if match is None:
            continue
        whole, part = _UNIT_OF[match.group("u1").lower()], _UNIT_OF[match.group("u2").lower()]
        if whole[0] != part[0]:
            whole, part = _in_seconds(whole), _in_seconds(part)
        if whole[0] != part[0]:
            return None
        share = f"({match.group('n2')} * {part[1]} / ({match.group('n1') or 1} * {whole[1]})"
        return f"{share})" if match.groupdict().get("frac") else f"{share} * 100)"
    return None


_DATA = r"(?P<{0}>[kmgt]b|(?:kilo|mega|giga|tera)?bytes?)"
_DATA_SIZE_RE = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s*{_DATA.format('u')}(?![\w/])", re.IGNORECASE)
_DATA_RATE_RE = re.compile(
    rf"(?<![\w.])(?P<r>{_NUM})\s*{_DATA.format('ru')}\s*(?:/\s*s(?:ec(?:ond)?)?\b|ps\b|(?:per|an?|each|every)\s+"
    rf"(?P<t>{_TIME_UNIT}))",
    re.IGNORECASE,
)
_BITS_RE = re.compile(r"(?i:\b(?:[kmgt]bps|[kmgt]bits?|bits?)\b)|(?<![\w.])\d+(?:\.\d+)?\s*[KMGT]b\b")
"""Bits ("Mbps", "Mbit/s", "50 Mb"): a byte is 8 of them, and "Mb" is easily meant as "MB": not read."""


def _time_for_data(text: str) -> Conversion | None:
    """The time an amount of data takes at a rate: "How long does a 4.5 GB download take at 15 MB per
    second?" is ``(4.5 * 1000000000 / (15 * 1000000))`` seconds (sizes decimal: a GB is 1000 MB). In the
    rate's unit of time, or the one asked ("how many minutes"). ``None`` unless ``text`` holds just the size
    and the rate, in bytes (never bits: "Mbps"), and asks how long."""
    if not _one_question(text) or _BITS_RE.search(text):
        return None
    asked = _DURATION_ASKED_RE.search(text)
    rates = list(_DATA_RATE_RE.finditer(text))
    if asked is None or len(rates) != 1:
        return None
    rest = _blanked(text, rates[0])
    sizes = list(_DATA_SIZE_RE.finditer(rest))
    if (
        len(sizes) != 1
        or len(_NUMBER_RE.findall(_without_ones(rest))) != 1
        or _OTHER_OPERATION_RE.search(rest)
    ):
        return None
    rate, size = rates[0], sizes[0]
    rate_time = _time_unit(rate.group("t")) if rate.group("t") else "second"
    goal = rate_time if asked.group("u") is None else _time_unit(asked.group("u"))
    scale = _units_in(goal, rate_time)
    if scale is None:
        return None
    size_bytes, rate_bytes = _UNIT_OF[size.group("u").lower()][1], _UNIT_OF[rate.group("ru").lower()][1]
    expression = f"{size.group('n')} * {size_bytes} / ({rate.group('r')} * {rate_bytes})"
    if scale != 1:
        expression += (
            f" * {scale.numerator}"
            if scale.denominator == 1
            else f" * {scale.numerator} / {scale.denominator}"
        )
    return Conversion(f"({expression})", f"{size.group(0)} at {rate.group(0)}", f"{goal}s")


def read_conversion(text: str) -> Conversion | None:
    """A conversion between two units of the same kind (durations, lengths, masses, volumes, areas,
    speeds) or two temperature scales, or ``None`` ("how many minutes in 3 hours" is ``(3 * 3600 /
    60)``; "5 ft 9 in to cm" is ``((5 * 304.8 + 9 * 25.4) / 10)``; "72°F in Celsius" is ``((72 - 32) * 5
    / 9)``); asked rounded ("10 km in miles, rounded to one decimal"), the conversion rounded so."""
    cleaned = _TRAIL_RE.sub("", _LEAD_RE.sub("", text)).strip()
    rounding = _rounding_match(cleaned.rstrip("?.! "))
    if rounding is not None:  # "10 km in miles, rounded to one decimal": the conversion, rounded
        inner = _unrounded_conversion(rounding.group("x"))
        if inner is not None:
            return Conversion(_rounded(inner.expression, rounding), inner.amount, inner.unit)
    return _unrounded_conversion(text)


def _unrounded_conversion(text: str) -> Conversion | None:
    """:func:`read_conversion` without a rounding asked at its end."""
    text = _FEET_INCHES_RE.sub(lambda m: f"{m.group('ft')} ft {m.group('inch')} in", text)
    cleaned = _TRAIL_RE.sub("", _LEAD_RE.sub("", text)).strip()
    for pattern in _TEMPERATURE_FORMS:
        match = pattern.fullmatch(cleaned)
        if match is not None:
            return _temperature(match.group("n"), match.group("from"), match.group("to"))
    for pattern in _UNIT_FORMS:
        match = pattern.fullmatch(cleaned)
        if match is not None:
            return _units(match, match.group("to"))
    degrees = _loose(cleaned, _LOOSE_DEGREES_RE, _LOOSE_SCALE_RE)
    if degrees is not None:
        return _temperature(degrees[0].group("n"), degrees[0].group("from"), degrees[1])
    amount = _loose(cleaned, _LOOSE_AMOUNT_RE, _LOOSE_TARGET_RE)
    if amount is not None:
        return _units(*amount)
    read = (
        _dimensions_converted(cleaned)
        or _time_for_a_distance(cleaned)
        or _distance_at_speed(cleaned)
        or _pace_for_a_trip(cleaned)
        or _time_to_reach(cleaned)
        or _time_for_data(cleaned)
        or _round_perimeter(cleaned)
    )
    purpose = _PURPOSE_RE.search(cleaned) if read is None else None
    return _unrounded_conversion(cleaned[: purpose.start()]) if purpose is not None else read


_FEET_INCHES_RE = re.compile(
    r"(?<![\w.])(?P<ft>\d{1,2})\s*['′’]\s*(?P<inch>\d{1,2}(?:\.\d+)?)\s*(?:\"|″|''|”)"
)
"""A height in feet and inches written with marks ("5'11\"", "6′2″"): "5 ft 11 in"."""
_PURPOSE_RE = re.compile(
    r"\s+(?:for|when|while|because|so)\s+(?:(?:a|an|the|my|our|some)\s+)?[a-z]+(?:\s+[a-z]+){0,3}\s*[?.!]*$",
    re.IGNORECASE,
)
"""What a conversion is for, after it ("Convert 350 F to C for baking"): no part of the conversion."""


def question_body(text: str) -> str:
    """``text`` without its opening and closing boilerplate ("How much is 4 dozen?" is "4 dozen")."""
    return _TRAIL_RE.sub("", _LEAD_RE.sub("", text)).strip()


_COMPARED_SIDE = r"(?:an?\s+|one\s+)?(?P<{0}>(?:\d[\d,]*(?:\.\d+)?\s*)?[a-z][a-z ]*?)"
"""One side of a comparison of units or amounts: a unit ("a kilogram"), an amount ("2 pounds"), maybe of a
thing ("a kilogram of feathers")."""
_UNITS_COMPARED_RE = re.compile(
    r"\b(?:which|what)(?:'s|\s+is)\s+(?P<how>heavier|lighter|longer|shorter|bigger|larger|smaller|more|less)\b"
    rf"[,:]?\s+{_COMPARED_SIDE.format('a')}\s+or\s+{_COMPARED_SIDE.format('b')}\s*[?.!]*$"
    rf"|^\W*is\s+{_COMPARED_SIDE.format('a2')}\s+(?P<how2>heavier|lighter|longer|shorter|bigger"
    rf"|larger|smaller|more|less)\s+than\s+{_COMPARED_SIDE.format('b2')}\s*[?.!]*$",
    re.IGNORECASE,
)
"""Two units or amounts compared ("Which is heavier, a kilogram or a pound?", "Is a mile longer than a
kilometer?", "Which is heavier, 2 pounds or 1 kilogram?", "... a kilogram of feathers or a kilogram of
steel?")."""
_AMOUNT_SIDE_RE = re.compile(
    r"^(?:(?P<n>\d[\d,]*(?:\.\d+)?)\s*)?(?P<unit>[a-z]+(?: [a-z]+)?)"
    r"(?:\s+of\s+(?P<thing>[a-z]+(?: [a-z]+){0,2}))?$",
    re.IGNORECASE,
)
"""A side of :data:`_UNITS_COMPARED_RE` read: its number (none: one), its unit, what it is of."""
_COMPARED_MEASURE = {
    "heavier": "weight", "lighter": "weight", "longer": "length", "shorter": "length",
}  # fmt: skip
"""What a word of comparison measures ("heavier": the weight); the others compare the amount."""
_SMALLER_WORDS = frozenset({"lighter", "shorter", "smaller", "less"})
_IRREGULAR_PLURALS = {"foot": "feet", "inch": "inches"}


def _one(unit: str) -> str:
    """A unit with its article ("a pound", "an ounce")."""
    return f"{'an' if unit[:1].lower() in 'aeiou' else 'a'} {unit}"


def units_compared(text: str) -> str | None:
    """Which of two units of one kind is more, in the words asked, with how many of the smaller the larger
    makes ("A kilogram is heavier than a pound: 1 kilogram = 2.205 pounds."), or None unless ``text`` compares
    just two such units."""
    match = _UNITS_COMPARED_RE.search(text.strip())
    if match is None:
        return None
    a, b = ((match.group(k) or match.group(f"{k}2")).strip() for k in ("a", "b"))
    how = (match.group("how") or match.group("how2")).lower()
    if any(c.isdigit() for c in a + b) or " of " in f" {a} {b} ":
        return _amounts_compared(a, b, how, asked_whether=match.group("a2") is not None)
    units = [_UNIT_OF.get(u.lower()) for u in (a, b)]
    if units[0] is None or units[1] is None or units[0][0] != units[1][0] or units[0][0] == "calendar":
        return None
    size_a, size_b = (Decimal(u[1]) for u in units)
    if size_a == size_b:
        return f"{_one(a).capitalize()} and {_one(b)} are the same: 1 {a} = 1 {b}."
    big, small = (a, b) if size_a > size_b else (b, a)
    ratio = max(size_a, size_b) / min(size_a, size_b)
    shown = f"{ratio:.4g}" if ratio < 1000 else f"{ratio:,.0f}"
    many = _IRREGULAR_PLURALS.get(small, small if small.endswith("s") else f"{small}s")
    said = f"1 {big} = {shown} {many}"
    first, second = (small, big) if how in _SMALLER_WORDS else (big, small)  # "lighter": the smaller first
    answer = f"{_one(first)} is {how} than {_one(second)}: {said}."
    if match.group("a2") is None:
        return answer[:1].upper() + answer[1:]
    return f"{'Yes' if a == first else 'No'}, {answer}"  # "Is an inch shorter than a centimeter?"


def _amounts_compared(a: str, b: str, how: str, *, asked_whether: bool) -> str | None:
    """Which of two amounts of one kind of unit is more, in the words asked ("1 kilogram is heavier than 2
    pounds: 2 pounds = 0.9072 kilograms."), or that they are the same ("a kilogram of feathers or a kilogram
    of steel"); None unless each side is an amount of a known unit, of one kind, maybe of a thing."""
    sides = [_AMOUNT_SIDE_RE.match(side) for side in (a, b)]
    if sides[0] is None or sides[1] is None:
        return None
    units = [_UNIT_OF.get(side.group("unit").lower()) for side in sides]
    if units[0] is None or units[1] is None or units[0][0] != units[1][0] or units[0][0] == "calendar":
        return None
    counts = [Decimal((side.group("n") or "1").replace(",", "")) for side in sides]
    sizes = [count * Decimal(unit[1]) for count, unit in zip(counts, units, strict=True)]
    said = [
        _amount_said(n, side.group("unit"), side.group("thing"))
        for n, side in zip(counts, sides, strict=True)
    ]
    if sizes[0] == sizes[1]:
        measure = _COMPARED_MEASURE.get(how, "amount")
        same = f"{said[0]} and {said[1]} have the same {measure}"
        return f"{'No' if asked_whether else 'Neither'}: {same}."
    big, small = (0, 1) if sizes[0] > sizes[1] else (1, 0)
    in_big = sizes[small] / Decimal(units[big][1])
    shown = f"{in_big:.4g}" if abs(in_big) < 1000 else f"{in_big:,.0f}"
    big_unit = sides[big].group("unit")
    plural = big_unit if Decimal(shown.replace(",", "")) == 1 else _plural_unit(big_unit)
    first, second = (small, big) if how in _SMALLER_WORDS else (big, small)
    answer = f"{said[first]} is {how} than {said[second]}: {said[small]} = {shown} {plural}."
    if not asked_whether:
        return answer[:1].upper() + answer[1:]
    return f"{'Yes' if first == 0 else 'No'}, {answer}"


def _plural_unit(unit: str) -> str:
    """A unit's name for several ("kilograms", "feet"; "km" and "ml" as they are)."""
    if len(unit) <= 2 or unit.endswith("s") or not unit.isalpha():
        return _IRREGULAR_PLURALS.get(unit, unit)
    return _IRREGULAR_PLURALS.get(unit, f"{unit}s")


def _amount_said(count: Decimal, unit: str, thing: str | None) -> str:
    """An amount as the answer says it: "2 pounds", "1 kilogram of feathers"."""
    number = f"{count.normalize():f}"
    return f"{number} {unit}" + (f" of {thing}" if thing else "")


_EXTRA_COST_RE = re.compile(
    r"(?:\s*,)?\s+(?:plus|and\s+(?:pay|paid|add)|and\s+an?\s+extra|with)\s+[$€£]?(?P<n>\d+(?:\.\d+)?)(?!\s*%)"
    r"(?:\s*(?:dollars|euros|pounds))?\s+(?:for\s+)?(?:the\s+)?"
    r"(?P<what>shipping|delivery|postage|handling|service charge"
    r"|(?:a\s+)?(?:service|delivery|booking)\s+fee)\b",
    re.IGNORECASE,
)
"""A cost added to a price, in money ("plus $5 shipping", "and pay $5 for shipping"), not a percent."""


def _with_extra_cost(text: str) -> str | None:
    """A price worked out with a cost added to it ("If a shirt costs $25 and I buy 3, plus $5 shipping, how
    much do I pay?" is ``((3 * 25) + 5)``), or None when the text adds no such cost or its price reads as
    no arithmetic."""
    extra = _EXTRA_COST_RE.search(text)
    if extra is None:
        return None
    rest = text[: extra.start()] + text[extra.end() :]
    reading = to_expression(rest)
    if not has_operation(reading):
        return None
    return f"({reading} + {extra.group('n')})"


_AMOUNT_OF = rf"(?P<{{0}}>{_NUM})[\s-]*(?P<u{{0}}>{_UNIT}){_UNIT_END}"
_AMOUNTS_DIVIDED_RE = re.compile(
    rf"^\W*(?:(?:what(?:'s| is)|calculate|compute)\s+)?{_AMOUNT_OF.format('a')}\s+(?:divided\s+by|/|over)\s+"
    rf"{_AMOUNT_OF.format('b')}\s*[?.!=]*\s*$",
    re.IGNORECASE,
)
"""Two amounts divided, each in its unit ("2 liters divided by 250 ml")."""
_AMOUNTS_FIT_RE = re.compile(
    rf"\bhow\s+many\s+{_AMOUNT_OF.format('b')}\s+(?P<things>[a-z]+)\b[^?.!]*?"
    rf"\b(?:from|in|into|out\s+of|with)\s+(?:(?:a|an|one|the|my)\s+)?{_AMOUNT_OF.format('a')}",
    re.IGNORECASE,
)
"""How many things of an amount an amount holds ("How many 250 ml glasses can I fill from a 2 liter
bottle?")."""


_AMOUNTS_COMBINED_RE = re.compile(
    rf"^\W*(?:(?:what(?:'s| is)|calculate|compute|(?P<add>add))\s+)?{_AMOUNT_OF.format('a')}\s*"
    rf"(?:(?P<op>\+|-|plus|minus)|(?(add)and|(?!)))\s*{_AMOUNT_OF.format('b')}"
    r"(?:\s+(?:in\s+total|altogether|together))?\s*[?.!=]*\s*$",
    re.IGNORECASE,
)
"""Two amounts added or taken away, each in its unit ("2 km + 500 m", "1 kg minus 300 g")."""
_AMOUNT_SCALED_RE = re.compile(
    rf"^\W*(?:(?:what(?:'s| is)|calculate|compute)\s+)?{_AMOUNT_OF.format('a')}\s*"
    rf"(?P<op>\*|×|x|times|multiplied\s+by|/|÷|divided\s+by)\s*(?P<k>{_NUM})\s*[?.!=]*\s*$",
    re.IGNORECASE,
)
"""An amount multiplied or divided by a number ("1.5 kg times 4", "10 km / 4")."""


def amounts_combined(text: str) -> tuple[str, str] | None:
    """Two amounts of one kind added or taken away, in the finer of their units ("2 km + 500 m" is 2500 m,
    "3 feet plus 8 inches" 44 inches), or an amount multiplied or divided by a number, in its unit ("1.5 kg
    times 4" is 6 kg): the arithmetic and the unit; None otherwise (durations are read on their own)."""
    scaled = _AMOUNT_SCALED_RE.match(text.strip())
    if scaled is not None:
        unit = _UNIT_OF.get(scaled.group("ua").lower())
        if unit is None or unit[0] in ("calendar", "duration"):
            return None
        op = "/" if scaled.group("op").lower() in ("/", "÷", "divided by") else "*"
        return f"({scaled.group('a')} {op} {scaled.group('k')})", scaled.group("ua")
    match = _AMOUNTS_COMBINED_RE.match(text.strip())
    if match is None:
        return None
    units = [_UNIT_OF.get(match.group(k).lower()) for k in ("ua", "ub")]
    if (
        units[0] is None
        or units[1] is None
        or units[0][0] != units[1][0]
        or units[0][0] in ("calendar", "duration")
    ):
        return None
    fine = min((0, 1), key=lambda i: Decimal(units[i][1]))  # type: ignore[index]
    size = units[fine][1]  # type: ignore[index]
    sign = "-" if (match.group("op") or "").lower() in ("-", "minus") else "+"
    a, b = match.group("a"), match.group("b")
    expression = f"({a} * {units[0][1]} / {size} {sign} {b} * {units[1][1]} / {size})"  # type: ignore[index]
    return expression, match.group("ub" if fine else "ua")


def _amounts_divided(text: str) -> str | None:
    """Two amounts of one kind of unit divided, each in its unit ("2 liters divided by 250 ml" is
    ``((2 * 1000) / (250 * 1))``, not 2 / 250), or how many whole things of one amount another holds ("How
    many 250 ml glasses can I fill from a 2 liter bottle?": ``floor(...)``); None otherwise."""
    match = _AMOUNTS_DIVIDED_RE.match(text.strip()) or _AMOUNTS_FIT_RE.search(text)
    if match is None:
        return None
    units = [_UNIT_OF.get(match.group(k).lower()) for k in ("ua", "ub")]
    if units[0] is None or units[1] is None or units[0][0] != units[1][0] or units[0][0] == "calendar":
        return None
    a, b = match.group("a"), match.group("b")
    ratio = f"(({a} * {units[0][1]}) / ({b} * {units[1][1]}))"
    return f"floor{ratio}" if "things" in match.groupdict() and match.group("things") else ratio


def conversion_in(text: str) -> Conversion | None:
    """The unit conversion a question asks for (:func:`read_conversion` of the question as the
    calculator reads it: number words as digits, "1,000" as 1000), or ``None``."""
    return read_conversion(_prepared(text))


def _unit_conversion(text: str) -> str | None:
    """The arithmetic of :func:`read_conversion`, or ``None``."""
    conversion = read_conversion(text)
    return None if conversion is None else conversion.expression


_CONSTANTS = frozenset({"pi", "e", "tau"})
_EXPRESSION_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.operator, ast.unaryop,
    ast.expr_context,
)  # fmt: skip


def has_operation(expression: str) -> bool:
    """Whether ``expression`` is well-formed arithmetic (numbers, constants, operators, calls) with at
    least one operation or function call: not a bare number, not words. Only parsed, never run."""
    text = expression.strip()
    for old, new in (("^", "**"), ("×", "*"), ("÷", "/"), ("−", "-"), ("√", "sqrt"), ("π", "pi")):
        text = text.replace(old, new)
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if not isinstance(node, _EXPRESSION_NODES):
            return False
        if isinstance(node, ast.Name) and id(node) not in called and node.id not in _CONSTANTS:
            return False
        if isinstance(node, ast.Constant) and (
            isinstance(node.value, bool) or not isinstance(node.value, int | float)
        ):
            return False
        if isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name) or node.keywords):
            return False
    return any(isinstance(node, ast.BinOp | ast.Call) for node in ast.walk(tree))


def unread_words(text: str) -> list[str]:
    """The words of ``text`` that say something (not framing such as "what is", "calc" or "pls",
    nor fillers such as "the" or "of"): when an expression read from ``text`` is a bare number,
    these are the words that were dropped, so the operation was not understood."""
    cleaned = _TRAIL_RE.sub("", _LEAD_RE.sub("", _prepared(text)))
    words = re.findall(r"[A-Za-z]+(?:['’][A-Za-z]+)*", cleaned)
    return [w for w in words if not _FILLER_RE.fullmatch(w) and w.lower() not in _CONSTANTS]


__all__ = ["MAX_READ_CHARS", "has_operation", "numbers_from_words", "to_expression", "unread_words"]
