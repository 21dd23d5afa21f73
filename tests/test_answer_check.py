"""The final-answer check: answers carry the results they rest on, and nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from tests.conftest import FINALIZE, call, goto

from cadence.orchestration.answer_check import (
    PERSONA_ANSWER,
    ToolResult,
    check_answer,
    conform_to_tone,
    contradicted_orders,
    drop_repeats,
    echoes,
    error_reason,
    facts,
    failure_answer,
    faithful_answer,
    false_equations,
    misplaced_differences,
    relevant_sentences,
    turn_agent_answers,
    turn_failures,
    turn_outcomes,
    turn_results,
    unsaid_agents,
    with_failed_parts_said,
    working,
)

CALC = [ToolResult("calculate", {"expression": "12 * 12"}, "144")]
TIME = [
    ToolResult(
        "current_time",
        {"location": "Tokyo"},
        "The current time in Tokyo, Japan (Asia/Tokyo, UTC+09:00) is 22:05 on Sunday, 22 November 2026.",
    )
]


@pytest.mark.parametrize(
    ("answer", "results", "problem"),
    [
        ("12 * 12 is 144.", CALC, None),
        ("The answer is 1,440.", [ToolResult("calculate", {}, "1440")], None),
        ("The answer is 12.", CALC, "missing_result"),
        ("It is 144, or maybe 145.", CALC, "invented_number"),
        ("It's 22:05 in Tokyo.", TIME, None),
        ("It's 10:05 in Tokyo.", TIME, "invented_number"),
        ("Tokyo is a lovely city.", TIME, "missing_result"),
        ("In Tokyo it is 22 November 2026.", TIME, "missing_result"),  # the date, not the time
        ("", CALC, "empty"),
        ("Hello! Nice to meet you.", [], None),
        ("The user asked for 12 * 12, which is 144.", CALC, "narration"),  # describes the task
        # a minus sign said in words: "a decrease of 20%" for -20, but not "20%" or "an increase of 20%"
        (
            "The answer is a decrease of 20%.",
            [ToolResult("calculate", {}, "((40 - 50) / 50 * 100) = -20")],
            None,
        ),
        (
            "The answer is 20%.",
            [ToolResult("calculate", {}, "((40 - 50) / 50 * 100) = -20")],
            "invented_number",
        ),
        (
            "The answer is an increase of 20%.",
            [ToolResult("calculate", {}, "((40 - 50) / 50 * 100) = -20")],
            "invented_number",
        ),
    ],
)
def test_check_answer(answer: str, results: list[ToolResult], problem: str | None) -> None:
    question = "What is 12 * 12?" if results is CALC else "What time is it in Tokyo?"
    assert check_answer(answer, question=question, results=results).problem == problem


def test_the_user_is_narration_only_when_nobody_spoke_of_a_user() -> None:
    doc = ToolResult("search_docs", {}, "Every request names the user (user_id); the user owns the thread.")
    answer = "The user owns the thread: every request names the user."
    assert check_answer(answer, question="who owns a thread?", results=[doc]).problem is None
    asked = "which user owns the thread?"
    assert check_answer("The user owns it: 144.", question=asked, results=CALC).problem is None


def test_long_results_are_documents_summarised_in_words() -> None:
    doc = ToolResult(
        "search_docs", {"query": "coordinator"}, "The coordinator routes questions. " * 20 + "25"
    )
    ok = check_answer(
        "The coordinator routes each question to an agent.", question="coordinator?", results=[doc]
    )
    assert ok.problem is None
    off = check_answer("Bananas are yellow.", question="coordinator?", results=[doc])
    assert off.problem == "missing_result"


def test_repetition_is_cut_and_echo_is_caught() -> None:
    assert drop_repeats("I'm glad. I'm glad! Really glad. I'm glad.") == "I'm glad. Really glad."
    assert drop_repeats("First sentence. And a cut-off sec") == "First sentence."
    prompt = "You are the Synthesizer, responsible for the final response of a multi-agent conversation."
    said = "The Synthesizer, responsible for the final response of a multi-agent conversation."
    assert echoes(said, prompt)
    assert check_answer(said, question="hi", results=[], instructions=prompt).problem == "prompt_echo"
    assert not echoes("A short reply about something else entirely today.", prompt)


def test_an_answer_restating_a_recalled_memory_is_no_prompt_echo() -> None:
    # the prompt lists what the user's memory holds: the same question asked again gets the same answer
    fact = "Python 3.7 (2018) made async/await reserved keywords; that was 8 years ago."
    prompt = f"Write the final answer.\n\nWHAT YOU REMEMBER FROM EARLIER CONVERSATIONS:\n- {fact}"
    verdict = check_answer(fact, question="When did Python 3.7 come out?", results=[], instructions=prompt)
    assert verdict.problem == "prompt_echo"  # without the memory given as grounded material
    grounded = check_answer(
        fact, question="When did Python 3.7 come out?", results=[], instructions=prompt, grounded=[fact]
    )
    assert grounded.problem is None


def test_facts_are_numbers_and_clock_times() -> None:
    assert facts("It is 14:05, 1,024 items, 12.5% and -3.") == ["14:05", "1024", "12.5", "-3"]
    assert facts("1. first\nstep2 x3") == ["1"]


def test_faithful_answer_follows_the_tone() -> None:
    q = "What is 12 * 12?"
    natural = faithful_answer(q, CALC, "natural")
    concise = faithful_answer(q, CALC, "concise")
    explanatory = faithful_answer(q, CALC, "explanatory")
    learning = faithful_answer(q, CALC, "learning")
    formal = faithful_answer(q, CALC, "formal")
    assert concise == "144."  # the value alone
    for text in (natural, explanatory, learning, formal):
        assert "144" in text and "12 * 12" in text
    assert len(concise) < len(natural) <= len(formal) < len(explanatory)
    assert learning.startswith("1. ") and "Try next" in learning
    assert len({natural, concise, explanatory, learning, formal}) == 5
    assert faithful_answer(q, [], "natural") == ""


def test_turn_results_skip_routing_and_errors() -> None:
    messages = [
        HumanMessage("old"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "1+1"}, "id": "a"}]),
        ToolMessage("2", tool_call_id="a"),
        HumanMessage("What is 12 * 12?"),
        AIMessage("", tool_calls=[{"name": "goto_math_agent", "args": {}, "id": "r"}]),
        ToolMessage("routed", tool_call_id="r"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "12*12"}, "id": "b"}]),
        ToolMessage("144", tool_call_id="b"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "1/0"}, "id": "c"}]),
        ToolMessage("Error: division by zero", tool_call_id="c", status="error"),
    ]
    question, results = turn_results(messages)
    assert question == "What is 12 * 12?"
    assert results == [ToolResult("calculate", {"expression": "12*12"}, "144")]
    assert turn_failures(messages) == [
        ToolResult("calculate", {"expression": "1/0"}, "Error: division by zero")
    ]


FAILED = [
    ToolResult(
        "calculate", {"expression": "100 - 37"}, "Error: could not read 'hundred - 37' (unknown name)."
    )
]


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("The answer is 63.", "invented_number"),  # the tool that would have computed it failed
        ("I could not compute 100 - 37.", None),  # the question's numbers, saying it failed
        ("The answer is 37.", "invented_number"),  # the question's number given as the answer
        ("100 minus 37.", "invented_number"),
        ("The calculator could not read 'hundred - 37'.", None),  # the error's
        ("Sorry, something went wrong.", None),  # says that something failed
        ("As a math-focused AI, I can only help with arithmetic.", "ignores_failure"),
        ("The user wants to subtract numbers.", "narration"),
        ("Error: could not read 'hundred - 37' (unknown name).", "raw_error"),  # the error as written
        ("CalculationError: could not read 'hundred - 37'.", "raw_error"),
        ("The error: could not read 'hundred - 37'.", None),  # a sentence about it
    ],
)
def test_a_turn_whose_tools_failed_states_no_number_of_its_own(answer: str, problem: str | None) -> None:
    verdict = check_answer(answer, question="what's 100 minus 37", results=[], failures=FAILED)
    assert verdict.problem == problem
    assert check_answer("The answer is 63.", question="what's 100 minus 37", results=[]).problem is None


def test_failure_answer_says_what_failed() -> None:
    natural = failure_answer(FAILED, None)
    assert natural.startswith("I couldn't find the answer: the calculate tool failed: could not read")
    assert "rephrase" in natural and "63" not in natural
    assert failure_answer(FAILED, "concise").startswith("No answer: the calculate tool failed")
    assert "couldn't" not in failure_answer(FAILED, "formal")
    assert failure_answer([], None) == ""


async def test_a_tool_error_passed_on_as_written_is_told_in_a_sentence(engine_factory) -> None:
    error = "Error: UnknownLocationError: Unknown location 'hours ahead'. Name a city (e.g. 'Tokyo')?"
    script = [goto("info"), call("time_difference", location_a="London", location_b="hours ahead"), FINALIZE]
    engine, _ = engine_factory([*script, {"content": error}])
    result = await engine.ainvoke("How many hours ahead of London is that?")
    assert result.response.startswith(
        "I couldn't find the answer: the time_difference tool failed: Unknown location 'hours ahead'."
    )
    assert "Error:" not in result.response
    assert any("(raw_error)" in n for n in result.trace["notes"])


async def test_synthesizer_replaces_a_number_made_up_after_a_tool_failed(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="2 +* 2"), FINALIZE, {"content": "The answer is 4."}]
    )
    result = await engine.ainvoke("What is 2 +* 2?")
    assert result.error is None and "4" not in result.response.replace("2 +* 2", "")
    assert result.response.startswith("I couldn't find the answer: the calculate tool failed")
    assert any("rewritten from the tool errors (invented_number)" in n for n in result.trace["notes"])


async def test_synthesizer_rewrites_an_answer_that_drops_the_result(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="12 * 12"), FINALIZE, {"content": "It is 12."}]
    )
    result = await engine.ainvoke("What is 12 * 12?", tone="concise")
    assert "144" in result.response and result.error is None
    assert any("rewritten from the tool results (missing_result)" in n for n in result.trace["notes"])


async def test_synthesizer_rewrites_an_answer_cut_at_the_output_limit(engine_factory) -> None:
    cut = {"content": "12 * 12 = 144, which is the square of", "finish_reason": "length"}
    engine, _ = engine_factory([goto("math"), call("calculate", expression="12 * 12"), FINALIZE, cut])
    result = await engine.ainvoke("What is 12 * 12?")
    assert "144" in result.response and "square of" not in result.response
    assert any("rewritten from the tool results (cut_short)" in n for n in result.trace["notes"])
    # the same answer, finished, stands
    whole = {**cut, "finish_reason": "stop"}
    engine, _ = engine_factory([goto("math"), call("calculate", expression="12 * 12"), FINALIZE, whole])
    assert (await engine.ainvoke("What is 12 * 12?")).response == cut["content"]


async def test_synthesizer_keeps_a_faithful_answer(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="12 * 12"), FINALIZE, {"content": "12 * 12 = 144."}]
    )
    result = await engine.ainvoke("What is 12 * 12?")
    assert result.response == "12 * 12 = 144."
    assert not any("rewritten" in n for n in result.trace["notes"])


def test_answers_are_brought_in_line_with_the_tone() -> None:
    q = "What is 12 * 12?"
    long = "Well, " + "the result you asked about " * 6 + "is 144."
    concise, changed = conform_to_tone(long, "concise", q, CALC)
    assert changed and concise == "144."
    explained, changed = conform_to_tone("It is 144.", "explanatory", q, CALC)
    assert changed and explained.startswith("It is 144.") and "calculate tool" in explained
    steps, changed = conform_to_tone("It is 144.", "learning", q, CALC)
    assert changed and steps.startswith("1. ")
    formal, changed = conform_to_tone("It's 144! Don't worry.", "formal", q, CALC)
    assert changed and formal == "It is 144. Do not worry."
    same, changed = conform_to_tone("It is 144.", "natural", q, CALC)
    assert not changed and same == "It is 144."
    chat, changed = conform_to_tone("Hello there. " + "More words here. " * 10, "concise", "hi", [])
    assert changed and chat == "Hello there. More words here."


SEARCH_RESULT = """3 passage(s) for 'plugin metadata' (source = path:line):

