"""Arithmetic written in words: read into an expression, evaluated by the safe evaluator."""

from __future__ import annotations

import math
import re

import pytest

from cadence.builtins.math import CalculationError, calculate, evaluate
from cadence.builtins.math_language import numbers_from_words, read_conversion, to_expression, trailing_unit


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What is 12 * 12?", 144),
        ("Compute 2 to the power of 10", 1024),
        ("3 raised to 4", 81),
        ("What is the square root of 144?", 12),
        ("the cube root of 27", 3),
        ("What is log base 2 of 64?", 6),
        ("the logarithm of 1000 to base 10", 3),
        ("What is the reciprocal of 8?", 0.125),
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
        ("Multiply 12 by itself", 144),  # was no arithmetic
        # things in groups and coins in dollars (had been the model's inventions: "3 dozen eggs are in a
        # single egg")
        ("How many eggs are in 3 dozen?", 36),
        ("How many eggs are in half a dozen?", 6),
        ("How many socks in 4 pairs?", 8),
        ("How many quarters in $5?", 20),
        ("How many dimes are in a dollar?", 10),
        ("how many pennies in 3 dollars", 300),
        ("what is 2.5 times itself", 6.25),
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
        ("What is 4 to the third power?", 64),
        ("two to the fifth power", 32),
        ("what's 3 to the fourth?", 81),
        ("2 raised to the tenth power", 1024),
        ("What is 3/4 of 200?", 150),
        ("what's two thirds of 60", 40),
        ("three quarters of 80", 60),
        ("a fifth of fifty", 10),
        ("What's the remainder when 17 is divided by 5?", 2),
        ("the remainder of 20 divided by 6", 2),
        ("the remainder when you divide 23 by 4", 3),
        ("increase 80 by 10 percent", 88),
        ("decrease 200 by 15%", 170),
        ("80 increased by 10 percent", 88),  # was 80 + 10 / 100
        ("increase 80 by 10", 90),
        ("how much is 3 and a half times 4", 14),
        ("What is negative 5 plus 3?", -2),  # was 5 + 3 = 8: "negative" was dropped
        ("what is 10 minus negative 4", 14),
        ("what is negative five squared", 25),
        ("What is -5 squared?", 25),  # the signed number raised, as "negative five squared"
        ("-2 cubed", -8),
        ("10 -5 squared", -15),  # a subtraction keeps its order
        ("What is the log of 100?", 2),  # base 10, as on a calculator
        ("log 1000", 3),
        ("What is the natural log of 1?", 0),
        # an angle in degrees is one for the trigonometric functions, and a conversion between the units
        ("What's the sine of 30 degrees?", 0.5),
        ("cos of 60 degrees", 0.5),
        ("What is the tangent of 45 degrees?", 1),
        ("convert 180 degrees to radians", 3.14159265359),
        ("What is pi radians in degrees?", 180),
        ("what is 200 plus 15 percent", 230),  # was 200 + 0.15
        ("250 minus 10%", 225),
        ("times 9 by 3", 27),
        # follow-ups as the local model's policy continues them from the previous result
        ("20, then if I add 10?", 30),
        ("100, then its square root?", 10),
        ("250, then minus 10 percent?", 225),  # was 249.9
        ("100, then plus 15%", 115),
        ("how much is 45 minutes plus 30 minutes", 75),  # units after the numbers were an error
        ("3 dollars plus 4 dollars", 7),
        ("what is 10 percent times 5", 0.5),
        ("A train travels 300 km in 3 hours, what is its speed?", 100),
        ("I earn 120 dollars in 8 hours, how much is that per hour?", 15),
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
    assert numbers_from_words("2 million divided by 4") == "2000000 divided by 4"  # digits and a size word
    assert numbers_from_words("3 hundred plus 1.5 thousand") == "300 plus 1500"


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


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("calc 999*999 pls", 998001),
        ("pls calc 2+2 thx", 4),
        ("quickly, what's 15 * 4 real quick", 60),
        ("can you work out 45/9 for me, thanks!", 5),
        ("hey, 100 - 37 please :)", 63),
        ("yo whats seven times eight bro", 56),
        ("add 5 and 3 pls, then double it", 16),
    ],
)
def test_chat_shorthand_around_the_arithmetic_is_framing(text: str, value: float) -> None:
    """Command words and politeness at either end ("calc", "pls", "thx", "real quick") are dropped."""
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("I bought 3 shirts at 19.99 each. 3 x 19.99?", "3 * 19.99"),
        ("The bill was 84.50 and we are 4 people. What is 84.50 / 4?", "84.50 / 4"),
        ("I drove 150 km over 3 hours. whats 150/3", "150/3"),  # "over" in the context is no operation
        ("I bought 3 shirts at 19.99 each, 3 x 19.99?", "3 * 19.99"),
        ("12 * 12. Is that right?", "12 * 12"),
    ],
)
def test_the_sentence_or_clause_with_the_operation_is_read(text: str, expression: str) -> None:
    assert to_expression(text) == expression


def test_several_sentences_with_operations_stay_whole() -> None:
    assert to_expression("Add 5 and 3. Then multiply by 2.") == "((5 + 3) * 2)"  # one chain
    assert to_expression("I have 5. Then double it.") == "(5 * 2)"
    with pytest.raises(CalculationError):  # two questions: which one? Not guessed
        evaluate(to_expression("what is 2 + 2. and 3 + 3?"))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("take 250, add 75, then halve it", 162.5),
        ("take 100, subtract 30, then double it", 140),
        ("start with 10, multiply by 3, add 4", 34),
        ("begin with 8, square it, then subtract 14", 50),
        ("take 7, times 6", 42),
        ("what is 5 plus 3, divided by 2", 4),  # a step applies to the whole running result
        ("5 plus 3 then divide by 2", 4),
        ("add up 1, 2 and 3, and double it", 12),
    ],
)
def test_a_comma_before_an_operation_verb_starts_a_step(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Take 100 and subtract 37", 63),
        ("start with 10 and add 5", 15),
        ("take 8 and multiply by 3", 24),
        ("take 20 and divide it by 4", 5),
        ("Take 5 and double it", 10),
        ("divide 10 by 2 and add 3", 8),
        ("add 5 and 6 and multiply by 2", 22),
        # where "and" joins two operands the text already reads, it is not a step
        ("add 5 and 6", 11),
        ("the difference between 10 and double 3", 4),
    ],
)
def test_an_and_before_an_operation_verb_starts_a_step_when_nothing_else_reads(
    text: str, value: float
) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("whats the sqare root of 225", 15),
        ("what is the sqaure root of 81", 9),
        ("multipy 6 by 7", 42),
        ("devide 100 by 4", 25),
        ("substract 5 from 20", 15),
        ("what is 20 percnt of 150", 30),
        ("the averge of 2, 4 and 6", 4),
        ("12 multiplyed by 3", 36),
        ("100 devided by 5", 20),
        ("the diffrence between 50 and 8", 42),
        ("whats 15 procent of 80", 12),  # another language's word (it had been the small model's guess)
    ],
)
def test_a_misspelled_operation_word_is_read_as_it(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


def test_a_misspelt_unit_is_read_as_it_when_the_conversion_reads_nothing_else() -> None:
    """ "convert 10 kilometres to miels" had been refused ("miels" is no unit); a word one edit from a unit
    is read as that unit only then (ordinary words are one edit from some units: "pond", "tone")."""
    assert calculate.invoke({"expression": "convert 10 kilometres to miels"}).startswith(
        "10 kilometres = 6.21 miles"
    )
    assert calculate.invoke({"expression": "convert 3 galons to liters"}).startswith(
        "3 gallons = 11.36 liters"
    )
    with pytest.raises(CalculationError, match="Cannot convert parsecs"):
        calculate.invoke({"expression": "Convert 5 parsecs to light years"})


@pytest.mark.parametrize(
    "text",
    [
        "a common multiple of 4 and 6",  # "multiple" is not "multiply"
        "what is 5 divine",
        "a reminder of 17 and 5",
        "12 squares",
        "4 divides 12",
    ],
)
def test_ordinary_words_are_not_taken_for_operations(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("5!", 120),
        ("5! = ?", 120),
        ("factorial of 5", 120),
        ("what is 6!", 720),
        ("3! + 4!", 30),
        ("what's seven factorial", 5040),
        ("factorial 6", 720),
        ("(2+3)!", 120),
    ],
)
def test_factorials(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


def test_an_exclamation_mark_before_equals_is_not_a_factorial() -> None:
    assert "factorial" not in to_expression("5!=120")
    with pytest.raises(CalculationError, match="factorial"):
        evaluate(to_expression("2000!"))


def test_percentages_of_values_in_words_are_each_of_their_own_value() -> None:
    """ "20 percent of 50 plus 10 percent of 30" had been 20% of (50 + 3) = 10.6."""
    assert evaluate(to_expression("What is 20 percent of 50 plus 10 percent of 30?")) == pytest.approx(13)
    assert evaluate(to_expression("what is 10 percent times 5")) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my salary went from 52000 to 57200, by what percent did it go up?", 10),
        ("what is the percent change from 50 to 75", 50),
        ("how much percent did it drop from 80 to 60", -25),
        ("what is the percentage increase from forty to fifty", 25),
        ("the price rose from $20 to $25, what percent increase is that?", 25),
        ("Population went from 1,000 to 1,250. By how many percent did it grow?", 25),
        ("by what percentage did sales fall from 200 to 150", -25),
        ("percent change between 80 and 100", 25),
        ("what's the % change from 50 to 40", -20),
        ("it went from 80 kg to 60 kg, what percent drop", -25),
        ("percent change from -50 to -25", 50),
        # the old and new values said as was and now (it had been no arithmetic)
        ("If a shirt was $50 and now costs $35, what is the percentage decrease?", -30),
        ("It used to cost $20 but now costs $25. By what percent did it go up?", 25),
    ],
)
def test_a_change_asked_as_a_percentage_is_signed(text: str, value: float) -> None:
    """(B - A) / A * 100: an increase is positive, a decrease negative."""
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    ["from 1 to 10 what percent are even", "what is 10% of 50 from 2 to 3", "what percent of 80 is 60"],
)
def test_a_range_or_a_share_is_not_a_percent_change(text: str) -> None:
    assert not re.match(r"\(\(\S+ - \S+\) / ", to_expression(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("round 83.333 to the nearest whole number", 83),
        ("round 3.14159 to 2 decimal places", 3.14),
        ("round 1234 to the nearest hundred", 1200),
        ("what is 83.333 rounded to the nearest tenth", 83.3),
        ("what is 22/7 to 3 decimal places", 3.143),
        ("10 divided by 3, rounded to 2 decimal places", 3.33),
        ("10 divided by 3, then round it", 3),
        ("divide 10 by 3 then round to the nearest hundredth", 3.33),
        ("7.6, then round it down", 7),
        ("round up 4.2", 5),
        ("round 17 to the nearest 5", 15),
        ("what's 19.99 * 3 rounded to the nearest dollar", 60),
        ("round 83.333", 83),
    ],
)
def test_rounding(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("What is 25 doubled?", "25 * 2 = 50"),
        ("What is 90 halved?", "90 / 2 = 45"),
        ("25 tripled", "25 * 3 = 75"),
        ("36, then halved?", "(36 / 2) = 18"),  # "And halved?" after 36
        ("What is 25 doubled and then halved?", "((25 * 2) / 2) = 25"),
    ],
)
def test_doubled_tripled_and_halved_after_a_number(text: str, answer: str) -> None:
    """ "What is it doubled?" after 25 had been no arithmetic."""
    assert calculate.invoke({"expression": text}) == answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("What is 10 km in miles, rounded to one decimal?", "10 km = 6.2 miles"),
        ("Convert 72 F to C, rounded to the nearest whole number", "72 °F = 22 °C"),
        ("How many pounds is 5 kg, rounded?", "5 kg = 11 pounds"),
        ("How many feet in 3 meters, rounded up?", "3 meters = 10 feet"),
        ("Convert 100 F to C to 2 decimal places", "100 °F = 37.78 °C"),
    ],
)
def test_a_conversion_is_rounded_as_asked(text: str, answer: str) -> None:
    """The rounding applies to the converted value, said in its unit (it had rounded the amount or read
    nothing: "round(5) = 5")."""
    assert calculate.invoke({"expression": text}).startswith(f"{answer} (read as ")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("whats the sqrot of 225", "sqrot"),
        ("what's the cosecant of 2", "cosecant"),
        ("how much is the hypotenuse of 5", "hypotenuse"),
    ],
)
def test_calculate_refuses_a_reading_that_dropped_the_operation(text: str, words: str) -> None:
    """Words that name no known operation are not skipped to answer the bare number ("225 = 225")."""
    with pytest.raises(CalculationError, match="Operation not understood") as info:
        calculate.invoke({"expression": text})
    assert words in str(info.value)


def test_calculate_still_answers_a_bare_number_asked_for_plainly() -> None:
    assert calculate.invoke({"expression": "what is 7?"}) == "7 = 7"
    assert calculate.invoke({"expression": "what is the number 7 pls"}) == "7 = 7"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("whats the sqare root of 225", "sqrt(225) = 15"),
        ("5!", "factorial(5) = 120"),
        ("calc 999*999 pls", "999*999 = 998001"),
        ("I bought 3 shirts at 19.99 each. 3 x 19.99?", "3 * 19.99 = 59.97"),
        ("take 250, add 75, then halve it", "((250 + 75) / 2) = 162.5"),
        (
            "my salary went from 52000 to 57200, by what percent did it go up?",
            "((57200 - 52000) / 52000 * 100) = 10",
        ),
        ("round 83.333 to the nearest whole number", "round(83.333) = 83"),
    ],
)
def test_calculate_shows_the_reading(text: str, answer: str) -> None:
    assert calculate.invoke({"expression": text}) == answer


