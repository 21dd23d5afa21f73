"""The finishing layer: tones, suggestions, compaction, structured responses, deadlines, containment."""

from __future__ import annotations

import asyncio
import time

import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from tests.conftest import FINALIZE, assert_no_unanswered_calls, call, goto, make_settings

from cadence.conventions import CAPABILITIES_HEADER
from cadence.errors import ValidationError
from cadence.orchestration.compaction import COMPACTION_HEADER, TRUNCATION_MARK
from cadence.orchestration.engine import Cadence
from cadence.orchestration.tones import ResponseTone
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool
from cadence.testing import ScriptedChatModel

CALC = [goto("math"), call("calculate", expression="15 * 23"), FINALIZE]


def synth_prompt(model: ScriptedChatModel) -> str:
    record = next(r for r in reversed(model.records) if r.node in {"synthesizer", "suspend"})
    assert isinstance(record.messages[0], SystemMessage)
    return str(record.messages[0].content)


@pytest.mark.parametrize("tone", [t.value for t in ResponseTone])
async def test_each_tone_changes_the_synthesizer_prompt(engine_factory, tone: str) -> None:
    engine, model = engine_factory([*CALC, {"content": "345"}])
    await engine.ainvoke("Calculate 15 * 23", tone=tone)
    prompt = synth_prompt(model)
    assert ResponseTone(tone).description in prompt
    for other in ResponseTone:
        if other.value != tone:
            assert other.description not in prompt


async def test_missing_or_empty_tone_means_natural(engine_factory) -> None:
    engine, model = engine_factory([FINALIZE, {"content": "a"}, FINALIZE, {"content": "b"}])
    await engine.ainvoke("hi", tone="")
    assert ResponseTone.NATURAL.description in synth_prompt(model)
    result = await engine.ainvoke("hi", tone=None)
    assert result.trace["tone"] == "natural"


@pytest.mark.parametrize(
    ("message", "tone"),
    [
        ("In a formal tone, what is 2 + 2?", "formal"),
        ("Be brief: what is 2 + 2?", "concise"),
        ("Explain step by step how to add 2 and 2", "learning"),
        ("Explain in detail what a plugin is", "explanatory"),
        ("What is 2 + 2?", "natural"),
        ("Be brief and explain in detail", "natural"),  # two tones asked: none of them
        ("How did you get that?", "explanatory"),  # the previous answer with how it was found
        ("Where does that number come from?", "explanatory"),
        ("Show me your work", "learning"),
        ("What's 15% of 80? Show your work.", "learning"),
        ("Explain how you got 15% of 80.", "explanatory"),  # it had been answered "The answer is 12."
        ("Why is the sky blue?", "natural"),  # a question of its own
        ("Explain that.", "explanatory"),  # the previous answer, explained
        ("Now explain it like I'm five.", "explanatory"),
        ("Explain that in a formal tone", "formal"),
        ("Explain photosynthesis", "natural"),
        ("Give me a concise answer: what is 45 divided by 9?", "concise"),
        ("Please answer formally: what is the capital of Canada?", "formal"),
        ("Give me a formal answer: what is 2 + 2?", "formal"),
        ("What's 7 times 8, explained simply?", "explanatory"),
        ("Explain in simple terms what a plugin is", "explanatory"),
        ("Explain like I'm five: what is 12 times 12?", "explanatory"),
    ],
)
def test_a_tone_asked_for_in_words_is_the_turns_when_the_request_names_none(message: str, tone: str) -> None:
    assert ResponseTone.requested(None, None, message).value == tone
    assert ResponseTone.requested("formal", None, message).value == "formal"  # the request's own comes first
    assert ResponseTone.requested(None, {"tone": "concise"}, message).value == "concise"


async def test_the_engine_takes_a_tone_asked_for_in_words(engine_factory) -> None:
    engine, model = engine_factory([FINALIZE, {"content": "Four."}])
    result = await engine.ainvoke("In a formal tone, what is 2 + 2?")
    assert result.trace["tone"] == "formal" and ResponseTone.FORMAL.description in synth_prompt(model)


async def test_unknown_tone_is_a_clear_error(engine_factory) -> None:
    engine, _ = engine_factory([])
    with pytest.raises(
        ValidationError, match="choose one of: natural, explanatory, formal, concise, learning"
    ):
        await engine.ainvoke("hi", tone="sarcastic")