[1] plugins.md:3 — Plugins
A plugin gives Cadence an agent. A plugin has its own prompt. A plugin has its own tools. A plugin is a class.
A plugin is found by entry points. A plugin can be disabled.

[2] plugins.md:21 — Plugins > Plugin metadata
- `version`: such as `1.0.0`, the higher version wins.

[3] builtin-plugins.md:22 — Built-in plugins > info
A world clock. Tools: `current_time(location)` and `time_difference(a, b)` for any city in the world."""


def test_a_passage_is_about_its_heading_and_a_short_sentence_opens_the_next() -> None:
    # the metadata passage never says "metadata" or "plugin" itself: its heading does
    quoted = relevant_sentences(SEARCH_RESULT, "what does the documentation say about plugin metadata")
    assert "`version`: such as `1.0.0`" in quoted
    # "A world clock." is too short to stand alone: it opens the sentence after it
    clock = relevant_sentences(SEARCH_RESULT, "documentation on the world clock please")
    assert clock.startswith("A world clock. Tools: `current_time(location)`")


def test_identifier_parts_and_short_words_say_what_a_sentence_is_about() -> None:
    distractors = "".join(
        f"- The default number of {thing} in a turn is {n}.\n"
        for n, thing in enumerate(["retries", "agents", "answers", "routes", "tokens"], start=2)
    )
    settings = distractors + "- `CADENCE_MAX_TOOL_HOPS` (default 50): tool calls allowed per turn.\n"
    quoted = relevant_sentences(settings, "whats the default max number of tool calls in a turn")
    assert "`CADENCE_MAX_TOOL_HOPS` (default 50)" in quoted  # max, tool, call: said by its identifier
    # a word said counts more than the same word inside an identifier
    nodes = "".join(
        f"- `CADENCE_SUSPEND_{k}`: a per-node setting.\n" for k in ("LLM", "TEMPERATURE", "PROMPT", "MAX")
    )
    nodes += "When a limit is reached the turn goes to the suspend node, which explains what was done.\n"
    assert "When a limit is reached" in relevant_sentences(
        nodes, "what does the documentation say about the suspend node?"
    )


def test_a_result_listing_one_value_per_item_needs_each_in_the_answer() -> None:
    both = [
        ToolResult(
            "current_time",
            {"location": "Tokyo and Paris"},
            "The current time in Tokyo, Japan (Asia/Tokyo, UTC+09:00) is 22:05 on Sunday. "
            "The current time in Paris, France (Europe/Paris, UTC+01:00) is 14:05 on Sunday.",
        )
    ]
    question = "what time is it in Tokyo and Paris?"
    assert check_answer("Tokyo: 22:05, Paris: 14:05.", question=question, results=both).problem is None
    mixed = check_answer("Paris, France is at 22:05 in Tokyo.", question=question, results=both)
    assert mixed.problem == "missing_result" and mixed.details == ["14:05"]


def test_a_comparison_stated_the_other_way_round_is_a_contradiction() -> None:
    said = "Bogotá, Colombia is 6 hours behind Rome, Italy. It is 08:00 in Bogotá and 14:00 in Rome."
    results = [ToolResult("time_difference", {"location_a": "Rome", "location_b": "Bogota"}, said)]
    question = "is rome behind bogota?"
    wrong = check_answer("Rome, Italy, is 6 hours behind Bogotá.", question=question, results=results)
    assert wrong.problem == "contradiction"
    for right in ("Rome is 6 hours ahead of Bogotá.", "Bogotá is 6 hours behind Rome, Italy."):
        assert check_answer(right, question=question, results=results).problem is None
    # names the results do not compare are not judged
    assert contradicted_orders("Paris is behind Tokyo.", said) == []


def test_a_name_no_result_or_question_has_is_invented() -> None:
    said = "Denver, Colorado, US is 9 hours behind Johannesburg, South Africa."
    results = [ToolResult("time_difference", {"location_a": "Denver", "location_b": "Johannesburg"}, said)]
    question = "Johannesburg vs Denver time difference"
    made_up = check_answer("It is 9 hours behind in Denmark.", question=question, results=results)
    assert made_up.problem == "invented_name" and made_up.details == ["Denmark"]
    fine = "Denver is 9 hours behind Johannesburg, on Tuesday."  # days and sentence openings aside
    assert check_answer(fine, question=question, results=results).problem is None


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("The shop sold 176 T-shirts, so 176 - 300 = 176 T-shirts are left.", ["176 - 300 = 176"]),
        ("1,000 + 2,000 = 3,500", ["1,000 + 2,000 = 3,500"]),
        ("7 × 8 = 54.", ["7 × 8 = 54"]),
        ("15 * 23 = 345", []),
        ("(500 - 180) = 320.", []),
        ("10 / 3 = 3.33", []),  # rounded as written
        ("5 - 8 = -3", []),
        ("2 + 3 + 4 = 9", []),  # a chain is not read as its last operation
        ("2 ** 12 - 100 = 3996", []),  # after a power: "12 - 100" is no equation of its own
        ("7 // 2 + 1 = 4", []),
        ("12% of 450 is 54% of 450.", ["12% of 450 is 54% of 450"]),  # a true number, a false sentence
        ("10% of 80 is 9.", ["10% of 80 is 9"]),
        ("12% of $1,250 is $150.", []),
        ("50% of 20 is 25% of 40", []),
        ("At 10:30 the clock said 11.", []),
    ],
)
def test_false_equations(answer: str, wrong: list[str]) -> None:
    assert false_equations(answer) == wrong


def test_an_answer_with_a_false_equation_is_rewritten_from_the_results() -> None:
    """The result's own number is in it ("176") and still misused: the check catches the sum."""
    results = [ToolResult("calculate", {"expression": "300 - 124"}, "(300 - 124) = 176")]
    question = "A shop had 300 T-shirts and sold 124 of them. How many are left?"
    verdict = check_answer("So 176 - 300 = 176 T-shirts are left.", question=question, results=results)
    assert verdict.problem == "false_equation" and verdict.details == ["176 - 300 = 176"]
    assert (
        check_answer("300 - 124 = 176 T-shirts are left.", question=question, results=results).problem is None
    )