def test_a_factorial_too_large_says_so() -> None:
    with pytest.raises(CalculationError, match="factorial is limited") as info:
        calculate.invoke({"expression": "100000!"})
    assert "factorial(100000)" in str(info.value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("round 2.5 to the nearest whole number", 3),
        ("round -2.5", -3),
        ("round 2.675 to 2 decimal places", 2.68),
        ("round 1250 to the nearest hundred", 1300),
    ],
)
def test_rounding_takes_halves_away_from_zero(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I have 3 boxes with 12 eggs each. How many eggs do I have?", 36),
        ("Four pizzas cost 12 dollars each. What is the total?", 48),
        ("If I buy 7 apples at 2 dollars each, how much do I pay?", 14),
        ("5 tickets for $8 apiece", 40),
        ("There are 6 crates, each holding 24 bottles. How many bottles?", 144),
        ("A car drives 60 km per hour for 3 hours. How far does it get?", 180),
        ("She earns $15 an hour for 8 hours. What does she make?", 120),
        ("I work 8 hours a day for 5 days. How many hours is that?", 40),
        ("2.5 kg per cake for 4 cakes", 10),
        ("A pizza costs 12 dollars. How much do 4 pizzas cost?", 48),
        ("A bus has 40 seats. How many seats do 3 buses have?", 120),
        ("Each of my 5 shelves holds 30 books. How many books are there?", 150),
        ("My 4 kids each get 5 dollars. How much do I give in total?", 20),
        ("I have 3 kids. If each gets $20, how much do I spend?", 60),  # "each" of the sentence before
        ("I have 4 friends, and each of them pays $15. How much in total?", 60),
        # money to start with, then a cost worked out: what is left
        ("My budget is $2,000. If the hotel is $150 a night for 5 nights, how much is left?", 1250),
        ("I have $100 and buy 3 books at $12 each. How much do I have left?", 64),
        # an amount taken out of another, what is left (a part of a whole, not 3 groups of 8)
        ("How much is left if I spend $30 of $100?", 70),
        ("I ate 3 slices of 8 slices. How many are left?", 5),
        # the count asked alone after a price of one
        ("Each apple costs $2. How much for 6?", 12),
        # a rate counted by another ("5 days a week" of "8 hours a day")
        ("I work 8 hours a day, 5 days a week. How many hours do I work in a week?", 40),
        ("I walk 5 km a day, 6 days a week. How far do I walk in a week?", 30),
        ("I read 20 pages a day, 5 days a week. How many pages weekly?", 100),
        ("A factory makes 120 cars per week. How many cars in 4 weeks?", 480),
        ("If a movie ticket costs $11, how much do 3 tickets cost?", 33),
        ("A box of pencils has 12 pencils. How many pencils are in 5 boxes?", 60),
        ("I have 24 cookies and share them equally among 6 friends. How many does each get?", 4),
        ("A pizza has 8 slices and 4 people share it equally. How many slices each?", 2),
        ("There are 24 cookies and 6 kids share them. How many each?", 4),
        ("A school has 12 classes with 25 students in each class.", 300),
        ("Concert tickets are 35 dollars each. How much for 4 tickets?", 140),
        ("There are 7 days in a week. How many days are in 9 weeks?", 63),
        ("If one apple weighs 150 grams, what do 8 apples weigh?", 1200),
        ("I split a 90 dollar bill evenly between 3 friends.", 30),
        ("A farmer has 6 rows of 15 plants. How many plants?", 90),
        ("Sam has 48 marbles and gives them equally to 8 friends.", 6),
        ("A baker had 50 rolls and sold 32. How many rolls remain?", 18),
        ("Jen had $80 and spent $25 on lunch. How much money is left?", 55),
        ("There were 40 birds on a wire. 15 flew away. How many birds are still there?", 25),
        ("Kim ate 4 of her 10 grapes. How many grapes are left?", 6),
        ("Max has 11 cards. His friend gives him 6 more. How many cards does he have now?", 17),
        ("I ran 5 miles on Saturday and 7 miles on Sunday. How many miles in total?", 12),
    ],
)
def test_a_word_problem_of_one_operation(text: str, value: float) -> None:
    """An amount each ("3 boxes with 12 eggs each"), a rate per unit for a number of units, one thing's
    amount then several of them, a share ("24 cookies shared among 6"), what is left, or a total."""
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("I have 3 apples and buy 5 more. Then I eat 2. How many do I have?", "(3 + 5 - 2)"),
        ("Tom had 8 pens, lost 2 and found 5 more. How many pens now?", "(8 - 2 + 5)"),
        ("I had $500, earned $100 and spent $50. How much is left?", "(500 + 100 - 50)"),
        ("Sam has 14 stickers. His sister gives him 9 more. He gives 5 to Ben. How many does he have?",
         "(14 + 9 - 5)"),
        ("A bus has 20 people. At the first stop 5 get off and 8 get on. How many are on the bus now?",
         "(20 - 5 + 8)"),
        ("There are 30 birds on a tree. 12 fly away and 7 more come. How many birds are on the tree?",
         "(30 - 12 + 7)"),
        ("A library has 500 books. It lends out 120 and gets 45 back. How many books does it have?",
         "(500 - 120 + 45)"),
        # an amount said as groups of a size to start from (it had been the small model's guess)
        ("Sarah has 5 bags with 8 marbles each. She gives away 12 marbles. How many does she have left?",
         "((5 * 8) - 12)"),
        ("I have 3 boxes with 12 eggs each and break 5 of them. How many are left?", "((3 * 12) - 5)"),
    ],
)  # fmt: skip
def test_an_amount_changed_in_several_steps(text: str, expression: str) -> None:
    """ "I have 3 apples and buy 5 more. Then I eat 2. How many do I have?" had been an error (one
    operation was read, not several): the small model answered "you eat a total of 5"."""
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("John is twice as old as Mary. Mary is 15. How old is John?", "(15 * 2)"),
        ("Tom is 5 years older than Ann. Ann is 12. How old is Tom?", "(12 + 5)"),
        ("Ann has 3 times as many books as Ben. Ben has 8 books. How many books does Ann have?", "(8 * 3)"),
        ("Sue has 4 fewer apples than Max. Max has 10 apples. How many apples does Sue have?", "(10 - 4)"),
        ("Jane is 3 times as old as her son. The son is 12. How old is Jane?", "(12 * 3)"),  # a relative
        ("Anna is 8 years older than Ben. Ben is 15. How old will Anna be in 5 years?", "(15 + 8 + 5)"),
        ("John is twice as old as Mary. Mary is 15. How old was John 3 years ago?", "(15 * 2 - 3)"),
    ],
)
def test_one_persons_amount_said_of_anothers(text: str, expression: str) -> None:
    """ "John is twice as old as Mary. Mary is 15. How old is John?" had been the small model's guess ("John
    is 15 years older than Mary")."""
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    "text",
    [
        "John is twice as old as Mary. Mary is 15. How old is Mary?",  # given, not worked out
        "Tom is 5 years older than Ann. Ann is 12. In 3 years, how old is Tom?",  # another number
    ],
)
def test_an_amount_said_of_anothers_with_more_asked_is_not_read_as_one_step(text: str) -> None:
    assert to_expression(text) not in ("(15 * 2)", "(12 + 5)")


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("A baker makes 24 cupcakes and sells them in boxes of 6. How many boxes does he need?", "ceil(24 / 6)"),
        ("30 kids are split into teams of 4. How many teams are needed?", "ceil(30 / 4)"),
        ("25 people travel in cars of 4. How many full cars are there?", "floor(25 / 4)"),
        ("There are 30 students in a class. 40% are boys. How many girls are there?", "(30 * (100 - 40) / 100)"),
        ("There are 30 students in a class. 40% are boys. How many boys are there?", "(30 * 40 / 100)"),
        ("A store sells pens at 3 for $2. How much do 12 pens cost?", "(2 / 3 * 12)"),
    ],
)  # fmt: skip
def test_groups_a_rest_in_percent_and_a_price_for_several(text: str, expression: str) -> None:
    """Each had been an error and the small model's guess ("he needs to make a total of 18 * 3 = 57")."""
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("A book has 240 pages. Sam has read 3/4 of it. How many pages are left?", 60),
        ("A book has 240 pages. Sam has read three quarters of it. How many pages are left?", 60),
        ("A tank holds 500 liters. It is 40% full. How many liters are in it?", 200),
        ("My van's tank holds 80 litres and it's half full. How many litres to fill it?", 40),
        ("I have 500 dollars. I spend 35% of it on a bike. How much did I spend?", 175),
        ("Mike earns $15 per hour. He works 6 hours a day for 5 days. How much does he earn?", 450),
        ("I work 8 hours a day, 5 days a week. How many hours in 4 weeks?", 160),
        ("A pizza has 8 slices. If 3 friends each eat 2 slices, how many slices are left?", 2),
        ("Lisa saves $25 every week. How many weeks until she has $300?", 12),
        ("If a car uses 6 liters of fuel per 100 km, how much fuel for a 250 km trip?", 15),
        ("A shop had 120 apples. It sold 45 in the morning and 38 in the afternoon. How many are left?", 37),
        ("A rope is 15 m long. It is cut into 4 equal pieces. How long is each piece?", 3.75),
        ("Tim has 45 candies. He wants to share them equally among 9 friends. How many does each get?", 5),
        ("There are 6 rows of chairs with 12 chairs in each row. How many chairs are there?", 72),
        ("A bike costs $240. Jake has saved $90. How much more does he need?", 150),
        ("If you buy 4 apples at $0.75 each and pay with a $5 bill, how much change do you get?", 2),
        ("A book costs $12. I pay with a $20 bill. How much change?", 8),
        ("Eggs come in cartons of 12. How many cartons for 100 eggs?", 9),
        ("I have 20 marbles. I give half to my friend. How many do I have now?", 10),
        ("Sam is 12 and his dad is 3 times his age. How old is his dad?", 36),
        ("Mia is 8. Her mother is 4 times her age. How old is her mother?", 32),
        ("The temperature was -5 degrees and rose by 12 degrees. What is it now?", 7),
        ("The stock was at 120 and fell by 15. What is it now?", 105),
        ("A class has 12 boys and 18 girls. What percentage are boys?", 40),
    ],
)
def test_a_part_of_a_whole_chained_rates_and_things_taken_each(text: str, value: float) -> None:
    """Each had been an error and the small model's guess."""
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("The area of a square is 25. What is its side?", "sqrt(25) = 5"),  # it had been 25 squared before
        ("A square has an area of 49 cm². What is its side length?", "sqrt(49) = 7 cm"),
        ("A rectangle has a perimeter of 30 cm and a width of 5 cm. What is its length?", "(30 / 2 - 5) = 10 cm"),
        ("A rectangle has an area of 24 m² and a length of 6 m. What is its width?", "(24 / 6) = 4 m"),
        ("A square has a perimeter of 36 cm. How long is each side?", "(36 / 4) = 9 cm"),
        ("The ratio of cats to dogs is 3:2. There are 15 cats. How many dogs?", "(15 * 2 / 3) = 10"),
        ("If 3 workers build a wall in 6 days, how long would 6 workers take?", "(6 * 3 / 6) = 3 days"),
        ("Emma has twice as many stickers as Jack. Jack has 14 stickers. How many do they have together?",
         "(14 * 2 + 14) = 42"),
    ],
)  # fmt: skip
def test_a_shapes_size_from_its_quantity_a_ratio_and_two_amounts_together(text: str, shown: str) -> None:
    """Each had been refused, or the small model's guess ("which is the same as its side length")."""
    assert calculate.invoke({"expression": text}) == shown


def test_a_lead_in_of_wanting_to_know_is_no_part_of_what_is_read() -> None:
    """ "I need to know how many minutes are in a week" had been refused ("I want to know" was read)."""
    assert calculate.invoke({"expression": "I need to know how many minutes are in a week"}).startswith(
        "1 week = 10080 minutes"
    )


def test_a_share_asked_as_a_fraction_is_said_as_one() -> None:
    """ "A class has 12 boys and 18 girls. What fraction are girls?" had been the small model's guess."""
    said = calculate.invoke({"expression": "A class has 12 boys and 18 girls. What fraction are girls?"})
    assert said == "(18 / (12 + 18)) = 3/5 (0.6)"


def test_two_numbers_from_their_sum_and_difference() -> None:
    said = calculate.invoke(
        {"expression": "The sum of two numbers is 20 and their difference is 4. What are they?"}
    )
    assert said.startswith("The numbers are 12 and 8: the larger is (sum + difference) / 2 = (20 + 4) / 2")


@pytest.mark.parametrize(
    "text",
    [
        "I have 3 apples and buy 5 oranges. Then I eat 2. How many do I have?",  # other things
        "I have 3 apples and buy 5 for $2. How many do I have?",  # a price among the counts
        "I have 3 apples and buy 5 more each day for 2 days. How many do I have?",  # a rate
        "I bought 3 apples, 5 pears and 2 plums. How many do I have?",  # no amount had first
    ],
)
def test_steps_not_of_one_amount_are_not_read_as_steps(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    "text",
    [
        "I have 12 eggs and use 3 each day. How many days do they last?",  # a division, not a product
        "3 boxes with 12 eggs each and 2 boxes with 6 eggs each",  # more than one operation
        "A box holds 12 eggs. I have 36 eggs. How many boxes do I need?",  # a division
        "Tom has 20 dollars and spends 5 each day. How many days does it last?",
        "It costs 5 dollars a month. What is the cost for 2 weeks?",  # a month has no fixed number of weeks
        "Sarah is 12 years old. How old will she be in 5 years?",  # an addition
        "I walk 3 km a day. Is 20 km a lot?",
        "Mia has 20 dollars. She buys 3 more books. How many books does she have?",  # not the same things
        "Mia has 20 dollars and sold 3 books. How many dollars are left?",
        "Ann has 12 apples and 5 pears. How many apples are left?",  # nothing was taken away
    ],
)
def test_a_word_problem_that_is_not_one_operation_is_not_read_as_one(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


def test_calculate_shows_the_word_problem_it_read() -> None:
    assert calculate.invoke({"expression": "3 boxes with 12 eggs each"}) == "(3 * 12) = 36"


@pytest.mark.parametrize(
    "text", ["a " * 10_000 + "5 boxes", "round " * 700 + "5", "what is " * 2_000 + "5 + 3"]
)
def test_a_long_text_is_refused_as_too_long_not_read(text: str) -> None:
    """Reading words costs more than linear time and nests for each operation word: a text longer than
    the evaluator's limit is refused as it is, not read (it used to take a minute, or overflow the stack)."""
    with pytest.raises(CalculationError, match="too long"):
        calculate.invoke({"expression": text})


def test_the_longest_text_read_still_reads() -> None:
    from cadence.builtins.math_language import MAX_READ_CHARS

    nested = "round " * 80 + "5"  # read, then refused by the evaluator for its length: an error, no crash
    with pytest.raises(CalculationError, match="too long"):
        calculate.invoke({"expression": nested})
    assert calculate.invoke({"expression": "round " * 20 + "5"}).endswith("= 5")
    padded = "so " * ((MAX_READ_CHARS - 20) // 3) + "add 7 and 8"
    assert len(padded) <= MAX_READ_CHARS and calculate.invoke({"expression": padded}).endswith("= 15")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("how many seconds in an hour", 3600),
        ("How many minutes are there in 3 hours?", 180),
        ("convert 5 km to meters", 5000),
        ("What is 90 minutes in hours?", 1.5),
        ("how many grams in 2.5 kg", 2500),
        ("how many inches in a foot", 12),
        ("5 miles is how many km", 8.04672),
        ("how many ml in 2 litres?", 2000),
        ("how many km is 13.1 miles", 21.0824064),
        ("kg in 150 pounds?", 68.0388555),
        ("What is metres in 3 miles", 4828.032),
        ("How many cups are in a gallon?", 16),
        ("6 feet 2 inches in cm", 187.96),
        ("1 hour and 45 minutes in minutes", 105),
        ("what is 100 km/h in mph", 62.137119223733),
        ("convert 20 knots to km/h", 37.04),
        ("how many square feet in an acre", 43560),
        ("2.5 hectares in acres", 6.177635),
        ("12 stone in kg", 76.20351816),
        ("What is 72 degrees Fahrenheit in Celsius?", 22.222222),
        ("convert -40 C to F", -40),
        ("how many degrees celsius is 98.6°F", 37),
        ("300 kelvin to celsius", 26.85),
        ("25c in kelvin", 298.15),
    ],
)
def test_units_of_the_same_kind_convert(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


def test_units_of_different_kinds_do_not_convert() -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression("how many minutes in a meter"))
    with pytest.raises(CalculationError):  # a year is months, never a fixed number of days
        evaluate(to_expression("how many days in a month"))
    with pytest.raises(CalculationError):  # a temperature is no length
        evaluate(to_expression("5 feet in celsius"))
    with pytest.raises(CalculationError):
        evaluate(to_expression("6 feet 20 minutes in cm"))


@pytest.mark.parametrize(
    ("text", "value"),
    [("How many months are in 2 years?", 24), ("convert 5 years to months", 60), ("36 months in years", 3)],
)
def test_months_and_years_convert_among_themselves(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


# --- whole questions as the embedded model passes them ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What's 3/8 as a decimal?", 0.375),
        ("convert 3/8 to a decimal", 0.375),
        ("What is 5/8 in decimal form?", 0.625),
        ("Express 7/4 as a decimal.", 1.75),
        ("3/8 as a decimal please", 0.375),
        ("Can you turn 2/3 into a decimal?", 2 / 3),
        ("What's one eighth as a decimal?", 0.125),
        ("what is three quarters as a decimal", 0.75),
        ("write 5/16 as a decimal number", 0.3125),
        ("What is 1/3 expressed as a decimal?", 1 / 3),
        ("give me 9/20 in decimal", 0.45),
        ("what's 11/4 in decimals", 2.75),
        ("two fifths as a decimal", 0.4),
    ],
)
def test_asking_for_a_decimal_is_framing(text: str, value: float) -> None:
    """Asking for the value "as a decimal", "to a decimal" or "in decimal form" is framing."""
    assert evaluate(to_expression(text)) == pytest.approx(value)


def test_a_decimal_asked_for_does_not_touch_decimal_places() -> None:
    assert evaluate(to_expression("round 3.14159 to 2 decimal places")) == pytest.approx(3.14)
    # a decimal asked as a fraction is written in lowest terms, exactly
    assert calculate.invoke({"expression": "What is 0.375 as a fraction?"}) == "0.375 = 3/8"
    assert calculate.invoke({"expression": "convert 2.5 to a fraction"}) == "2.5 = 5/2 = 2 1/2"
    assert calculate.invoke({"expression": "40% as a fraction in simplest form"}) == "40% = 2/5"
    assert calculate.invoke({"expression": "3 as a fraction"}) == "3 = 3 (a whole number: 3/1)"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What's 5*7 and what time is it in Tokyo?", 35),
        ("What is 12 * 4 and where is Paris?", 48),
        ("what's 100 / 8 and how are you today?", 12.5),
        ("Calculate 15% of 80 and what's the weather like?", 12),
        ("what is 9 squared and when does the shop open?", 81),
        ("What's 2 to the power of 10 and who invented the calculator?", 1024),
        ("what is 144 divided by 12 and why is the sky blue", 12),
        ("how much is 45 + 55 and which planet is biggest?", 100),
        ("What is 250 divided by 4, and what's the time in Berlin?", 62.5),
        ("What is 7 * 6 and how old is my cat?", 42),
        # a second question about the result is a step on it
        ("What is (3+4)*2? And what is that plus 1?", 15),
        ("What's 5*7 and what is its square root?", 35**0.5),
        ("What is 5*7, and what is that squared?", 1225),
        ("what is 100 / 4 and what is that times 3", 75),
        ("What is 12 * 4? Now double it.", 96),
    ],
)
def test_the_arithmetic_question_of_a_compound_question_is_read(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "What's 5*7 and how many hours are in a week?",
        "What is 250 divided by 4, and what's 10% of that?",  # a step on the result not read: not 62.5
    ],
)
def test_a_compound_question_with_more_arithmetic_is_not_cut_short(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})
    # two bare calculations: both worked out, one per line
    assert calculate.invoke({"expression": "what's 5*7 and what's 6*8?"}) == "5*7 = 35\n6*8 = 48"
    assert calculate.invoke({"expression": "What's 5*7 and what is 3 plus 2?"}) == "5*7 = 35\n3 + 2 = 5"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("A shirt costs $40 and is 25% off. What's the sale price?", 30),
        ("A jacket costs $120 and is 30% off. What does it cost now?", 84),
        ("25% off $40", 30),
        ("$40 with a 25% discount", 30),
        ("a 20% discount on 80", 64),
        ("What is the price of a $80 dress after a 20% discount?", 64),
        ("The TV is $500, on sale for 15% off. How much do I pay?", 425),
        ("Shoes priced at $90 are marked down 10%. What's the new price?", 81),
        ("How much is a $250 phone with a 12% discount?", 220),
        ("A $40 shirt is on sale at 25% off", 30),
        ("$60 plus 8% tax", 64.8),
        ("a $50 meal with a 20% tip", 60),
        ("Dinner was $45. I want to leave an 18% tip. What's the total?", 53.1),
        ("What is $200 with 20% VAT?", 240),
        ("A laptop costs $900 plus 7.5% sales tax. What is the total cost?", 967.5),
        ("The bill is $84; add a 15% tip.", 96.6),
        ("What do I pay for a $30 haircut with a 15 percent tip?", 34.5),
        ("A store buys a lamp for $40 and applies a 50% markup. What is the selling price?", 60),
        ("A $120 ticket has a 5% service fee. What's the total?", 126),
        # the tip, the tax or the discount itself
        ("How much is the tip on a $60 bill at 15%?", 9),
        ("What's a 15% tip on $60?", 9),
        ("How much tax do I pay on $60 at 8%?", 4.8),
        ("How much should I tip on a $75 bill at 20%?", 15),
        ("How much do I save with 25% off a $40 shirt?", 10),
        # shared
        ("Split an $84 bill four ways with a 15% tip", 24.15),
        ("Four friends split a $100 dinner with a 20% tip. How much does each pay?", 30),
        ("We split a $90 bill 3 ways plus 10% tip", 33),
        ("Share a $120 bill among 4 people with a 25% tip", 37.5),
        ("The bill is $84 and we add a 15% tip. Split between 4 of us, how much each?", 24.15),
        ("Split a $90 bill 3 ways", 30),
        ("A $64 bill split 4 ways with an 18% tip", 18.88),
        ("Three of us split a $75 bill with a 20% tip. How much each?", 30),
        # a raise or a cut is a change of the same kind
        ("I got a 10% raise on my $50000 salary. What is my new salary?", 55000),
        ("a 20% pay cut on a $3000 salary", 2400),
        ("The tax rate is 8%. My income is $50000. How much tax do I owe?", 4000),
    ],
)
def test_a_price_changed_by_a_percent(text: str, value: float) -> None:
    """A discount, a sale or "% off" lowers the price; a tip, a tax, VAT, a markup or a fee raises it."""
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "A shirt costs $30 after a 25% discount. How much was it?",  # the price after is given: then or now?
        "The price was reduced by 20% to $40.",
        "I got 25% off. I paid $30.",
        "A shirt costs $40 with 25% off and 8% tax.",  # two percents
        "How much is the tip on a $60 bill at 15% and what is the total?",  # two answers
        "What's the tip on a $60 bill at 15%, and how much do I pay?",
        "The price increased by 10% to $55. What was it?",
        "My salary increased 10% and is now $55000.",
        "A 15% tip was added to the $60 bill. What was the bill before the tip?",  # given, not worked out
        "A shirt costs $40 and is 25% off. What's the original price?",
        "Split a $84 bill with 3 friends with a 15% tip",  # 3 or 4 shares?
        "A $40 shirt is 25% off, double it",  # another operation
        "I have 3 shirts at $40 with 25% off",  # three numbers, no sharing
        "25% of the $40 shirts are on sale",  # a share of the shirts
    ],
)
def test_a_price_problem_that_is_not_one_change_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "expression", "value"),
    [
        (
            "I paid $45 for a shirt that was 25% off. What was the original price?",
            "(45 * 100 / (100 - 25))",
            "60",
        ),
        ("After a 20% discount a jacket costs $80. What was the price before the discount?", None, "100"),
        ("A meal cost $54 including 8% tax. What was the price before tax?", "(54 * 100 / (100 + 8))", "50"),
        ("The price was reduced by 20% to $40. What was the original price?", None, "50"),
        ("My salary rose 10% to $55,000. What was it before?", "(55000 * 100 / (100 + 10))", "50000"),
        ("A TV now sells for $360 after a 10% markdown. What was its original price?", None, "400"),
        ("After a 15% tip the bill came to $69. How much was the bill before the tip?", None, "60"),
        # the part itself, from the price after
        ("After a 25% discount it costs $30. How much did I save?", "(30 * 25 / (100 - 25))", "10"),
        (
            "The bill came to $64.50 with a 20% tip. How much was the tip?",
            "(64.50 * 20 / (100 + 20))",
            "10.75",
        ),
        # the price before given in words: the price after
        (
            "A shirt originally cost $40 and is 25% off. What's the price now?",
            "(40 * (100 - 25) / 100)",
            "30",
        ),
        ("The regular price is $80 and it's 20% off. What do I pay?", None, "64"),
        ("The stock fell 20% from $50. What is it now?", None, "40"),
    ],
)
def test_a_price_before_or_after_one_change_is_worked_out(
    text: str, expression: str | None, value: str
) -> None:
    result = calculate.invoke({"expression": text})
    if expression is not None:
        assert result.startswith(f"{expression} = ")
    assert result.split(" = ")[1].split(" ")[0] == value


