"""Physical constants the calculator knows, said with their units.

A small model guesses these ("The boiling point of water in Fahrenheit is approximately 102.5 degrees
Celsius"); the calculator names the constant a question asks for, gives its value and, when the question
asks for a unit ("in Fahrenheit", "in km/h"), converts it with the calculator's unit conversions:

- the boiling and freezing points of water, normal body temperature, absolute zero;
- the speed of light and the speed of sound.

:func:`answer` returns None for any other text (and for a question that writes numbers of its own: "How
long does light take to cross 300 km?" is arithmetic, not the constant), so the calculator reads it as
arithmetic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cadence.builtins.math_language import conversion_in


@dataclass(frozen=True)
class Constant:
    """A physical constant as people ask for it."""

    name: str
    """How the answer names it ("the boiling point of water")."""
    asked: re.Pattern[str]
    """The words that ask for it."""
    value: str
    """Its value with its unit, written as the unit conversions read it ("100 °C")."""
    condition: str = ""
    """Where it holds, said after its name ("at sea level")."""
    usual: tuple[str, ...] = ()
    """Units it is also given in when the question asks for none ("°F")."""
    said_also: str = ""
    """Its value in units the conversions do not know, said when none is asked ("about 299,792 km/s")."""


def _asked(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_TEMPERATURE_ASKED = r"^(?=.*\b(?:temperature|degrees?|how (?:hot|cold)|at what|celsius|fahrenheit|kelvin)\b)"
"""A question asking a temperature (what happens when water freezes is no temperature asked)."""

CONSTANTS: tuple[Constant, ...] = (
    Constant(
        "the boiling point of water",
        _asked(rf"\bboiling (?:point|temperature) of water\b|{_TEMPERATURE_ASKED}.*\bwater boils?\b"),
        "100 °C",
        "at sea level",
        ("°F",),
    ),
    Constant(
        "the freezing point of water",
        _asked(
            rf"\bfreezing (?:point|temperature) of water\b|{_TEMPERATURE_ASKED}.*\bwater freezes?\b"
            r"|\bmelting point of ice\b"
        ),
        "0 °C",
        "at sea level",
        ("°F",),
    ),
    Constant(
        "normal human body temperature",
        _asked(r"\b(?:normal |average |healthy )?(?:human )?body temperature\b"),
        "37 °C",
        "on average",
        ("°F",),
    ),
    Constant("absolute zero", _asked(r"\babsolute zero\b"), "-273.15 °C", "", ("°F", "K")),
    Constant(
        "the speed of light",
        _asked(r"\bspeed of light\b|\blight ?speed\b|\bhow fast (?:does |is )?light\b"),
        "299792458 m/s",
        "in a vacuum",
        (),
        "about 299,792 km per second, 186,282 miles per second",
    ),
    Constant(
        "the speed of sound",
        _asked(r"\bspeed of sound\b|\bhow fast (?:does |is )?sound\b"),
        "343 m/s",
        "in dry air at 20 °C",
        ("km/h", "mph"),
    ),
)
"""The constants :func:`answer` knows."""

_UNIT_ASKED_RE = re.compile(
    r"\b(?:in|into|to)\s+(?:degrees\s+)?(?P<unit>[a-z°/][\w°/ ]{0,30}?)\s*[?.!]*$", re.IGNORECASE
)
"""The unit a question asks for, at its end ("... in Fahrenheit?", "... in km/h")."""
_DIGIT_RE = re.compile(r"\d")


def _number(value: float) -> str:
    """A converted value as people write it: two decimals at most, thousands separated."""
    rounded = round(value, 2)
    return f"{rounded:,.2f}".rstrip("0").rstrip(".") if rounded != int(rounded) else f"{int(rounded):,}"


def _converted(constant: Constant, unit: str, evaluate: Callable[[str], float]) -> str | None:
    """The constant's value in ``unit`` ("212 °F"), or None when the conversions do not know the unit or it
    is the value's own."""
    conversion = conversion_in(f"{constant.value} in {unit}")
    if conversion is None:
        return None
    return f"{_number(float(evaluate(conversion.expression)))} {conversion.unit}"


def answer(question: str, evaluate: Callable[[str], float]) -> str | None:
    """The one constant ``question`` asks for, said with its value ("The boiling point of water at sea
    level is 212 °F (100 °C)."), converted with ``evaluate`` (the calculator's evaluator) into the unit it
    asks for; None when it asks for none of :data:`CONSTANTS`, for two, or writes numbers of its own."""
    if len(question) > 300 or _DIGIT_RE.search(question):
        return None
    asked = [c for c in CONSTANTS if c.asked.search(question)]
    if len(asked) != 1:
        return None
    constant = asked[0]
    value = constant.value.replace("299792458", "299,792,458")
    unit = _UNIT_ASKED_RE.search(question)
    wanted = _converted(constant, unit.group("unit"), evaluate) if unit else None
    if wanted is not None:
        said, others = wanted, [value]
    else:
        said = value
        others = [c for u in constant.usual if (c := _converted(constant, u, evaluate)) is not None]
        others += [constant.said_also] if constant.said_also else []
    name = f"{constant.name} {constant.condition}".strip()
    also = f" ({'; '.join(others)})" if others else ""
    return f"{name[:1].upper()}{name[1:]} is {said}{also}."


__all__ = ["CONSTANTS", "Constant", "answer"]