@pytest.mark.parametrize(
    ("question", "answer", "moved"),
    [
        ("Tom ate 3 of his 12 cookies. How many are left?", "Tom ate 9 cookies.", ["ate 9"]),
        ("Kids took 65 of 150 candies. How many are left?", "The kids took 85 candies.", ["took 85"]),
        ("Tom ate 3 of his 12 cookies. How many are left?", "Tom has 9 cookies left.", []),
        ("Ben had 120 dollars and spent 45. How much remains?", "He spent 45 and has 75 dollars.", []),
        ("What is 50 - 8?", "50 - 8 is 42.", []),
    ],
)
def test_a_difference_given_to_the_wrong_action_is_caught(
    question: str, answer: str, moved: list[str]
) -> None:
    left = ToolResult("calculate", {}, "(12 - 3) = 9")
    assert misplaced_differences(answer, question, [left]) == moved
    assert misplaced_differences(answer, question, [ToolResult("calculate", {}, "(40 + 25) = 65")]) == []


@pytest.mark.parametrize(
    "answer",
    [
        "Here is the result:\n- 15 * 23 = 345\n- checked twice\n\n```python\nprint(15 * 23)\n```",
        "The files are:\n- overview.md\n- setup.md",  # the last item was dropped as 'cut off'
        "Done.\n```\n}\n}\n```",  # a repeated '}' is code, not a repetition
        "Steps:\n1. Read the question.\n2. Add 2 and 2.\n3. Answer 4.",
    ],
)
def test_the_layout_of_an_answer_is_kept(answer: str) -> None:
    """Every answer was joined into one line: lists, code and numbered steps were flattened."""
    assert drop_repeats(answer) == answer


