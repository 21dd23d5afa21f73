"""Termination property: whatever the model does, every turn ends within the guards with a real answer.

Hypothesis generates scripts of model behaviour (routes to real and unknown agents,
good and bad tool calls, faulting tools, empty, text and tool-only replies, raised
errors, scripts that run out) and runs each as one turn (streamed or not) on a shared engine. Every
turn must end with a non-empty answer, stay within the hop guards, never leave a tool
call unanswered in the thread and never send a model an unanswered call.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import make_settings

from cadence.orchestration.engine import Cadence, thread_key
from cadence.orchestration.safety import unanswered_tool_calls
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool
from cadence.testing import ScriptedChatModel

MAX_AGENT_HOPS = 3
MAX_TOOL_HOPS = 4
MAX_CALLS_PER_REPLY = 3
RETRIES = 1
EXAMPLES = 1000


@tool
def exits(code: int = 0) -> str:
    """A tool that calls sys.exit."""
    raise SystemExit(code)


@tool
async def interrupts() -> str:
    """An async tool raising KeyboardInterrupt."""
    await asyncio.sleep(0)
    raise KeyboardInterrupt


@tool
def fails(text: str) -> str:
    """A tool raising an ordinary exception."""
    raise ValueError(f"cannot handle {text!r}")


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


class FlakyAgent(BaseAgent):
    """An agent whose tools fail in every way."""

    def get_tools(self) -> list[Any]:
        return [exits, interrupts, fails, echo]

    def get_system_prompt(self) -> str:
        return "You call flaky tools."


class FlakyPlugin(BasePlugin):
    """A plugin of faulting tools."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        return PluginMetadata(name="flaky", version="1.0.0", description="Tools that fail in every way.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        return FlakyAgent(cls.get_metadata())


def _call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "args": args or {}}


TOOL_CALLS = st.sampled_from(
    [
        _call("goto_math_agent"),
        _call("goto_flaky_agent"),
        _call("goto_nobody_agent"),  # unknown agent
        _call("goto_finalize"),
        _call("goto_"),  # malformed route
        _call("back"),
        _call("calculate", {"expression": "2+2"}),
        _call("calculate", {"expression": "1/0"}),
        _call("calculate", {"wrong": 1}),  # bad arguments
        _call("statistics", {"numbers": [1e308, 1e308]}),
        _call("no_such_tool", {"x": 1}),
        _call("exits", {"code": 3}),
        _call("interrupts"),
        _call("fails", {"text": "boom"}),
        _call("echo", {"text": "hello"}),
        _call("echo", {}),  # missing argument
    ]
)
TEXT = st.sampled_from(["", " ", "\n", "The answer is 4.", "Done."])
REPLY = st.one_of(
    st.builds(lambda text: {"content": text}, TEXT),  # text only, or empty
    st.builds(
        lambda calls, text: {"content": text, "tool_calls": calls},
        st.lists(TOOL_CALLS, min_size=1, max_size=MAX_CALLS_PER_REPLY),
        TEXT,
    ),  # tool calls, with or without text
    st.builds(
        lambda kind: {"raise": {"type": kind, "message": f"scripted {kind}"}},
        st.sampled_from(["error", "timeout", "rate_limit"]),
    ),
)
SCRIPTS = st.lists(REPLY, min_size=0, max_size=14)  # running out of items is a model failure too

_MODEL = ScriptedChatModel.from_items([])
_ENGINE: Cadence | None = None
_RUNNER = asyncio.Runner()
"""One event loop for all examples (an engine's cached clients stay on one loop)."""


def _engine() -> Cadence:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = Cadence(
            make_settings(
                builtin_plugins=["math"],
                max_agent_hops=MAX_AGENT_HOPS,
                max_tool_hops=MAX_TOOL_HOPS,
                coordinator_consecutive_agent_route_limit=2,
                model_max_retries=RETRIES,
                model_retry_base_delay=0.0,
                model_retry_max_delay=0.0,
            ),
            model=_MODEL,
            plugins=[FlakyPlugin],
        )
    return _ENGINE


async def _turn(engine: Cadence, thread: str, stream: bool) -> tuple[str, dict[str, Any], list[Any]]:
    """One turn (streamed with tokens, or not): its answer, trace and the thread's messages after it."""
    if stream:
        events = [event async for event in engine.astream("What is 2+2?", thread_id=thread)]
        assert [e["type"] for e in events].count("final") == 1 and events[-1]["type"] == "final"
        response, trace = events[-1]["response"], events[-1]["trace"]
    else:
        result = await engine.ainvoke("What is 2+2?", thread_id=thread)
        response, trace = result.response, result.trace
    key = thread_key(engine.settings.default_user, thread)
    state = await engine.graph.aget_state({"configurable": {"thread_id": key}})
    return response, trace, list(state.values["messages"])


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(script=SCRIPTS, stream=st.booleans())
def test_every_turn_ends_with_an_answer(script: list[dict[str, Any]], stream: bool) -> None:
    engine = _engine()
    _MODEL.reset(script)
    response, trace, messages = _RUNNER.run(_turn(engine, uuid.uuid4().hex, stream))

    assert response.strip(), f"empty answer for {script}"
    assert trace["agent_hops"] <= MAX_AGENT_HOPS
    assert trace["tool_hops"] < MAX_TOOL_HOPS + MAX_CALLS_PER_REPLY
    # coordinator visits ≤ hops + 1, agent steps ≤ hops, one final answer; each call may be retried once
    assert len(_MODEL.records) <= (2 * MAX_AGENT_HOPS + 2) * (RETRIES + 1)
    for record in _MODEL.records:
        assert unanswered_tool_calls(record.messages) == [], f"model got unanswered calls for {script}"
    assert unanswered_tool_calls(messages) == [], f"thread left with unanswered calls for {script}"
    assert messages[-1].type == "ai" and messages[-1].name in {"synthesizer", "suspend"}


def teardown_module() -> None:
    """Close the event loop shared by the examples."""
    _RUNNER.close()
