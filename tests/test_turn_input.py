"""A turn's input is checked once (Cadence.turn_input) and runs as it is."""

from __future__ import annotations

import pytest
from tests.conftest import FINALIZE, call, goto

from cadence.errors import ValidationError
from cadence.orchestration.engine import TurnInput


async def test_checked_input_runs_without_a_second_check(engine_factory) -> None:
    engine, _ = engine_factory([FINALIZE, {"content": "Hello!"}])
    turn = engine.turn_input("hi", user_id="  ann ", tone="concise")
    assert (turn.message, turn.user_id, turn.tone) == ("hi", "ann", "concise")
    assert len(turn.thread_id) == 32  # made once, here
    events = [e async for e in engine.astream(turn, tokens=False)]
    final = events[-1]
    assert final["type"] == "final" and final["response"] == "Hello!"
    assert final["thread_id"] == turn.thread_id and final["trace"]["tone"] == "concise"


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"message": "  "}, "empty_message"),
        ({"message": "\u200b\ufeff \u2060\u00ad"}, "empty_message"),  # nothing visible: it ran a turn
        ({"message": "x" * 40, "max_message_chars": 10}, "message_too_long"),
        ({"message": "hi", "tone": "shouty"}, "invalid_tone"),
        ({"message": "hi", "user_id": "a::b"}, "invalid_id"),
        # the ids the HTTP API accepts, no others (cadence chat stored threads the API could not reach)
        ({"message": "hi", "user_id": "bad\x01user"}, "invalid_id"),
        ({"message": "hi", "user_id": "u" * 129}, "id_too_long"),
        ({"message": "hi", "thread_id": "../x"}, "invalid_value"),
        ({"message": "hi", "thread_id": "a::b"}, "invalid_value"),
        ({"message": "hi", "thread_id": "t" * 129}, "id_too_long"),
        (
            {"message": "My name is Ad\udce9."},
            "invalid_text",
        ),  # a byte that was not UTF-8, read by a terminal
        ({"message": "lone \ud800 surrogate"}, "invalid_text"),
        ({"message": b"hi"}, "invalid_value"),  # bytes, not text (it said "the message is empty")
        ({"message": "hi", "thread_id": 123}, "invalid_value"),
        ({"message": "hi", "user_id": 5}, "invalid_value"),
        ({"message": "hi", "tone": 5}, "invalid_value"),
        ({"message": "hi", "metadata": "text"}, "invalid_metadata"),
        ({"message": "hi", "metadata": {"x": object()}}, "invalid_metadata"),  # ran the turn, then lost it
        ({"message": "hi", "metadata": {"x": float("nan")}}, "invalid_metadata"),
        ({"message": "hi", "metadata": {"tone": "shouty"}}, "invalid_tone"),
        ({"message": "hi", "metadata": {"tone": 3}}, "invalid_tone"),
    ],
)
def test_bad_input_is_refused_before_anything_runs(engine_factory, kwargs: dict, code: str) -> None:
    limit = kwargs.pop("max_message_chars", 32000)
    engine, _ = engine_factory([], max_message_chars=limit)
    message = kwargs.pop("message")
    with pytest.raises(ValidationError) as info:
        engine.turn_input(message, **kwargs)
    assert info.value.code == code


async def test_the_tone_in_the_metadata_is_used_when_no_tone_is_given(engine_factory) -> None:
    engine, _ = engine_factory([FINALIZE, {"content": "Hello!"}])
    assert engine.turn_input("hi", metadata={"tone": "Formal"}).tone == "formal"
    assert engine.turn_input("hi", tone="concise", metadata={"tone": "formal"}).tone == "concise"
    assert engine.turn_input("hi", metadata={"source": "web"}).tone == "natural"
    result = await engine.ainvoke("hi", metadata={"tone": "formal"})
    assert result.trace["tone"] == "formal"


def test_turn_input_is_a_frozen_record() -> None:
    turn = TurnInput(message="hi", tone="natural", user_id="u", thread_id="t")
    with pytest.raises(AttributeError):
        turn.message = "other"  # type: ignore[misc]


async def test_a_caller_that_checked_the_thread_saves_the_pause_check(engine_factory, monkeypatch) -> None:
    engine, _ = engine_factory([FINALIZE, {"content": "One."}, FINALIZE, {"content": "Two."}])
    checked: list[str] = []

    async def check(user_id: str, thread_id: str, **_: object) -> None:
        checked.append(thread_id)

    monkeypatch.setattr(engine, "ensure_not_paused", check)
    turn = engine.turn_input("hi", thread_id="t1")
    assert [e async for e in engine.astream(turn, tokens=False)][-1]["response"] == "One."
    assert checked == ["t1"]  # by default the turn checks the thread for pending approvals
    trusted = engine.turn_input("again", thread_id="t1")
    trusted = TurnInput(**{**trusted.__dict__, "pause_checked": True})
    assert [e async for e in engine.astream(trusted, tokens=False)][-1]["response"] == "Two."
    assert checked == ["t1"]  # the caller checked it under its lock: no second checkpoint read