def test_repeats_and_a_cut_off_sentence_still_go() -> None:
    assert drop_repeats("It is 4. It is 4.\nIt is 4. Then it") == "It is 4."


def test_a_numbered_answer_is_not_invented_numbers() -> None:
    verdict = check_answer(
        "Steps:\n1. Multiply 12 by 12.\n2. The result is 144.", question="What is 12 * 12?", results=CALC
    )
    assert verdict.problem is None


def test_the_formal_tone_leaves_code_and_factorials_alone() -> None:
    shaped, _ = conform_to_tone(
        "Use `if a != b:` to compare! It's 3.\n```\nprint('hi!')\n```\n5! = 120.", "formal", "What?", []
    )
    assert shaped == "Use `if a != b:` to compare. It is 3.\n```\nprint('hi!')\n```\n5! = 120."


def test_the_numbers_a_tool_was_called_with_are_no_invention() -> None:
    results = [ToolResult("calculate", {"expression": "12 * 2"}, "24")]
    said = "Doubling your 12 apples gives 24 apples."
    assert check_answer(said, question="Double it", results=results).problem is None
    assert check_answer("It gives 25.", question="Double it", results=results).problem == "invented_number"


async def test_a_follow_up_answer_may_restate_the_earlier_turns_number(engine_factory) -> None:
    engine, _ = engine_factory(
        [
            FINALIZE,
            {"content": "Nice, 12 apples."},
            goto("math"),
            call("calculate", expression="12 * 2"),
            FINALIZE,
            {"content": "Doubling your 12 apples gives 24 apples."},
        ]
    )
    await engine.ainvoke("I have 12 apples", thread_id="t")
    result = await engine.ainvoke("Double it", thread_id="t")
    assert result.response == "Doubling your 12 apples gives 24 apples."
    assert result.trace["notes"] == [] and result.trace["validation"][0]["verdict"]["ok"]


def test_a_failure_answer_gives_the_reason_an_error_introduces() -> None:
    error = (
        "Error: ToolInvocationError: Error invoking tool 'calculate' with kwargs {'expr': '2+2'} with error:\n"
        " expression: Field required\n Please fix the error and try again.. Check the arguments or try a "
        "different approach."
    )
    answer = failure_answer([ToolResult("calculate", {"expr": "2+2"}, error)], None)
    assert "with error: expression: Field required." in answer
    assert "Please fix" not in answer


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a pleasantry alone says nothing: the lead goes on to the answer
        (
            "Sure! Python is a programming language created by Guido van Rossum. It is used for web "
            "development, data science, scripting and much more, and it is known for its readable syntax.",
            "Sure! Python is a programming language created by Guido van Rossum.",
        ),
        # a sentence introducing a list keeps the list (was "You have three options:.")
        (
            "You have three options:\n- walk to the station\n- take bus nine from the corner\n- call a taxi, "
            "fastest but dearest.\n\nI would take the bus, since it is cheap and runs every ten minutes all day.",
            "You have three options:\n- walk to the station\n- take bus nine from the corner\n- call a taxi, "
            "fastest but dearest.",
        ),
    ],
)
def test_a_concise_answer_without_results_keeps_its_content(answer: str, expected: str) -> None:
    assert conform_to_tone(answer, "concise", "How?", []) == (expected, True)


def test_a_concise_answer_with_code_is_not_cut() -> None:
    code = (
        "Here is a function that reverses a string in Python:\n\n```python\ndef rev(s):\n    return s[::-1]\n"
        "```\n\nCall it with any string and it returns the characters in reverse order, which is handy."
    )
    assert conform_to_tone(code, "concise", "How do I reverse a string?", []) == (code, False)


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("22/7 is about 3.14.", None),  # rounded
        ("22/7 is approximately 3.1428.", None),  # cut
        ("It is -3.14 when negated.", "invented_number"),  # not a result
        ("22/7 is about 3.15.", "invented_number"),  # neither
        ("22/7 is about 3.", "invented_number"),  # an integer is never read as a rounding
    ],
)
def test_a_result_rounded_to_fewer_decimals_is_no_invention(answer: str, problem: str | None) -> None:
    results = [ToolResult("calculate", {"expression": "22/7"}, "3.142857142857143")]
    assert check_answer(answer, question="What is 22/7?", results=results).problem == problem
    # and it carries the result
    assert check_answer("It is 3.14.", question="What is 22/7?", results=results).problem is None


def test_a_fraction_is_read_as_its_value() -> None:
    assert facts("3/4 plus 1/2 = 5/4 (about 1.25)") == ["0.75", "0.5", "1.25", "1.25"]
    assert facts("7/3 = 2 1/3, -1/4 and 1/0") == ["2.333333333333", "2.333333333333", "-0.25", "1/0"]
    # dates, paths and spaced operators are no fractions
    assert facts("30/11/2026 docs/12/3 3 / 4") == ["30", "11", "2026", "12", "3", "3", "4"]
    assert facts("5/4", fraction_parts=True) == ["5", "4"]


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("3/4 plus 1/2 is 5/4.", None),
        ("That is 1 1/4, about 1.25.", None),
        ("It comes to 1.25.", None),
        # the numerator of the result alone is no answer ("3 + 1/2 = 5" had passed on the 5 of 5/4)
        ("This can be written 3 + 1/2 = 5.", "invented_number"),
        ("The answer is 5.", "invented_number"),
        ("The answer is 3/4.", "missing_result"),  # a number of the question
    ],
)
def test_a_fraction_result_is_carried_whole(answer: str, problem: str | None) -> None:
    results = [ToolResult("calculate", {"expression": "3/4 plus 1/2"}, "3/4 plus 1/2 = 5/4 (about 1.25)")]
    assert check_answer(answer, question="What's 3/4 plus 1/2?", results=results).problem == problem


