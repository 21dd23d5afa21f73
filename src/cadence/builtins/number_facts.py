"""Facts about whole numbers that the calculator says in a sentence, worked out exactly.

A small model guesses these ("the next prime after 100 is a special type of composite integer"); the
calculator reads them from the question and works them out:

- the prime next to a number ("What is the next prime after 100?", "the largest prime below 50") and the
  primes of a range, listed or counted ("List the prime numbers between 10 and 30", "How many primes are
  there below 100?");
- the factors of a number ("What are the factors of 12?": 1, 2, 3, 4, 6 and 12);
- whether a number is a perfect square or cube ("Is 64 a perfect square?": 8 × 8);
- a division with its remainder ("17 divided by 3 with remainder": 5 remainder 2);
- how many zeros a number has when written out ("How many zeros are in one billion?": 9), how many
  digits it has and their sum ("How many digits does 5040 have?": 4; "the sum of the digits of 1234": 10);
- a percent or a fraction as a decimal ("45% as a decimal": 0.45);
- a number written in words or in digits ("Write 1,000,000 in words": one million; "three hundred and five
  in digits": 305);
- numbers put in order ("Sort these numbers: 42, 7, 19", "from largest to smallest");
- the next number of a sequence whose rule is simple ("What's the next number: 2, 4, 8, 16?": 32);
- a number in Roman numerals, or Roman numerals as a number ("Write 15 in Roman numerals": XV; "What is
  MMXXIV?": 2024);
- a number in another base, or a number of another base in decimal ("What is 255 in binary?": 11111111;
  "Convert 0x1F to decimal": 31; "binary 1010 to decimal": 10).

:func:`answer` returns None for any other text, so the calculator reads it as arithmetic.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from cadence.text import NUMBER_WORDS, number_in_words, numbers_from_words

MAX_NUMBER = 10**12
"""Largest number a prime is looked for near (trial division up to its square root stays fast)."""
MAX_RANGE = 100_000
"""Widest range whose primes are listed or counted."""
MAX_LISTED = 60
"""Most primes named in one answer (more are counted, the first and last named)."""

_N = r"(?P<n>\d[\d,]*)"
_NEAR_PRIME_RE = re.compile(
    r"\b(?:the\s+)?(?P<which>next|first|smallest|lowest|nearest|closest|previous|last|largest|biggest|greatest"
    r"|highest)\s+prime(?:\s+number)?\s+(?P<rel>after|above|over|greater\s+than|bigger\s+than|larger\s+than"
    rf"|more\s+than|before|below|under|less\s+than|smaller\s+than|lower\s+than|to)\s+{_N}\b",
    re.IGNORECASE,
)
"""The prime next to a number: "the next prime after 100", "the largest prime below 50"."""
_PRIMES_IN_RE = re.compile(
    r"\b(?P<count>how\s+many\s+)?(?:(?:the|all)\s+)?primes?(?:\s+numbers?)?\s+(?:are\s+(?:there\s+)?)?"
    r"(?:(?:between|from)\s+(?P<a>\d[\d,]*)\s+(?:and|to|through|up\s+to)\s+(?P<b>\d[\d,]*)"
    r"|(?:below|under|less\s+than|up\s+to|smaller\s+than)\s+(?P<top>\d[\d,]*))",
    re.IGNORECASE,
)
"""The primes of a range, listed or counted: "the prime numbers between 10 and 30", "how many primes are
there below 100"."""
_FIRST_PRIMES_RE = re.compile(
    r"\b(?:the\s+)?(?:first|smallest|lowest)\s+(?:(?P<n>\d[\d,]*)\s+)?primes?(?:\s+numbers?)?\b"
    r"(?!\s+(?:after|above|over|greater|bigger|larger|more|before|below|under|less|smaller|lower|to|between"
    r"|from)\b)",
    re.IGNORECASE,
)
"""The first primes, so many of them: "What are the first 5 prime numbers?", "List the first 10 primes", "What
is the smallest prime number?"."""
_DIVISORS_RE = re.compile(
    rf"\b(?<!prime\s)(?:(?:factors|divisors)\s+(?:of|for)|what\s+(?:numbers\s+)?divides?)\s+{_N}\b",
    re.IGNORECASE,
)
"""The factors (divisors) of a number: "What are the factors of 12?", "list the divisors of 36"."""
_PERFECT_RE = re.compile(
    rf"^\W*(?:is|are)\s+{_N}\s+(?:a\s+)?perfect\s+(?P<kind>square|cube)s?\b", re.IGNORECASE
)
"""Whether a number is a perfect square or cube: "Is 64 a perfect square?"."""
_REMAINDER_RE = re.compile(
    r"\b(?:divide\s+)?(?P<a>\d[\d,]*)\s+(?:divided\s+by|by|/|÷)\s+(?P<b>\d[\d,]*)\s+(?:with|and|giving|showing)\s+"
    r"(?:the\s+|a\s+|its\s+)?remainders?\b"
    r"|\b(?P<a2>\d[\d,]*)\s+(?:divided\s+by|/|÷)\s+(?P<b2>\d[\d,]*)\s+(?:as\s+)?(?:a\s+)?(?:quotient\s+and\s+"
    r"remainder|whole\s+number\s+and\s+remainder)\b"
    r"|\bhow\s+many\s+times\s+(?:does|do|will|would|can|could)\s+(?P<b3>\d[\d,]*)\s+(?:go|fit)\s+(?:in|into)\s+"
    r"(?P<a3>\d[\d,]*)\b",
    re.IGNORECASE,
)
"""A division asked with its remainder: "17 divided by 3 with remainder", "divide 100 by 7 with the
remainder", "How many times does 7 go into 50?"."""
_ZEROS_RE = re.compile(
    r"\bhow\s+many\s+(?:zeros|zeroes|0s|0's|noughts)\s+(?:are\s+|does\s+)?(?:there\s+)?(?:in\s+|does\s+)?"
    r"(?P<x>(?:an?\s+|one\s+)?[\w ,]+?)(?:\s+have)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""The zeros of a number written out: "How many zeros are in one billion?", "How many zeros does a million
have?"."""
_AS_DECIMAL_RE = re.compile(
    r"^\W*(?:what\s+is\s+|what's\s+|convert\s+|write\s+|express\s+)?(?P<x>\d[\d,]*(?:\.\d+)?\s*(?:%|percent\b|per\s+cent\b)"
    r"|\d+\s*/\s*\d+)\s+(?:as|to|in|into)\s+(?:a\s+)?decimal(?:\s+number)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A percent or a fraction asked as a decimal: "What's 45% as a decimal?", "Convert 3/8 to a decimal"."""


_NUMBER = r"-?\d[\d,]*(?:\.\d+)?"
_IN_WORDS_RE = re.compile(
    r"^\W*(?:(?:please|can\s+you|could\s+you)\s+)?(?:how\s+(?:do\s+(?:you|i|we)|to|would\s+you|is)\s+)?"
    r"(?:(?:write|spell|say|express|convert|put|what\s+is|what's|how\s+is)\s+(?:out\s+)?)?"
    rf"(?:the\s+number\s+)?(?P<n>{_NUMBER})\s+(?:(?:written|spelled|spelt)\s+(?:out\s+)?)?(?:in|as|into|to|with)\s+"
    r"(?:english\s+)?words\b\W*$"
    r"|^\W*(?:how\s+(?:do\s+(?:you|i|we)|to)\s+)?spell(?:\s+out)?\s+(?:the\s+number\s+)?"
    rf"(?P<n2>{_NUMBER})\W*$",
    re.IGNORECASE,
)
"""A number asked in words: "Write 1,000,000 in words", "How do you spell 42?", "1234 in words"."""
_NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_IN_DIGITS_RE = re.compile(
    r"^\W*(?:(?:please|can\s+you|could\s+you)\s+)?(?:how\s+(?:do\s+(?:you|i|we)|to)\s+)?"
    r"(?:(?:write|say|express|convert|put|what\s+is|what's)\s+)?"
    rf"(?P<x>(?:an?\s+)?(?:{_NUMBER_WORD})(?:(?:[\s,-]+|\s+and\s+)(?:{_NUMBER_WORD}))*)\s+"
    r"(?:(?:written\s+)?(?:in|as|into|to|with|using)\s+)(?:digits|numerals|numbers|figures)\b\W*$",
    re.IGNORECASE,
)
"""A number in words asked in digits: "Write three hundred and five in digits", "one million as a
numeral"."""
_LISTED = r"-?(?:\d{1,3}(?:,\d{3})+(?!\d|,\d)|\d+)(?:\.\d+)?"
"""A number of a list: a comma inside it only before three digits ("1,000, 7")."""
_SORT_RE = re.compile(
    r"\b(?:sort|order|arrange|rank|put|list)\b(?P<how>[^\d:]*?)[:\s]\s*"
    rf"(?P<list>{_LISTED}(?:\s*(?:,|;|\s|\band\b)\s*{_LISTED})+)(?P<after>[^\d]*)$",
    re.IGNORECASE,
)
"""Numbers asked in order: "Sort these numbers: 42, 7, 19, 3, 88", "Put 5, 2 and 9 in descending order"."""
_DESCENDING_RE = re.compile(
    r"\b(?:descending|decreasing|reverse|(?:largest|biggest|greatest|highest|most)\s+(?:to|first)"
    r"|(?:from|starting\s+with)\s+the\s+(?:largest|biggest|greatest|highest)|high\s+to\s+low"
    r"|big\s+to\s+small)\b",
    re.IGNORECASE,
)
"""Words asking for the largest number first."""
_ORDER_ASKED_RE = re.compile(
    r"\b(?:sort|sorted|ascending|descending|increasing|decreasing|order|smallest|largest|lowest|highest"
    r"|biggest|least|greatest)\b",
    re.IGNORECASE,
)
"""An order named: "list" or "put" alone asks for one ("put 5 and 9 in order"), not any list."""


def _in_words(match: re.Match[str]) -> str | None:
    written = match.group("n") or match.group("n2")
    whole, _, decimals = written.replace(",", "").partition(".")
    try:
        words = number_in_words(int(whole))
    except ValueError:
        return None
    if decimals:
        words += " point " + " ".join(number_in_words(int(d)) for d in decimals)
    return f"{written} written in words is {words}."


def _in_digits(match: re.Match[str]) -> str | None:
    written = " ".join(match.group("x").split())
    digits = numbers_from_words(written)
    if not digits.isdigit():
        return None
    n = int(digits)
    shown = f"{n:,} ({n})" if n >= 1000 else str(n)
    return f"{written[:1].upper()}{written[1:]} written in digits is {shown}."


def _sorted(match: re.Match[str]) -> str | None:
    how = f"{match.group('how')} {match.group('after')}"
    if not _ORDER_ASKED_RE.search(how) and not match.group(0).lower().startswith(
        ("sort", "order", "arrange")
    ):
        return None
    written = re.findall(_LISTED, match.group("list"))
    try:
        values = [(Decimal(w.replace(",", "")), w) for w in written]
    except InvalidOperation:
        return None
    descending = bool(_DESCENDING_RE.search(how))
    ordered = [w for _, w in sorted(values, key=lambda v: v[0], reverse=descending)]
    order = "largest to smallest" if descending else "smallest to largest"
    return f"From {order}: {', '.join(ordered)}."


_NEXT_ASKED_RE = re.compile(
    r"\b(?:next|following)\s+(?:number|term|value|one|element)s?\b|\bwhat\s+comes\s+(?:next|after)\b"
    r"|\b(?:continue|extend|complete)\b[^.?!]*\b(?:sequence|pattern|series|list)\b"
    r"|\b(?:sequence|pattern|series)\b[^.?!]*\bnext\b",
    re.IGNORECASE,
)
"""The next number of a sequence asked: "the next number", "what comes next", "continue the pattern"."""
_SEQUENCE_RE = re.compile(
    rf"(?P<list>{_LISTED}(?:\s*(?:,|;)\s*{_LISTED}){{2,}})(?:\s*,?\s*(?:\.\.\.|…|_+|\?))?"
)
"""Three or more numbers separated by commas ("2, 4, 8, 16", "1, 1, 2, 3, 5, ...")."""
MAX_SEQUENCE = 30
"""Most numbers of a sequence read."""


def _next_in_sequence(match: re.Match[str]) -> str | None:
    listed = _SEQUENCE_RE.search(match.string)
    if listed is None:
        return None
    written = re.findall(_LISTED, listed.group("list"))[:MAX_SEQUENCE]
    try:
        values = [Fraction(Decimal(w.replace(",", ""))) for w in written]
    except InvalidOperation:
        return None
    shown = ", ".join(written)
    steps = [b - a for a, b in itertools.pairwise(values)]
    rule: str | None = None
    if len(set(steps)) == 1:
        following, rule = values[-1] + steps[0], f"each number is the one before {_signed(steps[0])}"
    elif 0 not in values and len({b / a for a, b in itertools.pairwise(values)}) == 1:
        ratio = values[1] / values[0]
        following, rule = values[-1] * ratio, f"each number is the one before times {_plain(ratio)}"
    elif len(values) >= 4 and len({b - a for a, b in itertools.pairwise(steps)}) == 1:
        grow = steps[1] - steps[0]
        following = values[-1] + steps[-1] + grow
        rule = f"the steps between them ({', '.join(_plain(d) for d in steps)}) grow by {_plain(grow)}"
    elif len(values) >= 4 and all(
        c == a + b for a, b, c in zip(values, values[1:], values[2:], strict=False)
    ):
        following, rule = values[-1] + values[-2], "each number is the sum of the two before it"
    if rule is None:
        return (
            f"No simple rule continues {shown}: not the same step, the same factor, steps growing evenly "
            "or the sum of the two numbers before."
        )
    return f"The next number after {shown} is {_plain(following)}: {rule}."


def _plain(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator:,}"
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return format(exact.normalize(), "f") if _terminates(value) else f"{value.numerator}/{value.denominator}"


def _signed(step: Fraction) -> str:
    return f"plus {_plain(step)}" if step >= 0 else f"minus {_plain(-step)}"


_ROMAN_VALUES = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip
MAX_ROMAN = 3999
"""Largest number Roman numerals write (without a bar over them)."""
_TO_ROMAN_RE = re.compile(
    rf"(?P<n>{_NUMBER})\s+(?:(?:written\s+)?(?:in|as|into|to)\s+)(?:an?\s+)?(?:roman(?:\s+numerals?)?|roman\s+numbers?)\b",
    re.IGNORECASE,
)
"""A number asked in Roman numerals: "Write 15 in Roman numerals", "2024 as a Roman numeral"."""
_FROM_ROMAN_RE = re.compile(
    r"\b(?:what\s+(?:is|does)|what's|convert|translate|read)\s+(?:the\s+roman\s+numerals?\s+)?"
    r"(?P<r>(?-i:[MDCLXVI]{2,}|[MDCLXVI](?=\s+(?:in|as|mean|stand))))\b(?:\s+(?:in\s+(?:numbers|digits|arabic)|mean))?"
    r"|\b(?P<r2>(?-i:[MDCLXVI]+))\s+(?:in|as|into|to)\s+(?:numbers|digits|arabic\s+numerals?|a\s+number)\b",
    re.IGNORECASE,
)
"""Roman numerals asked as a number: "What is MMXXIV?", "XIV in numbers"."""


def _to_roman(match: re.Match[str]) -> str | None:
    written = match.group("n")
    try:
        n = int(written.replace(",", ""))
    except ValueError:
        return f"Roman numerals write whole numbers only; {written} is not one."
    if not 0 < n <= MAX_ROMAN:
        return f"Roman numerals write whole numbers from 1 to {MAX_ROMAN:,}; {written} is outside them."
    out, rest = [], n
    for value, letters in _ROMAN_VALUES:
        count, rest = divmod(rest, value)
        out.append(letters * count)
    return f"{written} in Roman numerals is {''.join(out)}."


def _from_roman(match: re.Match[str]) -> str | None:
    letters = match.group("r") or match.group("r2")
    value, rest = 0, letters
    for number, symbol in _ROMAN_VALUES:
        while rest.startswith(symbol):
            value, rest = value + number, rest[len(symbol) :]
    if rest or value == 0:
        return None
    canonical = _to_roman(re.match(r"(?P<n>\d+)", str(value)))  # type: ignore[arg-type]
    if canonical is None or not canonical.endswith(f" {letters}."):
        return f"{letters} is not written as Roman numerals are (read loosely it would be {value:,})."
    return f"The Roman numerals {letters} are {value:,}."


_BASES = {"binary": 2, "octal": 8, "decimal": 10, "hex": 16, "hexadecimal": 16}
"""The number bases named by word."""
_BASE_NAMES = {2: "binary", 8: "octal", 10: "decimal", 16: "hexadecimal"}
_BASE = r"(?:binary|octal|hex(?:adecimal)?|base[\s-]?\d{1,2})"
MAX_BASE_DIGITS = 64
"""Most digits of a number converted between bases (a longer one is no question a person asks)."""
_TO_BASE_RE = re.compile(
    rf"(?<![\w.])(?P<n>-?\d[\d,]*)(?:\s+\(?(?:in\s+)?(?:decimal|base[\s-]?10)\)?)?\s+(?:written\s+)?"
    rf"(?:in|as|into|to)\s+(?:an?\s+)?(?P<base>{_BASE})(?:\s+(?:numbers?|numerals?|notation|form))?\b"
    r"(?!\s+to\b)",
    re.IGNORECASE,
)
"""A decimal number asked in another base: "What is 255 in binary?", "Convert 42 to hex", "100 in base 3"."""
_FROM_BASE_RE = re.compile(
    r"\b(?P<base>binary|octal|hex(?:adecimal)?)\s+(?:number\s+|numeral\s+)?(?P<digits>[0-9a-f]+)\b(?:\s+(?:in|to|into|as)\s+"
    r"(?:decimal|base[\s-]?10|a\s+(?:decimal\s+)?number|numbers|digits))?"
    rf"|\b(?P<digits2>[0-9a-f]+)\s+(?:(?:from|in)\s+)?\(?(?P<base2>{_BASE})\)?\s+(?:in|to|into|as)\s+"
    r"(?:decimal|base[\s-]?10|a\s+(?:decimal\s+)?number)\b"
    r"|(?<![\w.])(?P<literal>0x[0-9a-f]+|0b[01]+|0o[0-7]+)\b",
    re.IGNORECASE,
)
"""A number written in another base asked in decimal: "binary 1010 to decimal", "1010 from binary to
decimal", "Convert 0x1F to decimal", "hex FF in decimal"."""


def _base_of(name: str) -> int:
    named = name.lower().replace("-", " ")
    return _BASES.get(named) or int(named.removeprefix("base").strip())


def _in_base(n: int, base: int) -> str:
    digits, rest = [], abs(n)
    while True:
        rest, digit = divmod(rest, base)
        digits.append("0123456789abcdefghijklmnopqrstuvwxyz"[digit])
        if rest == 0:
            break
    return ("-" if n < 0 else "") + "".join(reversed(digits)).upper()


def _base_name(base: int) -> str:
    return _BASE_NAMES.get(base, f"base {base}")


def _to_base(match: re.Match[str]) -> str | None:
    written = match.group("n")
    base = _base_of(match.group("base"))
    if not 2 <= base <= 36:
        return f"Numbers are written in bases from 2 to 36; base {base} is not one."
    n = _whole(written)
    if len(str(abs(n))) > MAX_BASE_DIGITS:
        return None
    shown = _in_base(n, base)
    if base == 10:
        return f"{written} is {shown} in decimal."
    return f"{written} in {_base_name(base)} is {shown}."


def _from_base(match: re.Match[str]) -> str | None:
    literal = match.group("literal")
    if literal is not None:
        digits, base = literal[2:], {"x": 16, "b": 2, "o": 8}[literal[1].lower()]
        shown = literal
    else:
        digits = match.group("digits") or match.group("digits2")
        base = _base_of(match.group("base") or match.group("base2"))
        shown = f"{digits} in {_base_name(base)}"
    if not 2 <= base <= 36 or len(digits) > MAX_BASE_DIGITS:
        return None
    try:
        value = int(digits, base)
    except ValueError:
        highest = _in_base(base - 1, base)
        return f"{digits} is not a number in {_base_name(base)}: its digits go from 0 to {highest}."
    return f"{shown} is {value:,} in decimal."


def _whole(written: str) -> int:
    return int(written.replace(",", ""))


def is_prime(n: int) -> bool:
    """Whether ``n`` is a prime number (trial division by 2, 3 and 6k ± 1)."""
    if n < 2:
        return False
    if n < 4:
        return True
    if n % 2 == 0 or n % 3 == 0:
        return False
    k = 5
    while k * k <= n:
        if n % k == 0 or n % (k + 2) == 0:
            return False
        k += 6
    return True


def _listed(numbers: list[int]) -> str:
    shown = [f"{n:,}" for n in numbers]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _near_prime(match: re.Match[str]) -> str:
    n = _whole(match.group("n"))
    if n > MAX_NUMBER:
        return f"{n:,} is too large to look for primes near it here (at most {MAX_NUMBER:,})."
    rel = match.group("rel").lower()
    below = match.group("which").lower() in ("previous", "last", "largest", "biggest", "greatest", "highest")
    below = below or rel.startswith(("before", "below", "under", "less", "smaller", "lower"))
    if match.group("which").lower() in ("nearest", "closest") or rel == "to":
        up, down = n, n
        while not is_prime(up):
            up += 1
        while down >= 2 and not is_prime(down):
            down -= 1
        if down >= 2 and n - down < up - n:
            return f"The prime nearest to {n:,} is {down:,}."
        if down >= 2 and n - down == up - n and up != down:
            return f"The primes nearest to {n:,} are {down:,} and {up:,}, as near."
        return f"The prime nearest to {n:,} is {up:,}."
    if below:
        m = n - 1
        while m >= 2 and not is_prime(m):
            m -= 1
        if m < 2:
            return f"There is no prime below {n:,}: the smallest prime is 2."
        return f"The largest prime below {n:,} is {m:,}."
    m = n + 1
    while not is_prime(m):
        m += 1
    return f"The next prime after {n:,} is {m:,}."


def _primes_in(match: re.Match[str]) -> str:
    if match.group("top"):
        low, high, where = 2, _whole(match.group("top")) - 1, f"below {_whole(match.group('top')):,}"
    else:
        low, high = sorted((_whole(match.group("a")), _whole(match.group("b"))))
        where = f"between {low:,} and {high:,}"
    if high - low > MAX_RANGE:
        return (
            f"That range is too wide for its primes (at most {MAX_RANGE:,} numbers here); ask a narrower one."
        )
    found = [k for k in range(max(low, 2), high + 1) if is_prime(k)]
    if not found:
        return f"There are no prime numbers {where}."
    count = "1 prime number" if len(found) == 1 else f"{len(found):,} prime numbers"
    if match.group("count") or len(found) > MAX_LISTED:
        extent = (
            f": the first is {found[0]:,}, the last {found[-1]:,}" if len(found) > 1 else f": {found[0]:,}"
        )
        return f"There {'is' if len(found) == 1 else 'are'} {count} {where}{extent}."
    return f"There {'is' if len(found) == 1 else 'are'} {count} {where}: {_listed(found)}."


def _first_primes(match: re.Match[str]) -> str:
    n = _whole(match.group("n")) if match.group("n") else 1
    if n == 0:
        return "The first 0 prime numbers are none at all."
    if n > MAX_LISTED:
        return f"That is too many primes to list (at most {MAX_LISTED} here); ask for fewer."
    found: list[int] = []
    k = 1
    while len(found) < n:
        k += 1
        if is_prime(k):
            found.append(k)
    return f"The first {'prime number is' if n == 1 else f'{n} prime numbers are'} {_listed(found)}."


def _divisors(match: re.Match[str]) -> str:
    n = _whole(match.group("n"))
    if n == 0:
        return "Every whole number except 0 divides 0, so 0 has no list of factors."
    if n > MAX_NUMBER:
        return f"{n:,} is too large to list its factors here (at most {MAX_NUMBER:,})."
    small = [k for k in range(1, math.isqrt(n) + 1) if n % k == 0]
    found = sorted({*small, *(n // k for k in small)})
    if len(found) > MAX_LISTED:
        return f"{n:,} has {len(found):,} factors, from 1 and {found[1]:,} up to {found[-2]:,} and {n:,}."
    prime = " (it is prime)" if len(found) == 2 else ""
    return f"{n:,} has {len(found)} factor{'' if len(found) == 1 else 's'}{prime}: {_listed(found)}."


def _perfect(match: re.Match[str]) -> str:
    n, kind = _whole(match.group("n")), match.group("kind").lower()
    if kind == "square":
        root = math.isqrt(n)
        if root * root == n:
            return f"Yes, {n:,} is a perfect square: {root:,} × {root:,} = {n:,}."
        below, above = f"{root * root:,} ({root:,}²)", f"{(root + 1) ** 2:,} ({root + 1:,}²)"
        return f"No, {n:,} is not a perfect square: it lies between {below} and {above}."
    root = round(n ** (1 / 3))
    while root**3 > n:
        root -= 1
    while (root + 1) ** 3 <= n:
        root += 1
    if root**3 == n:
        return f"Yes, {n:,} is a perfect cube: {root:,} × {root:,} × {root:,} = {n:,}."
    below, above = f"{root**3:,} ({root:,}³)", f"{(root + 1) ** 3:,} ({root + 1:,}³)"
    return f"No, {n:,} is not a perfect cube: it lies between {below} and {above}."


def _with_remainder(match: re.Match[str]) -> str:
    a = _whole(match.group("a") or match.group("a2") or match.group("a3"))
    b = _whole(match.group("b") or match.group("b2") or match.group("b3"))
    if b == 0:
        return f"{a:,} cannot be divided by 0: a division by zero is undefined."
    q, r = divmod(a, b)
    said = f"{a:,} ÷ {b:,} = {q:,} remainder {r:,} ({a:,} = {b:,} × {q:,} + {r:,})."
    if match.group("a3"):  # "How many times does 7 go into 50?"
        return f"{b:,} goes into {a:,} {q:,} time{'' if q == 1 else 's'}, with {r:,} left over: {said}"
    return said


def _zeros(match: re.Match[str]) -> str | None:
    written = re.sub(r"^(?:an?|one)\s+", "one ", match.group("x").strip(), flags=re.IGNORECASE)
    digits = numbers_from_words(written).replace(",", "").replace(" ", "")
    if not digits.isdigit():
        return None
    n = int(digits)
    zeros = str(n).count("0")
    said = f"{n:,}" if written[0].isdigit() else f"{written[:1].upper()}{written[1:]} ({n:,})"
    return f"{said} has {zeros} zero{'' if zeros == 1 else 's'}."


_NUMBER_ASKED = r"(?:the\s+number\s+)?(?P<n>-?\d[\d,]*(?:\.\d+)?)(?![\d.])"
_DIGITS_RE = re.compile(
    r"(?:\bhow\s+many\s+digits\s+(?:are\s+(?:there\s+)?|does\s+|do\s+)?(?:in\s+|of\s+)?"
    r"|\b(?:the\s+)?number\s+of\s+digits\s+(?:in|of)\s+)" + _NUMBER_ASKED,
    re.IGNORECASE,
)
"""How many digits a number has: "How many digits does 5040 have?", "the number of digits in 2,048"."""
_DIGIT_SUM_RE = re.compile(
    r"(?:\b(?:the\s+)?(?:sum\s+of\s+(?:the\s+|its\s+|all\s+(?:the\s+)?)?digits|digit\s+sum)\s+(?:of|in)\s+"
    r"|\badd\s+(?:up\s+)?(?:the\s+)?digits\s+(?:of|in)\s+)" + _NUMBER_ASKED,
    re.IGNORECASE,
)
"""The sum of a number's digits: "What is the sum of the digits of 1234?", "digit sum of 999"."""


def _digits(match: re.Match[str]) -> str:
    said = match.group("n")
    whole, _, decimals = said.lstrip("-").partition(".")
    count = len(re.sub(r"\D", "", said))
    out = f"{said} has {count} digit{'' if count == 1 else 's'}"
    if decimals:
        before = len(re.sub(r"\D", "", whole))
        out += f" ({before} before the decimal point and {len(decimals)} after)"
    return out + "."


def _digit_sum(match: re.Match[str]) -> str:
    said = match.group("n")
    digits = re.sub(r"\D", "", said)
    total = sum(int(d) for d in digits)
    return f"The sum of the digits of {said} is {total} ({' + '.join(digits)} = {total})."


def _as_decimal(match: re.Match[str]) -> str | None:
    written = " ".join(match.group("x").split())
    try:
        if "/" in written:
            top, bottom = (int(x) for x in written.split("/"))
            if bottom == 0:
                return f"{written} is undefined: a fraction's denominator cannot be 0."
            value = Fraction(top, bottom)
        else:
            number = re.match(r"[\d,.]+", written)
            value = Fraction(Decimal(number.group().replace(",", ""))) / 100 if number else None
    except (InvalidOperation, ValueError):
        return None
    if value is None:
        return None
    if _terminates(value):
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return f"{written} as a decimal is {format(exact.normalize(), 'f')}."
    return f"{written} as a decimal is about {float(value):.6g} (it repeats without end)."


def _terminates(value: Fraction) -> bool:
    """Whether ``value`` has a finite decimal expansion (its denominator has no prime factor but 2 and 5)."""
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def answer(text: str) -> str | None:
    """The sentence answering a fact about whole numbers that ``text`` asks (see the module docs), or None
    when it asks none of them."""
    return _answer(text) if isinstance(text, str) else None


@functools.lru_cache(maxsize=256)
def _answer(text: str) -> str | None:
    """:func:`answer` of a text, remembered: the calculator and its reader ask it of the same question."""
    for pattern, said in (
        (_NEAR_PRIME_RE, _near_prime),
        (_PRIMES_IN_RE, _primes_in),
        (_FIRST_PRIMES_RE, _first_primes),
        (_DIVISORS_RE, _divisors),
        (_PERFECT_RE, _perfect),
        (_REMAINDER_RE, _with_remainder),
        (_ZEROS_RE, _zeros),
        (_DIGITS_RE, _digits),
        (_DIGIT_SUM_RE, _digit_sum),
        (_AS_DECIMAL_RE, _as_decimal),
        (_IN_WORDS_RE, _in_words),
        (_IN_DIGITS_RE, _in_digits),
        (_SORT_RE, _sorted),
        (_NEXT_ASKED_RE, _next_in_sequence),
        (_TO_ROMAN_RE, _to_roman),
        (_FROM_ROMAN_RE, _from_roman),
        (_FROM_BASE_RE, _from_base),
        (_TO_BASE_RE, _to_base),
    ):
        match = pattern.search(text)
        if match is not None:
            result = said(match)
            if result is not None:
                return result
    return None


__all__ = ["MAX_BASE_DIGITS", "MAX_LISTED", "MAX_NUMBER", "MAX_RANGE", "answer", "is_prime"]