def test_calculate_shows_the_price_it_computed() -> None:
    assert calculate.invoke({"expression": "$60 plus 8% tax"}) == "(60 * (100 + 8) / 100) = 64.8 ($64.80)"
    answer = calculate.invoke({"expression": "Split an $84 bill four ways with a 15% tip"})
    assert answer == "((84 * (100 + 15) / 100) / 4) = 24.15 ($24.15)"


@pytest.mark.parametrize(
    ("text", "expression", "value"),
    [
        ("If I save $150 a month, how much will I have after 2 years?", "(150 * 2 * 12)", 3600),
        ("It costs 5 dollars a month. What is the cost for 2 years?", "(5 * 2 * 12)", 120),
        ("I save $10 a week. How much do I have after a year?", "(10 * 52)", 520),
        ("A tap drips 2 liters per minute. How much water in 3 hours?", "(2 * 3 * 60)", 360),
        ("A car drives 60 km per hour. How far does it go in 90 minutes?", "(60 * 90 / 60)", 90),
        ("I walk 5 km an hour for 30 minutes.", "(5 * 30 / 60)", 2.5),
        ("My heart beats 70 times a minute. How many beats in an hour?", "(70 * 60)", 4200),
        ("She earns $20 per hour. How much in 45 minutes?", "(20 * 45 / 60)", 15),
        ("A subscription is $12 per month. What does it cost over 3 years?", "(12 * 3 * 12)", 432),
        ("I spend $5 a day on coffee. How much in 2 weeks?", "(5 * 2 * 7)", 70),
        ("A factory makes 300 parts per day. How many parts in 4 weeks?", "(300 * 4 * 7)", 8400),
        ("I earn $52000 a year. How much is that for 2 weeks?", "(52000 * 2 / 52)", 2000),
        ("I read 20 pages per day. How many pages in 3 weeks?", "(20 * 3 * 7)", 420),
        ("A printer prints 15 pages a minute. How many in 2 hours?", "(15 * 2 * 60)", 1800),
        ("If I save $150 monthly, how much after 2 years?", "(150 * 2 * 12)", 3600),
        ("Rent is $1200 a month. What is it for a year?", "(1200 * 12)", 14400),
        ("I work 8 hours a day for 2 weeks. How many hours?", "(8 * 2 * 7)", 112),
        ("A car drives 60 km/h for 90 minutes", "(60 * 90 / 60)", 90),
        # a speed in one word
        ("If a car travels 60 mph for 2.5 hours, how far does it go?", "(60 * 2.5)", 150),
        ("How far do you go in 45 minutes at 60 mph?", "(60 * 45 / 60)", 45),
        ("A train at 120 kph for 90 minutes: how far?", "(120 * 90 / 60)", 180),
        ("In 3 years, how much will I pay at $40 a month?", "(40 * 3 * 12)", 1440),
        ("I earn $36500 a year. How much in 10 days?", "(36500 * 10 / 365)", 1000),
        ("I drink 2 liters of water a day. How much in a week?", "(2 * 7)", 14),
        ("I walk 10000 steps a day. How many steps in a year?", "(10000 * 365)", 3650000),
    ],
)
def test_a_rate_for_a_time_in_another_unit(text: str, expression: str, value: float) -> None:
    """An amount per unit of time over a time in another unit: the time converted into the rate's unit."""
    assert to_expression(text) == expression
    assert evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "A plant grows 2 cm per week. How much in 3 months?",  # a month is no fixed number of weeks
        "I spend $3 a day. How much in a month?",
        "I work 8 hours a day. How many days is 40 hours?",  # a division
        "I pay $50 a month. How many months in 2 years?",
        "The population grows 2% a year. What after 10 years?",  # compound growth
        "I take 2 pills twice a day. How many in a week?",
        "I earn $20 an hour and work 8 hours a day. How much in a week?",  # two rates (was 160)
        "A car goes 60 km per hour. How long to drive 150 km there and back?",  # (150 km alone: 2.5 hours)
        "How many months until I have saved $1800 at $150 a month?",
    ],
)
def test_a_rate_problem_that_is_not_one_product_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What is the area of a circle with radius 3?", math.pi * 9),
        ("Find the area of a circle with a radius of 5 cm.", math.pi * 25),
        ("What's the area of a circle whose diameter is 10?", math.pi * 25),
        ("Area of a circle, radius 4", math.pi * 16),
        ("the circumference of a circle with radius 7", 2 * math.pi * 7),
        ("What is the perimeter of a circle with a diameter of 8 inches?", math.pi * 8),
        ("the area of a circle with a 6 inch diameter", math.pi * 9),
        ("the area of a circle with a 6-inch diameter", math.pi * 9),
        ("What is the perimeter of a square with 6 cm sides?", 24),
        ("area of a circle r = 3", math.pi * 9),
        ("What is the area of a rectangle with length 8 and width 5?", 40),
        ("area of a rectangle 12 m long and 3 m wide", 36),
        ("the perimeter of a rectangle with sides 4 and 9", 26),
        ("What is the area of a 6 by 4 rectangle?", 24),
        ("What is the perimeter of a rectangle, 4 x 6", 20),  # was 4 * 6
        ("What is the area of a square with side 7?", 49),
        ("the perimeter of a square with side length 2.5", 10),
        ("What is the area of a triangle with a base of 10 and a height of 6?", 30),
        ("triangle area with base 8 and height 3", 12),
        ("What is the volume of a cube with side 3 cm?", 27),
        ("volume of a cube with an edge of 4", 64),
        ("What is the surface area of a cube with side 2?", 24),
        ("What is the volume of a sphere with radius 2?", 4 / 3 * math.pi * 8),
        ("the volume of a cylinder with radius 2 and height 10", math.pi * 40),
        # the sizes in a sentence of their own
        ("A sphere has a diameter of 6 m. What is its volume?", 4 / 3 * math.pi * 27),
        ("A square has sides of 5 cm. What is its perimeter?", 20),
        ("A triangle has a base of 12 and a height of 5. Find its area.", 30),
        ("A rectangle is 4 x 6. What is its perimeter?", 20),  # was 4 * 6
        # a formula is an operand like any other
        ("the area of a circle with radius 3, then double it", 2 * math.pi * 9),  # was 3 * 2
        ("What is the area of a circle with radius 3 plus 2?", math.pi * 9 + 2),
        ("What is double the area of a circle with radius 3?", 2 * math.pi * 9),
        ("What is the area of a circle with radius 3, rounded to 2 decimal places?", 28.27),
        # one quantity from another: a square's side is a quarter of its perimeter (it had been 20 squared,
        # then refused)
        ("The perimeter of a square is 20. What is its area?", 25),
        # a thing sized by its length and width is a rectangle (its perimeter had been refused)
        ("A garden is 10 m long and 4 m wide. What is its perimeter?", 28),
        ("My room is 5 m long and 4 m wide. What is the area of the room?", 20),
        ("A square has an area of 49 cm². What is its perimeter?", 28),
        ("A circle has a circumference of 31.4 m. What is its area?", math.pi * (31.4 / (2 * math.pi)) ** 2),
    ],
)
def test_a_shapes_area_perimeter_or_volume(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "What is the diagonal of a square with side 2?",  # was 2 squared
        "A circle has a radius of 3. What is double its area?",  # not the area
        "What is the area of a circle with radius 3 and a square with side 2?",
        "What is the area of a square with side 4 and width 3?",
        "What is the area of a triangle with sides 3, 4 and 5?",
        "What is the area of a circle?",
        "What is the area of a circle with radius -3?",  # was pi * -3 ** 2
    ],
)
def test_a_shape_question_without_its_formula_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    "text",
    [
        "What's the weather like in Paris?",
        "What's 5 and what time is it in Tokyo?",
        "hello there",
        "import os",
        "what is 2 +* 3",
        "What time is it in Tokyo?",
    ],
)
def test_words_that_read_as_no_arithmetic_say_so_not_the_parser(text: str) -> None:
    with pytest.raises(CalculationError) as info:
        calculate.invoke({"expression": text})
    message = str(info.value)
    assert message.startswith("Could not read the text as arithmetic") and '"15% of 80"' in message
    assert "literal" not in message and "invalid syntax" not in message and "\n" not in message


@pytest.mark.parametrize("text", ["2 +* 3", "sqrt(2 +* 3)", "(1 + 2"])
def test_malformed_symbols_keep_the_parser_message(text: str) -> None:
    with pytest.raises(CalculationError, match="Malformed expression"):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "result"),
    [
        (
            "What is 72 degrees Fahrenheit in Celsius?",
            "72 °F = 22.22 °C (exactly ((72 - 32) * 5 / 9) = 22.2222222222)",
        ),
        (
            "How many km is a marathon of 26.2 miles?",
            "26.2 miles = 42.16 km (exactly (26.2 * 1609344 / 1000000) = 42.1648128)",
        ),
        (
            "I'm 5 ft 9 in. How tall is that in cm?",
            "5 ft 9 in = 175.26 cm (read as ((5 * 304.8 + 9 * 25.4) / 10))",
        ),
        ("If it is 30°C outside, what is that in Fahrenheit?", "30 °C = 86 °F (read as ((30) * 9 / 5 + 32))"),
        ("how many cups in a gallon", "1 gallon = 16 cups (read as (1 * 3785.411784 / 236.5882365))"),
        # an ounce of a volume is a fluid ounce; of a mass, an ounce of weight
        ("How many ounces in 2 cups?", "2 cups = 16 ounces (read as (2 * 236.5882365 / 29.5735295625))"),
        ("16 oz in ml", "16 oz = 473.18 ml (exactly (16 * 29.5735295625 / 1) = 473.176473)"),
        ("How many ounces in a pound?", "1 pound = 16 ounces (read as (1 * 453592.37 / 28349.523125))"),
        # one of a unit asked with "is", or how long it is in another
        ("How many feet is a meter?", "1 meter = 3.28 feet (exactly (1 * 1000 / 304.8) = 3.28083989501)"),
        (
            "How many kilometers is a marathon?",
            "1 marathon = 42.2 kilometers (exactly (1 * 42195000 / 1000000) = 42.195)",
        ),
        (
            "How heavy is a stone in kg?",
            "1 stone = 6.35 kg (exactly (1 * 6350293.18 / 1000000) = 6.35029318)",
        ),
    ],
)
def test_a_conversion_says_both_quantities_with_their_units(text: str, result: str) -> None:
    assert calculate.invoke({"expression": text}) == result


def test_a_question_with_a_second_number_is_no_conversion() -> None:
    """ "3 laps of 400 m" is a product, not 400 m converted."""
    assert read_conversion("how many km are 3 laps of 400 m") is None
    assert read_conversion("I drove 300 km in 4 hours, how many km per hour") is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("A jacket is $120 with 30% off, and then 8% sales tax is added. What do I pay?", 90.72),
        ("What's 15% off $80 plus 8% tax?", 73.44),  # asked as a value (it had been an error)
        ("What's an 18% tip on $47.50 split 3 ways?", 2.85),  # each one's share of the tip (an error)
        ("What is 20% off $50 plus a 10% tip?", 44),
        ("A $45 pair of shoes is 20% off and there's a 6% tax. What's the final price?", 38.16),
        ("A coat is $200 with a discount of 25% and tax of 10%. What's the total?", 165),
        ("A $80 dress is 10% off, then another 20% off. What do I pay?", 57.6),
        # a clause changing the result is never left out as context (it had been $51: the 15% alone)
        ("What is 15% off $60, then another 10% off?", 45.9),
    ],
)
def test_a_price_changed_by_percents_in_turn(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I had $500 and spent $137.25 on groceries and $89.99 on shoes. How much is left?", 272.76),
        ("Ana had 80 stickers, gave 15 to Ben and 22 to Cal. How many does she have left?", 43),
        ("Tom had 50 marbles. He lost 12, gave away 8, and sold 5. How many marbles are left?", 25),
        ("I had $200 and spent $50 on food, $30 on gas and then $20 on a movie. How much remains?", 100),
    ],
)
def test_several_amounts_taken_from_one(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I bought 4 notebooks at $3.75 each and a pen for $2.40. What did I spend in total?", 17.4),
        ("3 shirts at $15 each and 2 pants at $30 each: total?", 105),
        (
            "She bought 2 pizzas at $12 each, 3 sodas at $1.50 each and a salad for $7. How much did she pay?",
            35.5,
        ),
        ("Tickets are $18 each for adults and $11 for kids. What do 2 adults and 3 kids pay?", 69),
        (
            "Tickets are $18 for adults and $11 for children. How much for 2 adults and 3 children in total?",
            69,
        ),
        # the price said of one thing, and "how much for" (it had been the small model's guess)
        ("A book costs $15 and a pen costs $2. How much for 3 books and 4 pens?", 53),
        ("Apples cost $2 and oranges cost $3. How much would 4 apples and 2 oranges cost?", 14),
        # one thing counted with "a" after the prices (it had been an error)
        ("A coffee is $4 and a muffin is $3. What do 2 coffees and a muffin cost?", 11),
        ("A book costs $15 and a pen costs $2. How much for a book and 3 pens?", 21),
    ],
)
def test_a_total_of_things_bought_at_a_price_each(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("A 750 g box of cereal costs $4.50. What is the price per 100 g?", 0.6),
        ("A pack of 6 yogurts costs $4.38. How much is one yogurt?", 0.73),
        ("My car used 42 liters for 600 km. How many liters per 100 km?", 7),
        # the fuel consumption asked by name (it had reached the docs: "consumption" is no unit)
        (
            "A car travels 450 km on 30 liters of fuel. What is its fuel consumption per 100 km?",
            30 * 100 / 450,
        ),
        ("I drove 600 km on 42 liters; how many km per liter?", 600 / 42),
        ("A 2 kg bag of rice costs $6. What is the price per kg?", 3),
        ("A box of 12 pens costs $6. How much is 1 pen?", 0.5),
        ("I worked 40 hours for $800. How much per hour?", 20),
    ],
)
def test_a_price_or_an_amount_per_unit(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Our lunch came to $64.50. How much is a 20% tip?", 12.9),
        ("Dinner came to $80. What's a 15% tip?", 12),
        ("Five of us are splitting a $212.50 cab fare plus a $15 tip. How much does each pay?", 45.5),
        ("The 4 of us split a $100 dinner and a $20 tip. How much does each pay?", 30),
        ("What is the hypotenuse of a right triangle with legs 3 and 4?", 5),
        ("What is the hypotenuse of a right triangle with sides 5 and 12?", 13),
        ("What is the hypotenuse of a right-angled triangle with legs of 9 and 12?", 15),
        ("A right triangle has legs 6 and 8. What is its hypotenuse?", 10),
        ("What is the area of a right triangle with legs 3 and 4?", 6),
    ],
)
def test_a_tip_on_a_bill_a_shared_fixed_tip_and_a_hypotenuse(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        # percents in turn: each must say which way it goes, one price, the price asked for
        "A shirt is $40 with 25% and 8% tax. What do I pay?",  # 25% of what?
        "Two shirts are $40 with 25% off and 8% tax. What do I pay?",  # two numbers besides the percents
        "A shirt is $40, 25% off and 8% tax. How much is the tax?",  # the tax itself
        "A $40 shirt is 25% off and 8% tax. Split it between 2 friends. How much each?",
        # amounts taken: all taken, of the same things, what is left asked
        "I had $100 and spent $40 on 3 shirts. How much is left?",  # 3 shirts are no dollars
        "I had $500 and spent $100 on food and $50 on gas. How much did I spend?",
        "I have 3 hours and spent 30 minutes on math and 45 minutes on reading. How much time is left?",
        "I had $500 and spent $137.25 on groceries and $89.99 on shoes. How much is left and how much did I spend?",
        # things bought: a price each, every number used, a total asked
        "I bought 3 shirts for $45 and a hat for $10. What's the total?",  # $45 for all three?
        "I bought 4 notebooks at $3.75 each and a pen for $2.40.",  # nothing asked
        "Tickets are $18 for adults and $11 for kids. What do 2 adults pay?",  # the kids' price unused
        # per unit: the amounts given once, nothing per unit or each already
        "I have 3 boxes with 12 eggs. How many eggs per box?",  # 12 in all or in each?
        "My car used 40 liters for 500 km. How many km per liter, and what does it cost?",
        "A 500 ml bottle costs $2. What is the cost per liter?",  # another unit
        # the tip and the total: two answers
        "Our dinner came to $80. How much is a 15% tip, and what is the total?",
        # a fixed tip shared among a number of people
        "Split a $100 dinner and a $20 tip with 3 friends. How much each?",  # 3 or 4 shares?
        "We split a $100 dinner plus a 20% tip plus a $5 fee among 4. How much each?",
        # a hypotenuse from two legs only
        "What is the hypotenuse of a triangle with sides 3, 4 and 5?",
        "What is the hypotenuse of a right triangle with a leg of 3?",
    ],
)
def test_a_shopping_problem_that_is_not_one_of_these_forms_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


