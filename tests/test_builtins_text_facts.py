"""``text_facts``: counts and spellings of a text the question gives, and how the embedded model reaches it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from cadence.builtins.docs import DocsPlugin
from cadence.builtins.geo import GEO_TOOLS, GeoPlugin
from cadence.builtins.info import INFO_TOOLS, InfoPlugin
from cadence.builtins.math import MATH_TOOLS, MathPlugin
from cadence.builtins.text import TextAgent, TextPlugin
from cadence.builtins.text_facts import TextFactsError, answer, asks_text_fact, read_request, syllables
from cadence.models.local import LocalChatModel
from cadence.models.local.policy import is_statement, with_another_number
from cadence.models.preroute import without_style_request
from cadence.orchestration.control_tools import make_routing_tools
from cadence.orchestration.coordinator import agent_readers
from cadence.sdk import SURELY, ToolException
from cadence.settings import Settings


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How many r's are in strawberry?", "The letter 'r' appears 3 times in the word 'strawberry'."),
        ("How many s in Mississippi", "The letter 's' appears 4 times in the word 'Mississippi'."),
        ("How many times does the letter p appear in 'apple pie'?", "The letter 'p' appears 3 times"),
        (
            "How many words are in this sentence: the quick brown fox jumps over the lazy dog",
            "The text 'the quick brown fox jumps over the lazy dog' has 9 words.",
        ),
        # misspelt (it had reached no tool); a quoted text stays as written
        ("how many leters in banana", "The word 'banana' has 6 letters."),
        ("how many vowles are in education", "The word 'education' has 5 vowels (a, e, i, o, u)."),
        ("How many letters in 'leters'?", "The word 'leters' has 6 letters."),
        (  # the quotes and the question's mark are no part of the text (they had been shown in it)
            'How many words are in this sentence: "I love learning new things every day"?',
            "The text 'I love learning new things every day' has 7 words.",
        ),
        (
            "Count the words: I came, I saw, I conquered.",
            "The text 'I came, I saw, I conquered.' has 6 words.",
        ),
        (
            "How many characters in 'hello world'?",
            "The text 'hello world' has 11 characters (10 without spaces).",
        ),
        ("How many letters are in the word necessary?", "The word 'necessary' has 9 letters."),
        ("How many vowels are in 'onomatopoeia'?", "The word 'onomatopoeia' has 8 vowels (a, e, i, o)."),
        ("How many sentences are in: I came. I saw. I conquered.", "has 3 sentences."),
        ("How many times does 'the' appear in: The cat and the dog", "The word 'the' appears 2 times"),
        ("How many letters are in my name, Alexander?", "The word 'Alexander' has 9 letters."),
        ("Reverse the word hello", "The word 'hello' written backwards is 'olleh'."),
        ("How do you spell necessary?", "The word 'necessary' is spelled n-e-c-e-s-s-a-r-y (9 letters)."),
        ("Spell the word rhythm", "The word 'rhythm' is spelled r-h-y-t-h-m (6 letters)."),
        ("hw many letters in banana", "The word 'banana' has 6 letters."),  # a typo before the count
        ("Spell necessary backwards", "The word 'necessary' written backwards is 'yrassecen'."),
        ("Write this in upper case: hello there", "The text 'hello there' in upper case is 'HELLO THERE'."),
        ("Is racecar a palindrome?", "Yes, the word 'racecar' is a palindrome"),
        ("Is 'A man, a plan, a canal: Panama' a palindrome?", "Yes,"),
        ("Is 'hello' a palindrome?", "No, the word 'hello' is not a palindrome: backwards it is 'olleh'."),
        # opening with the quoted word (the model had reworded it: "Elephant is a more complex word")
        ("Which word is longer, elephant or giraffe?", "'elephant' (8 letters) is longer than 'giraffe'"),
    ],
)
def test_counts_and_spellings_are_worked_out(question: str, said: str) -> None:
    assert said in answer(question)
    assert asks_text_fact(question) is SURELY
    # a whole sentence: the embedded model says it as found ("The answer is: 11" had been its rewording)
    assert is_statement(answer(question))


@pytest.mark.parametrize(
    "question",
    [
        "How many letters in the alphabet?",  # a fact, not a count of a given text
        "How many letters are in my name?",  # the name is not given
        "What words in English start with z?",  # no count of a given text
        "How many characters can a tweet have?",
        "How long is the Nile?",
        "How many days until Christmas?",
        "How many people live in Paris?",
        "What's 2 + 2?",
        "How many km in a mile?",
        "Summarize this: The meeting was moved. Lunch is provided.",
    ],
)
def test_a_question_giving_no_text_to_count_is_not_read(question: str) -> None:
    assert read_request(question) is None
    assert not asks_text_fact(question)
    with pytest.raises(TextFactsError, match="name the text in quotes or after a colon"):
        answer(question)


def test_the_tool_refuses_a_text_longer_than_the_limit() -> None:
    tool = {
        t.name: t for t in TextAgent(TextPlugin.get_metadata(), Settings(summarize_max_chars=100)).get_tools()
    }["text_facts"]
    assert tool.invoke({"question": "How many r's in strawberry?"}).startswith("The letter 'r' appears 3")
    with pytest.raises(ToolException, match="reads at most 100"):
        tool.invoke({"question": "How many words are in: " + "word " * 40})


def _routes() -> list[Any]:
    text_tools = TextPlugin.create_agent().get_tools()
    plugins = [
        MathPlugin.get_metadata(),
        InfoPlugin.get_metadata(),
        DocsPlugin.get_metadata(),
        GeoPlugin.get_metadata(),
        TextPlugin.get_metadata(),
    ]
    readers = agent_readers(
        {"math": MATH_TOOLS, "info": INFO_TOOLS, "docs": [], "geo": GEO_TOOLS, "text": text_tools}
    )
    return make_routing_tools(plugins, readers=readers)


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("How many r's are in strawberry?", "goto_text_agent"),
        ("How many words are in this sentence: the quick brown fox", "goto_text_agent"),
        ("Reverse the word hello", "goto_text_agent"),
        ("How do you spell necessary?", "goto_text_agent"),
        ("Make this uppercase: cadence is great", "goto_text_agent"),  # "cadence" is the docs' word
        ("How many km in a mile?", "goto_math_agent"),
        ("What is the capital of France?", "goto_geo_agent"),
        ("How do you spell 42?", "goto_math_agent"),  # "spell" is the text agent's; the calculator is sure
        ("Sort these numbers: 42, 7, 19, 3, 88", "goto_math_agent"),
        ("How do I set the log level?", "goto_docs_agent"),  # a setting the docs cover
        ("How do I use Ollama?", "goto_docs_agent"),  # a model provider
        ("What's the local time in Auckland?", "goto_info_agent"),  # "local" is no docs' word
        ("Is the sun up in Oslo?", "goto_info_agent"),  # day or night: the sun over the place
        ("When does DST end in Sydney?", "goto_info_agent"),
    ],
)
def test_the_embedded_model_routes_a_count_of_a_given_text_to_the_text_agent(
    question: str, route: str
) -> None:
    """ "How many words are in this sentence: ..." had gone to the docs, "Reverse the word hello" to the 135M
    model ("I specialize in helping users with their queries")."""
    model = LocalChatModel()
    bound = model.bind_tools(_routes())
    plan = model.plan([SystemMessage("x"), HumanMessage(question)], **bound.kwargs)  # type: ignore[attr-defined]
    assert plan.route_names == [route]


def test_the_text_agent_passes_the_whole_question() -> None:
    """ "Write this in upper case:" is what is asked, not a style of answer to leave out."""
    question = "Write this in upper case: hello there"
    assert without_style_request(question) == question
    assert without_style_request("Answer like a pirate: what is 9 plus 10?") == "what is 9 plus 10?"
    model = LocalChatModel()
    bound = model.bind_tools(TextPlugin.create_agent().get_tools())
    messages = [
        SystemMessage("x"),
        HumanMessage(question),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_text_agent", "args": {}, "id": "r1"}]),
        ToolMessage("text", tool_call_id="r1", name="goto_text_agent"),
    ]
    call = json.loads(model.plan(messages, **bound.kwargs).fixed or "{}")  # type: ignore[attr-defined]
    assert call == {"name": "text_facts", "arguments": {"question": question}}


def test_a_follow_up_in_another_word_asks_the_same_count() -> None:
    assert (
        with_another_number("And in raspberry?", "How many r's in strawberry?")
        == "How many r's in raspberry?"
    )
    assert with_another_number("And in Paris?", "What time is it in Tokyo?") == "What time is it in Paris?"
    # "in" replaced only where it ends the question
    assert with_another_number("And in 2020?", "What is the population in France today?") is None


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "Which is longer, 'elephant' or 'giraffe'?",
            "'elephant' (8 letters) is longer than 'giraffe' (7 letters).",
        ),
        (
            "Which word is longer, elephant or giraffe?",
            "'elephant' (8 letters) is longer than 'giraffe' (7 letters).",
        ),
        ("Which has more letters, cat or horse?", "'horse' (5 letters) is longer than 'cat' (3 letters)."),
        (
            "Which word has fewer letters: 'apple' or 'kiwi'?",
            "'kiwi' (4 letters) is shorter than 'apple' (5 letters).",
        ),
        ("Which is longer, 'cat' or 'dog'?", "'cat' and 'dog' are the same length: 3 letters each."),
    ],
)
def test_two_texts_lengths_are_compared(question: str, said: str) -> None:
    assert answer(question) == said


@pytest.mark.parametrize(
    "question", ["Which is longer, the Nile or the Amazon?", "Which is shorter, a week or a fortnight?"]
)
def test_lengths_of_things_not_words_are_not_text_facts(question: str) -> None:
    assert read_request(question) is None


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "What is the longest word in: the quick brown fox jumps over the lazy dog",
            "The longest words in the text 'the quick brown fox jumps over the lazy dog' are 'quick', 'brown' and "
            "'jumps' (5 letters each).",
        ),
        (
            "What's the longest word in 'I love programming'?",
            "The longest word in the text 'I love programming' is 'programming' (11 letters).",
        ),
        (
            'Find the shortest word in "a bird in the hand"',
            "The shortest word in the text 'a bird in the hand' is 'a' (1 letter).",
        ),
        (
            "Convert to title case: the lord of the rings",
            "The text 'the lord of the rings' in title case is 'The Lord of the Rings'.",
        ),
        (
            "Capitalize each word: hello big world",
            "The text 'hello big world' in title case is 'Hello Big World'.",
        ),
    ],
)
def test_the_longest_word_and_title_case(question: str, said: str) -> None:
    assert answer(question) == said


@pytest.mark.parametrize(
    ("word", "count"),
    [
        ("banana", 3), ("table", 2), ("makes", 1), ("jumped", 1), ("wanted", 2), ("whale", 1),
        ("idea", 3), ("radio", 3), ("curious", 3), ("delicious", 3), ("station", 2), ("million", 2),
        ("lion", 2), ("poem", 2), ("quiet", 2), ("boxes", 2), ("television", 4), ("strawberry", 3),
    ],
)  # fmt: skip
def test_syllables_are_counted_by_spoken_vowel_groups(word: str, count: int) -> None:
    assert syllables(word) == count


def test_syllables_of_a_word_or_a_text_are_answered_as_a_rule_of_thumb() -> None:
    assert answer("How many syllables does 'elephant' have?").startswith(
        "The word 'elephant' has 3 syllables"
    )
    out = answer("How many syllables are in: the quick brown fox")
    assert out.startswith("The text 'the quick brown fox' has 4 syllables") and "rule of thumb" in out


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Alphabetize: pear, apple, mango", "In alphabetical order: apple, mango, pear."),
        # words to sort, no order named: alphabetical (had been answered by the model: "Banana, apple.")
        ("Sort these words: banana, apple, cherry", "In alphabetical order: apple, banana, cherry."),
        ("sort: pear, fig, apple", "In alphabetical order: apple, fig, pear."),
        (
            "Sort these words alphabetically: zebra, Apple, mango",
            "In alphabetical order: Apple, mango, zebra.",
        ),
        ("Put these in alphabetical order: Tom; Anna\nBeth", "In alphabetical order: Anna, Beth, Tom."),
        (
            "List these from Z to A: kiwi and fig and plum",
            "In reverse alphabetical order (Z to A): plum, kiwi, fig.",
        ),
        ("Sort alphabetically: delta charlie bravo", "In alphabetical order: bravo, charlie, delta."),
    ],
)
def test_a_list_is_put_in_alphabetical_order(question: str, said: str) -> None:
    assert answer(question) == said


def test_numbers_are_not_sorted_as_words() -> None:
    """The calculator's number facts sort numbers by value; "10" before "9" as text would be wrong."""
    assert read_request("Sort these numbers alphabetically: 10, 9, 100") is None


