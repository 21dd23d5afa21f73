"""Validation (CADENCE_VALIDATION=off|flag|correct) and document answers citing their sources."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from tests.conftest import FINALIZE, call, goto

from cadence.orchestration.answer_check import ToolResult
from cadence.orchestration.validation import (
    ValidationVerdict,
    citations,
    retrieved_sources,
    validate_answer,
    validate_turn,
    with_citations,
)

HITS = (
    "2 passage(s) for 'plugin metadata' (source = path:line; read_doc(path) shows a whole file):\n\n"
    "[1] plugins.md:21 — Plugins > Plugin metadata\nThe description says what the agent does, "
    "shown to the coordinator.\n\n"
    "[2] guide/overview.md:3 — Overview\nCadence routes between plugin agents."
)
SEARCH = ToolResult("search_docs", {"query": "plugin metadata"}, HITS)


def test_a_grounded_relevant_answer_passes() -> None:
    verdict = validate_answer("What is 15 * 23?", "15 * 23 is 345.", [ToolResult("calculate", {}, "345")])
    assert verdict.ok and verdict.relevant and verdict.grounded and verdict.problems == []
    assert verdict.feedback() == ""


def test_an_invented_number_is_not_grounded() -> None:
    verdict = validate_answer("What is 15 * 23?", "It is 350.", [ToolResult("calculate", {}, "345")])
    assert not verdict.ok and not verdict.grounded
    assert verdict.problems == ["invented_number"] and verdict.details == ["350"]
    assert "numbers that no tool returned" in verdict.feedback() and "350" in verdict.feedback()


def test_an_answer_about_something_else_is_irrelevant() -> None:
    verdict = validate_answer("Which timezone does Tokyo use?", "Bananas grow on plants.")
    assert verdict.problems == ["irrelevant"] and not verdict.relevant
    # without content words in the question, any answer is about it
    assert validate_answer("What is 2+2?", "4").ok
    assert validate_answer("Tell me", "").problems == ["empty"]


def test_an_answer_taken_from_a_result_about_the_question_is_relevant() -> None:
    hamlet = [
        ToolResult("search_docs", {"query": "hamlet author"}, "Hamlet was written by William Shakespeare.")
    ]
    assert validate_answer("Who wrote Hamlet?", "William Shakespeare.", hamlet).ok
    # the result's call is about the question too ("Paris"), the answer repeats the result
    weather = [ToolResult("weather", {"city": "Paris"}, "sunny and mild")]
    assert validate_answer("What's the weather in Paris?", "Sunny and mild.", weather).relevant
    # still irrelevant: an answer about something else, or one sharing words only with an unrelated result
    assert not validate_answer("Who wrote Hamlet?", "Bananas grow on plants.", hamlet).relevant
    plants = [ToolResult("search_docs", {"query": "plants"}, "Bananas grow on plants.")]
    assert not validate_answer("Who wrote Hamlet?", "Bananas grow on plants.", plants).relevant


def test_citations_must_name_retrieved_documents() -> None:
    assert retrieved_sources([SEARCH, ToolResult("read_doc", {"path": "configuration.md:4"}, "…")]) == [
        "plugins.md",
        "guide/overview.md",
        "configuration.md",
    ]
    assert citations("See [plugins.md:21] and [plugins.md], also [1] and [x].") == ["plugins.md"]
    answer = "The description says what the agent does, shown to the coordinator"
    good = validate_answer("What does the plugin description say?", f"{answer} [plugins.md].", [SEARCH])
    assert good.ok, good
    assert good.citations == ["plugins.md"] and good.sources == ["plugins.md", "guide/overview.md"]
    # the file name alone is enough when it is unique among the retrieved documents
    assert validate_answer(
        "Cadence routes?", "Cadence routes between plugin agents [overview.md].", [SEARCH]
    ).ok
    bad = validate_answer("What does the plugin description say?", f"{answer} [secrets.md].", [SEARCH])
    assert bad.problems == ["unknown_citation"] and bad.details == ["secrets.md"]
    missing = validate_answer("What does the plugin description say?", f"{answer}.", [SEARCH])
    assert missing.problems == ["missing_citation"]
    assert "[plugins.md]" in missing.feedback()


def test_numbers_in_brackets_are_not_citations_and_markdown_links_and_dot_paths_are() -> None:
    # a value in brackets is no document: not an unknown citation, and not left out of the grounding check
    pi = validate_answer(
        "What is pi to two decimals?", "Pi is about [3.14].", [ToolResult("calculate", {}, "3.14")]
    )
    assert pi.ok and pi.citations == [], pi
    assert citations("Roots: [1.5,2.5], in [v2.0] of [plugins.md].") == ["plugins.md"]
    assert with_citations("Pi is about [3.14].", ["plugins.md"]).endswith("Sources: [plugins.md]")
    answer = "The description says what the agent does, shown to the coordinator"
    # a Markdown link to the document is its citation, link target included
    linked = validate_answer(
        "What does the plugin description say?", f"{answer} ([plugins.md](plugins.md)).", [SEARCH]
    )
    assert linked.ok and linked.citations == ["plugins.md"], linked
    # a path written from the current folder names the same document
    assert validate_answer("What does the plugin description say?", f"{answer} [./plugins.md].", [SEARCH]).ok


def test_with_citations_appends_sources_once() -> None:
    assert with_citations("Answer.", ["a.md", "b/c.md"]) == "Answer.\n\nSources: [a.md] [b/c.md]"
    assert with_citations("Answer [a.md].", ["a.md", "b.md"]) == "Answer [a.md]."
    assert with_citations("Answer.", []) == "Answer."


def test_validate_turn_reads_the_question_and_results_from_messages() -> None:
    messages = [
        HumanMessage("What is 12 * 12?"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "12*12"}, "id": "b"}]),
        ToolMessage("144", tool_call_id="b"),
    ]
    assert validate_turn(messages, "12 * 12 = 144.").ok
    assert isinstance(validate_turn(messages, "It is 12."), ValidationVerdict)
    assert validate_turn(messages, "It is 12.").problems == ["missing_result"]


async def test_flag_records_the_verdicts_in_the_trace(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("math"), call("calculate", expression="12 * 12"), FINALIZE, {"content": "It is 12."}],
        validation="flag",
    )
    result = await engine.ainvoke("What is 12 * 12?")
    [record] = result.trace["validation"]
    assert record["node"] == "synthesizer" and record["mode"] == "flag"
    assert record["draft_problems"] == ["missing_result"] and record["corrected"] is False
    # the answer shown (rewritten from the results by the final-answer check) passes
    assert record["verdict"]["ok"] and "144" in result.response
    assert [r.node for r in model.records].count("synthesizer") == 1  # flag never calls a model


async def test_correct_sends_one_correction_round_to_the_synthesizer(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("math"),
            call("calculate", expression="12 * 12"),
            FINALIZE,
            {"content": "It is 150."},
            {"content": "12 * 12 is 144."},
        ],
        validation="correct",
    )
    result = await engine.ainvoke("What is 12 * 12?")
    assert result.response == "12 * 12 is 144."
    synth = [r for r in model.records if r.node == "synthesizer"]
    assert len(synth) == 2
    correction = synth[1].messages
    assert isinstance(correction[-2], AIMessage) and correction[-2].content == "It is 150."
    assert isinstance(correction[-1], HumanMessage) and "150" in str(correction[-1].content)
    [record] = result.trace["validation"]
    assert record["corrected"] and record["draft_problems"] == ["invented_number"] and record["verdict"]["ok"]


async def test_correct_leaves_a_valid_answer_alone(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("math"), call("calculate", expression="12 * 12"), FINALIZE, {"content": "12 * 12 = 144."}],
        validation="correct",
    )
    result = await engine.ainvoke("What is 12 * 12?")
    assert [r.node for r in model.records].count("synthesizer") == 1
    assert result.trace["validation"][0]["corrected"] is False


async def test_off_records_nothing(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "2 + 2 = 4."}],
        validation="off",
    )
    result = await engine.ainvoke("What is 2 + 2?")
    assert result.trace["validation"] == []


async def test_a_document_answer_cites_its_sources(engine_factory) -> None:
    engine, _ = engine_factory(
        [
            goto("docs"),
            call("search_docs", query="plugin metadata"),
            FINALIZE,
            {"content": "A plugin's metadata has a description, shown to the coordinator, and capabilities."},
        ],
    )
    result = await engine.ainvoke("What is in a plugin's metadata?")
    assert "[plugins.md]" in result.response
    [record] = result.trace["validation"]
    cited = record["verdict"]["citations"]
    assert cited and set(cited) <= set(record["verdict"]["sources"])


def test_the_last_verdict_is_reused_for_equal_inputs_only() -> None:
    results = [ToolResult("calculate", {"expression": "15 * 23"}, "345")]
    first = validate_answer("What is 15 * 23?", "15 * 23 is 345.", results)
    again = validate_answer(
        "What is 15 * 23?", "15 * 23 is 345.", [ToolResult("calculate", {"expression": "15 * 23"}, "345")]
    )
    assert again is first and first.ok
    other = validate_answer("What is 15 * 23?", "15 * 23 is 346.", results)
    assert other is not first and not other.ok
    changed = validate_answer(
        "What is 15 * 23?", "15 * 23 is 345.", [ToolResult("calculate", {"expression": "15 * 23"}, "346")]
    )
    assert changed is not first and not changed.ok