@pytest.mark.parametrize(
    "steps",
    [
        "**Step 1:** Multiply 12 by 12.\n**Step 2:** Read the result: 144.",
        "### 1. Multiply\n12 by 12.\n### 2. Read the result\nIt is 144.",
        "Step 1 - multiply 12 by 12.\nStep 2 - the result is 144.",
    ],
)
def test_a_learning_answer_in_markdown_steps_is_kept(steps: str) -> None:
    assert conform_to_tone(steps, "learning", "What is 12 * 12?", CALC) == (steps, False)


@pytest.mark.parametrize(
    "answer",
    [
        "### 1. Multiply\n12 by 12.\n### 2. Read the result\nIt is 144.",
        "**1.** Multiply 12 by 12.\n**2.** Read the result: 144.",
    ],
)
def test_markdown_step_numbers_are_no_invented_numbers(answer: str) -> None:
    assert check_answer(answer, question="What is 12 * 12?", results=CALC).problem is None


@pytest.mark.parametrize("text", ["176 - 300 = 176", "**Step 2:** 15 * 20 = 301 and", "1. 15 * 20 = 301"])
def test_a_false_equation_opening_the_answer_or_a_step_is_read(text: str) -> None:
    # the number before the first operand was read as part of a longer expression ("1" + "76 - 300")
    assert false_equations(text) == [text.split(" and")[0].removeprefix("**Step 2:** ").removeprefix("1. ")]


def test_the_working_a_step_by_step_answer_shows_is_no_invention() -> None:
    results = [ToolResult("calculate", {"expression": "15 * 23"}, "345")]
    worked = (
        "**Step 1:** Split 23 into 20 and 3.\n**Step 2:** 15 * 20 = 300 and 15 * 3 = 45.\n"
        "**Step 3:** Add them: 300 + 45 = 345."
    )
    assert check_answer(worked, question="What is 15 * 23?", results=results).problem is None
    # a true equation of other numbers is no answer: the result is still missing
    assert check_answer("15 * 24 = 360.", question="What is 15 * 23?", results=results).problem == (
        "missing_result"
    )
    assert check_answer("300 + 45 = 346.", question="What is 15 * 23?", results=results).problem == (
        "invented_number"
    )


TWO_TIMES = [
    ToolResult(
        "current_time", {"location": "Tokyo"}, "The current time in Tokyo, Japan (UTC+09:00) is 22:05."
    ),
    ToolResult(
        "current_time", {"location": "New York"}, "The current time in New York, US (UTC-05:00) is 08:05."
    ),
]


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("It is 22:05 in Tokyo and 08:05 in New York.", None),
        ("In Tokyo it is 22:05, while New York is at 08:05.", None),
        ("When it is 22:05 in Tokyo it is 08:05 in New York.", None),
        ("Tokyo: 22:05. New York: 08:05.", None),
        ("It is 08:05 in Tokyo and 22:05 in New York.", "contradiction"),
        ("In Tokyo it is 08:05, while New York is at 22:05.", "contradiction"),
        ("Tokyo: 08:05. New York: 22:05.", "contradiction"),
    ],
)
def test_one_subjects_value_given_to_another_is_a_contradiction(answer: str, problem: str | None) -> None:
    verdict = check_answer(answer, question="What time is it in Tokyo and New York?", results=TWO_TIMES)
    assert verdict.problem == problem


def test_a_document_answer_in_another_script_is_read_by_its_words() -> None:
    doc = (
        "Синтезатор пишет окончательный ответ на последний вопрос пользователя. "
        "Он использует только результаты агентов и инструментов. "
    ) * 4
    results = [ToolResult("search_docs", {"query": "синтезатор"}, doc)]
    question = "Что делает синтезатор?"
    faithful = "Синтезатор пишет окончательный ответ, используя только результаты агентов."
    assert check_answer(faithful, question=question, results=results).problem is None  # was missing_result
    unrelated = "Кошки любят молоко и спят весь день на солнце."
    assert check_answer(unrelated, question=question, results=results).problem == "missing_result"


@pytest.mark.parametrize(
    "last",
    [
        "Have a nice day 😊",
        "See https://example.com/docs",
        "That is «correct»",
        "Check: 2 + 2 = 4",
        "答案是4。",
        "Done ✅",
    ],
)
def test_a_last_sentence_ending_otherwise_than_with_a_full_stop_is_kept(last: str) -> None:
    assert drop_repeats(f"It is 4. {last}") == f"It is 4. {last}"


def test_a_last_sentence_cut_off_mid_way_is_still_dropped() -> None:
    assert drop_repeats("It is 4. Also, you can") == "It is 4."


LONDON = [
    ToolResult(
        "current_time",
        {"location": "London"},
        "The current time in London, UK (Europe/London, UTC+00:00) is 05:34 on Wednesday, 25 November 2026.",
    )
]


@pytest.mark.parametrize(
    ("question", "answer", "problem"),
    [
        ("What's today's date in London?", "It is 05:34 in London.", "missing_result"),  # the date dropped
        ("What's today's date in London?", "Today is Wednesday, 25 November 2026 in London.", None),
        ("What day is it in London?", "It is Wednesday in London.", None),  # the weekday answers it
        ("What day is it in London?", "It is Friday in London.", "missing_result"),
        ("What time is it in London?", "It is Wednesday in London.", "missing_result"),
        ("What time is it in London?", "It is 05:34 in London.", None),
        ("What time and date is it in London?", "It is 25 November 2026 in London.", "missing_result"),
        ("What time and date is it in London?", "It is 05:34 on 25 November 2026.", None),
    ],
)
def test_an_answer_to_a_date_question_carries_the_date(
    question: str, answer: str, problem: str | None
) -> None:
    assert check_answer(answer, question=question, results=LONDON).problem == problem


def test_an_answer_made_of_an_errors_examples_talks_past_the_failure() -> None:
    error = (
        "Error: UnknownLocationError: Unknown location 'difference'. Name a city (e.g. 'Tokyo', 'Paris, "
        "Texas'), a country (e.g. 'Japan') or a UTC offset (e.g. 'UTC+5:30'). Check the arguments."
    )
    failed = [ToolResult("time_difference", {"location_a": "Tokyo", "location_b": "difference"}, error)]
    question = "What's the difference with Tokyo?"
    made_up = "Tokyo is a city in Japan, while Paris is a city in Europe."  # the error's examples, as facts
    assert check_answer(made_up, question=question, results=[], failures=failed).problem == "ignores_failure"
    about_it = "The place difference is unknown to the world clock, sorry."
    assert check_answer(about_it, question=question, results=[], failures=failed).problem is None