async def test_plugin_suggestions_reach_the_prompt_only_when_used(engine_factory) -> None:
    engine, model = engine_factory([*CALC, {"content": "345"}, FINALIZE, {"content": "hello"}])
    math_suggestion = engine.plugin_manager.bundles["math"].metadata.response_suggestion
    assert math_suggestion
    await engine.ainvoke("Calculate 15 * 23")
    assert math_suggestion in synth_prompt(model)
    await engine.ainvoke("hello")
    assert math_suggestion not in synth_prompt(model)


async def test_what_the_assistant_can_do_reaches_the_prompt_only_without_agent_work(engine_factory) -> None:
    """A greeting or "what can you do?" is answered from the plugins, not from skills the model invents."""
    engine, model = engine_factory([FINALIZE, {"content": "hello"}, *CALC, {"content": "345"}])
    described = engine.plugin_manager.bundles["math"].metadata.description
    await engine.ainvoke("What can you do?")
    prompt = synth_prompt(model)
    assert CAPABILITIES_HEADER in prompt and f"- {' '.join(described.split())}" in prompt
    await engine.ainvoke("Calculate 15 * 23")
    assert CAPABILITIES_HEADER not in synth_prompt(model)


async def test_compaction_tool_mode_folds_the_work(engine_factory) -> None:
    engine, model = engine_factory([*CALC, {"content": "345"}], synthesizer_compaction="tool")
    await engine.ainvoke("Calculate 15 * 23")
    msgs = model.records[-1].messages
    assert [type(m).__name__ for m in msgs] == ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage"]
    folded = msgs[-1]
    assert isinstance(folded, ToolMessage) and COMPACTION_HEADER in folded.content
    assert 'calculate({"expression": "15 * 23"})' in folded.content and "result: 345" in folded.content
    assert "goto_" not in folded.content
    assert COMPACTION_HEADER not in str(msgs[0].content)


async def test_compaction_system_mode_puts_work_in_the_prompt(engine_factory) -> None:
    engine, model = engine_factory([*CALC, {"content": "345"}], synthesizer_compaction="system")
    await engine.ainvoke("Calculate 15 * 23")
    msgs = model.records[-1].messages
    assert [type(m).__name__ for m in msgs] == ["SystemMessage", "HumanMessage"]
    assert COMPACTION_HEADER in str(msgs[0].content) and "result: 345" in str(msgs[0].content)


async def test_compaction_none_sends_everything(engine_factory) -> None:
    engine, model = engine_factory([*CALC, {"content": "345"}], synthesizer_compaction="none")
    await engine.ainvoke("Calculate 15 * 23")
    msgs = model.records[-1].messages
    names = [c["name"] for m in msgs if isinstance(m, AIMessage) for c in m.tool_calls]
    assert names == ["goto_math_agent", "calculate", "goto_finalize"]
    assert not any(COMPACTION_HEADER in str(m.content) for m in msgs)


async def test_compaction_truncates_explicitly_and_keeps_the_question(engine_factory) -> None:
    long_expr = "+".join(["1"] * 150)
    engine, model = engine_factory(
        [goto("math"), call("calculate", expression=long_expr), FINALIZE, {"content": "150"}],
        synthesizer_compaction="tool",
        synthesizer_compaction_max_chars=200,
    )
    question = "Add up one hundred and fifty ones please " + "x" * 300
    await engine.ainvoke(question)
    msgs = model.records[-1].messages
    assert msgs[1].content == question
    assert TRUNCATION_MARK in msgs[-1].content
    assert len(msgs[-1].content) <= 200 + len(COMPACTION_HEADER) + 1


async def test_earlier_turns_are_kept_as_plain_conversation(engine_factory) -> None:
    engine, model = engine_factory(
        [*CALC, {"content": "345"}, FINALIZE, {"content": "You asked about 15*23."}]
    )
    await engine.ainvoke("Calculate 15 * 23", thread_id="t")
    await engine.ainvoke("What did I ask?", thread_id="t")
    msgs = model.records[-1].messages
    kinds = [(type(m).__name__, str(m.content)[:20]) for m in msgs]
    assert kinds[1] == ("HumanMessage", "Calculate 15 * 23")
    assert kinds[2] == ("AIMessage", "345")
    assert kinds[3] == ("HumanMessage", "What did I ask?")


