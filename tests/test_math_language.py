"""Arithmetic written in words: read into an expression, evaluated by the safe evaluator."""

from __future__ import annotations

import pytest

from cadence.builtins.math import CalculationError, calculate, evaluate
from cadence.builtins.math_language import numbers_from_words, to_expression


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What is 12 * 12?", 144),
        ("Compute 2 to the power of 10", 1024),
        ("3 raised to 4", 81),
        ("What is the square root of 144?", 12),
        ("the cube root of 27", 3),
        ("How much is 100 divided by 8?", 12.5),
        ("add 7 and 8 and then subtract 3", 12),
        ("add 10 to 5, then multiply by 3", 45),
        ("What is twelve times twelve?", 144),
        ("what is one hundred and twenty five divided by five", 25),
        ("What is 20 percent of 150?", 30),
        ("What's 15% of 80?", 12),
        ("What is 3 cubed?", 27),
        ("What is 9 squared?", 81),
        ("Multiply 6 by 7", 42),
        ("Subtract 15 from 40", 25),
        ("take 5 away from 12", 7),
        ("Divide 96 by 4", 24),
        ("the sum of 1, 2, 3 and 4", 10),
        ("the product of 2, 3 and 4", 24),
        ("What is the average of 4, 8 and 12?", 8),
        ("the mean of 2 and 4", 3),
        ("the difference between 50 and 8", 42),
        ("five plus three times two", 11),
        ("half of 50", 25),
        ("twice 21", 42),
        ("10% of 250 then add 5", 30),
        ("What is 7 x 8?", 56),
        ("forty two minus seven", 35),
        ("1,000 plus 24", 1024),
        ("start with 9, then square it", 81),
        ("42, then squared", 1764),
        ("42, then divided by 7", 6),
        ("42, then multiplied by 3", 126),
        ("42, then plus one more", 43),
        ("2, then cubed", 8),
        ("whats 100 divided by 4", 25),
        ("what’s 6 * 7", 42),
        ("what's a hundred minus thirty seven", 63),
        ("a dozen times four", 48),
        ("multiply seven and eight", 56),
        ("quick one: 3.5 * 4", 14),
        ("question: what is five plus five", 10),
        ("halve 72", 36),
        ("square 9", 81),
        ("cube two", 8),
        ("I need 19 * 21", 399),
        ("what do you get if you divide 144 by 12", 12),
        ("gimme the square root of 49", 7),
        ("how much is 7 less than 30", 23),
        ("5 more than 10", 15),
        ("3 to the 4th power", 81),
    ],
)
def test_words_become_the_right_expression(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


def test_number_words() -> None:
    assert numbers_from_words("twenty five apples and three pears") == "25 apples and 3 pears"
    assert numbers_from_words("one thousand two hundred") == "1200"
    assert numbers_from_words("no numbers here") == "no numbers here"
    assert numbers_from_words("one hundred and two") == "102"
    assert numbers_from_words("add seven and eight") == "add 7 and 8"  # "and" joins only after a scale
    assert numbers_from_words("a hundred, a thousand and one, two dozen") == "100, 1001, 24"
    assert numbers_from_words("a cat and an owl") == "a cat and an owl"


def test_a_lead_in_before_a_colon_is_dropped_only_before_arithmetic() -> None:
    assert to_expression("quick one: 3.5 * 4") == "3.5 * 4"  # its "one" is not a number
    assert to_expression("lambda: 1") == "lambda: 1"  # nothing to compute after the colon
    assert to_expression("twelve times eight: 3") != "3"  # the lead-in holds arithmetic


def test_framing_words_are_dropped_only_before_arithmetic() -> None:
    assert to_expression("I need 19 * 21") == "19 * 21"
    assert to_expression("x + 1") != "1"  # an unknown name before an operator is not framing
    assert to_expression("I need help") == "I need help"


def test_calculate_reads_words_and_shows_what_it_computed() -> None:
    assert calculate.invoke({"expression": "15 * 23"}) == "345"
    assert calculate.invoke({"expression": "What is 2 to the power of 10?"}) == "2 ** 10 = 1024"
    assert calculate.invoke({"expression": "Calculate 15 * 23"}) == "15 * 23 = 345"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("add up 13, 27 and 60", 100),
        ("add 13, 27 and 60", 100),
        ("add together 4, 5 and 6", 15),
        ("sum up 4, 5, 6", 15),
        ("multiply 2, 3 and 4", 24),
        ("add up 5 and 6", 11),
        ("add up eleven, twenty two, thirty three and forty four", 110),
        ("add 1.5, 2, and 3.5 together", 7),
        ("multiply together two, five and ten", 100),
        ("total up 3, 4 and 5", 12),
        ("please add up 1, 2 and 3, then double it", 12),
        ("add 3 to the sum of 1 and 2", 6),  # "to" is the two-operand form, not a list item
    ],
)
def test_a_verb_adds_or_multiplies_a_list(text: str, value: float) -> None:
    """Adding up or multiplying a list ("add up A, B and C", "multiply A, B and C") takes two or more operands."""
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize("text", ["What time is it in Tokyo?", "import os", "__import__('os')", "hello"])
def test_non_arithmetic_still_fails_cleanly(text: str) -> None:
    with pytest.raises(Exception) as info:
        calculate.invoke({"expression": text})
    assert type(info.value).__name__ == "CalculationError"


