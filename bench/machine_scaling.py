"""The machine's own 1 → 2 process scaling: the reference the workers' ratio is read against.

Section 3 compares one server worker with two on the same cores. What two processes of this
workload gain on this machine with nothing else of ours running is measured here, in the same
run: the one-agent tool turn runs in-process (scripted model with no delay, in-memory
checkpointer; no HTTP, no database, no load client) in one process, then in two processes at
once, each running the same number of turns. Throughput with two divided by throughput with one
is what a second process adds when it competes with nothing of ours: only with the caches, the
memory bandwidth and the host's other tenants. Rounds alternate the order of one and two
processes (drift falls on both); the median round is kept, and the range of the rounds says how
much the machine itself moves the ratio.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.stats import median

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class ScalingRound:
    """One round: the same turns per process, in one process and then in two at once."""

    one_rps: float
    """Turns per second of one process alone."""
    two_rps: float
    """Turns per second of two processes together (all their turns, first start to last end)."""

    @property
    def ratio(self) -> float:
        """Throughput with two processes divided by throughput with one."""
        return self.two_rps / self.one_rps


async def _child(turns: int, warmup: int) -> None:
    """Child process: warm up, say ``ready``, wait for a line on stdin, run the turns, print the span."""
    from bench.conversations import ONE_AGENT, cadence_script, peer_script
    from bench.frameworks import open_subjects

    with tempfile.TemporaryDirectory(prefix="cadence-scaling-") as tmp:
        script = (cadence_script(ONE_AGENT), peer_script(ONE_AGENT))
        async with open_subjects("memory", *script, Path(tmp)) as (cadence, _peer):
            for i in range(warmup):
                await cadence.turn(ONE_AGENT.message, f"warm-{i}")
                cadence.model.records.clear()
            print("ready", flush=True)
            sys.stdin.readline()
            start = time.monotonic()  # system-wide clock: comparable across processes
            for i in range(turns):
                await cadence.turn(ONE_AGENT.message, f"t-{i}")
                cadence.model.records.clear()
            print(json.dumps([start, time.monotonic()]), flush=True)


def _run(k: int, turns: int, warmup: int) -> float:
    """Turns per second of ``k`` processes running ``turns`` turns each at once."""
    cmd = [sys.executable, "-m", "bench.machine_scaling", str(turns), str(warmup)]
    procs = [
        subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(k)
    ]
    try:
        for p in procs:
            if p.stdout is None or p.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a scaling process did not start (exit code {p.poll()})")
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        spans = [json.loads(p.communicate(timeout=600)[0]) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    wall = max(end for _, end in spans) - min(start for start, _ in spans)
    return k * turns / wall


def measure(rounds: int = 9, turns: int = 300, warmup: int = 30) -> list[ScalingRound]:
    """``rounds`` rounds of one process, then two, each process running ``turns`` turns."""
    out = []
    for i in range(rounds):
        if i % 2:  # every other round the other order: a drift over the rounds falls on both alike
            two = _run(2, turns, warmup)
            one = _run(1, turns, warmup)
        else:
            one = _run(1, turns, warmup)
            two = _run(2, turns, warmup)
        out.append(ScalingRound(one_rps=round(one, 1), two_rps=round(two, 1)))
    return out


async def run_machine_scaling(rounds: int = 9, turns: int = 300) -> dict[str, Any]:
    """The rounds (off the event loop) and their median ratio, as section 3 stores them."""
    measured = await asyncio.to_thread(measure, rounds, turns)
    ratios = [r.ratio for r in measured]
    return {
        "rounds": [{**asdict(r), "ratio": round(r.ratio, 2)} for r in measured],
        "median_ratio": round(median(ratios), 2),
        "turns_per_process": turns,
    }


if __name__ == "__main__":
    asyncio.run(_child(int(sys.argv[1]), int(sys.argv[2])))