def test_calculate_shows_the_shopping_problem_it_read() -> None:
    answer = calculate.invoke(
        {"expression": "I had $500 and spent $137.25 on groceries and $89.99 on shoes. How much is left?"}
    )
    assert answer == "(500 - 137.25 - 89.99) = 272.76 ($272.76)"
    answer = calculate.invoke({"expression": "My car used 42 liters for 600 km. How many liters per 100 km?"})
    assert answer == "(42 * 100 / 600) = 7"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I ran 5.2 km, 6.8 km, 4.5 km and 7.1 km this week. What was my average run?", 5.9),
        ("My test scores were 82, 91 and 77. What's my mean score?", 83.3333333333),
        ("Sales: $120, $80, $95, $105. The average?", 100),
    ],
)
def test_the_average_of_a_list_asked_apart_from_it(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "I ran 5 km, 6 km and 4 miles. What's my average?",  # not one unit
        "On average I spend $20 a day. How much in 7 days and 3 weeks?",  # no list
    ],
)
def test_no_average_without_one_list_of_the_same_things(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # things bought at a price each, then percents in turn
        (
            "I'm buying 3 shirts at $24.99 each. They're 15% off and then there's 7% sales tax. What's my total?",
            3 * 24.99 * 0.85 * 1.07,
        ),
        ("I bought 2 lamps at $40 each with 25% off, then 8% tax. What do I pay?", 64.8),
        ("4 books at $12.50 each, a discount of 20% and tax of 5%. What's the total?", 42),
        ("I buy 4 books at $12 each with 10% off. What's the total?", 43.2),
        ("2 pizzas at $15 each plus a 20% tip", 36),
        ("4 friends buy 3 pizzas at $12 each with a 15% tip. How much does each pay?", 10.35),
        ("How much is the discount on 4 books at $12 each with 10% off?", 4.8),
        # amounts paid from a first one
        (
            "I started the month with $1,200, paid $650 rent and $118.40 for groceries. What do I have left?",
            431.6,
        ),
        ("I started the week with $300, spent $45 lunch money and $20 on gas. How much is left?", 235),
        (
            "I had 500 dollars, paid 200 dollars for rent and 50 dollars for food. How much do I have left?",
            250,
        ),
        # a part of a time in words
        ("a printer does 42 pages per minute. how many pages in a quarter of an hour?", 630),
        ("A car drives 60 km per hour. How far in half an hour?", 30),
        ("I earn $20 an hour. How much for an hour and a half?", 30),
        ("A pump moves 12 liters per minute. How much in three quarters of an hour?", 540),
        ("I sleep 8 hours a day. How many hours in a week and a half?", 84),
        ("how many minutes in half a day", 720),
        # a part out of a whole asked as a percentage
        ("18 out of 24 students passed. what percent is that?", 75),
        ("I got 45 out of 60 on the test. What percentage is that?", 75),
        ("42 out of 50 seeds sprouted. What percentage sprouted?", 84),
        ("She made 9 out of 12 free throws. What is that as a percentage?", 75),
        # a price per thing of a pack
        ("A 12-pack of soda is $7.80. Whats the price per can?", 0.65),
        ("A 24-pack of water bottles costs $6. What's the price per bottle?", 0.25),
        ("A pack of 8 is $6. How much is each muffin?", 0.75),
        ("A 6-pack of beer costs $10.50. What is the cost per bottle?", 1.75),
        # a fee on each thing bought
        ("I need to buy 5 tickets at $32 each and pay a $4.50 booking fee per ticket. Total?", 182.5),
        (
            "I'm ordering 3 concert tickets at $45 each plus a $6 service fee per ticket. What's the total?",
            153,
        ),
        ("4 shirts at $20 each with a $2.50 shipping charge each. How much in total?", 90),
        # a hypotenuse without the shape named
        ("Find the hypotenuse when the two shorter sides are 8 and 15", 17),
        ("What is the hypotenuse if the legs are 5 and 12?", 13),
        ("the hypotenuse of a right triangle with legs of length 7 and 24", 25),
        ("A right triangle's two shorter sides are 9 and 40. What is the hypotenuse?", 41),
        ("Find the hypotenuse when both legs are 20 and 21", 29),
        # a tip, then shared by the people of a group
        ("We owe $210 for a group dinner, with 3 people, plus an 18% tip. How much per person?", 82.6),
        ("Dinner for 4 people is $180 plus a 20% tip. How much per person?", 54),
        ("3 of us had a $90 meal and add a 10% tip. How much each?", 33),
        ("With 5 people, our $250 bill plus a 12% tip. How much each?", 56),
        # a percentage of an amount taken from it
        ("I have 500 dollars. I spend 35% of it on a bike. How much money do I have left?", 325),
        ("I had $80 and gave away 25% of it. How much do I have left?", 60),
        ("I have $40 and spend 25% of it. How much is left?", 30),  # was 40 - 25
        ("Tom has $1,200 in savings. He spends 40% of his savings on a laptop. How much remains?", 720),
        # "x" between numbers
        ("Please work out 1,006 x 7", 7042),
        ("what is 12 x 3.5", 42),
        ("2,500 x 4 please", 10000),
    ],
)
def test_more_shopping_time_and_share_problems(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "I bought 2 lamps at $40 with 25% off, then 8% tax. What do I pay?",  # $40 for both?
        "I have 3 shirts at $40 each with 25% off. How many shirts?",  # not a price asked
        "I bought 2 lamps at $40 each and a rug for $90 with 25% off, then 8% tax. What do I pay?",
        "I had $100 and paid 3 bills of $20. How much is left?",
        "I started the month with $1,200 and paid $650 rent and 3 shirts. What do I have left?",
        "A plant grows 2 cm per week. How much in half a month?",  # a month is no fixed number of weeks
        "42 out of 50 seeds sprouted. What percentage failed?",  # not the part given
        "18 out of 24 students passed and 3 were absent. What percent is that?",
        "18 out of 24 students passed. How many failed?",
        "A 12-pack of soda is $7.80. What is the price per 100 ml?",
        "A 12-pack of soda is $7.80. What is the price per pack?",
        "5 tickets at $32 each and a $4.50 booking fee per order. Total?",  # once, or per ticket?
        "5 tickets at $32 each and a $4.50 booking fee per ticket.",  # nothing asked
        "5 tickets at $32 each and a $4.50 booking fee per ticket and 2 drinks. Total?",
        "Find the hypotenuse when one side is 8",
        "Find the hypotenuse when the sides are 3, 4 and 5",
        "Split a $210 bill with 3 people plus an 18% tip. How much each?",  # 3 or 4 shares?
        "We owe $210 for dinner with 3 friends, plus an 18% tip. How much per person?",
        "I have 500 dollars and earn 10% of it. How much is left?",
        "I have 500 dollars and 20 cents. I spend 35% of it. How much is left?",
        "I have 500 dollars. I spend 35% of it and then $50. How much is left?",
    ],
)
def test_more_shopping_time_and_share_problems_not_of_these_forms_are_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # several things, each "N things of a kind at $X each"
        (
            "I bought 3 bags of rice at $6.49 each and 2 bottles of oil at $8.75 each. What's the total?",
            36.97,
        ),
        (
            "I bought 2 packs of gum at $1.25 each and 4 cans of soda at $0.99 each. What did I spend in total?",
            6.46,
        ),
        # a percent of an amount with what it is for after it
        ("What is 17.5 percent of 2,360 for an invoice?", 413),
        ("What is 8 percent of 450 for the deposit?", 36),
        ("What's 15% of 1,200 on a loan?", 180),
        # a temperature asked in another scale after it
        ("It's -18 degrees celsius outside. In fahrenheit that's what?", -0.4),
        ("It's 77 degrees fahrenheit. In celsius that's what?", 25),
        ("It's 300 K. In celsius is that what?", 26.85),
        # a fraction of a unit
        ("How many tablespoons are in 3/4 cup?", 12),
        ("How many teaspoons are in 2/3 tablespoon?", 2),
        ("How many ml are in 1/2 cup?", 118.29411825),
        # a round thing by its width, asked its area
        ("A pizza is 16 inches across. How many square inches is it?", math.pi * 64),
        ("A pie is 10 inches across. What's its area?", math.pi * 25),
        ("A plate is 30 cm wide. How many square cm is it?", math.pi * 225),
        ("A pizza is 12 inches in diameter. How many square inches is it?", math.pi * 36),
        # a fixed amount off, then a percent added
        ("a $1,299 laptop, $200 off, plus 5% tax", 1153.95),
        ("A $80 jacket, $15 off, plus 8% tax", 70.2),
        # a change asked as a rate
        ("Our revenue grew from 12,500 to 14,000. What's the growth rate?", 12),
        ("Our sales dropped from 800 to 680. What's the rate of decrease?", -15),
        # a trapezoid by its parallel sides and height
        ("Area of a trapezoid with parallel sides 8 and 12 and height 5?", 50),
        ("area of a trapezium with bases 6 and 10 and height 4", 32),
        # a quantity at a price per unit
        ("2.4 kg of apples at $3.15 per kg, how much?", 7.56),
        ("3.5 pounds of beef at $4.20 per pound, what's the cost?", 14.7),
        # things bought from an amount
        ("I had $50, bought 3 tickets at $12.50 and a snack for $7.25. What's left?", 5.25),
        ("I had $100, bought 2 shirts at $24.50 and a hat for $12. How much is left?", 39),
        # a part "of" a whole asked as a percentage
        ("64 of 320 people said yes. What share is that in %?", 20),
        ("45 of 60 students passed. What percent is that?", 75),
        # things packed in groups
        ("96 cookies go in boxes of 14. How many cookies are left over?", 12),
        ("96 cookies go in boxes of 14. How many full boxes?", 6),
        ("100 eggs are packed in cartons of 12. How many eggs are left over?", 4),
        ("100 eggs are packed in cartons of 12. How many full cartons?", 8),
        # a total done at a rate
        ("A book has 420 pages and I read 35 a day. How many days to finish?", 12),
        ("A book has 420 pages and I read 35 pages a day. How many days will it take?", 12),
        ("A tank holds 600 liters and a pump fills 40 liters a minute. How many minutes to fill it?", 15),
        # read before, kept
        ("What's the perimeter of a square with 7.5 cm sides?", 30),
        ("A jacket is $250 but it's 35% cheaper today, plus 9.5% tax. What do I pay?", 250 * 0.65 * 1.095),
        ("What's the average of $84, $97, $112 and $75?", 92),
        ("What's the surface area of a sphere with radius 11?", 4 * math.pi * 121),
        ("If I drive 210 km in 2.5 hours, what's my average speed?", 84),
    ],
)
def test_more_everyday_questions(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "I bought 3 bags of rice for $6.49 and 2 bottles of oil at $8.75 each. What's the total?",  # 3 for 6.49?
        "A room is 4 m wide. How many square m is it?",  # not round
        "A pizza is 16 inches across. How many square cm is it?",  # another unit
        "A pizza is 16 inches across and 2 inches thick. How many square inches is it?",
        "a $1,299 laptop, $200 off, plus 5% tax, then $50 shipping",
        "Our revenue grew from 100 to 150 over 5 years. What's the growth rate?",  # per year
        "The population grew from 2000 to 2500. What's the growth rate per year?",
        "the area of a trapezoid with parallel sides 6 and 10",  # no height
        "2.4 kg of apples at $3.15 per lb, how much?",  # another unit
        "I had $100, bought 2 shirts for $24.50 and a hat for $12. How much is left?",  # 2 for 24.50?
        "I had $100, bought 2 shirts at $24.50, then earned $20. How much is left?",
        "45 of 60 students passed. What percent failed?",
        "100 eggs are packed in cartons of 12. How many cartons?",  # full ones, or all needed?
        "100 eggs are packed in cartons of 12.5. How many are left over?",
        "A book has 420 pages and I read 35 words a day. How many days to finish?",
        "A book has 420 pages and I read 35 a day. How many weeks to finish?",
    ],
)
def test_more_everyday_questions_not_of_these_forms_are_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My garden is 18 m by 7.5 m. What is its area?", 135),
        ("What is the area of a room 12 ft by 15 ft?", 180),
        ("how many square feet is a 12 x 15 room?", 180),
        ("volume of a box 30 cm by 20 cm by 15 cm", 9000),
        ("What is the volume of a box 2 by 3 by 4?", 24),  # refused before this reader: now read right
        ("How many square feet is a 10 by 12 room?", 120),
    ],
)
def test_an_area_or_a_volume_by_its_sizes(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text", ["a room 12 ft by 15 m, area?", "18 m by 7.5 m: perimeter?", "a 2 by 3 by 4 box: its area?"]
)
def test_no_area_of_mixed_units_nor_a_perimeter_by_product(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("9 people share a $1,386 cabin. How much each?", 154),
        ("3 of us split a $60 pizza. how much does each pay?", 20),
        ("4 friends split a 90 dollar bill", 22.5),
    ],
)
def test_a_share_with_the_sharers_named_first(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The water bill is $96.30 and we are 3 in the house. How much does each of us pay?", 32.1),
        ("Rent is 2,850 and there are 3 of us. How much does each pay?", 950),
        ("Our internet bill came to $74.85 and there are 5 of us. What's each person's share?", 14.97),
        ("We are 4 and the bill is 80 dollars. How much does each owe?", 20),
        ("The 3 of us paid 45 dollars in total, how much did each pay?", 15),
        ("Split $412.80 between 6 people", 68.8),
        ("$150 divided among 4 flatmates", 37.5),
        ("$92 shared equally among 4 friends", 23),
        # something shared, not a bill by name (had been no arithmetic, then the model's invention)
        ("If a pizza costs $18 and we are 4 people, how much does each pay?", 4.5),
        ("A gift costs $60 and we are 3. How much does each of us pay?", 20),
    ],
)
def test_an_amount_shared_by_a_number_of_people(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "The bill is $80 and there are 4 of us. How much do we pay?",  # the total, not a share
        "4 of us each paid $20. How much was the bill?",  # a product
        "4 of us ran 10 km. How much did each person run?",  # nothing paid together
        "Our bill is $120 and I'm with 3 friends. How much does each pay?",  # 3 or 4 shares?
        "Dinner cost $180 per person for 4 people. How much does each pay?",  # already each one's
        "Tickets cost $24 and there are 4 of us. How much does each pay?",  # a price may be each one's
        "The bill is $120 for 4 hours of parking. How much each?",  # 4 hours are no people
        "Our bill is $237.60 and there are 4.5 of us. How much does each person owe?",
        "The bill is $96.30 and there are 3 of us. How much does each person owe, and what is the tip?",
    ],
)
def test_an_amount_not_shared_by_people_is_not_read_as_a_share(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        (
            "A soup recipe for 6 servings needs 1.5 liters of stock. How much stock for 8 servings?",
            "(1.5 * 8 / 6)",
        ),
        ("This recipe serves 4 and calls for 250 ml of milk. How much milk to serve 6?", "(250 * 6 / 4)"),
        (
            "A recipe that makes 24 cookies uses 2 cups of flour. How much flour do I need to make 36 cookies?",
            "(2 * 36 / 24)",
        ),
        ("For 12 muffins you need 180 g of sugar. How much sugar for 30 muffins?", "(180 * 30 / 12)"),
        ("A recipe for 5 people uses 4 eggs. How many eggs for 15 people?", "(4 * 15 / 5)"),
    ],
)
def test_a_quantity_scaled_to_another_number_of_servings(text: str, expression: str) -> None:
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    "text",
    [
        "A recipe for 4 people uses 250 g of rice. How much sugar do I need for 6 people?",  # not given
        "A bus for 40 people costs $600. How much for 10 people?",  # no recipe: a cost does not scale
        "A recipe for 4 people uses 250 g of rice per person. How much rice for 6 people?",
        "A recipe for 4 people uses 250 g of rice. How much rice for 6 cakes?",  # people, then cakes
        "A recipe for 4 people uses 250 g of rice and 2 eggs. How much rice for 6 people?",
        "A recipe for 4 people uses 250 g of rice.",  # nothing asked
        "I cooked for 4 people with 250 g of rice. How long for 6 people?",
    ],
)
def test_a_quantity_not_scaled_by_servings_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What share of 250 is 40, in percent?", 16),
        ("What fraction of 250 is 40, as a percentage?", 16),
        ("what proportion of 80 is 12 in %", 15),
        ("30 is what share of 120, as a percentage?", 25),
    ],
)
def test_a_named_share_asked_in_percent(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


def test_a_named_share_without_a_percent_asked_is_not_read() -> None:
    """A share, a fraction or a proportion is a percentage only when one is asked for (0.16 or 16?)."""
    with pytest.raises(CalculationError):
        evaluate(to_expression("What share of 250 is 40?"))


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("My car uses 7.2 litres per 100 km. How much fuel for a 450 km trip?", "(450 * 7.2 / 100)"),
        ("I'm driving 520 km and the car does 5.8 l/100km. how many liters do I need?", "(520 * 5.8 / 100)"),
        ("My car gets 40 mpg. How many gallons for 300 miles?", "(300 / 40)"),
        ("My car does 15 km per liter. How much petrol do I need for 420 km?", "(420 / 15)"),
    ],
)
def test_fuel_for_a_distance(text: str, expression: str) -> None:
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("A car uses 8 liters per 100 km. How much fuel for 350 km?", "(350 * 8 / 100) = 28 liters"),
        ("My car gets 40 mpg. How much gas for 300 miles?", "(300 / 40) = 7.5 gallons"),
        ("My car uses 6.5 L per 100 km. How much fuel for 340 km?", "(340 * 6.5 / 100) = 22.1 L"),
    ],
)
def test_fuel_for_a_distance_is_said_in_the_fuels_unit(text: str, said: str) -> None:
    """ "A car uses 8 liters per 100 km. How much fuel for 350 km?" had been answered "28", no unit."""
    assert calculate.invoke({"expression": text}) == said


