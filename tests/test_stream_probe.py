"""Streamed turns across the modes: every tool call is announced before its result, nodes once each."""

from __future__ import annotations

import itertools

import pytest

from test_planner_mode import calc, plan, planner_engine


def _without_tokens(events: list[dict]) -> list[tuple]:
    return [
        (e["type"], e.get("node") or e.get("name") or e.get("agent"))
        for e in events
        if e["type"] not in ("token", "final")
    ]


async def test_the_planner_streams_tool_start_before_each_tool_end_and_each_node_once() -> None:
    """The planner's researcher ran tools without a ``tool_start`` event (a client showing "running
    calculate…" saw a result out of nowhere) and the node a tools step went back to was announced twice."""
    engine, _ = planner_engine([plan("researcher", [calc("2 + 2")]), {"content": "2 + 2 = 4"}])
    events = [e async for e in engine.astream("What is 2 + 2?", user_id="u")]
    assert _without_tokens(events) == [
        ("node", "planner"),
        ("node", "researcher"),
        ("tool_start", "calculate"),
        ("node", "math_tools"),
        ("tool_end", "calculate"),
        ("agent_end", "math"),
        ("node", "researcher"),
        ("node", "root"),
    ]
    start = next(e for e in events if e["type"] == "tool_start")
    end = next(e for e in events if e["type"] == "tool_end")
    assert start == {
        "type": "tool_start",
        "agent": "math",
        "name": "calculate",
        "args": {"expression": "2 + 2"},
        "id": end["id"],
    }
    assert start["id"] and events[-1]["response"] == "2 + 2 = 4"


@pytest.mark.parametrize(("delegate", "first"), [("validator", "validator"), ("end", "root")])
async def test_the_planners_root_and_validator_announce_their_tools_once(delegate: str, first: str) -> None:
    engine, _ = planner_engine([plan(delegate, [calc("3 * 3")]), {"content": "3 * 3 = 9"}])
    events = [e async for e in engine.astream("What is 3 * 3?", user_id="u", tokens=False)]
    kinds = _without_tokens(events)
    assert kinds[:5] == [
        ("node", "planner"),
        ("node", first),
        ("tool_start", "calculate"),
        ("node", "math_tools"),
        ("tool_end", "calculate"),
    ]
    nodes = [k for k in kinds if k[0] == "node"]
    assert all(a != b for a, b in itertools.pairwise(nodes)), nodes
    assert nodes[-1] == ("node", "root") and events[-1]["response"] == "3 * 3 = 9"


async def test_a_validation_correction_is_not_streamed_after_its_draft(engine_factory) -> None:
    """``CADENCE_VALIDATION=correct``: the correction's tokens ran on after the draft's, one text
    ("It is 150.12 * 12 is 144.") that a client showed until the final event replaced it."""
    from tests.conftest import FINALIZE, call, goto

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
    events = [e async for e in engine.astream("What is 12 * 12?")]
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert tokens == "It is 150."  # the draft, as it was written
    final = events[-1]
    assert final["response"] == "12 * 12 is 144." and final["trace"]["validation"][0]["corrected"]
    assert [c["node"] for c in final["trace"]["model_calls"]].count("synthesizer") == 2  # still traced


async def test_a_model_call_retried_after_streaming_part_of_its_answer_streams_once() -> None:
    """The synthesizer's stream broke after "draft" and the retried call streamed its whole answer
    after it: clients showed "draft2 + 2 is 4" (the OpenAI-compatible stream and cadence chat too)."""
    from tests.conftest import FINALIZE, call, goto, make_settings

    from cadence.models.retry import RateLimitError
    from cadence.orchestration.engine import Cadence
    from cadence.testing import ScriptedChatModel

    class DroppedOnce(ScriptedChatModel):
        """The first answer's stream breaks after its first word (a retryable error)."""

        dropped: bool = False

        async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
            async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
                yield chunk
                if chunk.message.content == "draft" and not self.dropped:
                    self.dropped = True
                    raise RateLimitError("the connection dropped")

    script = [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "draft of it"}]
    model = DroppedOnce.from_items([*script, {"content": "2 + 2 is 4"}])
    engine = Cadence(make_settings(), model=model)
    events = [e async for e in engine.astream("What is 2 + 2?")]
    assert model.dropped
    assert "".join(e["text"] for e in events if e["type"] == "token") == "draft"
    assert events[-1]["response"] == "2 + 2 is 4" and events[-1]["error"] is None


def test_the_think_filter_streams_each_nodes_next_message_after_a_complete_one() -> None:
    """Only a message following one cut short is a retry: messages that ended stream as they come."""
    from langchain_core.messages import AIMessageChunk

    from cadence.orchestration.events import ThinkFilter, events_from_chunk

    def chunk(text: str, msg_id: str, *, last: bool = False) -> tuple:
        msg = AIMessageChunk(content=text, id=msg_id, chunk_position="last" if last else None)
        return msg, {"langgraph_node": "math_agent"}

    think = ThinkFilter()
    texts = []
    for text, msg_id, last in [("Step one", "a", False), ("", "a", True), ("Step two", "b", False),
                               (" done", "b", False), ("", "b", True), ("Retry", "c", False),
                               ("", "c", True), ("Cut", "d", False), ("Again", "e", False), ("", "e", True),
                               ("Next", "f", False)]:  # fmt: skip
        for event in events_from_chunk(
            "messages", chunk(text, msg_id, last=last), subgraph=True, think=think
        ):
            texts.append(event["text"])
    assert texts == ["Step one", "Step two", " done", "Retry", "Cut", "Next"]  # "Again" retried "Cut"


