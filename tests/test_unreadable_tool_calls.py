"""Tool calls whose arguments a model wrote unreadably (LangChain's ``invalid_tool_calls``): answered with
an error the model reads, so it can call again; never dropped, never run, never put to a human."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage
from tests.conftest import FINALIZE, call, goto, make_settings

from cadence.orchestration.engine import Cadence
from cadence.sdk import with_back_call
from cadence.sdk.tools import UNREADABLE_ARGUMENTS_KEY
from cadence.testing import ScriptedChatModel

BROKEN = '{"expression": 15*23'
"""Arguments as a small model writes them: cut off, not JSON."""


def broken_call(name: str = "calculate", args: str = BROKEN) -> dict:
    return {"tool_calls": [{"name": name, "args": args}]}


async def test_the_agent_reads_why_its_call_failed_and_calls_again(engine_factory) -> None:
    script = [goto("math"), broken_call(), goto("math"), call("calculate", expression="15 * 23")]
    engine, model = engine_factory([*script, FINALIZE, {"content": "15 * 23 = 345"}])
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345"
    first, second = result.trace["tools_used"]
    assert first["name"] == "calculate" and first["result"] is None
    assert "could not be read" in first["error"] and "not valid JSON" in first["error"]
    assert "Call calculate again with its arguments as one JSON object" in first["error"]
    assert second["result"] == "345" and second["error"] is None
    # the agent's second step saw the error of its first call
    retry = [r for r in model.records if r.node == "math_agent"][1]
    assert any("could not be read" in str(m.content) for m in retry.messages)


async def test_single_mode_agent_retries_in_its_own_loop() -> None:
    model = ScriptedChatModel.from_items(
        [broken_call(), call("calculate", expression="15 * 23"), {"content": "15 * 23 = 345"}]
    )
    engine = Cadence(make_settings(builtin_plugins=["math"], mode="single", agent="math"), model=model)
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345"
    assert [t["error"] is None for t in result.trace["tools_used"]] == [False, True]


async def test_a_tool_needing_approval_is_not_put_to_a_human_for_an_unreadable_call(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), broken_call(), FINALIZE, {"content": "I could not compute it."}],
        approval_tools="calculate",
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert not result.interrupted and result.response == "I could not compute it."
    [used] = result.trace["tools_used"]
    assert "could not be read" in used["error"]


def test_with_back_call_keeps_an_invalid_call_as_one_the_tools_step_answers() -> None:
    reply = AIMessage(
        content="",
        invalid_tool_calls=[
            {
                "name": "calculate",
                "args": BROKEN,
                "id": None,
                "error": "bad JSON",
                "type": "invalid_tool_call",
            },
            {"name": None, "args": "x" * 500, "id": "c2", "error": None, "type": "invalid_tool_call"},
        ],
    )
    out = with_back_call(reply)
    assert out.invalid_tool_calls == []
    first, second = out.tool_calls
    assert first["name"] == "calculate" and first["id"] and first["id"] != "c2"
    assert first["args"] == {UNREADABLE_ARGUMENTS_KEY: f"bad JSON (the model wrote: {BROKEN!r})"}
    assert second["name"] == "unnamed" and second["id"] == "c2"
    assert len(second["args"][UNREADABLE_ARGUMENTS_KEY]) < 300  # what the model wrote is shown cut
    assert "back" not in [c["name"] for c in out.tool_calls]


async def test_the_scripted_model_parses_argument_text_like_a_provider() -> None:
    model = ScriptedChatModel.from_items(
        [broken_call(), broken_call(args='{"expression": "1 + 1"}'), broken_call(args="[1]")] * 2
    )
    question = [HumanMessage(content="hi")]
    replies = [await model.ainvoke(question) for _ in range(3)]
    assert [len(r.tool_calls) for r in replies] == [0, 1, 0]
    assert replies[1].tool_calls[0]["args"] == {"expression": "1 + 1"}
    assert "not valid JSON" in replies[0].invalid_tool_calls[0]["error"]
    assert replies[0].invalid_tool_calls[0]["args"] == BROKEN
    assert "must be a JSON object" in replies[2].invalid_tool_calls[0]["error"]
    streamed = []
    for _ in range(3):
        chunks = [c async for c in model.astream(question)]
        whole = chunks[0]
        for c in chunks[1:]:
            whole = whole + c
        streamed.append(whole)
    assert streamed[1].tool_calls[0]["args"] == {"expression": "1 + 1"}
    assert [c["args"] for c in streamed[2].invalid_tool_calls] == ["[1]"]