@pytest.mark.parametrize(
    "question",
    [
        "How many times does 'a' appear in banana?",
        "How many times does a appear in banana?",
        "How many times does the letter a appear in banana?",
    ],
)
def test_a_letter_counted_in_a_word_is_counted_as_a_letter(question: str) -> None:
    """The quoted letter was taken for the text (no answer), and "a" unquoted counted as a word (0 times)."""
    assert answer(question) == "The letter 'a' appears 3 times in the word 'banana'."
    assert (
        answer("Count the letter s in Mississippi")
        == "The letter 's' appears 4 times in the word 'Mississippi'."
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            'What\'s the first letter of "zebra"?',
            "The first letter of the word 'zebra' is 'z' (letter 1 of 5).",
        ),
        (
            "What is the last letter of the word banana?",
            "The last letter of the word 'banana' is 'a' (letter 6 of 6).",
        ),
        ("What's the 3rd letter in apple?", "The 3rd letter of the word 'apple' is 'p' (letter 3 of 5)."),
        (
            'What\'s the tenth letter of "cat"?',
            "The word 'cat' has only 3 letters: there is no tenth letter.",
        ),
        (
            "Capitalize: the quick brown fox",
            "The text 'the quick brown fox' capitalized is 'The quick brown fox' (with every word capitalized: "
            "'The Quick Brown Fox').",
        ),
        ('Capitalize "hello"', "The word 'hello' capitalized is 'Hello'."),
    ],
)
def test_a_letter_by_its_place_and_a_text_capitalized(question: str, said: str) -> None:
    """ "What's the first letter of 'zebra'?" and "Capitalize: ..." had reached no tool (the model made
    something up)."""
    assert answer(question) == said