def test_a_comparison_is_read_within_a_line_and_a_bounded_span() -> None:
    """A text without sentence ends (a long history of results, one per line) is read line by line: the
    pattern's gap between subject and verb is bounded, so such a text is read in linear time (the
    unbounded gap read every capitalised word against the rest of the text: seconds for 40,000 characters)."""
    from cadence.orchestration.answer_check import ORDER_SPAN_CHARS

    assert "bogotá behind rome" in contradicted_orders("Bogotá is behind Rome.", "Rome is behind Bogotá")
    # a subject on an earlier line is not the subject of the next line's comparison
    assert contradicted_orders("Paris is behind Rome.", "Paris\nBogotá is behind Rome") == []
    far = "Rome " + "x" * (ORDER_SPAN_CHARS + 10) + " is behind Bogotá"
    assert contradicted_orders("Bogotá is behind Rome.", far) == []
    history = "Calculate 15 * 23 \n15 * 23 = 345 \n" * 2000  # capitalised words, no sentence ends
    assert "rome behind bogotá" in contradicted_orders(
        "Rome is behind Bogotá.", f"{history}Bogotá is behind Rome"
    )


_NUMBERS = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.decimals(-1000, 1000, allow_nan=False, allow_infinity=False, places=3).map(str),
    st.decimals(-10, 10, allow_nan=False, allow_infinity=False, places=1).map(str),
    st.floats(-1e13, 1e13, allow_nan=False).map(lambda x: f"{x:.6f}"),
    st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda t: f"{t[0]}:{t[1]:02d}"),
    st.sampled_from(["2.996", "3.00", "3.0", "2.99", "-0.5", "-1", "0", "1e3", "x"]),
)


@settings(max_examples=300, deadline=None)
@given(pool=st.lists(_NUMBERS, max_size=30), fact=_NUMBERS)
def test_a_number_pool_finds_what_comparing_with_every_entry_finds(pool: list[str], fact: str) -> None:
    """The index behind the invented-number checks (a long list of numbers against another one was
    read pair by pair: seconds for 2,000 of each) agrees with the pairwise comparison."""
    from cadence.orchestration.answer_check import NumberPool, _same_number

    assert NumberPool(pool).has(fact) == any(_same_number(fact, p) for p in pool)
    for entry in pool:  # every entry is found, and so is its rounding when it is one
        assert NumberPool(pool).has(entry)


def test_an_answer_of_many_numbers_is_checked_against_many_numbers_by_index() -> None:
    """2,000 numbers said against a result holding 2,000: each is looked up, not compared with each."""
    import cadence.orchestration.answer_check as answer_check

    values = [str(1000 + 7 * i) for i in range(2000)]
    result = ToolResult("search_docs", {"query": "table"}, " ".join(values))
    compared = 0
    real = answer_check._same_number

    def counting(a: str, b: str) -> bool:
        nonlocal compared
        compared += 1
        return real(a, b)

    answer_check._same_number = counting
    try:
        verdict = check_answer(" ".join(reversed(values)), question="list the values", results=[result])
    finally:
        answer_check._same_number = real
    assert verdict.problem != "invented_number"  # every number said is one of the result's
    assert compared < 20_000  # was 2,000 x 2,000


# -- answers drawing on several agents ---------------------------------------------------------------
def _r(agent: str, content: str, name: str = "tool") -> ToolResult:
    return ToolResult(name=name, args={}, content=content, agent=agent)


def test_an_answer_drawing_on_several_agents_carries_each_ones_results() -> None:
    question = "What's 5*7 and what time is it in Tokyo?"
    results = [_r("math", "5*7 = 35"), _r("info", "The current time in Tokyo, Japan is 18:30 on Sunday.")]
    dropped = check_answer("The answer is 18:30.", question=question, results=results)
    assert dropped.problem == "missing_result" and dropped.details == ["math"]
    both = "5*7 is 35, and it is 18:30 in Tokyo."
    assert check_answer(both, question=question, results=results).problem is None
    assert unsaid_agents(both, question, results) == []
    # documents are carried by their words
    docs = [
        _r("math", "2+2 = 4"),
        _r("docs", "The final answer is written in one of five tones: natural, concise."),
    ]
    assert (
        unsaid_agents(
            "2+2 is 4; the final answer comes in five tones.", "What is 2+2? And what about tones?", docs
        )
        == []
    )
    assert unsaid_agents("2+2 = 4 holds for all integers.", "What is 2+2? And what about tones?", docs) == [
        "docs"
    ]
    # one agent's earlier results may be steps towards its last: any of them carries it
    steps = [_r("math", "3 + 4 = 7"), _r("math", "7 * 2 = 14")]
    assert unsaid_agents("It is 14.", "What is (3+4)*2? And what is that plus 1?", steps) == []
    # one question: an agent consulted beside the one that answered need not be quoted
    assert unsaid_agents("It is 18:30.", "What time is it in Tokyo?", results) == []
    # a short result adds one word of its own: saying it carries it (the answer had been rewritten)
    peru = [_r("math", "(25 / 100) * 80 = 20"), _r("geo", "The capital of Peru is Lima.")]
    both_said = "Here is what I found:\n- (25 / 100) * 80 = 20.\n- The capital of Peru is Lima."
    assert unsaid_agents(both_said, "What's 25% of 80 and what's the capital of Peru?", peru) == []
    assert unsaid_agents("It is 20.", "What's 25% of 80 and what's the capital of Peru?", peru) == ["geo"]
    # the agent unknown (the planner's researcher): each tool's results
    by_tool = [ToolResult("percent_of", {}, "42"), ToolResult("current_time", {}, "It is 08:30 in Sydney.")]
    assert unsaid_agents(
        "12% of 350 is 42.", "What's 12% of 350, and what time is it in Sydney?", by_tool
    ) == ["current_time"]


def test_the_agents_answers_of_a_turn() -> None:
    messages = [
        HumanMessage("What's 5*7 and what time is it in Tokyo?"),
        AIMessage("", name="supervisor", tool_calls=[{"name": "transfer_to_math", "args": {}, "id": "h1"}]),
        ToolMessage("math", tool_call_id="h1", name="transfer_to_math"),
        AIMessage("5*7 = 35", name="math_agent", tool_calls=[{"name": "back", "args": {}, "id": "b1"}]),
        ToolMessage("back", tool_call_id="b1", name="back"),
        AIMessage("It is 18:30 in Tokyo.", name="info_agent"),
        AIMessage("The answer is 18:30.", name="synthesizer"),
    ]
    answers = turn_agent_answers(messages)
    assert [(a.agent, a.content) for a in answers] == [
        ("math", "5*7 = 35"),
        ("info", "It is 18:30 in Tokyo."),
    ]