@pytest.mark.parametrize("mode", ["coordinator", "supervisor", "single"])
async def test_two_calls_of_one_tool_pair_their_start_and_end_by_id(engine_factory, mode: str) -> None:
    """``tool_start``/``tool_end`` named the tool only: two calls of ``calculate`` in one step could not
    be told apart (which result is which call's, which call is still running)."""
    from tests.conftest import FINALIZE, goto, transfer

    two = {
        "tool_calls": [
            {"name": "calculate", "args": {"expression": "2 + 2"}},
            {"name": "calculate", "args": {"expression": "3 + 3"}},
        ]
    }
    scripts = {
        "coordinator": [goto("math"), two, FINALIZE, {"content": "4 and 6"}],
        "supervisor": [transfer("math"), two, {"content": "4 and 6"}, FINALIZE, {"content": "4 and 6"}],
        "single": [two, {"content": "4 and 6"}],
    }
    engine, _ = engine_factory(scripts[mode], mode=mode, agent="math" if mode == "single" else None,
                               supervisor_direct_answer=False)  # fmt: skip
    events = [e async for e in engine.astream("What are 2 + 2 and 3 + 3?")]
    starts = {e["id"]: e["args"]["expression"] for e in events if e["type"] == "tool_start"}
    ends = {e["id"]: e["result"] for e in events if e["type"] == "tool_end"}
    assert len(starts) == 2 and set(starts) == set(ends)
    assert {starts[i]: ends[i] for i in starts} == {"2 + 2": "4", "3 + 3": "6"}


@pytest.mark.parametrize("url", ["memory://", "sqlite"])
async def test_a_stream_closed_at_its_first_event_keeps_the_question_answered(url: str, tmp_path) -> None:
    """Closing the stream at its first event (the turn's first ``node``: a client gone at once, a server
    stopping) skipped the turn's closing: in memory the question was lost, in SQLite it stayed flagged
    pending without an answer, against the promise "the turn is closed at once, the thread keeping the
    question"."""
    import contextlib

    from tests.conftest import FINALIZE, call, goto, make_settings

    from cadence.orchestration.engine import Cadence
    from cadence.testing import ScriptedChatModel

    database = url if url == "memory://" else f"sqlite:///{tmp_path / 'c.db'}"
    script = [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "4"}]
    async with Cadence.open(
        make_settings(database_url=database), model=ScriptedChatModel.from_items(script)
    ) as engine:
        async with contextlib.aclosing(engine.astream("What is 2 + 2?", thread_id="t")) as stream:
            async for event in stream:
                assert event == {"type": "node", "node": "coordinator"}
                break
        state = await engine.graph.aget_state({"configurable": {"thread_id": "local::t"}})
    messages = state.values["messages"]
    assert [m.type for m in messages] == ["human", "ai"] and messages[0].content == "What is 2 + 2?"
    assert not messages[0].response_metadata.get("cadence_pending")
    assert messages[1].name == "synthesizer" and "cancelled" in messages[1].content


async def test_a_guard_firing_in_the_single_mode_streams_a_suspend_event(engine_factory) -> None:
    """The coordinator and supervisor modes stream ``suspend`` (with the reason) when a guard stops the
    turn; the single mode's guard after a tools step went to the suspend node without it."""
    from tests.conftest import call

    engine, _ = engine_factory(
        [call("calculate", expression="2 + 2"), {"content": "Stopped: the tool limit was reached."}],
        mode="single",
        agent="math",
        max_tool_hops=1,
    )
    events = [e async for e in engine.astream("What is 2 + 2?")]
    kinds = _without_tokens(events)
    i = kinds.index(("node", "suspend"))
    assert events[-1]["trace"]["suspended"] and kinds[i - 1][0] == "suspend"
    suspend = next(e for e in events if e["type"] == "suspend")
    assert suspend["reason"]["code"] == events[-1]["trace"]["suspend_reason"] == "max_tool_hops"


async def test_a_guard_stopping_the_planners_tool_work_streams_one_suspend_event() -> None:
    """The planner mode's guard stop (trace ``suspended``) sent no ``suspend`` event at all."""
    info_call = {"name": "current_time", "args": {"location": "Paris"}}
    engine, _ = planner_engine(
        [
            plan("researcher", [calc("2 + 2"), info_call]),
            {"content": "2 + 2 = 4; the time was not looked up."},
        ],
        builtin_plugins=["math", "info"],
        max_tool_hops=1,
    )
    events = [e async for e in engine.astream("What is 2 + 2, and the time in Paris?", user_id="u")]
    suspends = [e for e in events if e["type"] == "suspend"]
    assert len(suspends) == 1 and suspends[0]["reason"]["code"] == "max_tool_hops"
    assert events[-1]["trace"]["suspended"] and events[-1]["trace"]["suspend_reason"] == "max_tool_hops"
    kinds = _without_tokens(events)
    assert kinds[kinds.index(("suspend", None)) + 1] == ("node", "root")
