"""Linear equations in one unknown, solved exactly (:mod:`cadence.builtins.equations`), through the calculator."""

from __future__ import annotations

import pytest

from cadence.builtins.equations import EquationError, solve
from cadence.builtins.math import calculate


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Solve 2x + 3 = 11", "x = 4 (solving 2x + 3 = 11)."),
        ("What is x if 3x - 7 = 2x + 5?", "x = 12 (solving 3x - 7 = 2x + 5)."),
        ("2(x + 4) = 18, x = ?", "x = 5 (solving 2(x + 4) = 18)."),
        ("solve for y: 5y/2 = 10", "y = 4 (solving 5y/2 = 10)."),
        ("find n: 4n - 2 = 3n", "n = 2 (solving 4n - 2 = 3n)."),
        ("Solve 0.5x = 2.25", "x = 4.5 (solving 0.5x = 2.25)."),
        ("Solve 3x = 1", "x = 1/3 (about 0.333333) (solving 3x = 1)."),
        ("Solve 2 * (x - 1) = x + 4 for x", "x = 6 (solving 2 * (x - 1) = x + 4)."),
        ("And 4x + 2 = 18?", "x = 4 (solving 4x + 2 = 18)."),  # a follow-up
    ],
)
def test_a_linear_equation_is_solved_exactly(question: str, said: str) -> None:
    """ "Solve 2x + 3 = 11" was a malformed expression to the calculator ("invalid decimal literal")."""
    assert solve(question) == said
    assert calculate.invoke({"expression": question}) == said


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("x^2 = 4", "the unknown is raised to a power"),
        ("x * x = 9", "the unknown is multiplied by itself"),
        ("1/x = 2", "the unknown is in a divisor"),
        ("3x = 3x + 1", "No value of x solves"),
        ("2x = x + x", "Every value of x solves"),
    ],
)
def test_an_equation_not_solved_here_says_why(question: str, message: str) -> None:
    with pytest.raises(EquationError, match=message):
        solve(question)


@pytest.mark.parametrize(
    "text",
    [
        "5! = ?",
        "What is 2 + 2 = 4?",
        "2x + 3y = 5",
        "e = mc2",
        "What is 5 + 5?",
        "Solve for x: 2x + 3 = 11 for y",
    ],
)
def test_a_text_that_is_no_equation_in_one_letter_is_not_read(text: str) -> None:
    assert solve(text) is None