def test_the_reason_of_an_error_keeps_its_example_and_its_quoted_question() -> None:
    """The reason was cut after "e.g." and at the "?" of a quoted question: "…operation, e.g. Please rephrase"."""
    example = "Error: CalculationError: Could not read it as arithmetic, e.g. '3 * 19.99'. Try again."
    assert error_reason(example) == "Could not read it as arithmetic, e.g. '3 * 19.99'."
    quoted = "Error: CalculationError: Malformed expression 'Привет what is 3*7? 日本': invalid character. Use digits."
    assert error_reason(quoted) == "Malformed expression 'Привет what is 3*7? 日本': invalid character."
    # a suggestion goes with the reason (it had been cut: the user could not answer yes to it)
    unknown = "Error: UnknownLocationError: Unknown location 'Pariss'. Did you mean 'Paris'? Name a city."
    assert error_reason(unknown) == "Unknown location 'Pariss'. Did you mean 'Paris'?"


def test_a_told_fact_acknowledged_is_carried() -> None:
    """ "Got it: you live in Madrid." had been flagged (its lead-in words are no result's) and rewritten."""
    told = [ToolResult("recall_memory", {"query": "I live in Madrid."}, "You live in Madrid.")]
    said = check_answer("Got it: you live in Madrid.", question="I live in Madrid.", results=told)
    assert said.problem is None
    echoed = check_answer("I live in Madrid.", question="I live in Madrid.", results=told)
    assert echoed.problem == "missing_result"  # the question said back is no result


def test_an_answer_correcting_itself_unasked_is_rewritten() -> None:
    """ "You're right, I should have said 37.5." to a first question: a conversation that did not happen."""
    results = [ToolResult("calculate", {"expression": "3 * 12.50"}, "(3 * 12.50) = 37.5")]
    question = "If I buy 3 pizzas at $12.50 each, how much do I pay?"
    verdict = check_answer("You're right, I should have said 37.5.", question=question, results=results)
    assert verdict.problem == "false_correction"
    assert check_answer("You pay 37.5 dollars.", question=question, results=results).problem is None
    # the user pointed out a mistake: owning it is fine
    fixed = check_answer(
        "You're right: it is 37.5.", question="No, that's wrong. 3 * 12.50?", results=results
    )
    assert fixed.problem is None


def test_a_number_written_in_words_is_checked_too() -> None:
    """ "Sixty-five is 5 more than a quarter." to 45 / 9 = 5: the invented 65 was in words."""
    results = [ToolResult("calculate", {"expression": "45 / 9"}, "45 / 9 = 5")]
    question = "How much is forty-five divided by nine?"
    verdict = check_answer("Sixty-five is 5 more than a quarter.", question=question, results=results)
    assert verdict.problem == "invented_number" and verdict.details == ["65"]
    # the question's own numbers in words, and "one", are no invention
    fine = check_answer(
        "Forty-five divided by nine is 5, no one can argue.", question=question, results=results
    )
    assert fine.problem is None


def test_an_answer_may_carry_any_value_of_a_result_listing_named_values() -> None:
    listing = "count: 3; sum: 28; mean: 9.33333333333; median: 8; min: 3; max: 17; range: 14"
    results = [ToolResult("statistics", {"numbers": [3, 17, 8]}, listing)]
    question = "What's the largest of 3, 17, 8?"
    assert check_answer("The max is 17.", question=question, results=results).problem is None
    assert check_answer("They are numbers.", question=question, results=results).problem == "missing_result"


def test_explaining_tones_show_the_arithmetic_a_result_was_worked_out_with() -> None:
    """Not "the calculate tool was used": the steps a person would follow."""
    results = [
        ToolResult("calculate", {"expression": "How do I work out 18% of 275?"}, "(18 / 100) * 275 = 49.5")
    ]
    learning = faithful_answer("How do I work out 18% of 275?", results, "learning")
    assert "2. Write it as arithmetic and work it out: (18 / 100) * 275 = 49.5." in learning
    assert "calculate tool" not in learning
    explained = faithful_answer("How do I work out 18% of 275?", results, "explanatory")
    assert "reads as the arithmetic (18 / 100) * 275 = 49.5" in explained
    converted = [ToolResult("calculate", {}, "5 ft 9 in = 175.26 cm (read as ((5 * 304.8 + 9 * 25.4) / 10))")]
    assert "((5 * 304.8 + 9 * 25.4) / 10) = 175.26" in faithful_answer(
        "5 ft 9 in in cm?", converted, "learning"
    )
    timed = [ToolResult("current_time", {"location": "Paris"}, "The current time in Paris is 10:00.")]
    assert "Use the current_time tool" in faithful_answer("Time in Paris?", timed, "learning")


def test_a_question_naming_a_setting_gets_the_sentences_naming_it() -> None:
    result = (
        "3 passage(s) for 'what does CADENCE_MAX_TOOL_HOPS do' (source = path:line):\n\n"
        "[1] configuration.md:18 — Configuration and limits > Orchestration limits\n"
        "- `CADENCE_MAX_AGENT_HOPS` (default 25): agent routes allowed per turn. - `CADENCE_MAX_TOOL_HOPS` "
        "(default 50): tool executions allowed per turn. - `CADENCE_COORDINATOR_TIMEOUT` (default 30 s): "
        "timeout of one decision in every mode."
    )
    said = relevant_sentences(result, "what does CADENCE_MAX_TOOL_HOPS do")
    assert said == "`CADENCE_MAX_TOOL_HOPS` (default 50): tool executions allowed per turn."


@pytest.mark.parametrize(
    "answer",
    [
        "I'm always happy to share. I've been working on an environmental project to reduce plastic waste.",
        "Here's a simple recipe from my kitchen: 1 cup of flour.",
        "Maybe a comedy (laughs). I've just finished reviewing a new sci-fi film.",
        "I'm thrilled to share that I've just returned from a research expedition on Mars!",
    ],
)
def test_an_answer_telling_an_invented_persona_is_flagged(answer: str) -> None:
    """ "Tell me something interesting" had been answered with the model's own (invented) life."""
    verdict = check_answer(answer, question="Tell me something interesting", results=[])
    assert verdict.problem == "invented_persona"
    assert PERSONA_ANSWER.startswith("I can't answer that reliably")


