"""cadence.text: shared text helpers."""

from __future__ import annotations

import pytest

from cadence.text import number_in_words, numbers_from_words, valid_unicode


def test_valid_unicode_replaces_only_lone_surrogates() -> None:
    assert valid_unicode("plain") == "plain"
    assert valid_unicode("café 😀") == "café 😀"
    assert valid_unicode("bad \ud800 text") == "bad \ufffd text"
    assert valid_unicode("\udfff and \ud83d\ude00") == "\ufffd and 😀"  # a written-out pair is joined
    valid_unicode("x \udc80 y").encode("utf-8")


def test_numbers_from_words_writes_numbers_in_digits() -> None:
    assert numbers_from_words("what's ten percent of 250") == "what's 10 percent of 250"
    # "half a dozen" was "half 12": the calculator then found 24 for half a dozen eggs at 2 each
    assert numbers_from_words("half a dozen eggs at 2 each") == "6 eggs at 2 each"
    assert numbers_from_words("a dozen and a half rolls, three dozen cups") == "18 rolls, 36 cups"


def test_a_run_of_scale_words_naming_no_number_stays_as_written() -> None:
    # "hundred and hundred and ..." multiplied out to a number of thousands of digits, which Python
    # refuses to print (ValueError): a message of them failed the embedded model's turn
    text = "hundred and " * 2700
    assert numbers_from_words(text) == text
    assert numbers_from_words("nine hundred ninety nine billion") == "999000000000"


def test_a_scale_word_after_a_scale_word_multiplies() -> None:
    # "a thousand million" is 10**9 (it read as 1,001,000), "a million million" 10**12
    assert numbers_from_words("one thousand million") == "1000000000"
    assert numbers_from_words("a million million") == "1000000000000"
    assert numbers_from_words("five million two thousand") == "5002000"


def test_visible_ignores_spaces_control_and_format_characters() -> None:
    from cadence.text import visible

    assert (
        not visible("") and not visible(" \n\t\u00a0") and not visible("\u200b\u200d\u2060\ufeff\x00\u202e")
    )
    assert visible("4") and visible("\u200bok") and visible("日本") and visible("🙂")


def test_split_thought_sets_reasoning_aside() -> None:
    from cadence.text import split_thought

    assert split_thought("<think>a</think> b") == ("b", "a")
    assert split_thought("<THINK>a") == ("", "a")  # an unclosed block runs to the end
    assert split_thought(["part"]) == (["part"], "")  # non-text content as it is


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "zero"),
        (42, "forty-two"),
        (305, "three hundred and five"),
        (1_001, "one thousand and one"),
        (2_500_000, "two million five hundred thousand"),
        (-17, "minus seventeen"),
        (10**12, "one trillion"),
    ],
)
def test_number_in_words_reads_back_as_the_number(n: int, words: str) -> None:
    assert number_in_words(n) == words
    assert numbers_from_words(words.removeprefix("minus ")) == str(abs(n))


def test_number_in_words_refuses_a_number_beyond_words() -> None:
    with pytest.raises(ValueError, match="too large"):
        number_in_words(10**15)


def test_punctuation_alone_says_nothing() -> None:
    from cadence.text import says_something

    assert not any(says_something(t) for t in ("", " . ", '""', "```\n```", "—", "..."))
    assert all(says_something(t) for t in ("42", "Oui.", "東京", "👍"))


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        # "one point five times four" had been answered by the model (12); "half a million plus 250 thousand"
        # read as 1000000 + 250000 / 2
        ("one point five times four", "1.5 times 4"),
        ("zero point seven five", "0.75"),
        ("3 point 14", "3.14"),
        ("half a million plus 250 thousand", "500000 plus 250000"),
        ("half a dozen eggs", "6 eggs"),
        ("the point is five", "the point is 5"),  # no digits after "point": no decimal
    ],
)
def test_decimals_and_halves_said_in_words(text: str, digits: str) -> None:
    assert numbers_from_words(text) == digits