@pytest.mark.parametrize("text", ["now take away 2", "plus 5", "and times 4?", "divided by 3"])
def test_an_operation_without_its_left_operand_is_not_a_number(text: str) -> None:
    """A follow-up that lost its context ("take away 2" of what?) must fail, not answer -2 or 5."""
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    "text",
    [
        "45 is what percent of 180?",
        "what percent of 200 is 50",
        "what percentage of 80 is 20",
        "what is 30 as a percentage of 120",
        "thirty out of one hundred and twenty as a percentage",
        "what percent is 50 of 200",
        "how many percent of 200 is 50",
        "fifty is what % of two hundred",
        "50 is how many percent of 200",
        "what percentage of 200 does 50 make up",
        "Find what percent 12 is of 48",
        "50 out of 200 is what percent?",
        "express 30 as a percent of 120",
        "what is the percentage of 50 out of 200",
        "can you tell me what per cent of 1,000 is 250",
        "I wonder what percent of 200 is 50",
        "question: what percentage is 50 of 200",
        "what is 0.25 as a percentage",
        "30 over 120 as a percent",
    ],
)
def test_a_question_asking_for_a_percentage_is_the_part_over_the_whole(text: str) -> None:
    """Asking what percent X is of Y (in any order or wording) is X / Y * 100, not X% of Y."""
    assert evaluate(to_expression(text)) == pytest.approx(25)
    assert "25" in calculate.invoke({"expression": text})


def test_percentage_questions_read_the_part_and_the_whole() -> None:
    assert to_expression("45 is what percent of 180?") == "(45 / 180 * 100)"
    assert to_expression("what percent of 200 is 50") == "(50 / 200 * 100)"
    assert to_expression("what is 30 as a percentage of 120") == "(30 / 120 * 100)"
    assert calculate.invoke({"expression": "what percentage of 80 is 20"}) == "(20 / 80 * 100) = 25"
    assert evaluate(to_expression("convert 3/4 to a percentage")) == pytest.approx(75)
    assert evaluate(to_expression("what percent of 200 is 50, then double it")) == pytest.approx(50)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("8% of 1250", 100),
        ("what is 20 percent of 150", 30),
        ("10 percent more than 50", 55),
        ("15 percent less than 80", 68),
        ("25 percent off 80", 60),
    ],
)
def test_a_percentage_that_is_given_is_still_taken_of_the_whole(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


def test_a_percentage_question_about_words_is_not_a_number() -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": "what percent of people is happy"})