@pytest.mark.parametrize(
    "text",
    [
        "if I drive 250 km and my car uses 7 L per 100 km, how much fuel do I need for the round trip",
        "if I drive 250 miles and my car uses 7 L per 100 km, how much fuel do I need",  # another unit
        "if I drive 250 km and my car uses 7 L per 100 km, how many gallons do I need",
        "I drive 40 km a day and my car uses 7 L per 100 km. How much fuel?",  # a day, for how long?
        "I drive 250 km, my car uses 7 L per 100 km and fuel is $1.80 a liter. How much fuel do I need?",
        "My car uses 7 L per 100 km. How much fuel do I need?",  # no distance
        "if I drive 250 km and my car uses 7 L per 100 km, how much will the fuel cost",  # no price given
    ],
)
def test_fuel_not_for_one_distance_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "expression", "value"),
    [
        (
            "A cyclist covers 42 km in 1 hour 45 minutes. What's her average speed in km/h?",
            "(42 / (1 + 45 / 60))",
            24,
        ),
        ("She swam 1500 m in 25 minutes. What was her speed in km/h?", "(1500 / 1000 / (25 / 60))", 3.6),
        ("A runner does 400 m in 50 seconds. What's his speed in km/h?", "(400 / 1000 / (50 / 3600))", 28.8),
        ("A runner does 400 m in 50 seconds. What is his speed?", "(400 / 50)", 8),  # m/s
        ("A car travels 120 miles in 90 minutes. What's its speed in mph?", "(120 / (90 / 60))", 80),
        ("A car does 100 km in 1h 15min. What's its speed in kph?", "(100 / (1 + 15 / 60))", 80),
        ("A car goes 60 km in an hour and a half. What's its speed?", "(60 / 1.5)", 40),
        ("I walked 6 km in 1 hour and 15 minutes. What was my speed in km/h?", "(6 / (1 + 15 / 60))", 4.8),
        ("A snail crawls 3 m in 20 minutes. How many cm per hour?", "(3 * 100 / (20 / 60))", 900),
        ("I earn 120 dollars in 90 minutes, how much is that per hour?", "(120 / (90 / 60))", 80),
        ("A tap fills 30 liters in 5 minutes. how many liters per hour?", "(30 / (5 / 60))", 360),
        ("I read 45 pages in 1.5 hours. How many pages per minute?", "(45 / (1.5 * 60))", 0.5),
        ("I typed 450 words in 6 minutes. What's my rate?", "(450 / 6)", 75),  # per minute
        ("A plane flies 900 km in 1.5 hours, what is its speed?", "(900 / 1.5)", 600),
    ],
)
def test_an_amount_in_a_time_per_unit_of_time_asked(text: str, expression: str, value: float) -> None:
    """The time is converted into the unit of the rate asked: 96 km in 45 minutes is 128 km/h, not 2.13."""
    assert to_expression(text) == expression
    assert evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "A train covers 80 km in 40 minutes. What's its average speed?",  # km per minute, or per hour?
        "A train covers 80 km in 40 minutes. How long for 200 km?",
        "A train covers 80 km in 40 minutes. How far in 2 hours?",
        "I ran 10 km in 50 minutes. What was my average?",
        "I earned $600 in 3 months. How much per day?",  # a month has no fixed number of days
        "I earned $600 in 3 weeks. How much per month?",
        "I read 45 pages in 1.5 hours. How many words per minute?",  # pages are no words
        "A train covers 80 km in 40 minutes and 120 km in an hour. What's its average speed in km/h?",
        "A train covers 80 km in 40 minutes. What's its speed in km/h, and how far does it go?",
    ],
)
def test_an_amount_in_a_time_not_asked_per_a_unit_that_converts_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("A rectangle is 8 m long and 5 m wide. What is its area?", "(8 * 5) = 40 m²"),
        ("What is the perimeter of a square with side 7 cm?", "(4 * 7) = 28 cm"),
        ("A circle has a radius of 5 inches. What is its area?", "= 78.5398163397 in²"),
        ("What is the volume of a cube with side 2 metres?", "(2 ** 3) = 8 m³"),
        ("What's the area of a circle with radius 3?", "(pi * 3 ** 2) = 28.2743338823"),  # no unit given
    ],
)  # fmt: skip
def test_a_shapes_quantity_is_said_in_the_unit_of_its_sizes(text: str, shown: str) -> None:
    """ "A rectangle is 8 m long and 5 m wide. What is its area?" had been answered "40", no unit."""
    assert calculate.invoke({"expression": text}).endswith(shown)


def test_a_shapes_sizes_in_different_units_are_refused() -> None:
    """ "a rectangle 4 m by 60 cm" had been worked out as 4 * 60 = 240."""
    with pytest.raises(CalculationError, match=r"different units \(cm, m\)"):
        calculate.invoke({"expression": "What is the area of a rectangle 4 m by 60 cm?"})


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("A train covers 80 km in 40 minutes. What's its average speed in mph?", "= 74.56 mph (exactly (80 / "
         "1.609344 / (40 / 60))"),
        ("I walked 3 miles in 1 hour: pace per km?", "= 12.43 minutes per km (exactly (1 * 60 / (3 * 1.609344))"),
        ("How many km do you cover at 60 mph in 2 hours?", "60 mph for 2 hours = 193.12 km (exactly (60 * 2 * "
         "1.609344) = 193.12128)"),
        ("If I drive at 100 km/h for 3 hours, how many miles do I go?", "= 186.41 miles (exactly (100 * 3 / "
         "1.609344)"),
        ("I run at 12 km/h. How long will it take me to run 9 miles?", "9 miles at 12 km/h = 1.21 hours (exactly "
         "(9 * 1.609344 / 12)"),
    ],
)  # fmt: skip
def test_miles_and_km_convert_by_their_decimal_factor(text: str, shown: str) -> None:
    """Units of one kind whose factor is no whole number (1.609344 km a mile) convert in a trip's reader
    too: "How many km do you cover at 60 mph in 2 hours?" had been an error."""
    assert shown in calculate.invoke({"expression": text})


def test_calculate_shows_a_speed_in_the_unit_asked() -> None:
    answer = calculate.invoke({"expression": "A bus covers 50 km in 40 minutes. What is its speed in km/h?"})
    assert answer == "50 km in 40 minutes = 75 km/h (read as (50 / (40 / 60)))"
    # the speed asked before the trip; a rate of a measure; money said as money, not as a rate
    speed = calculate.invoke({"expression": "What is the average speed if I drive 300 km in 4 hours?"})
    assert speed == "300 km in 4 hours = 75 km/h (read as (300 / 4))"
    rate = calculate.invoke({"expression": "A pump moves 300 liters in 10 minutes. What is the rate?"})
    assert rate == "300 liters in 10 minutes = 30 liters per minute (read as (300 / 10))"
    assert (
        calculate.invoke({"expression": "I earn 120 dollars in 8 hours: how much per hour?"})
        == "(120 / 8) = 15 ($15)"
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I paid $27.60 for 12 eggs. How much is that per egg?", 2.3),
        ("We paid 84 dollars for 6 kg of cheese. What is the price per kg?", 14),
        ("I paid $50 for 8 litres of paint. How much is that per litre?", 6.25),
    ],
)
def test_a_price_paid_for_an_amount_per_unit(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "I paid $50 for 8 litres of paint. How much is that per gallon?",  # another unit
        "I paid $50 for 8 tins of paint. How much is that per litre?",
    ],
)
def test_a_price_paid_per_another_unit_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("A cabin is $185 a night for 4 nights plus a $60 cleaning fee. What's the total?", "(185 * 4 + 60)"),
        (
            "We booked 5 nights at $98 per night and there's a $30 resort fee. How much in total?",
            "(98 * 5 + 30)",
        ),
        (
            "A car rental is $45 per day for 6 days, plus $20 insurance fee and $15 tax. What is the total cost?",
            "(45 * 6 + 20 + 15)",
        ),
        ("2 burgers at $11.25 each plus a $4 delivery fee. Total?", "(2 * 11.25 + 4)"),
        (
            "4 tacos at $3.50 each and $5 delivery, split between 3 of us. How much each?",
            "((4 * 3.50 + 5) / 3)",
        ),
        (
            "A cabin is $185 a night for 4 nights plus a $60 cleaning fee, split 4 ways",
            "((185 * 4 + 60) / 4)",
        ),
        ("5 sandwiches at $7.20 each, split between 3 friends. how much each?", "((5 * 7.20) / 3)"),
    ],
)
def test_a_price_per_unit_plus_charges_maybe_shared(text: str, expression: str) -> None:
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    "text",
    [
        "A cabin is $185 a night for 4 people plus a $60 cleaning fee. What's the total?",  # nights or people?
        "A cabin is $185 a night for 4 nights plus a $60 cleaning fee per night. What's the total?",
        "A cabin is $185 a night for 4 nights plus a $60 cleaning fee.",  # nothing asked
        "3 pizzas at $14 each plus $6 delivery, split with 3 friends. how much each?",  # 3 or 4 shares?
        "3 pizzas at $14 each plus $6 delivery and 2 drinks, split between 4 friends. how much each?",
        "Dinner for 4 people: 3 pizzas at $12 each plus $5 delivery. What's the total?",  # 4 unused
        "A cabin is $185 a night for 4 nights plus 10% tax. What's the total?",  # a percent, not a charge
        "A cabin is $185 a night for 4 nights plus a $60 fee. What's the total, and how much per night?",
    ],
)
def test_a_price_with_charges_not_of_this_form_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


def test_calculate_shows_a_shared_total_in_money() -> None:
    answer = calculate.invoke(
        {"expression": "4 tacos at $3.50 each and $5 delivery, split between 3 of us. How much each?"}
    )
    assert answer == "((4 * 3.50 + 5) / 3) = 6.33333333333 (about $6.33)"


@pytest.mark.parametrize(
    ("text", "result"),
    [
        (
            "hwo many grams is 2.5 lbs",
            "2.5 lbs = 1133.98 grams (exactly (2.5 * 453592.37 / 1000) = 1133.980925)",
        ),
        ("Hw many cm in 4 feet?", "4 feet = 121.92 cm (read as (4 * 304.8 / 10))"),
        ("wat's 10 miles in km", "10 miles = 16.09 km (exactly (10 * 1609344 / 1000000) = 16.09344)"),
        ("whats 3 miles in km", "3 miles = 4.83 km (exactly (3 * 1609344 / 1000000) = 4.828032)"),
        ("wat is 12 times 4", "12 * 4 = 48"),
    ],
)
def test_a_mistyped_question_opener_is_read(text: str, result: str) -> None:
    assert calculate.invoke({"expression": text}) == result


@pytest.mark.parametrize("text", ["check my hw many kg is 5 lbs", "I wrote hw many kg is 5 lbs on the board"])
def test_a_mistyped_opener_is_read_only_where_it_opens_a_question(text: str) -> None:
    """ "hw" inside a sentence may be homework: read as "how" it would make these a conversion."""
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("I get paid $19.75 per hour. What do I make in a 38-hour week?", "(19.75 * 38)"),
        ("How much do I earn in a 37-hour week if I make $26 an hour?", "(26 * 37)"),
    ],
)
def test_an_hourly_rate_over_the_hours_of_a_week(text: str, expression: str) -> None:
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    "text",
    [
        "I make $150 a day. How much do I earn in a 40-hour week?",  # 40 hours of work, not 40 / 24 days
        "I make $26 an hour. How much do I earn in a 40-hour week and a 35-hour week?",
        "I make $26 an hour and work 8 hours a day. How much do I earn in a 40-hour week?",
    ],
)
def test_a_rate_over_the_hours_of_a_week_in_another_unit_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("add 12% to 250", "(250 * (100 + 12) / 100)"),
        ("add 40 percent to 35", "(35 * (100 + 40) / 100)"),
        ("subtract 8% from 75", "(75 * (100 - 8) / 100)"),
        ("take 30% off of 120", "(120 * (100 - 30) / 100)"),
    ],
)
def test_a_percent_added_to_or_taken_from_a_value_is_of_that_value(text: str, expression: str) -> None:
    """ "add 15% to 86" was ``(15% + 86)``: 15 modulo 86, i.e. 15."""
    assert to_expression(text) == expression


@pytest.mark.parametrize("text", ["what is 12% + 250", "12% plus 250", "add 12 percent and 250 and 3"])
def test_a_bare_percent_in_a_sum_is_not_read(text: str) -> None:
    """12% of what? Never ``12 % 250`` (a remainder, 12) nor ``0.12 + 250``."""
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("I earn $3,100 a month and 18% goes to tax. What do I take home?", "(3100 * (100 - 18) / 100)"),
        ("My wage is $640 and 12% is withheld for tax. How much do I keep?", "(640 * (100 - 12) / 100)"),
        ("My salary is $5,000 and 25% is deducted. What is my net pay?", "(5000 * (100 - 25) / 100)"),
        ("My wage is $640 and 12% is withheld for tax. How much is the tax?", "(640 * 12 / 100)"),
        ("A dinner is $70 plus 10% tax. What's the total?", "(70 * (100 + 10) / 100)"),  # still added
    ],
)
def test_a_percent_taken_out_of_pay_is_subtracted(text: str, expression: str) -> None:
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    "text",
    [
        "I earn $3,100 a month and 18% goes to tax. How much?",  # the tax, or what is left?
        "I earn $3,100 a month plus 18% tax. How much is left?",  # a tax added, then left?
        "My salary is $5,000. 20% tax and 5% pension are deducted. What's my take-home pay?",
    ],
)
def test_a_percent_taken_out_of_pay_without_one_answer_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "How many liters does an aquarium of 80 cm by 35 cm by 45 cm hold?",
            "80 cm by 35 cm by 45 cm = 126 liters (read as (80 * 35 * 45 / 1000))",
        ),
        (
            "A pool is 8 m by 4 m by 1.5 m. How many litres does it hold?",
            "8 m by 4 m by 1.5 m = 48000 litres (read as (8 * 4 * 1.5 * 1000))",
        ),
        (
            "A crate is 24 in by 11 in by 7 in. How many gallons does it hold?",
            "24 in by 11 in by 7 in = 8 gallons (read as (24 * 11 * 7 / 231))",
        ),
        (
            "A box of 50 cm by 40 cm by 30 cm: how many cubic metres?",
            "50 cm by 40 cm by 30 cm = 0.06 cubic metres (read as (50 * 40 * 30 / 1000000))",
        ),
        ("convert 3 cubic metres to litres", "3 cubic metres = 3000 litres (read as (3 * 1000000 / 1000))"),
        ("how many ml is 20 cm3", "20 cm3 = 20 ml (read as (20 * 1 / 1))"),
    ],
)
def test_a_volume_by_its_sizes_is_converted_into_the_unit_asked(text: str, answer: str) -> None:
    """A tank of 60 cm by 30 cm by 40 cm holds 72 litres, not 72000: the product is in cm³ (ml)."""
    assert calculate.invoke({"expression": text}) == answer


@pytest.mark.parametrize(
    "text",
    [
        "How many kg of water does a tank of 80 cm by 35 cm by 45 cm hold?",  # no volume unit
        "A tank is 8 by 4 by 2. How many litres does it hold?",  # sizes in what unit?
        "How many litres and gallons does a tank of 80 cm by 35 cm by 45 cm hold?",
        "How many litres does a tank of 80 cm by 35 m by 45 cm hold?",  # mixed units
    ],
)
def test_a_volume_asked_in_a_unit_it_does_not_convert_into_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        (
            "I bought 2 kg of apples at $3.10 a kg and 3 cartons of milk at $1.25 each. What did I spend?",
            "(2 * 3.10 + 3 * 1.25)",
        ),
        ("I got 1.5 lb of cheese at $8/lb and a loaf for $3. What's the total?", "(1.5 * 8 + 1 * 3)"),
        ("7 pals are chipping in for a $315 gift. How much does each one pay?", "(315 / 7)"),
        ("4 friends pitch in for a $98 cake. How much does each pay?", "(98 / 4)"),
        ("I got 34 correct out of 40 on the test. What's my percentage?", "(34 / 40 * 100)"),
        ("She scored 18 points out of 24. What is her percentage?", "(18 / 24 * 100)"),
        ("A 630 km drive takes 7 hours. What's the average speed?", "(630 / 7)"),
        (
            "Dinner for four came to $96.40 plus a $14 tip. How much each if we split it?",
            "((96.40 + 14) / 4)",
        ),
        (
            "A van is $60 a day plus $0.30 per km. I rent it for 2 days and drive 150 km. What's the cost?",
            "(60 * 2 + 0.30 * 150)",
        ),
        ("A 1.5 litre bottle of cola costs $2.40. What does a 330 ml can cost?", "(2.40 * 330 / 1000 / 1.5)"),
        ("A 500 g block of cheese is $6. How much does 125 g cost?", "(6 * 125 / 500)"),
        (
            "A 13 ft ladder reaches 12 ft up a wall. How far is its foot from the wall?",
            "sqrt(13 ** 2 - 12 ** 2)",
        ),
        ("A 10 m ladder stands 6 m from a wall. How high does it reach?", "sqrt(10 ** 2 - 6 ** 2)"),
        ("The hypotenuse is 17 and one leg is 8. What is the other leg?", "sqrt(17 ** 2 - 8 ** 2)"),
    ],
)
def test_more_word_problems_with_every_number_in_its_place(text: str, expression: str) -> None:
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    "text",
    [
        "I bought 2 kg of apples at $3.10 a lb and 3 cartons of milk at $1.25 each. What did I spend?",
        "7 pals are chipping in for a $315 gift and a $20 card. How much does each one pay?",
        "I got 34 correct out of 40 on the test. What's my score out of 10?",
        "A 630 km drive takes 7 hours. How far in 3 hours?",  # a distance asked
        "A van is $60 a day plus $0.30 per km. I rent it for 2 days. What's the cost?",  # km not given
        "A van is $60 a day plus $0.30 per km. I rent it for 2 days and drive 150 miles. What's the cost?",
        "A 1.5 litre bottle of cola costs $2.40. What does a 330 g bar cost?",  # not one kind
        "A 1.5 litre bottle of cola costs $2.40. What does a 330 ml can cost, and how much is 2?",
        "A 13 ft ladder reaches 14 ft up a wall. How far is its foot from the wall?",  # longer than the ladder
        "A 13 ft ladder and a 5 ft box. How far apart are they?",  # no wall
        "The hypotenuse is 17. What is the other leg?",
    ],
)
def test_more_word_problems_without_every_number_in_its_place_are_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(to_expression(text))


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "I run at 12 km/h. How long will it take me to run 9 km?",
            "9 km at 12 km/h = 0.75 hours (read as (9 / 12))",
        ),
        (
            "I walk at 4 km/h. How many minutes to walk 3 km?",
            "3 km at 4 km/h = 45 minutes (read as (3 / 4 * 60))",
        ),
        (
            "im doing a 21.1 km half marathon at 6 min per km, how long will it take",
            "21.1 km at 6 min per km = 126.6 minutes (read as (21.1 * 6))",
        ),
        (
            "I drive at 50 mph. How long for 125 miles?",
            "125 miles at 50 mph = 2.5 hours (read as (125 / 50))",
        ),
        (
            "how many kilograms is a pound and a half?",
            "1.5 pound = 0.68 kilograms (exactly (1.5 * 453592.37 / 1000000) = 0.680388555)",
        ),
        (
            "how many grams is a quarter pound?",
            "0.25 pound = 113.4 grams (exactly (0.25 * 453592.37 / 1000) = 113.3980925)",
        ),
        ("how many ml is half a cup", "0.5 cup = 118.29 ml (exactly (0.5 * 236.5882365 / 1) = 118.29411825)"),
        (
            "How much fencing goes around a round pool that is 6 m across?",
            "the length around a circle 6 m across = 18.85 m (exactly (pi * 6) = 18.8495559215)",
        ),
        (
            "I ran 10 km in 50 minutes. What's my pace?",
            "10 km in 50 minutes = 5 minutes per km (read as (50 / 10))",
        ),
        (
            "If I run 10 km in 55 minutes, what is my pace per km?",
            "10 km in 55 minutes = 5.5 minutes per km (read as (55 / 10))",
        ),
        (
            "I ran 5 miles in 42 minutes. What was my pace?",
            "5 miles in 42 minutes = 8.4 minutes per mile (read as (42 / 5))",
        ),
        (
            "I ran 5000 m in 25 minutes, pace per km?",
            "5000 m in 25 minutes = 5 minutes per km (read as (25 / (5000 / 1000)))",
        ),
        (
            "10 km in 50 minutes: how many seconds per km?",
            "10 km in 50 minutes = 300 seconds per km (read as (50 * 60 / 10))",
        ),
        ("How many minutes are in 1/4 of an hour?", "0.25 hours = 15 minutes (read as (0.25 * 3600 / 60))"),
        # a rate per day or week, then a total to reach: how long
        (
            "I save $50 a week. How long until I have $1,000?",
            "1000 at 50 weekly = 20 weeks (read as (1000 / 50))",
        ),
        (
            "If I read 30 pages a day, how long to finish a 450 page book?",
            "450 pages at 30 daily = 15 days (read as (450 / 30))",
        ),
        # the total first ("How long to read 300 pages at 20 pages an hour?" had reached the clock)
        (
            "How long to read 300 pages at 20 pages an hour?",
            "300 pages at 20 hourly = 15 hours (read as (300 / 20))",
        ),
    ],
)
def test_a_time_for_a_distance_a_part_of_a_unit_and_the_length_around_a_circle(
    text: str, answer: str
) -> None:
    assert calculate.invoke({"expression": text}) == answer


