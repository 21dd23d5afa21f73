"""The built-in text plugin: summarize_text, extractive offline, abstractive with a model, bounded input."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from tests.conftest import call

from cadence.builtins import BUILTIN_PLUGINS
from cadence.builtins._common import BuiltinToolError
from cadence.builtins.text import (
    TextAgent,
    TextPlugin,
    TextTooLongError,
    carries_text_to_summarize,
    check_text,
    extractive_summary,
    sentences_asked,
    split_sentences,
    text_to_summarize,
)
from cadence.sdk import SURELY, reader_of
from cadence.settings import Settings
from cadence.testing import ScriptedChatModel

ARTICLE = (
    "Solar panels turn sunlight into electricity. "
    "The price of solar panels fell by ninety percent in ten years. "
    "My neighbour painted his fence green last summer. "
    "Cheaper solar panels mean that solar electricity now costs less than coal in most countries. "
    "Storage batteries let solar electricity be used at night. "
    "The weather was pleasant on the day of the interview."
)


def agent(**settings: object) -> TextAgent:
    return TextAgent(TextPlugin.get_metadata(), Settings(**settings) if settings else None)


def test_registered_as_a_builtin() -> None:
    assert BUILTIN_PLUGINS["text"] is TextPlugin
    assert [t.name for t in TextPlugin.create_agent().get_tools()] == ["summarize_text", "text_facts"]


def test_extractive_summary_keeps_the_topic_sentences_in_order() -> None:
    summary = extractive_summary(ARTICLE, 2)
    picked = split_sentences(summary)
    assert len(picked) == 2 and all(s in ARTICLE for s in picked)
    assert "fence" not in summary and "weather" not in summary  # off-topic sentences are left out
    assert [ARTICLE.index(s) for s in picked] == sorted(ARTICLE.index(s) for s in picked)
    assert all("solar" in s.lower() for s in picked)


def test_short_text_is_returned_whole() -> None:
    assert extractive_summary("  One sentence.\n\nTwo   sentences.  ", 3) == "One sentence. Two sentences."


def test_list_items_and_paragraphs_are_sentences() -> None:
    assert split_sentences("Intro line\n- first item\n- second item\n\nLast paragraph. End.") == [
        "Intro line",
        "- first item",
        "- second item",
        "Last paragraph.",
        "End.",
    ]


async def test_offline_without_a_model() -> None:
    tool = agent().get_tools()[0]
    result = await tool.ainvoke({"text": ARTICLE, "max_sentences": 1})
    assert len(split_sentences(result)) == 1 and "solar" in result.lower()
    rewritten = await tool.ainvoke({"text": ARTICLE, "style": "abstractive"})
    assert rewritten.endswith("(Extractive summary: no model is available for an abstractive one.)")


async def test_abstractive_uses_the_model() -> None:
    text_agent = agent()
    model = ScriptedChatModel.from_items([{"content": "Solar power got cheap and beats coal."}])
    text_agent.bind_model(model)
    result = await text_agent.get_tools()[0].ainvoke(
        {"text": ARTICLE, "style": "abstractive", "max_sentences": 1}
    )
    assert result == "Solar power got cheap and beats coal."
    sent = model.records[0].messages
    assert isinstance(sent[0], SystemMessage) and "at most 1 sentences" in sent[0].content
    assert isinstance(sent[1], HumanMessage) and sent[1].content == ARTICLE


async def test_abstractive_falls_back_when_the_model_fails() -> None:
    text_agent = agent()
    text_agent.bind_model(ScriptedChatModel.from_items([{"raise": {"type": "error", "message": "down"}}]))
    result = await text_agent.summarize(ARTICLE, 2, "abstractive")
    assert result.startswith(extractive_summary(ARTICLE, 2))
    assert "the model could not summarize" in result


async def test_input_is_bounded() -> None:
    text_agent = agent(summarize_max_chars=100)
    with pytest.raises(TextTooLongError) as info:
        await text_agent.summarize("word " * 40)
    message = str(info.value)
    assert (
        "200 characters" in message and "at most 100" in message and "CADENCE_SUMMARIZE_MAX_CHARS" in message
    )
    assert await text_agent.summarize("Short enough. Really.") == "Short enough."  # half of two


def test_default_bound_is_the_documented_setting(monkeypatch) -> None:
    from cadence.settings import get_settings

    assert Settings.model_fields["summarize_max_chars"].default == 50_000
    monkeypatch.setenv("CADENCE_SUMMARIZE_MAX_CHARS", "150")
    get_settings.cache_clear()
    assert agent().max_chars == 150


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({"text": "   "}, "no text to summarize"),
        ({"text": ARTICLE, "max_sentences": 0}, "between 1 and 20"),
        ({"text": ARTICLE, "max_sentences": 21}, "between 1 and 20"),
    ],
)
async def test_bad_arguments(args: dict, fragment: str) -> None:
    with pytest.raises(BuiltinToolError) as info:
        await agent().summarize(**args)
    assert fragment in str(info.value)


async def test_in_a_turn_the_bound_comes_from_the_turns_settings(engine_factory) -> None:
    long_text = "A sentence about solar panels. " * 10
    engine, _ = engine_factory(
        [call("summarize_text", text=long_text), {"content": "Too long."}],
        builtin_plugins=["text"],
        mode="single",
        summarize_max_chars=100,
    )
    result = await engine.ainvoke("Summarize this.")
    used = result.trace["tools_used"][0]
    assert "at most 100" in used["error"]


async def test_abstractive_in_a_turn_uses_the_turns_model(engine_factory) -> None:
    engine, model = engine_factory(
        [
            call("summarize_text", text=ARTICLE, style="abstractive", max_sentences=1),
            {"content": "Solar is cheap now."},
            {"content": "Summary: solar is cheap now."},
        ],
        builtin_plugins=["text"],
        mode="single",
    )
    result = await engine.ainvoke("Rewrite this as a summary: ...")
    assert result.response == "Summary: solar is cheap now."
    assert [r.node for r in model.records] == ["text_agent", "text_tools", "text_agent"]
    assert result.trace["tools_used"][0]["result"] == "Solar is cheap now."
    # the tool's own model call is in the trace, between the agent's two
    assert [c["node"] for c in result.trace["model_calls"]] == ["text_agent", "text_tools", "text_agent"]
    assert (
        result.trace["model_calls"][1]["model"] == "scripted"
        and result.trace["model_calls"][1]["error"] is None
    )


@pytest.mark.parametrize(
    ("message", "text"),
    [
        (
            "Summarize this: The cell needs energy. Mitochondria make it.",
            "The cell needs energy. Mitochondria make it.",
        ),
        (
            "Can you summarize the following text? Work changed. Offices emptied.",
            "Work changed. Offices emptied.",
        ),
        ("TL;DR: The meeting covered Q3. Sales stay flat.", "The meeting covered Q3. Sales stay flat."),
        ("Please summarize:\nLine one here. Line two here.", "Line one here. Line two here."),
        ("The meeting covered Q3. Sales stay flat.", "The meeting covered Q3. Sales stay flat."),
    ],
)
def test_the_request_opening_a_text_is_not_summarized(message: str, text: str) -> None:
    assert text_to_summarize(message) == text
    assert check_text(message, 1000) == text


@pytest.mark.parametrize(
    ("message", "read"),
    [
        ("Summarize this: The cell needs energy. Mitochondria make it.", True),
        ("Shorten this text: I went out. It rained.", True),
        ("Summarize the docs about plugins", False),  # no text given: the docs agent's
        ("Give me a summary of how the coordinator works", False),
        ("Summarize: short.", False),  # one sentence: nothing to shorten
        ("What is a summary?", False),
    ],
)
def test_summarize_text_reads_a_request_followed_by_a_text(message: str, read: bool) -> None:
    assert bool(carries_text_to_summarize(message)) is read
    assert (carries_text_to_summarize(message) is SURELY) is read  # sure: it is given the text itself
    assert reader_of(TextPlugin.create_agent().get_tools()[0]) is carries_text_to_summarize


def test_the_text_plugin_is_loaded_by_default() -> None:
    assert "text" in Settings.model_fields["builtin_plugins"].default_factory()  # type: ignore[misc]


def test_a_summary_of_the_users_text_is_answered_whole_in_every_tone() -> None:
    """A result made of the question's own sentences is what was asked for: a tone does not pick one of them
    ("tl;dr: Meeting notes. ..." was answered "Meeting notes.")."""
    from cadence.orchestration.answer_check import ToolResult, faithful_answer, quotes_question

    question = (
        "tl;dr: Meeting notes. Anna will finish the API draft by Friday. Ben is blocked on the migration. "
        "Next meeting is Tuesday at 10."
    )
    summary = "Meeting notes. Ben is blocked on the migration. Next meeting is Tuesday at 10."
    assert quotes_question(summary, question) and not quotes_question("Meeting notes.", question)
    results = [ToolResult(name="summarize_text", args={"text": question}, content=summary)]
    for tone in ("natural", "concise"):
        assert faithful_answer(question, results, tone) == summary


@pytest.mark.parametrize(
    ("request_", "n"),
    [
        ("Summarize the following text in 2 sentences: ", 2),
        ("Give me a one-sentence summary of this: ", 1),
        ("Summarize in a sentence: ", 1),
        ("Summarize this: ", None),
    ],
)
async def test_the_sentences_a_request_asks_for_are_the_summarys(request_: str, n: int | None) -> None:
    """ "in 2 sentences" had been answered with the default 3; "a one-sentence summary of this:" had not
    been read as a request to summarize (the calculator read "Profits rose 20%")."""
    assert sentences_asked(request_ + ARTICLE) == n
    assert carries_text_to_summarize(request_ + ARTICLE) is SURELY
    summary = await agent().summarize(request_ + ARTICLE)
    assert len(split_sentences(summary)) == (n or 3)
    # a count the caller chose stands
    assert len(split_sentences(await agent().summarize(request_ + ARTICLE, 4))) == 4


async def test_a_summary_asked_for_no_count_is_at_most_half_the_text() -> None:
    """ "Summarize this:" before three sentences had been answered with the text itself."""
    text = (
        "Cadence is a framework for multi-agent chat. It routes questions between plugin agents and writes "
        "a final answer in the tone the user asked for. Conversations persist and stream."
    )
    assert len(split_sentences(await agent().summarize("Summarize this: " + text))) == 1
    assert len(split_sentences(await agent().summarize("Summarize this in 3 sentences: " + text))) == 3
    assert len(split_sentences(await agent().summarize(text, 2))) == 2  # a count the caller chose
    assert await agent().summarize("One sentence only.") == "One sentence only."