@pytest.mark.parametrize(
    ("answer", "question"),
    [
        ("Photosynthesis is how plants turn light into sugar.", "What is photosynthesis?"),
        ("Your wife's birthday is in May.", "When is my wife's birthday?"),  # the user's, not the model's
        ("Say hi to my kitchen? Sure: in my kitchen there is a fridge.", "Describe what's in my kitchen"),
    ],
)
def test_an_answer_without_an_invented_persona_passes(answer: str, question: str) -> None:
    assert check_answer(answer, question=question, results=[]).problem is None


def test_an_invented_team_or_project_is_an_invented_persona() -> None:
    answer = "Exciting news from Tokyo! We just completed a major renovation project, and our team is proud."
    assert check_answer(answer, question="tokyo", results=[]).problem == "invented_persona"


def test_a_question_asking_for_the_previous_answer_again_is_answered_as_that_question() -> None:
    """ "How did you get that?" is explained as the question before it ("“What is 15 * 23?” reads as the
    arithmetic 15 * 23 = 345"), not as itself (it had quoted "How did you get that?")."""
    messages = [
        HumanMessage("What is 15 * 23?"),
        AIMessage("The answer is 345."),
        HumanMessage("How did you get that?"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "15 * 23"}, "id": "b"}]),
        ToolMessage("15 * 23 = 345", tool_call_id="b"),
    ]
    question, results = turn_results(messages)
    assert question == "What is 15 * 23?"
    shaped, _ = conform_to_tone("The answer is 345.", "explanatory", question, results)
    assert "“What is 15 * 23?” reads as the arithmetic 15 * 23 = 345" in shaped
    # asked first, it is itself
    assert turn_results(messages[2:])[0] == "How did you get that?"


def test_working_reads_a_value_said_after_it_and_a_fraction() -> None:
    assert working("(80 * (1 - 20 / 100)) = 64 ($64)") == "(80 * (1 - 20 / 100)) = 64"
    assert working("2/5 + 1/10 = 1/2 (about 0.5)") == "2/5 + 1/10 = 1/2"
    assert working("The answer is 64 (80 less 20%).") is None


def _failed_part_turn(question: str) -> list:
    return [
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "5 * 5"}, "id": "a"}]),
        ToolMessage("5 * 5 = 25", tool_call_id="a"),
        AIMessage("", tool_calls=[{"name": "current_time", "args": {"location": "Xyzzyland"}, "id": "b"}]),
        ToolMessage(
            "Error: UnknownLocationError: Unknown location 'Xyzzyland'. Name a city. Check the arguments.",
            tool_call_id="b",
            status="error",
        ),
    ]


def test_a_failed_part_of_a_question_is_said_after_the_rest() -> None:
    """ "What's 5 * 5 and what time is it in Xyzzyland?" had been answered "The answer is 25." alone."""
    question = "What's 5 * 5 and what time is it in Xyzzyland?"
    outcomes = turn_outcomes(_failed_part_turn(question))
    assert [error for error, _ in outcomes] == [False, True]
    said = with_failed_parts_said("The answer is 25.", question, outcomes)
    assert said == (
        "The answer is 25.\n\nI couldn't answer all of it: the current_time tool failed: Unknown location "
        "'Xyzzyland'."
    )
    assert with_failed_parts_said("The answer is 25.", question, outcomes, "concise").endswith(
        "Not answered: the current_time tool failed: Unknown location 'Xyzzyland'."
    )
    # an answer that speaks of it, a question asking one thing, a failure made good later: as it is
    spoken = "The answer is 25; I don't know a place called Xyzzyland."
    assert with_failed_parts_said(spoken, question, outcomes) == spoken
    assert with_failed_parts_said("The answer is 25.", "What's 5 * 5?", outcomes) == "The answer is 25."
    retried = [*outcomes, (False, ToolResult("current_time", {"location": "Oslo"}, "It is 10:00 in Oslo."))]
    assert with_failed_parts_said("25. It is 10:00.", question, retried) == "25. It is 10:00."
    # nothing succeeded: the failure answer's business
    assert with_failed_parts_said("x", question, outcomes[1:]) == "x"


def test_a_tool_error_passed_on_in_an_answer_is_said_in_words() -> None:
    """The supervisor mode's agents hand back their answers; one was a tool's error, joined as written."""
    question = "What's 5 * 5 and what time is it in Xyzzyland?"
    records = [
        {"name": "calculate", "args": {"expression": "5 * 5"}, "result": "5 * 5 = 25"},
        {"name": "current_time", "args": {"location": "Xyzzyland"}, "error": "Error: UnknownLocationError: "
         "Unknown location 'Xyzzyland'. Name a city. Check the arguments."},
    ]  # fmt: skip
    outcomes = turn_outcomes([HumanMessage(question)], records)
    joined = f"The answer is 25. {records[1]['error']}"
    assert with_failed_parts_said(joined, question, outcomes) == (
        "The answer is 25.\n\nI couldn't answer all of it: the current_time tool failed: Unknown location "
        "'Xyzzyland'."
    )


def test_the_steps_and_the_explanation_quote_the_question_without_its_request_of_style() -> None:
    question = "Explain step by step: what is 15% of 240?"
    results = [ToolResult("calculate", {"expression": "15% of 240"}, "(15 / 100) * 240 = 36")]
    assert faithful_answer(question, results, "learning").startswith("1. The question: What is 15% of 240?\n")
    assert "“What is 15% of 240?” reads as the arithmetic" in faithful_answer(
        question, results, "explanatory"
    )


def test_a_result_whose_value_the_question_writes_is_carried_by_an_answer_stating_it() -> None:
    """ "Convert -40 F to C": the value is -40 again; the working's numbers inside nested brackets ("(read as
    ((-40 - 32) * 5 / 9))") had been taken for the result, and the right answer replaced by the raw result."""
    result = [
        ToolResult(
            "calculate",
            {"expression": "Convert -40 F to C"},
            "-40 °F = -40 °C (read as ((-40 - 32) * 5 / 9))",
        )
    ]
    assert check_answer("-40 °F is -40 °C.", question="Convert -40 F to C", results=result).problem is None
    assert (
        check_answer("It is 32 degrees.", question="Convert -40 F to C", results=result).problem is not None
    )


def test_an_explanatory_answer_shows_the_working_once() -> None:
    """ "1 leap year = 366 days (read as (1 * 31622400 / 86400))." had been followed by the same arithmetic
    in "How this was worked out"."""
    result = ToolResult(
        "calculate",
        {"expression": "how many days in a leap year"},
        "1 leap year = 366 days (read as (1 * 31622400 / 86400))",
    )
    said = faithful_answer("How many days are in a leap year?", [result], "explanatory")
    assert said.startswith("1 leap year = 366 days.\n\n")
    assert said.count("31622400") == 1