@pytest.mark.parametrize(
    "text",
    [
        "I run at 12 km/h. How long to run 9 km there and back?",
        "I run at 12 km/h for 2 hours. How far do I get, and how long is 9 km?",
        "How much fencing goes around a round pool that is 6 m across and 2 m deep?",  # another number
        "How much fencing goes around a pool that is 6 m wide?",  # not said to be round
        "how many grams is half a pizza?",
        "I save $50 a week. How many months until I have $1,000?",  # weeks are no whole part of a month
        "If I read 30 pages a day, how long to walk 450 km?",  # not the things read
        "I ran 10 km in 55 minutes and 5 km in 30 minutes. What was my pace?",  # two trips
        "I work 8 hours a day, 5 days a week. How many hours a month?",  # weeks are no whole part of it
        "My budget is $500. How much is left?",  # no cost
    ],
)
def test_a_time_a_part_or_a_length_around_not_of_these_forms_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        # a rate's result in the unit asked
        (
            "A beetle crawls 4 cm per minute. How many metres does it cover in 3 hours?",
            "(4 * 3 * 60 * 10 / 1000)",
        ),
        ("A tap drips 50 ml per minute. How many litres in 2 hours?", "(50 * 2 * 60 / 1000)"),
        ("300 rows at 45 seconds each in minutes", "(300 * 45 / 60)"),
        (
            "Each lap of the track takes 80 seconds and I run 45 laps. How many minutes is that?",
            "(45 * 80 / 60)",
        ),
        ("A car drives 60 km per hour. How far in half an hour?", "(60 * 0.5)"),  # no unit asked: kept
        # a rate for several times added
        ("$22 an hour, 3 hours plus 4 hours", "(22 * (3 + 4))"),
        (
            "I make $15 per hour and worked 5 hours on Friday and 7 on Saturday. How much did I earn?",
            "(15 * (5 + 7))",
        ),
        ("I earn $18 an hour and worked 4 hours, 6 hours and 2 hours", "(18 * (4 + 6 + 2))"),
        # a step that shares the result
        ("900 minus 25%, split between 3", "((900 * (100 - 25) / 100) / 3)"),
        ("120 plus 15%, then split it 4 ways", "((120 * (100 + 15) / 100) / 4)"),
        (
            "The bill is $240. I cover 25% and the rest is split equally between the other 3. How much does each "
            "of them pay?",
            "(240 * (100 - 25) / 100 / 3)",
        ),
        (
            "Rent is $2,400. I pay 30% for the big room and my 3 housemates split the rest. What does each pay?",
            "(2400 * (100 - 30) / 100 / 3)",
        ),
        # the rest of a whole asked as a percentage
        ("12 of our 48 eggs broke. What percent are left?", "(100 - (12 / 48 * 100))"),
        ("20 of my 80 seedlings died. What percentage survived?", "(100 - (20 / 80 * 100))"),
        ("42 out of 50 seeds sprouted. What percentage sprouted?", "(42 / 50 * 100)"),  # the part itself
    ],
)
def test_a_rate_or_a_share_reads_every_part_of_the_question(text: str, expression: str) -> None:
    assert to_expression(text) == expression


@pytest.mark.parametrize(
    "text",
    [
        "A beetle crawls 4 cm per minute. How many kilograms does it cover in 3 hours?",  # no unit of length
        "A printer does 40 pages per minute. How many metres in 2 hours?",  # pages are no metres
        "300 rows at 45 seconds each in kilometres",
        "sum and average of my bills: 40, 50, 60",  # two figures, one expression
        "the total and the mean of 3, 4 and 5",
        "What is the highest and lowest of 3, 9, 4?",
        "I earn $15 an hour and worked 5 hours on Friday and 7 apples. How much?",  # 7 what?
        "I sleep 8 hours a day, 5 days plus 2 days",  # the rate left out is no context
        "$22 an hour, 3 hours plus 30 minutes",  # another unit of time
        "900 minus 25%, split with 2 friends",  # 2 or 3 shares?
        "The bill is $240. I cover 25% and the rest is split between the other 3. What do I pay?",  # not each
        "20 of 80 as a percentage survived",  # the part, or the rest?
        "35 of my 140 plants survived. What percent are left?",  # survived is what is left
    ],
)
def test_a_rate_or_a_share_that_would_drop_a_part_of_the_question_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "Our phone plan is $25 a month plus a one-off $40 activation fee. What do we pay in the first year?",
            340,
        ),
        ("My plan is $30 a month and a $20 setup fee. How much for 2 years?", 740),
        ("Roast 25 minutes per 450 g plus an extra 25 minutes. How long for a 1.8 kg chicken?", 125),
        ("Bake 30 minutes per kg. How many minutes for a 2500 g ham?", 75),
        ("Fuel prices went up 5% this month. I used to spend $60 a week, what do I spend now?", 63),
        ("Coffee prices fell 10%. I used to pay $4 a cup, what do I pay now?", 3.6),
        ("What's the area of a door that is 0.9 m wide and 2.1 m tall?", 1.89),
        ("A rug is 3 m long and 2 m wide. How many square m is it?", 6),
        ("A phone screen is 9 cm wide and 12 cm tall. How long is the diagonal?", 15),
        ("A triangular flag has a base of 30 cm and a height of 40 cm. What's its area?", 600),
        ("How many minutes are there in a leap year?", 527040),
        ("How many hours are in a year?", 8760),  # a year is 365 days
        ("how many days in 2 leap years", 732),
        ("how many months in 2 years", 24),  # still among months
        ("I have $900 in the bank and put in $50 a month. How much will I have after 2 years?", 2100),
        ("I have $500 and spend $20 a day. How much is left after 10 days?", 300),
        ("What percent of a day is 6 hours?", 25),
        ("500 g is what percent of 2 kg?", 25),
        ("Use 3 times as much flour as sugar. How much flour for 120 g of sugar?", 360),
        ("what's half a percent of 8,000", 40),
        ("a quarter of a percent of 8000", 20),
        ("What's the volume of a cone with radius 6 cm and height 10 cm?", math.pi * 36 * 10 / 3),
        ("volume of a cone with diameter 10 and height 6", math.pi * 25 * 6 / 3),
        ("How many minutes to download a 2 GB file at 10 MB/s?", 2000 / 10 / 60),
        ("How long does a 600 MB update take at 4 MB per second?", 150),
        ("how many MB in 2.5 GB", 2500),  # decimal: a GB is 1000 MB
        ("The water level drops 4% every day. Starting at 90%, how many days until it is at 30%?", 15),
        ("The tank level rises 5% per minute. Starting at 10%, how long until it is at 90%?", 16),
        (
            "A B&B costs $120 per night and a tourist tax of $3 per night per guest. We are 3 and stay 5 nights. "
            "How much in total?",
            645,
        ),
    ],
)
def test_more_everyday_forms(text: str, value: float) -> None:
    assert evaluate(to_expression(text)) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "My plan is $30 a month and a $20 setup fee and a $10 SIM fee. How much for 2 years?",
        "Roast 25 minutes per 450 g plus an extra 25 minutes. How long for a 2 litre chicken?",  # not a mass
        "Roast 25 minutes per 450 g plus an extra 1 hour. How long for a 1.8 kg chicken?",  # another unit
        "Fuel prices went up 5% and then fell 2%. I used to spend $60 a week, what do I spend now?",
        "I used to spend $60 a week and prices went up 5%. What did I spend?",  # not now
        "A rug is 3 m long and 2 ft wide. What's its area?",  # mixed units
        "A rug is 3 m long and 2 m wide. How many square feet is it?",  # another unit
        "A triangular flag has a base of 30 cm and a height of 40 cm. How long is the diagonal?",
        "A rug is 3 m long and 2 m wide. What's its area and diagonal?",
        "how many seconds in a month",  # a month has no fixed length
        "I have $500 and spend $20 a day. How much after 10 days?",  # spent, or left?
        "What percentage of an hour is 45 metres?",
        "Use 3 times as much flour as sugar. How much flour for 120 g of butter?",
        "How long does a 4.5 GB download take at 15 Mbps?",  # bits
        "How long does a 4.5 GB download take at 15 Mb/s?",
        "my battery drops 8% every hour. starting at 10%, how many hours until its at 20%?",  # rises?
        "my battery drops 8% every hour. starting at 100%, how many minutes until its at 20%?",
        "The hotel is 85 euros a night plus a tax of 2.50 euros per person per night. 2 of us stay 4 days. Total?",
        "The hotel is 85 euros a night plus a tax of 2.50 euros per person per night. 2 of us stay 4 nights.",
    ],
)
def test_more_everyday_forms_not_read_without_every_number_in_its_place(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "A snail moves 3 cm per minute. How many metres does it cover in 2 hours?",
            "(3 * 2 * 60 * 10 / 1000) = 3.6",
        ),
        ("$19 an hour, 6 hours plus 5 hours", "(19 * (6 + 5)) = 209 ($209)"),
        (
            "I earn $19 an hour and worked 6 hours on Saturday and 5 on Sunday. How much did I make this weekend?",
            "(19 * (6 + 5)) = 209 ($209)",
        ),
        ("240 rows at 90 seconds each in hours", "(240 * 90 / 3600) = 6"),
        (
            "Each row of my scarf takes 90 seconds to knit and I need 240 rows. How many hours is that?",
            "(240 * 90 / 3600) = 6",
        ),
        ("1850 minus 40%, split between 2", "((1850 * (100 - 40) / 100) / 2) = 555"),
        (
            "Rent is $1,850. I have the big room so I pay 40%, and my two flatmates split the rest equally. "
            "What does each flatmate pay?",
            "(1850 * (100 - 40) / 100 / 2) = 555 ($555)",
        ),
        (
            "35 of my 140 plants died over the winter. What percentage survived?",
            "(100 - (35 / 140 * 100)) = 75",
        ),
        (
            "A gym membership is $39 a month plus a one-off $50 joining fee. What do I pay in the first year?",
            "(39 * 12 + 50) = 518 ($518)",
        ),
        (
            "A roast needs 20 minutes per 500 g plus an extra 20 minutes. How long should a 2 kg roast cook?",
            "(20 * 2 * 1000000 / (500 * 1000) + 20) = 100",
        ),
        (
            "Grocery prices went up 4% this year. I used to spend $150 a week, what do I spend now?",
            "(150 * (100 + 4) / 100) = 156 ($156)",
        ),
        ("What's the area of a wall that is 4.2 m wide and 2.6 m tall?", "(4.2 * 2.6) = 10.92"),
        (
            "How many minutes are there in a leap year?",
            "1 leap year = 527040 minutes (read as (1 * 31622400 / 60))",
        ),
        (
            "I have $1,240 saved and I add $60 every week. How much will I have after 10 weeks?",
            "(1240 + 60 * 10) = 1840 ($1,840)",
        ),
        ("What percentage of an hour is 45 minutes?", "(45 * 60 / (1 * 3600) * 100) = 75"),
        (
            "A TV screen is 40 inches wide and 30 inches tall. How long is the diagonal?",
            "sqrt(40 ** 2 + 30 ** 2) = 50",
        ),
        (
            "I cook rice with 1.5 times as much water as rice. How much water do I need for 400 g of rice?",
            "(1.5 * 400) = 600",
        ),
        ("what's half a percent of 30,000", "(0.5 / 100 * 30000) = 150"),
        ("A triangular sail has a base of 3.2 m and a height of 5 m. What's its area?", "(3.2 * 5 / 2) = 8"),
        (
            "How long does a 4.5 GB download take at 15 MB per second?",
            "4.5 GB at 15 MB per second = 300 seconds (read as (4.5 * 1000000000 / (15 * 1000000)))",
        ),
        (
            "my phone battery drops 8% every hour. starting at 100%, how many hours until its at 20%?",
            "((100 - 20) / 8) = 10",
        ),
        (
            "The hotel is 85 euros a night plus a city tax of 2.50 euros per person per night. Two of us stay 4 "
            "nights. What's the total?",
            "(85 * 4 + 2.50 * 2 * 4) = 360 (€360)",
        ),
    ],
)
def test_the_questions_of_the_report_read_whole(text: str, answer: str) -> None:
    assert calculate.invoke({"expression": text}) == answer


def test_a_cone_volume_is_a_third_of_the_cylinder() -> None:
    answer = calculate.invoke({"expression": "What's the volume of a cone with radius 3 cm and height 8 cm?"})
    assert answer.startswith("(pi * 3 ** 2 * 8 / 3) = 75.39")


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("She earns 4% commission and sold $22,000 of cars last month. What is her commission?", 880),
        (
            "My account pays 2.5% interest a year and holds $6,400. How much interest will I earn in 1 year?",
            160,
        ),
        ("The fund gave a 7% return on my $3,000. What's my return?", 210),
    ],
)
def test_a_percent_earned_on_an_amount_is_that_percent_of_it(question: str, value: float) -> None:
    """ "6% commission on my sales … I sold $14,500" was read as a 6% discount (13630), and "paying 3.5% a
    year … how much interest" as a 3.5% cut (7720)."""
    assert evaluate(to_expression(question)) == pytest.approx(value)


@pytest.mark.parametrize(
    "question",
    [
        "$5,000 at 4% interest: how much interest after 3 years?",  # simple or compound? not guessed
        "I get 6% commission on $10,000 and $4,000 of sales. What's my commission?",  # two amounts
        "6% commission on my sales this month. What's my commission?",  # no amount
    ],
)
def test_a_percent_earned_that_is_unclear_is_not_read(question: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": question})


@pytest.mark.parametrize(
    "question",
    [
        "the bottle has 2 litres, how many litres is that?",
        "convert 5 km to km",
    ],
)
def test_an_amount_asked_in_its_own_unit_is_no_conversion(question: str) -> None:
    """ "55 litres … a quarter full: how many litres?" was answered "55 litres = 55 litres"."""
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": question})
    assert read_conversion("how many ml is 20 cm3") is not None  # other names, the same size: a conversion


@pytest.mark.parametrize(
    ("question", "expression", "value"),
    [
        ("I earn $52,000 a year. How much is that per month?", "(52000 / 12)", 52000 / 12),
        ("I spend 45 a week on food. How much is that per year?", "(45 * 52)", 2340),
        ("My rent is 1200 a month. What is that yearly?", "(1200 * 12)", 14400),
        ("I am paid $20 an hour. How much is that a minute?", "(20 / 60)", 20 / 60),
        ("We use 3 litres of milk a day. How much is that per week?", "(3 * 7)", 21),
    ],
)
def test_a_rate_asked_per_another_unit_of_time(question: str, expression: str, value: float) -> None:
    assert to_expression(question) == expression
    assert evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize(
    "question",
    [
        "I earn 3000 a month. How much per week?",  # a month has no fixed number of weeks
        "I earn 3000 a month and 500 a year in bonuses. How much per week?",  # two rates
        "I earn 3000 a month. How much per month?",  # the same unit: nothing to convert
    ],
)
def test_a_rate_that_converts_unclearly_is_not_read(question: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": question})


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("I earn $52,000 a year and pay 20% tax. How much per month?", 52000 * 0.8 / 12),
        ("My gross salary is 4000 a month with 30% tax. What do I get a year?", 4000 * 0.7 * 12),
        ("I earn $2,500 and pay 20% tax. How much do I keep?", 2000),
        ("A $40 meal plus 10% tax?", 44),  # a tax on a price is added
    ],
)
def test_a_tax_on_earnings_is_taken_off_and_the_rate_asked_is_kept(question: str, value: float) -> None:
    """ "$52,000 a year and pay 20% tax: per month?" was read as 52,000 plus 20% (62,400): a tax added to a
    salary, the month dropped."""
    assert evaluate(to_expression(question)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is 97 a prime number?", "Yes, 97 is a prime number."),
        ("is 91 prime", "No, 91 is not a prime number: 91 = 7 × 13."),
        ("Is 2 prime?", "Yes, 2 is a prime number."),
        ("Is 1 a prime number?", "1 is not a prime number (primes are whole numbers from 2 up)."),
        ("What are the prime factors of 360?", "The prime factors of 360: 360 = 2^3 × 3^2 × 5."),
        ("factorize 84", "The prime factors of 84: 84 = 2^2 × 3 × 7."),
        ("Is 9,999,999,967 prime?", "Yes, 9999999967 is a prime number."),
    ],
)
def test_whether_a_number_is_prime_and_its_prime_factors(question: str, answer: str) -> None:
    """ "Is 97 a prime number?" was no arithmetic the calculator read; the model then made up an answer."""
    assert calculate.invoke({"expression": question}) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is 42 an even number?", "Yes, 42 is even."),
        ("is 7 odd", "Yes, 7 is odd."),
        ("Is 42 odd?", "No, 42 is even, not odd."),
        ("Is -3 even?", "No, -3 is odd, not even."),
    ],
)
def test_whether_a_number_is_even_or_odd(question: str, answer: str) -> None:
    assert calculate.invoke({"expression": question}) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is 1001 divisible by 7?", "Yes, 1001 is divisible by 7: 1001 = 7 × 143."),
        ("Is 100 divisible by 7?", "No, 100 is not divisible by 7: 100 = 7 × 14 + 2."),
        ("Does 7 go into 100?", "No, 100 is not divisible by 7: 100 = 7 × 14 + 2."),
        ("Is 36 a multiple of 4?", "Yes, 36 is divisible by 4: 36 = 4 × 9."),
        ("Is 10 divisible by 0?", "No number is divisible by 0: dividing 10 by 0 is undefined."),
    ],
)
def test_whether_a_number_divides_another(question: str, answer: str) -> None:
    """ "Is 1001 divisible by 7?" was no arithmetic the calculator read; the model answered "10, 7."."""
    assert calculate.invoke({"expression": question}) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which is larger, 2^10 or 10^3?", "2^10 (1024) is larger than 10^3 (1000)."),
        ("Which is smaller: 3/7 or 0.43?", "3/7 (0.428571) is smaller than 0.43."),
        ("Is 0.7 bigger than 2/3?", "Yes, 0.7 is bigger than 2/3 (0.666667)."),
        ("Is 5 less than 3?", "No, 5 is not less than 3."),
        ("Which is greater, 15% of 80 or 12?", "They are equal: 15% of 80 (12) and 12."),
    ],
)
def test_two_amounts_are_compared_each_worked_out(question: str, answer: str) -> None:
    assert calculate.invoke({"expression": question}) == answer


