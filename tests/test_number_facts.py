"""Facts about whole numbers the calculator says in a sentence (``cadence.builtins.number_facts``)."""

from __future__ import annotations

import pytest

from cadence.builtins.math import calculate
from cadence.builtins.number_facts import MAX_RANGE, answer, is_prime


def test_is_prime_agrees_with_a_sieve() -> None:
    limit = 2_000
    sieve = [True] * (limit + 1)
    sieve[0] = sieve[1] = False
    for k in range(2, int(limit**0.5) + 1):
        if sieve[k]:
            sieve[k * k :: k] = [False] * len(sieve[k * k :: k])
    assert [n for n in range(limit + 1) if is_prime(n)] == [n for n, p in enumerate(sieve) if p]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What is the next prime after 100?", "The next prime after 100 is 101."),
        ("What's the largest prime below 50?", "The largest prime below 50 is 47."),
        ("What is the nearest prime to 90?", "The prime nearest to 90 is 89."),
        ("What is the nearest prime to 9?", "The primes nearest to 9 are 7 and 11, as near."),
        ("Is there a prime before 2? the largest prime below 2", "There is no prime below 2"),
        (
            "List the prime numbers between 10 and 30",
            "There are 6 prime numbers between 10 and 30: 11, 13, 17, 19, 23 and 29.",
        ),
        (
            "How many primes are there below 100?",
            "There are 25 prime numbers below 100: the first is 2, the last 97.",
        ),
        ("primes between 24 and 28", "There are no prime numbers between 24 and 28."),
        ("Is 64 a perfect square?", "Yes, 64 is a perfect square: 8 × 8 = 64."),
        ("Is 50 a perfect square?", "No, 50 is not a perfect square: it lies between 49 (7²) and 64 (8²)."),
        ("Is 27 a perfect cube?", "Yes, 27 is a perfect cube: 3 × 3 × 3 = 27."),
        ("What's 17 divided by 3 with remainder?", "17 ÷ 3 = 5 remainder 2 (17 = 3 × 5 + 2)."),
        (
            "How many times does 7 go into 50?",  # it had been the small model's guess
            "7 goes into 50 7 times, with 1 left over: 50 ÷ 7 = 7 remainder 1 (50 = 7 × 7 + 1).",
        ),
        ("Divide 100 by 7 with the remainder", "100 ÷ 7 = 14 remainder 2 (100 = 7 × 14 + 2)."),
        ("How many zeros are in one billion?", "One billion (1,000,000,000) has 9 zeros."),
        ("How many zeros does a million have?", "One million (1,000,000) has 6 zeros."),
        # digits counted and summed ("How many digits does it have?" after 5040 had been "It has 10 digits.")
        ("How many digits does 5040 have?", "5040 has 4 digits."),
        ("How many digits are in 123,456,789?", "123,456,789 has 9 digits."),
        ("how many digits in 3.14159", "3.14159 has 6 digits (1 before the decimal point and 5 after)."),
        (
            "What is the sum of the digits of 1234?",
            "The sum of the digits of 1234 is 10 (1 + 2 + 3 + 4 = 10).",
        ),
        ("digit sum of 7", "The sum of the digits of 7 is 7 (7 = 7)."),
        ("What's 45% as a decimal?", "45% as a decimal is 0.45."),
        ("Convert 3/8 to a decimal", "3/8 as a decimal is 0.375."),
        ("What is 1/3 as a decimal?", "1/3 as a decimal is about 0.333333 (it repeats without end)."),
        ("Write 1,000,000 in words", "1,000,000 written in words is one million."),
        ("How do you spell 42?", "42 written in words is forty-two."),
        ("What's 2,305 in words?", "2,305 written in words is two thousand three hundred and five."),
        ("3.25 in words", "3.25 written in words is three point two five."),
        ("Write three hundred and five in digits", "Three hundred and five written in digits is 305."),
        ("What is one million in numbers?", "One million written in digits is 1,000,000 (1000000)."),
        ("Sort these numbers: 42, 7, 19, 3, 88", "From smallest to largest: 3, 7, 19, 42, 88."),
        ("Put 5, 2 and 9 in descending order", "From largest to smallest: 9, 5, 2."),
        ("Order from largest to smallest: 3.5, -2, 10, 7", "From largest to smallest: 10, 7, 3.5, -2."),
        ("Sort 1,000, 7, 12,500 and 3", "From smallest to largest: 3, 7, 1,000, 12,500."),
        ("What's the next number: 2, 4, 8, 16?", "The next number after 2, 4, 8, 16 is 32: each number is"),
        ("What comes next in the sequence 3, 6, 9, 12?", "The next number after 3, 6, 9, 12 is 15: each"),
        (
            "Continue the pattern 1, 1, 2, 3, 5, 8",
            "The next number after 1, 1, 2, 3, 5, 8 is 13: each number",
        ),
        (
            "What is the next number in 1, 4, 9, 16, 25?",
            "The next number after 1, 4, 9, 16, 25 is 36: the steps",
        ),
        (
            "next number: 81, 27, 9, 3",
            "The next number after 81, 27, 9, 3 is 1: each number is the one before",
        ),
        ("What comes next: 1, 5, 2, 9?", "No simple rule continues 1, 5, 2, 9"),
        ("Write 15 in Roman numerals", "15 in Roman numerals is XV."),
        ("2024 as a Roman numeral", "2024 in Roman numerals is MMXXIV."),
        ("What is MMXXIV?", "The Roman numerals MMXXIV are 2,024."),
        ("What does IX mean?", "The Roman numerals IX are 9."),
        ("What is IIII?", "IIII is not written as Roman numerals are (read loosely it would be 4)."),
        ("Write 5000 in roman numerals", "Roman numerals write whole numbers from 1 to 3,999"),
        # another base (the model had guessed "256 in binary is 10^3 * 8 + 4")
        ("What is 255 in binary?", "255 in binary is 11111111."),
        ("Convert 42 to hex", "42 in hexadecimal is 2A."),
        ("What is 100 in base 3?", "100 in base 3 is 10201."),
        ("Convert 0x1F to decimal.", "0x1F is 31 in decimal."),
        ("binary 1010 to decimal", "1010 in binary is 10 in decimal."),
        ("What is 1010 from binary to decimal?", "1010 in binary is 10 in decimal."),
        ("hex FF in decimal", "FF in hexadecimal is 255 in decimal."),
        ("What is 5 in binary to decimal?", "5 is not a number in binary: its digits go from 0 to 1."),
        ("What is 12 in base 40?", "Numbers are written in bases from 2 to 36"),
    ],
)
def test_a_fact_about_whole_numbers_is_worked_out(question: str, said: str) -> None:
    assert answer(question).startswith(said)
    assert calculate.invoke({"expression": question}).startswith(said)


@pytest.mark.parametrize(
    "question",
    [
        "What is 12 * 12?",
        "Is 97 prime?",
        "How many zeros are in a googol?",
        "List 3, 1, 2",
        "Spell cat",
        "What is log base 10 of 100?",
        "Explain binary search",
    ],
)
def test_other_questions_are_left_to_the_calculator(question: str) -> None:
    assert answer(question) is None


def test_a_range_too_wide_is_refused_in_a_sentence() -> None:
    said = answer(f"List the primes between 1 and {MAX_RANGE * 3}")
    assert said is not None and "too wide" in said


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # the model had answered "2,3, and the last one is actually a special case"
        ("What are the first 5 prime numbers?", "The first 5 prime numbers are 2, 3, 5, 7 and 11."),
        ("List the first 10 primes", "The first 10 prime numbers are 2, 3, 5, 7, 11, 13, 17, 19, 23 and 29."),
        ("What is the smallest prime number?", "The first prime number is 2."),
        ("What is the first prime after 100?", "The next prime after 100 is 101."),
        (
            "What are the first 1000 primes?",
            "That is too many primes to list (at most 60 here); ask for fewer.",
        ),
    ],
)
def test_the_first_primes_are_listed(question: str, said: str) -> None:
    assert answer(question) == said
