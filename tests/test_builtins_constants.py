"""Physical constants the calculator knows (``cadence.builtins.constants``)."""

from __future__ import annotations

import pytest

from cadence.builtins import constants
from cadence.builtins.math import calculate, evaluate, reads_arithmetic
from cadence.sdk import SURELY


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # a small model had said "approximately 102.5 degrees Celsius"
        (
            "What's the boiling point of water in Fahrenheit?",
            "The boiling point of water at sea level is 212 °F (100 °C).",
        ),
        (
            "At what temperature does water freeze?",
            "The freezing point of water at sea level is 0 °C (32 °F).",
        ),
        ("What's absolute zero in Kelvin?", "Absolute zero is 0 K (-273.15 °C)."),
        (
            "What's normal body temperature in F?",
            "Normal human body temperature on average is 98.6 °F (37 °C).",
        ),
        (
            "How fast does sound travel in mph?",
            "The speed of sound in dry air at 20 °C is 767.27 mph (343 m/s).",
        ),
        (
            "What is the speed of light?",
            "The speed of light in a vacuum is 299,792,458 m/s (about 299,792 km per second, 186,282 miles per "
            "second).",
        ),
    ],
)
def test_a_constant_is_said_with_its_value_in_the_unit_asked(question: str, said: str) -> None:
    assert constants.answer(question, evaluate) == said
    assert calculate.invoke({"expression": question}) == said
    assert reads_arithmetic(question) is SURELY  # no word of an agent needed: the calculator knows it


@pytest.mark.parametrize(
    "question",
    [
        "How long does light take to travel 300000 km?",  # numbers of its own: arithmetic
        "What is 5 + 5?",
        "Is the speed of light faster than the speed of sound?",  # two constants
        "What happens when water freezes?",  # no temperature asked
        "How do I make tea with boiling water?",
    ],
)
def test_other_questions_are_no_constant(question: str) -> None:
    assert constants.answer(question, evaluate) is None


def test_a_unit_the_conversions_do_not_know_gives_the_usual_units() -> None:
    assert constants.answer("What is the speed of light in km/s?", evaluate) == (
        "The speed of light in a vacuum is 299,792,458 m/s (about 299,792 km per second, 186,282 miles per second)."
    )