def test_a_comparison_of_things_the_calculator_cannot_read_is_not_its() -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": "Which is bigger, Texas or France?"})


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's the GCD of 48 and 36?", "gcd(48, 36) = 12"),
        ("the greatest common factor of 12, 18 and 30", "gcd(12, 18, 30) = 6"),
        ("What is the LCM of 4 and 6?", "lcm(4, 6) = 12"),
        ("lowest common multiple of 3, 4 and 5", "lcm(3, 4, 5) = 60"),
    ],
)
def test_the_greatest_common_divisor_and_least_common_multiple(question: str, answer: str) -> None:
    """ "What's the GCD of 48 and 36?" was answered 18 by the model."""
    assert calculate.invoke({"expression": question}) == answer
    with pytest.raises(CalculationError, match="gcd needs whole numbers"):
        calculate.invoke({"expression": "gcd(2.5, 5)"})


def test_a_number_too_large_to_factor_is_an_error_that_says_so() -> None:
    with pytest.raises(CalculationError, match="too large to factor"):
        calculate.invoke({"expression": "Is 1000000000039 prime?"})


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("I work 38 hours a week at $22 an hour. How much do I earn a week?", "(38 * 22)"),
        ("I earn $22 an hour and work 38 hours a week. How much do I earn a year?", "(38 * 22 * 52)"),
        ("I work 8 hours a day at 15 an hour. What do I make a day?", "(8 * 15)"),
    ],
)
def test_pay_for_hours_worked_each_period(question: str, expression: str) -> None:
    assert to_expression(question) == expression


@pytest.mark.parametrize(
    "question",
    [
        "I work 38 hours a week at $22 an hour. How much do I earn a month?",  # weeks in a month: not fixed
        "I work 8 hours a day at 15 an hour. How much per week?",  # days worked a week: not said
    ],
)
def test_pay_for_hours_in_a_period_that_does_not_convert_is_not_read(question: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": question})


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What's 8% sales tax on $45?", 3.6),  # the tax itself (it gave the price with it, 48.6)
        ("What is $45 plus 8% sales tax?", 48.6),
        ("What do I pay for $45 with 8% sales tax?", 48.6),
    ],
)
def test_a_sales_tax_asked_is_the_tax_and_a_price_with_it_the_total(question: str, value: float) -> None:
    assert evaluate(to_expression(question)) == pytest.approx(value)


@pytest.mark.parametrize(
    "question", ["Convert 100 dollars to euros", "How much is $50 in yen?", "Convert 100 dollars to pounds"]
)
def test_a_currency_conversion_says_it_needs_an_exchange_rate(question: str) -> None:
    with pytest.raises(CalculationError, match="needs an exchange rate"):
        calculate.invoke({"expression": question})
    assert calculate.invoke({"expression": "Convert 5 pounds to kilograms"}).startswith("5 pounds = 2.27")


def test_a_total_of_prices_in_cents_says_cents() -> None:
    """ "36 eggs at 25 cents each" said "= 900", which reads as 900 dollars."""
    assert (
        calculate.invoke({"expression": "36 eggs at 25 cents each"}) == "(36 * 25) = 900 cents (9.00 dollars)"
    )
    assert calculate.invoke({"expression": "3 apples at $0.40 each"}) == "(3 * 0.40) = 1.2 ($1.20)"


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("How much do 5 tickets cost if one ticket costs $8?", "(5 * 8)"),
        ("A ticket costs $8. What do 5 tickets cost?", "(5 * 8)"),
        ("How much is 3 dozen eggs if one egg costs 25 cents?", "(36 * 25)"),
        ("How much are 36 eggs if each egg costs $0.25?", "(36 * 0.25)"),
    ],
)
def test_a_question_before_its_condition_is_read_like_one_after_it(question: str, expression: str) -> None:
    """ "If one egg costs 25 cents, how much are 36 eggs?" was read; the question first was not."""
    assert to_expression(question) == expression


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        (
            "A pizza is cut into 8 slices and 3 people eat 2 slices each. How many slices are left?",
            "(8 - 3 * 2)",
        ),
        ("There are 30 cookies and 4 kids take 5 each. How many are left?", "(30 - 4 * 5)"),
        ("There are 24 cans and 4 people drink 3 each. How many cans remain?", "(24 - 4 * 3)"),
        # the people in the next sentence (it had been no arithmetic: the small model made up "two (3 - 2)")
        (
            "A pizza is cut into 8 slices. If 3 people eat 2 slices each, how many are left?",
            "(8 - 3 * 2)",
        ),
        ("I bake 24 cookies. 5 friends take 3 cookies each. How many remain?", "(24 - 5 * 3)"),
    ],
)
def test_what_is_left_after_several_take_the_same_each(question: str, expression: str) -> None:
    assert to_expression(question) == expression


def test_more_taken_than_there_is_is_not_read_as_left() -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": "There are 5 cookies and 4 kids take 2 each. How many are left?"})


@pytest.mark.parametrize(
    "question",
    [
        "A year has 52 weeks; 17 have passed. How many weeks are left?",
        "There are 52 weeks in a year. 17 weeks have passed. How many weeks are left?",
    ],
)
def test_what_is_left_after_some_have_passed(question: str) -> None:
    assert to_expression(question) == "(52 - 17)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("If a pizza is cut into 8 slices and I eat 3, what fraction is left?", "(8 - 3) / 8 = 5/8"),
        ("A tank holds 40 liters and 10 are used. What fraction remains?", "(40 - 10) / 40 = 3/4"),
        ("A cake has 12 pieces. We ate 9. What percentage of the cake remains?", "(12 - 9) / 12 * 100 = 25%"),
        # the count left, when a count is asked
        ("I have 12 apples and give away 5, how many are left?", "(12 - 5) = 7"),
    ],
)
def test_a_share_of_what_is_left_is_of_the_whole(text: str, expected: str) -> None:
    """ "What fraction is left?" of 8 slices less 3 was answered 5."""
    assert calculate.invoke({"expression": text}) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What's 25% of 80 cents?", "(25 / 100) * 80 = 20 cents"),
        ("What is 10% of 5 kg?", "(10 / 100) * 5 = 0.5 kg"),
        ("how much is 3 times 4 dollars", "3 * 4 = 12 dollars"),
    ],
)
def test_the_unit_of_the_amount_is_the_results(text: str, expected: str) -> None:
    """ "What's 25% of 80 cents?" was read as "(25 / 100) * 80 cents", which no evaluator takes."""
    assert calculate.invoke({"expression": text}) == expected
    assert trailing_unit("(25 / 100) * 80 cents") == ("(25 / 100) * 80", "cents")
    assert trailing_unit("(25 / 100) * 80") is None


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What's the compound interest on $1000 at 5% for 3 years?", 157.625),
        ("How much is $5000 after 10 years at 7% interest compounded annually?", 5000 * 1.07**10),
        ("$10,000 compounded monthly at 6% for 2 years", 10000 * (1 + 0.06 / 12) ** 24),
        (
            "What's the compound interest on $2000 at 4% compounded quarterly for 18 months?",
            2000 * (1.01**6 - 1),
        ),
        ("What's the simple interest on $2000 at 4% for 5 years?", 400),
        ("How much will $2000 be worth with simple interest at 4% after 5 years?", 2400),
    ],
)
def test_interest_over_years_is_compound_or_simple_as_said(question: str, value: float) -> None:
    assert evaluate(to_expression(question)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What's the monthly payment on a $20,000 loan at 6% for 5 years?", 386.656),
        ("What is the mortgage payment for $300,000 at 4% for 30 years?", 1432.246),
        ("Yearly payment on a $10,000 loan at 5% over 10 years?", 1295.046),
        ("Monthly payment on a $12,000 loan at 0% for 2 years", 500),
    ],
)
def test_a_loan_payment_is_the_annuity_that_repays_it(question: str, value: float) -> None:
    assert evaluate(to_expression(question)) == pytest.approx(value, abs=0.01)


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Tip of 20% on $45.50", 9.10),
        ("8% tax on $60", 4.80),
        ("$45.50 with a 20% tip", 54.60),  # the bill with the tip
        ("25% discount on $80", 60),  # a discount named alone: the price paid, as "25% off"
    ],
)
def test_a_tip_or_tax_named_on_a_price_is_that_part(question: str, value: float) -> None:
    assert evaluate(to_expression(question)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("If I invest $1000 at 5% per year, how much after 10 years?", 1000 * 1.05**10),
        ("A town of 50,000 people grows 2% a year. How many people in 10 years?", 50000 * 1.02**10),
        ("A car worth $20,000 depreciates 15% a year. What is it worth in 3 years?", 20000 * 0.85**3),
        ("My savings of 2000 grow 1% per month. How much after 18 months?", 2000 * 1.01**18),
        ("Prices rise with inflation of 3% a year. What does $100 cost in 10 years?", 100 * 1.03**10),
        # said of a value lost, a decrease or a rise (each had been an error)
        ("A car costs $18,000 and loses 15% of its value each year. Worth after 2 years?", 18000 * 0.85**2),
        ("A phone loses 20% of its value every year. It costs $900 now. Its value in 3 years?", 900 * 0.8**3),
        ("A population of 8000 decreases by 5% each year. What is it after 4 years?", 8000 * 0.95**4),
        ("A ticket is $50 and rises 10% every year. What will it cost in 2 years?", 50 * 1.1**2),
        ("My salary is $40,000 and increases by 3% a year. What will it be in 5 years?", 40000 * 1.03**5),
    ],
)
def test_a_growth_each_year_compounds_over_the_span(question: str, value: float) -> None:
    """A growth rate compounds by its meaning; interest is asked which (below)."""
    assert evaluate(to_expression(question)) == pytest.approx(value)


def test_interest_over_years_naming_no_kind_is_asked_which() -> None:
    with pytest.raises(CalculationError, match="compounds or not: say which"):
        calculate.invoke({"expression": "What is the interest on $1000 at 5% for 3 years?"})


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "What's 3 hours 20 minutes plus 1 hour 50 minutes?",
            "5 hours 10 minutes (310 minutes), from 3 hours 20 minutes plus 1 hour 50 minutes.",
        ),
        ("1h 20m + 2h 50m", "4 hours 10 minutes (250 minutes), from 1h 20m + 2h 50m."),
        (
            "5 hours minus 1 hour 15 minutes",
            "3 hours 45 minutes (225 minutes), from 5 hours minus 1 hour 15 minutes.",
        ),
        ("2 hours 45 minutes times 3", "8 hours 15 minutes (495 minutes), from 2 hours 45 minutes times 3."),
        (
            "2 hours and 30 minutes divided by 2",
            "1 hour 15 minutes (75 minutes), from 2 hours and 30 minutes divided by 2.",
        ),
        (
            "What is 90 minutes plus 45 minutes?",
            "2 hours 15 minutes (135 minutes), from 90 minutes plus 45 minutes.",
        ),
    ],
)
def test_durations_are_added_and_multiplied_in_hours_and_minutes(question: str, answer: str) -> None:
    """ "3 hours 20 minutes plus 1 hour 50 minutes" was no arithmetic the calculator read; "90 minutes plus 45
    minutes" was 135 without its unit."""
    assert calculate.invoke({"expression": question}) == answer


def test_a_sum_of_metres_is_no_duration() -> None:
    assert calculate.invoke({"expression": "3 m + 2 m"}) == "(3 * 1000 / 1000 + 2 * 1000 / 1000) = 5 m"


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What's the sum of the first 100 numbers?", 5050),
        ("sum of the first 10 odd numbers", 100),
        ("What is the sum of the first 50 even numbers?", 2550),
    ],
)
def test_the_sum_of_the_first_whole_numbers(question: str, value: int) -> None:
    """ "What's the sum of the first 100 numbers?" went to the 135M model."""
    assert evaluate(to_expression(question)) == value


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Convert 100 USD to EUR at 0.92", "100 USD = 92 EUR at 0.92 EUR per USD (100 * 0.92)."),
        (
            "Convert 250 dollars to euros at a rate of 0.91",
            "250 dollars = 227.5 euros at 0.91 euros per dollar (250 * 0.91).",
        ),
    ],
)
def test_a_currency_conversion_at_a_rate_given_is_worked_out(question: str, answer: str) -> None:
    """The rate given had been refused with the rest ("needs an exchange rate ... not known offline")."""
    assert calculate.invoke({"expression": question}) == answer
    with pytest.raises(CalculationError, match="needs an exchange rate"):
        calculate.invoke({"expression": "Convert 100 USD to EUR"})


def test_calculations_joined_by_and_are_each_worked_out() -> None:
    """ "What's 15% of 80 and 20% of 60?" was no arithmetic the calculator read."""
    assert calculate.invoke({"expression": "What's 15% of 80 and 25% of 60?"}) == (
        "(15 / 100) * 80 = 12\n(25 / 100) * 60 = 15"
    )
    assert (
        calculate.invoke({"expression": "What is 12 squared and 13 squared?"})
        == "12 ** 2 = 144\n13 ** 2 = 169"
    )
    assert calculate.invoke({"expression": "Add 3 and 4"}) == "(3 + 4) = 7"  # one calculation of two numbers


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("If 5 pens cost $3.50, how much do 12 pens cost?", "(3.50 / 5 * 12)"),
        ("3 apples cost $1.20. How much are 10 apples?", "(1.20 / 3 * 10)"),
        ("I paid $12 for 8 muffins. How much would 20 muffins cost?", "(12 / 8 * 20)"),
        # more workers take less time
        ("If 4 workers build a wall in 6 days, how long would 8 workers take?", "(6 * 4 / 8)"),
        (
            "If 3 machines take 12 hours to finish a job, how many hours would 4 machines take?",
            "(12 * 3 / 4)",
        ),
    ],
)
def test_a_price_or_a_time_for_another_number_of_things(text: str, expression: str) -> None:
    assert calculate.invoke({"expression": text}).startswith(f"{expression} = ")


@pytest.mark.parametrize(
    "text",
    [
        "A bus for 40 people costs $600. How much for 10 people?",  # people are not what is bought
        "If 5 pens cost $3.50, how much do 12 pencils cost?",  # other things
        "If 5 pens cost $3.50, how much do 12 pens and 3 pencils cost?",  # a fourth number
        "If 4 workers build a wall in 6 days, how much would 8 workers cost?",  # no price given
    ],
)
def test_a_proportion_that_is_not_one_is_not_read(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


def test_an_amount_followed_by_an_amount_is_no_currency_conversion() -> None:
    """ "from $50 to $65" is a change, not dollars converted into another currency."""
    assert calculate.invoke(
        {"expression": "By what percentage did the price change from $50 to $65?"}
    ).startswith("((65 - 50) / 50 * 100) = 30")
    with pytest.raises(CalculationError, match="exchange rate"):
        calculate.invoke({"expression": "Convert $50 to euros"})


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("If a shirt costs $25 and I buy 4, what's the total?", "(4 * 25)"),
        ("Apples are $2 each. I buy 6. How much do I pay?", "(6 * 2)"),
        ("A coffee is $3.50. How much do 4 coffees cost?", "(4 * 3.50)"),  # the price ends a sentence
        ("I buy 4 shirts at $25. What's the total?", "(4 * 25)"),
    ],
)
def test_a_price_then_how_many_are_bought(text: str, expression: str) -> None:
    assert calculate.invoke({"expression": text}).startswith(f"{expression} = ")


def test_things_bought_for_a_price_are_not_read_as_a_price_each() -> None:
    """ "4 shirts for $25" may be the price of the four: not read as 25 each."""
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": "I bought 4 shirts for $25. What's the total?"})


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("What is 5'11\" in cm?", "5 ft 11 in = 180.34 cm"),  # feet and inches written with marks
        ("How tall is 6′2″ in meters?", "6 ft 2 in = 1.88 meters"),
        ("Convert 350 F to C for baking", "350 °F = 176.67 °C"),  # what it is for: no part of it
        ("Convert 10 km to miles for my run", "10 km = 6.21 miles"),
    ],
)
def test_a_conversion_written_with_marks_or_with_its_purpose_is_read(text: str, said: str) -> None:
    assert calculate.invoke({"expression": text}).startswith(said)


def test_a_unit_conversion_is_surely_the_calculators() -> None:
    """ "How many ml in a teaspoon?" shares no word with any agent: its reader is sure."""
    from cadence.builtins.math import reads_arithmetic
    from cadence.sdk import SURELY

    assert reads_arithmetic("How many ml in a teaspoon?") is SURELY
    assert reads_arithmetic("What is 12 * 12?") is SURELY  # arithmetic written out
    # a quantity scaled by servings, and fuel for a distance ("serves" had sent the recipe to the docs)
    recipe = "The recipe serves 4 and needs 200 g of sugar. How much sugar for 6 people?"
    assert reads_arithmetic(recipe) is SURELY
    assert reads_arithmetic("My car uses 8 liters per 100 km. How much fuel for 350 km?") is SURELY


def test_number_words_without_an_operation_are_said_as_written() -> None:
    """ "How much is 4 dozen?" had been "48 = 48"."""
    assert calculate.invoke({"expression": "How much is 4 dozen?"}) == "4 dozen = 48"
    assert calculate.invoke({"expression": "half a dozen"}) == "half a dozen = 6"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("What's 20% more than 150?", "(150 * (1 + 20 / 100)) = 180"),  # the percent written on its number
        ("What is 30% less than 200?", "(200 * (1 - 30 / 100)) = 140"),
        ("What's 7.5% sales tax on $120?", "(120 * 7.5 / 100) = 9 ($9)"),  # a tax is an amount of money
    ],
)
def test_a_percent_more_or_less_than_an_amount(text: str, said: str) -> None:
    assert calculate.invoke({"expression": text}) == said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("What's bigger: 3/5 or 0.58?", "3/5 (0.6) is bigger than 0.58."),
        ("Is 0.1 + 0.2 equal to 0.3?", "Yes, 0.1 + 0.2 (0.3) is equal to 0.3."),  # exactly, not in floats
        ("Is 2^10 equal to 1000?", "No, 2^10 (1024) is not equal to 1000."),
        ("Does 3 * 4 equal 12?", "Yes, 3 * 4 (12) is equal to 12."),
    ],
)
def test_two_amounts_compared_or_checked_equal(text: str, said: str) -> None:
    assert calculate.invoke({"expression": text}) == said


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "Which is heavier, a kilogram or a pound?",
            "A kilogram is heavier than a pound: 1 kilogram = 2.205 pounds.",
        ),
        (
            "Is a mile longer than a kilometer?",
            "Yes, a mile is longer than a kilometer: 1 mile = 1.609 kilometers.",
        ),
        ("Is an inch shorter than a centimeter?", "No, a centimeter is shorter than an inch: 1 inch = 2.54"),
        ("Which is shorter, a foot or a meter?", "A foot is shorter than a meter: 1 meter = 3.281 feet."),
        ("Which is lighter, an ounce or a gram?", "A gram is lighter than an ounce: 1 ounce = 28.35 grams."),
    ],
)
def test_two_units_of_one_kind_are_compared(question: str, said: str) -> None:
    """ "Which is heavier, a kilogram or a pound?" went to the 135M model ("A kilogram is approximately 283
    pounds")."""
    assert calculate.invoke({"expression": question}).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "Which is heavier, a kilogram of feathers or a kilogram of steel?",
            "Neither: 1 kilogram of feathers and 1 kilogram of steel have the same weight.",
        ),
        (
            "Which is heavier, 2 pounds or 1 kilogram?",
            "1 kilogram is heavier than 2 pounds: 2 pounds = 0.9072 kilograms.",
        ),
        ("Which is longer, 5 km or 3 miles?", "5 km is longer than 3 miles: 3 miles = 4.828 km."),
        (
            "Is 1 pound heavier than 500 grams?",
            "No, 500 grams is heavier than 1 pound: 1 pound = 453.6 grams.",
        ),
        ("Is 500 ml more than 2 cups?", "Yes, 500 ml is more than 2 cups: 2 cups = 473.2 ml."),
        (
            "Which is smaller, 1,200 meters or 1 mile?",
            "1200 meters is smaller than 1 mile: 1200 meters = 0.7456 miles.",
        ),
    ],
)
def test_two_amounts_of_one_kind_are_compared(question: str, said: str) -> None:
    """ "Which is heavier, a kilogram of feathers or a kilogram of steel?" went to the 135M model ("The answer
    is both, but in different ways: 1) A kilogram (or 2048 grams ...")."""
    assert calculate.invoke({"expression": question}) == said