@pytest.mark.parametrize(
    "question", ["How many words of French do you know?", "What is the first letter of the alphabet?"]
)
def test_a_place_of_a_letter_in_no_given_text_is_no_text_fact(question: str) -> None:
    assert read_request(question) is None


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # the small model had answered "they can be rearranged to create a new word: 'lice'"
        (
            'Are "listen" and "silent" anagrams?',
            "Yes, 'listen' and 'silent' are anagrams: they have the same letters in another order.",
        ),
        (
            "Is stop an anagram of pots?",
            "Yes, 'stop' and 'pots' are anagrams: they have the same letters in another order.",
        ),
        ("Are cat and dog anagrams?", "No, 'cat' and 'dog' are not anagrams: their letters differ."),
        # the small model had said "PSNG"
        (
            'What\'s the acronym for "portable network graphics"?',
            "The acronym of 'portable network graphics' (its words' initials) is 'PNG'.",
        ),
        (
            "What are the initials of John Fitzgerald Kennedy?",
            "The initials of 'John Fitzgerald Kennedy' are 'JFK'.",
        ),
    ],
)
def test_anagrams_and_acronyms(question: str, said: str) -> None:
    assert answer(question) == said
    assert asks_text_fact(question) is SURELY


def test_what_an_acronym_stands_for_is_no_text_fact() -> None:
    assert read_request("What does NASA stand for?") is None


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # the model had answered these ("... refers only one word: 'brown'"; 11 for the unique letters)
        (
            'What\'s the last word of "the quick brown fox"?',
            "The last word of the text 'the quick brown fox' is 'fox' (word 4 of 4).",
        ),
        (
            'What is the third word in "to be or not to be"?',
            "The third word of the text 'to be or not to be' is 'or' (word 3 of 6).",
        ),
        ('What is the 9th word of "one two"?', "The text 'one two' has only 2 words: there is no 9th word."),
        (
            'How many unique letters are in "mississippi"?',
            "The word 'mississippi' has 4 different letters (i, m, p, s).",
        ),
        (
            'How many different letters does "banana" have?',
            "The word 'banana' has 3 different letters (a, b, n).",
        ),
        (
            'Does "listen" have the same letters as "silent"?',
            "Yes, 'listen' and 'silent' are anagrams: they have the same letters in another order.",
        ),
    ],
)
def test_a_words_place_the_different_letters_and_same_letters_are_read(question: str, said: str) -> None:
    assert answer(question) == said
    assert asks_text_fact(question)


def test_a_count_asked_with_a_clause_between_is_one_question() -> None:
    """ "How many characters, without spaces, are in 'hello there'?" had been split at ", are" and the tool
    asked "How many characters, without spaces"."""
    from cadence.models.preroute import question_parts

    question = 'How many characters, without spaces, are in "hello there"?'
    assert question_parts(question) == [question]
    assert answer(question) == "The text 'hello there' has 11 characters (10 without spaces)."


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # the letters had been reversed: "tam eht no tas tac eht"
        (
            'Reverse the words in "the cat sat on the mat"',
            "The words of the text 'the cat sat on the mat' in reverse order: 'mat the on sat cat the'.",
        ),
        (
            "Reverse the order of the words: one two three",
            "The words of the text 'one two three' in reverse order: 'three two one'.",
        ),
        ('Reverse "stressed"', "The word 'stressed' written backwards is 'desserts'."),
    ],
)
def test_the_words_reversed_are_the_words_in_reverse_order(question: str, said: str) -> None:
    assert answer(question) == said
