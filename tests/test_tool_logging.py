"""Tool executions: a result longer than ``CADENCE_MAX_TOOL_RESULT_CHARS`` is cut, and says so."""

from __future__ import annotations

from langchain_core.messages import ToolMessage
from tests.conftest import FINALIZE, goto, make_settings, tool_plugin

from cadence.orchestration.engine import Cadence, thread_key
from cadence.orchestration.tool_logging import clipped_result
from cadence.sdk import tool
from cadence.testing import ScriptedChatModel


@tool
def dump(size: int) -> str:
    """Return ``size`` characters."""
    return "x" * size


DumpPlugin = tool_plugin("dumper", [dump], description="Returns long texts.")


def test_a_clipped_result_keeps_to_the_limit_and_says_what_was_cut() -> None:
    cut = clipped_result("y" * 5000, 1000)
    assert len(cut) <= 1000 and cut.startswith("yyy")
    assert "5,000 characters" in cut and "CADENCE_MAX_TOOL_RESULT_CHARS (1,000)" in cut


async def test_a_long_tool_result_is_cut_before_the_model_and_the_thread_see_it() -> None:
    script = [
        goto("dumper"),
        {"tool_calls": [{"name": "dump", "args": {"size": 50_000}}, {"name": "dump", "args": {"size": 500}}]},
        FINALIZE,
        {"content": "Done."},
    ]
    model = ScriptedChatModel.from_items(script)
    engine = Cadence(
        make_settings(builtin_plugins=[], max_tool_result_chars=2000), model=model, plugins=[DumpPlugin]
    )
    await engine.ainvoke("Dump.", thread_id="t")
    state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key("local", "t")}})
    results = [m for m in state.values["messages"] if isinstance(m, ToolMessage) and m.name == "dump"]
    assert sorted(len(m.content) for m in results)[0] == 500  # within the limit: as it was
    long = max(results, key=lambda m: len(m.content))
    assert len(long.content) <= 2000 and "50,000 characters" in long.content
    seen = [m for r in model.records for m in r.messages if isinstance(m, ToolMessage) and m.name == "dump"]
    assert seen and all(len(m.content) <= 2000 for m in seen)  # the next calls saw the cut result


async def test_a_tool_message_answering_another_call_answers_this_one() -> None:
    """A tool returning its own ToolMessage with another id had left its call unanswered beside an orphan
    result (the trace named the tool "?")."""
    from types import SimpleNamespace

    from langchain_core.messages import ToolMessage

    from cadence.orchestration.tool_logging import logged_tool_call

    async def execute(request: object) -> ToolMessage:
        return ToolMessage(content="wrong id.", tool_call_id="not-the-call")

    request = SimpleNamespace(tool_call={"name": "odd", "args": {}, "id": "call_A"}, runtime=None)
    result = await logged_tool_call(request, execute, plugin="demo")
    assert isinstance(result, ToolMessage)
    assert (result.tool_call_id, result.name, result.content) == ("call_A", "odd", "wrong id.")