async def test_two_turns_at_once_on_one_thread_lose_nothing(engine_factory) -> None:
    """Both ran and the second overwrote the first: its question and answer were gone."""
    import asyncio

    from cadence.errors import ConflictError

    script = [FINALIZE, {"content": "First answer.", "delay_s": 0.2}, FINALIZE, {"content": "Other."}]
    engine, _ = engine_factory(script)
    results = await asyncio.gather(
        engine.ainvoke("first question", thread_id="t"),
        engine.ainvoke("second question", thread_id="t"),
        return_exceptions=True,
    )
    busy = [r for r in results if isinstance(r, ConflictError)]
    assert len(busy) == 1 and busy[0].code == "thread_busy"
    other = await engine.ainvoke("another thread", thread_id="u")  # other threads are not held
    assert other.error is None
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::t"}})
    assert state.values["messages"][0].content == "first question"


def test_invoke_from_several_threads_takes_turns_on_one_loop(engine_factory) -> None:
    """Two threads ran the shared loop at once: 'This event loop is already running', lost saves."""
    from concurrent.futures import ThreadPoolExecutor

    engine, _ = engine_factory([FINALIZE, {"content": "Hi.", "delay_s": 0.05}] * 4)
    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda i: engine.invoke("hi", thread_id=f"t{i}"), range(4)))
        assert [r.response for r in results] == ["Hi."] * 4
    finally:
        engine.close()


async def test_invoke_inside_a_running_loop_says_to_await_ainvoke(engine_factory) -> None:
    from cadence.errors import ConfigurationError

    engine, _ = engine_factory([])
    with pytest.raises(ConfigurationError) as info:
        engine.invoke("hi")
    assert info.value.code == "use_ainvoke" and "await engine.ainvoke" in info.value.message


def test_a_synchronous_saver_is_refused_when_the_engine_is_built(tmp_path) -> None:
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver
    from tests.conftest import make_settings

    from cadence.errors import ConfigurationError
    from cadence.orchestration.engine import Cadence
    from cadence.testing import ScriptedChatModel

    conn = sqlite3.connect(tmp_path / "x.db", check_same_thread=False)
    try:
        with pytest.raises(ConfigurationError, match="AsyncSqliteSaver"):
            Cadence(make_settings(), model=ScriptedChatModel.from_items([]), checkpointer=SqliteSaver(conn))
    finally:
        conn.close()


async def test_a_stream_closed_after_a_tool_leaves_a_valid_history(engine_factory) -> None:
    """The tool's result was in the state's view but not in its checkpoint: the closing update dropped
    it and the agent's call stayed unanswered in the thread."""
    import contextlib

    from langchain_core.messages import ToolMessage
    from tests.conftest import call, goto

    from cadence.orchestration.safety import unanswered_tool_calls

    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="15 * 23")], builtin_plugins=["math"]
    )
    stream = engine.astream("Calculate 15 * 23", thread_id="t")
    async with contextlib.aclosing(stream):
        async for event in stream:
            if event["type"] == "tool_end":
                break
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::t"}})
    messages = state.values["messages"]
    assert not unanswered_tool_calls(messages)
    assert [m.content for m in messages if isinstance(m, ToolMessage) and m.name == "calculate"] == ["345"]
    assert messages[-1].content.startswith("Sorry, I couldn't finish this answer")


PAUSE = [goto("math"), call("calculate", expression="2 + 2")]
FINISH = [FINALIZE, {"content": "2 + 2 is 4."}]


async def test_every_run_records_its_thread_as_the_server_does(engine_factory) -> None:
    """Threads of the library and ``cadence chat`` were missing from the API's list (no record)."""
    script = [*PAUSE, *FINISH, FINALIZE, {"content": "Again."}]
    engine, _ = engine_factory(script, builtin_plugins=["math"], approval_tools=["calculate"])
    assert (await engine.ainvoke("What is 2 + 2?", thread_id="t1", user_id="ann")).interrupted
    first = await engine.thread_store.get("t1")
    assert first is not None and (first.user_id, first.title, first.turns) == ("ann", "What is 2 + 2?", 1)
    await engine.aresume("approve", thread_id="t1", user_id="ann")
    assert (await engine.thread_store.get("t1")).turns == 1  # type: ignore[union-attr]  # the same turn
    assert (await engine.ainvoke("And again?", thread_id="t1", user_id="ann")).response == "Again."
    again = await engine.thread_store.get("t1")
    assert again is not None and again.turns == 2
    assert again.created_at == first.created_at and again.updated_at >= first.updated_at
    history = await engine.history(thread_id="t1", user_id="ann")
    paused_at = next(h for h in history if h["next"] == ["math_tools"])
    assert (await engine.afork(paused_at["checkpoint_id"], thread_id="t1", user_id="ann")).interrupted
    assert (await engine.thread_store.get("t1")).turns == 3  # type: ignore[union-attr]  # a fork is a turn
    assert [r.thread_id for r in await engine.thread_store.list("ann")] == ["t1"]


async def test_a_thread_id_another_user_recorded_keeps_its_owners_record(engine_factory) -> None:
    """The engine keeps users apart by key (each has a thread "t1"); the record, as the API, names one."""
    engine, _ = engine_factory([FINALIZE, {"content": "Hello!"}, FINALIZE, {"content": "Hi Bob."}])
    await engine.ainvoke("hi", thread_id="t1", user_id="ann")
    assert (await engine.ainvoke("mine now", thread_id="t1", user_id="bob")).response == "Hi Bob."
    record = await engine.thread_store.get("t1")
    assert record is not None and (record.user_id, record.turns, record.title) == ("ann", 1, "hi")
    assert await engine.thread_store.list("bob") == []