@pytest.mark.parametrize(
    "question",
    [
        "Which is heavier, a kilogram or a meter?",
        "Which is bigger, France or Spain?",
        "Which is heavier, 2 kg of apples or 3 meters of rope?",
        "Which is longer, 3 miles or 2 hours?",
    ],
)
def test_two_things_not_units_of_one_kind_are_not_compared_as_units(question: str) -> None:
    from cadence.builtins.math_language import units_compared

    assert units_compared(question) is None


@pytest.mark.parametrize(
    "question", ["Convert -500 Kelvin to Celsius", "What is -300 °C in Fahrenheit?", "Convert -460 F to K"]
)
def test_a_temperature_below_absolute_zero_is_an_error(question: str) -> None:
    """The calculator had said "-500 K is -773.15 °C"."""
    with pytest.raises(CalculationError, match="below absolute zero"):
        calculate.invoke({"expression": question})
    assert calculate.invoke({"expression": "What is 0 K in Celsius?"}).startswith("0 K = -273.15 °C")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's 7 divided by 3 as a fraction?", "7/3 = 2 1/3"),
        ("12 over 8 as a fraction in lowest terms", "12/8 = 3/2 = 1 1/2"),
        ("How many is a baker's dozen?", "a baker's dozen = 13"),
        ("How much is 3 dozen eggs?", "3 dozen eggs = 36 eggs"),
    ],
)
def test_quotients_as_fractions_and_dozens_of_things(question: str, answer: str) -> None:
    assert calculate.invoke({"expression": question}) == answer


def test_a_quotient_by_zero_as_a_fraction_is_an_error() -> None:
    with pytest.raises(CalculationError, match="Division by zero"):
        calculate.invoke({"expression": "5/0 as a fraction"})


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is 17 even or odd?", "17 is odd."),
        ("Is 18 odd or even?", "18 is even."),
        ("Simplify 18/24", "18/24 = 3/4"),
        ("Reduce 10/4 to lowest terms", "10/4 = 5/2 = 2 1/2"),
    ],
)
def test_even_or_odd_asked_as_a_choice_and_fractions_simplified(question: str, answer: str) -> None:
    """ "Is 17 even or odd?" had gone to the 135M model ("17 is indeed even."); "Simplify 18/24" was 0.75."""
    assert calculate.invoke({"expression": question}) == answer


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("My hourly rate is $45. How much do I make in 8 hours?", 360),
        ("A monthly fee of $12 is how much a year?", 144),
        ("My monthly rent is $1,200. How much is that per year?", 14400),
    ],
)
def test_a_rate_named_by_its_period_is_an_amount_per_period(question: str, value: float) -> None:
    """ "My hourly rate is $45." then "How much do I make in 8 hours?", read together, had been no arithmetic."""
    assert evaluate(to_expression(question)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I have 3 cats and 2 dogs. How many pets do I have?", "(3 + 2) = 5"),
        ("I have 3 cats and 2 dogs. How many do I have in total?", "(3 + 2) = 5"),
        ("A class has 12 boys and 15 girls. How many students are there?", "(12 + 15) = 27"),
    ],
)
def test_things_of_several_kinds_counted_by_their_kind(text: str, value: str) -> None:
    assert calculate.invoke({"expression": text}) == value


@pytest.mark.parametrize(
    "text",
    [
        "I have 3 cats and 2 dogs. How many legs do they have?",
        "I have 3 cats and 2 dogs. How many legs in total?",
    ],
)
def test_a_count_of_something_else_of_several_kinds_is_not_their_sum(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("144, then take the square root", "sqrt(144) = 12"),
        ("144, then square root", "sqrt(144) = 12"),
        ("100, then take 20 from it", "(100 - 20) = 80"),
    ],
)
def test_take_the_square_root_as_a_step_is_no_subtraction(text: str, value: str) -> None:
    """ "Take the square root" after 144 had been read as "144 - square root" (take = take away)."""
    assert calculate.invoke({"expression": text}) == value


def test_a_rounding_said_again_and_again_reads_in_bounded_depth() -> None:
    """ "rounded rounded ..." had recursed once per word (RecursionError on 4,000 of them)."""
    assert read_conversion("rounded " * 4000) is None


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "I have 24 cookies and want to share them among 5 friends. How many does each get?",
            "Each gets 4, with 4 left over: 5 × 4 = 20 of the 24 cookies (about 4.8 each if the rest is split too).",
        ),
        (
            "Split 17 apples between 3 kids",
            "Each gets 5, with 2 left over: 3 × 5 = 15 of the 17 apples (about 5.67 each if the rest is split too).",
        ),
        ("Share 20 apples among 4 kids", "(20 / 4) = 5"),  # evenly: the quotient
        ("Share $50 among 3 people", "(50 / 3) = 16.6666666667 (about $16.67)"),  # money is split in cents
        ("If 7 pizzas are shared by 3 people, how much does each get?", "(7 / 3) = 2.33333333333"),  # cut up
        ("What is 24 divided by 5?", "24 / 5 = 4.8"),  # no things shared
    ],
)
def test_whole_things_shared_out_leave_a_remainder(text: str, answer: str) -> None:
    """Cookies shared among friends had been 4.8 each."""
    assert calculate.invoke({"expression": text}) == answer


@pytest.mark.parametrize("text", ["Convert 5 parsecs to light years", "Convert 12 apples to oranges"])
def test_a_conversion_of_units_not_known_says_which_units_are(text: str) -> None:
    """It had been "no arithmetic", which no agent takes: the small model made up a parsec."""
    from cadence.builtins.math import reads_arithmetic

    with pytest.raises(
        CalculationError, match=r"^Cannot convert \w+ to [\w ]+: one of them is no unit"
    ) as info:
        calculate.invoke({"expression": text})
    assert "lengths (mm, cm, m, km" in str(info.value)
    assert reads_arithmetic(text)  # the calculator's to say
    assert calculate.invoke({"expression": "Convert 3 cups to ml"}).startswith("3 cups = 709.76 ml")


@pytest.mark.parametrize(
    ("question", "value"),
    [
        # things a sum buys, whole things only
        ("If a book costs $15 and I have $100, how many books can I buy?", 6),
        ("A pen costs $3. I have $20. How many pens can I buy?", 6),
        # the rest of a count of two kinds
        ("A class has 28 students. 12 are girls. How many are boys?", 16),
        ("There are 30 fruits in a basket. 18 of them are apples. How many are pears?", 12),
        # groups said by what one holds
        ("Each box holds 12 pencils. How many boxes do I need for 150 pencils?", 13),
        ("A bus seats 40 people. How many buses are needed for 130 people?", 4),
        # a price each said of what a shop sells
        ("A shop sells apples at $0.50 each. How much for 18 apples?", 9),
        # things counted for one thing made, asked by name
        ("I need 3 eggs for one cake. How many eggs for 7 cakes?", 21),
        # a value that dropped, asked as it was after
        (
            "The temperature was 15 degrees in the morning and dropped 8 degrees by night. What was it at night?",
            7,
        ),
    ],
)
def test_everyday_word_problems_of_one_step(question: str, value: float) -> None:
    """Each had been refused and answered by the small model's guess ("You can buy 10 books", "(1 + 3) * 4 =
    6 boys")."""
    assert evaluate(to_expression(question)) == pytest.approx(value)


@pytest.mark.parametrize(
    "question",
    [
        "A class has 28 students. 12 are girls. How many are girls?",  # the count given: nothing to work out
        "I have 3 kids. A toy costs $10. How many toys can I buy?",  # no sum of money
        "A bus for 40 people costs $600. How much for 60 people?",  # a cost does not scale by the people
        "The temperature was 15 degrees and dropped 8 degrees. What was the temperature before?",
    ],
)
def test_everyday_word_problems_not_of_that_shape_are_not_read(question: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": question})


def test_a_rate_a_night_is_a_rate_a_day() -> None:
    """ "I sleep 8 hours a night. How many hours do I sleep in a year?" had gone to the clock ("8 hours from
    now it will be 17:17"): a rate over a time is surely the calculator's."""
    from cadence.builtins.math import reads_arithmetic
    from cadence.sdk import SURELY

    question = "I sleep 8 hours a night. How many hours do I sleep in a year?"
    assert evaluate(to_expression(question)) == 8 * 365
    assert evaluate(to_expression("A hotel costs $120 a night. How much for a week?")) == 840
    assert reads_arithmetic(question) is SURELY


def test_a_thing_sized_as_a_rectangle_is_said_in_its_unit() -> None:
    assert calculate.invoke({"expression": "A garden is 10 m long and 4 m wide. What is its area?"}) == (
        "(10 * 4) = 40 m²"
    )
    assert calculate.invoke({"expression": "A garden is 10 m long and 4 m wide. What is its perimeter?"}) == (
        "(2 * (10 + 4)) = 28 m"
    )


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("I have 5 dollars in quarters. How many quarters do I have?", 20),
        ("I have $2 in dimes. How many dimes?", 20),
        ("There are 4 quarters in a dollar. How many quarters are in $7?", 28),  # its worth said rightly
    ],
)
def test_coins_had_or_asked_after_their_worth(question: str, value: float) -> None:
    """Each had been answered by the small model ("A dollar is worth 10 cents.")."""
    assert evaluate(to_expression(question)) == value


def test_a_coin_given_another_worth_is_not_read_as_the_usual_one() -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": "There are 5 quarters in a dollar. How many quarters are in $7?"})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # counts of several kinds, asked of one: the others are no part of it (it had been refused)
        ("I have 3 cats and 2 dogs. If I get 2 more cats, how many cats will I have?", 5),
        (
            "A farm has 12 cows, 8 pigs and 20 chickens. If 5 chickens are sold, how many chickens are left?",
            15,
        ),
        ("Tom has 5 apples and 3 oranges. He eats 2 apples. How many apples does he have?", 3),
        (
            "A shop has 30 shirts and 20 hats. It sells 12 shirts and 5 hats. How many shirts does it have?",
            18,
        ),
        # still all of them when asked of all
        ("I have 3 cats and 2 dogs. How many animals do I have?", 5),
        # taken away, asked what there is now; given more is gained
        ("Tom has 5 apples. He eats 2. How many apples does he have?", 3),
        ("Max has 11 cards. His friend gives him 6 more. How many cards does he have?", 17),
    ],
)
def test_a_count_of_one_kind_among_several_is_worked_out(text: str, value: int) -> None:
    assert calculate.invoke({"expression": text}).endswith(f"= {value}")


@pytest.mark.parametrize(
    "text",
    [
        "Ben had $120 and spent $45. How much did he have?",  # what he had, before: not read as left
        "I have 3 cats and 2 dogs. How many legs do they have?",  # legs are not counted
    ],
)
def test_a_question_of_no_kind_counted_is_not_cut_to_one(text: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("There are 24 students and 4 groups. How many students per group?", 6),  # it had been 24 + 4
        ("We have 60 chairs and 12 tables. How many chairs at each table?", 5),
        ("30 apples and 5 boxes: how many apples in each box?", 6),
        ("There are 24 students and 4 teachers. How many people are there?", 28),  # all of them: a sum
    ],
)
def test_things_and_groups_asked_how_many_in_each_group(text: str, value: int) -> None:
    assert calculate.invoke({"expression": text}).endswith(f"= {value}")


@pytest.mark.parametrize(
    ("expression", "value"),
    [("2(3+4)", 14), ("(1+2)(3+4)", 21), ("(3+4)2", 14), ("2 (5)", 10), ("log10(1000)", 3), ("log2(8)", 3)],
)
def test_a_product_written_without_its_sign_is_read_as_on_paper(expression: str, value: int) -> None:
    """ "2(3+4)" had been an error ("only the whitelisted functions can be called")."""
    assert evaluate(expression) == value


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("log(100)", "log(100) = 4.60517018599 (the natural logarithm; in base 10, log10(100) = 2)"),
        (
            "What is log(1000)?",
            "log(1000) = 6.90775527898 (the natural logarithm; in base 10, log10(1000) = 3)",
        ),
        ("sin(30)", "sin(30) = -0.988031624093 (30 in radians; in degrees, sin(30°) = 0.5)"),
        ("sin(90) + 1", "sin(90) + 1 = 1.8939966636 (90 in radians; in degrees, sin(90°) + 1 = 2)"),
    ],
)
def test_arithmetic_another_convention_reads_otherwise_says_both(text: str, said: str) -> None:
    """A pocket calculator's log is base 10 and its sine takes degrees: "log(100)" had been 4.605 alone."""
    assert calculate.invoke({"expression": text}) == said


@pytest.mark.parametrize("text", ["sin(0.5)", "log(8, 2)", "log10(100)", "cos(pi)", "sin(7)"])
def test_arithmetic_read_one_way_only_is_said_alone(text: str) -> None:
    assert "(" not in calculate.invoke({"expression": text}).partition(" = ")[2]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2 liters divided by 250 ml", 8),  # it had been 2 / 250 = 0.008
        ("What is 1 km / 250 m?", 4),
        ("How many 250 ml glasses can I fill from a 2 liter bottle?", 8),  # the model had answered
        ("How many 300 ml cups can I fill from a 1 liter jug?", 3),  # whole cups
        ("How many 500 g bags are in 3 kg?", 6),
    ],
)
def test_amounts_of_one_kind_divided_are_divided_in_one_unit(text: str, value: int) -> None:
    assert calculate.invoke({"expression": text}).endswith(f"= {value}")


def test_amounts_of_two_kinds_are_not_divided_as_one() -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": "How many 250 ml glasses are in 2 km?"})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("If a shirt costs $25 and I buy 3, plus $5 shipping, how much do I pay?", 80),  # the model's "$8"
        ("3 shirts at $25 each plus $5 shipping", 80),
        ("I buy 3 shirts at $25 each and pay $5 for shipping. What is the total?", 80),
        ("A $60 jacket plus 8% tax", 64.8),  # a percent is no cost added
    ],
)
def test_a_cost_added_to_a_price_is_added(text: str, value: float) -> None:
    assert f"= {value:g}" in calculate.invoke({"expression": text})


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # each had been "Could not read the text as arithmetic"
        ("What is 2 km + 500 m?", "= 2500 m"),
        ("What is 1 kg minus 300 g?", "= 700 g"),
        ("3 feet plus 8 inches", "= 44 inches"),
        ("What is 2 liters + 750 ml?", "= 2750 ml"),
        ("1.5 kg times 4", "= 6 kg"),
        ("What's 10 km / 4?", "= 2.5 km"),
        ("Add 2 km and 300 m", "= 2300 m"),
    ],
)
def test_amounts_with_units_are_added_in_the_finer_unit_and_scaled_in_theirs(text: str, said: str) -> None:
    assert calculate.invoke({"expression": text}).endswith(said)


def test_amounts_of_two_kinds_are_not_added() -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": "2 km + 5 kg"})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What is 3 times the sum of 4 and 5?", 27),  # statistics had summed 3, 4 and 5: 12
        ("What is 10 minus the product of 2 and 3?", 4),
        ("What is half of the difference between 20 and 8?", 6),
    ],
)
def test_an_operation_named_inside_another_is_one_number_of_it(text: str, value: int) -> None:
    assert calculate.invoke({"expression": text}).endswith(f"= {value}")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # the clock calculator had failed on these ("No clock question found")
        ("What's 45 minutes as a fraction of an hour?", "= 3/4 (0.75)"),
        ("What fraction of a day is 6 hours?", "= 1/4 (0.25)"),
        ("What percentage of a year is 73 days?", "= 20"),
    ],
)
def test_an_amount_as_a_fraction_of_a_unit(text: str, said: str) -> None:
    assert calculate.invoke({"expression": text}).endswith(said)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # each had been the model's ("3 for $5 is cheaper than the usual £20"; "the GCD, which is 3")
        (
            "Which is cheaper: 3 for $5 or 5 for $8?",
            "5 for $8 is cheaper: $1.60 each, against $1.67 each for 3 for $5.",
        ),
        ("What is the better deal, 2 for $4 or 3 for $6?", "They cost the same: $2.00 each."),
        ("What is the ratio of 12 to 18 in simplest form?", "The ratio 12:18 in simplest form is 2:3."),
        ("Simplify the ratio 10:4", "The ratio 10:4 in simplest form is 5:2."),
    ],
)
def test_deals_and_ratios_are_compared_and_simplified(text: str, said: str) -> None:
    assert calculate.invoke({"expression": text}) == said


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("How many combinations of 5 choose 2?", 10),  # the model's answer had been right by chance
        ("10C3", 120),
        ("How many ways to choose 3 books from 10?", 120),
        ("How many ways can you arrange 3 of 5 books?", 60),
        ("permutations of 5 taken 2", 20),
        ("What's 1 in 8 as a percentage?", 12.5),  # it had been refused
    ],
)
def test_choices_arrangements_and_one_in_so_many(text: str, value: float) -> None:
    assert calculate.invoke({"expression": text}).endswith(f"= {value:g}")


def test_a_choice_of_too_many_is_an_error() -> None:
    with pytest.raises(CalculationError, match="limited"):
        calculate.invoke({"expression": "5000 choose 2"})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # each had been "Could not read the text as arithmetic"
        ("If my rent goes up 3% from $1,500, what is the new rent?", 1545),
        ("The price of a $200 jacket drops by 25%. What is the new price?", 150),
        ("My salary of $4,000 increased by 10%. How much is it now?", 4400),
        ("The population grew 5% from 1000. What is it now?", 1050),
    ],
)
def test_an_amount_changed_by_a_percent_asked_what_it_is_now(text: str, value: int) -> None:
    assert f"= {value}" in calculate.invoke({"expression": text})


def test_a_percent_change_asked_as_a_percent_is_not_a_new_value() -> None:
    """Asking by what percent it changed stays a percent change (25%), not a value changed by a percent."""
    assert calculate.invoke({"expression": "The price went up from $80 to $100. By what percent?"}).endswith(
        "= 25"
    )