async def test_structured_model_mode(engine_factory) -> None:
    structured = {
        "tool_calls": [
            {
                "name": "FinalResponse",
                "args": {"answer": "15 × 23 = 345", "math": {"expression": "15*23", "result": "345"}},
            }
        ]
    }
    engine, model = engine_factory([*CALC, structured], structured_response="model")
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 × 23 = 345"
    assert result.trace["structured"]["math"]["result"] == "345"
    assert "FinalResponse" in model.records[-1].tools


async def test_structured_prompt_mode_with_retry(engine_factory) -> None:
    engine, model = engine_factory(
        [
            *CALC,
            {"content": "not json"},
            {"content": '```json\n{"answer": "345", "math": {"result": "345"}}\n```'},
        ],
        structured_response="prompt",
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "345"
    assert result.trace["structured"] == {"answer": "345", "math": {"result": "345"}}
    assert "OUTPUT FORMAT" in str(model.records[-1].messages[0].content)
    assert "not valid" in str(model.records[-1].messages[-1].content)


async def test_structured_failure_falls_back_to_plain(engine_factory) -> None:
    engine, model = engine_factory(
        [*CALC, {"content": "nope"}, {"content": "still nope"}, {"content": "15 * 23 = 345"}],
        structured_response="prompt",
        structured_response_retries=1,
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345"
    assert result.trace["structured"] is None
    assert any("fell back" in n for n in result.trace["notes"])
    assert "OUTPUT FORMAT" not in str(model.records[-1].messages[0].content)


async def test_structured_none_mode_is_plain(engine_factory) -> None:
    engine, model = engine_factory([*CALC, {"content": "345"}], structured_response="none")
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.trace["structured"] is None and model.records[-1].tools == []


# --- containment and deadlines ------------------------------------------------------------


@tool
def explode(what: str) -> str:
    """Always fails."""
    raise RuntimeError(f"cannot {what}")


@tool
async def slow(seconds: float) -> str:
    """Sleeps for a while."""
    await asyncio.sleep(seconds)
    return "woke up"


class _Agent(BaseAgent):
    def get_tools(self):
        return [explode, slow]

    def get_system_prompt(self) -> str:
        return "test agent"


class FlakyPlugin(BasePlugin):
    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        return PluginMetadata(name="flaky", version="1.0", description="Tools that fail or take long.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        return _Agent(cls.get_metadata())


async def test_tool_exception_becomes_error_result_the_agent_sees(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("flaky"), call("explode", what="fly"), goto("flaky"), {"content": "It failed: cannot fly."}, FINALIZE, {"content": "Sorry, that failed."}],
        plugins=[FlakyPlugin],
        builtin_plugins=[],
    )  # fmt: skip
    result = await engine.ainvoke("Please fly")
    [used] = result.trace["tools_used"]
    assert used["error"] and "cannot fly" in used["error"] and used["result"] is None
    second_agent_call = [r for r in model.records if r.node == "flaky_agent"][1]
    errors = [m for m in second_agent_call.messages if isinstance(m, ToolMessage) and m.status == "error"]
    assert errors and "RuntimeError: cannot fly" in errors[0].content
    assert result.response == "Sorry, that failed."


async def test_tool_sleeping_past_the_deadline(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("flaky"), call("slow", seconds=30), {"content": "I ran out of time; nothing was found."}],
        plugins=[FlakyPlugin],
        builtin_plugins=[],
        turn_timeout=2.0,
    )
    started = time.monotonic()
    result = await engine.ainvoke("Take your time")
    elapsed = time.monotonic() - started
    assert elapsed < 2.0 + 1.5
    [used] = result.trace["tools_used"]
    assert "did not finish" in used["error"]
    assert result.trace["suspend_reason"] == "deadline"
    assert "time allowed for it ran out" in result.response


async def test_model_that_never_answers(engine_factory) -> None:
    engine, model = engine_factory(
        [{"delay_s": 60, "content": "too late"}] * 3, turn_timeout=1.5, model_timeout=60
    )
    started = time.monotonic()
    result = await engine.ainvoke("Hello?")
    elapsed = time.monotonic() - started
    assert elapsed < 1.5 + 1.5
    assert result.response.startswith("Sorry, I couldn't finish this answer")
    assert result.error is not None
    # the thread is still usable
    engine2 = Cadence(make_settings(), model=ScriptedChatModel.from_items([FINALIZE, {"content": "fine now"}]),
                      checkpointer=engine.checkpointer)  # fmt: skip
    again = await engine2.ainvoke("Hello again", thread_id=result.thread_id)
    assert again.response == "fine now" and again.error is None


async def test_coordinator_timeout_routes_to_synthesizer(engine_factory) -> None:
    engine, model = engine_factory(
        [
            {"delay_s": 5, "tool_calls": [{"name": "goto_math_agent", "args": {}}]},
            {"content": "Nothing gathered yet."},
        ],
        coordinator_timeout=0.3,
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "Nothing gathered yet."
    assert result.trace["routing_history"] == []
    assert any(e["code"] == "coordinator_timeout" for e in result.trace["errors"])


async def test_rate_limit_retried_then_succeeds(engine_factory) -> None:
    rl = {"raise": {"type": "rate_limit", "message": "slow down"}}
    engine, model = engine_factory([rl, rl, FINALIZE, {"content": "ok"}])
    result = await engine.ainvoke("hi")
    assert result.response == "ok" and result.error is None
    assert result.trace["model_calls"][0]["attempts"] == 3


async def test_model_that_keeps_failing_ends_with_clear_error_and_thread_stays_usable(engine_factory) -> None:
    rl = {"raise": {"type": "rate_limit", "message": "slow down"}}
    engine, model = engine_factory([rl] * 8 + [FINALIZE, {"content": "back online"}], model_max_retries=3)
    result = await engine.ainvoke("hi", thread_id="t")
    assert result.error is not None and result.error["code"] == "model_error"
    assert "slow down" in result.error["message"]
    assert result.response.startswith("Sorry, I couldn't finish this answer")
    again = await engine.ainvoke("hi again", thread_id="t")
    assert again.response == "back online" and again.error is None
    assert_no_unanswered_calls(model)


async def test_agent_model_failure_is_contained(engine_factory) -> None:
    err = {"raise": {"type": "error", "message": "boom"}}
    engine, model = engine_factory([goto("math"), err, FINALIZE, {"content": "The math helper failed."}])
    result = await engine.ainvoke("Calculate 1+1")
    assert result.response == "The math helper failed."
    assert any(e["node"] == "math_agent" for e in result.trace["errors"])


async def test_a_message_longer_than_the_models_context_says_to_shorten_it(engine_factory) -> None:
    too_long = {"raise": {"type": "error", "message": "This model's maximum context length is 8192 tokens"}}
    engine, model = engine_factory([FINALIZE, too_long, FINALIZE, {"content": "short and fine"}])
    result = await engine.ainvoke("a very long message", thread_id="t")
    assert result.error is not None and result.error["code"] == "model_error"
    assert "cannot take this much text" in result.error["message"]
    assert "shorten the message" in result.response and "did not respond" not in result.response
    again = await engine.ainvoke("a short one", thread_id="t")
    assert again.response == "short and fine" and again.error is None
    assert_no_unanswered_calls(model)


async def test_a_failed_part_of_a_question_is_said_after_the_answer_to_the_rest(engine_factory) -> None:
    """The answer gave the calculation only; the clock's failure for the other half went unsaid."""
    from cadence.builtins.info import InfoPlugin
    from cadence.builtins.math import MathPlugin

    script = [
        goto("math"),
        call("calculate", expression="5 * 5"),
        goto("info"),
        call("current_time", location="Xyzzyland"),
        FINALIZE,
        {"content": "The answer is 25."},
    ]
    engine, _ = engine_factory(script, plugins=[MathPlugin, InfoPlugin], builtin_plugins=[])
    result = await engine.ainvoke("What's 5 * 5 and what time is it in Xyzzyland?")
    assert result.response.startswith(
        "The answer is 25.\n\nI couldn't answer all of it: the current_time tool"
    )
    assert "Xyzzyland" in result.response
    assert "synthesizer: what failed of the question said" in result.trace["notes"]
