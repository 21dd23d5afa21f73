"""In-process probe: N concurrent Cadence turns (100 ms model) under different GC settings.

``python -m bench.gc_probe <n> <default|tuned|off>`` prints one JSON line. Each mode runs
in its own process so that one mode's heap does not affect the next.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MODES = ("default", "tuned", "off")
"""``tuned`` = ``gc.freeze()`` after start-up + ``gc.set_threshold(50_000, 50, 100)``."""


async def probe(n: int, mode: str) -> dict[str, Any]:
    """Run ``n`` concurrent one-agent turns and report wall, CPU and time spent in GC."""
    from bench.frameworks import bench_settings
    from bench.policy_model import ANSWER, PolicyChatModel
    from cadence.orchestration.engine import Cadence

    with tempfile.TemporaryDirectory() as d:
        engine = Cadence(bench_settings(Path(d)), model=PolicyChatModel(delay_s=0.1))
        await engine.ainvoke("Calculate 15 * 23")
        if mode == "off":
            gc.disable()
        elif mode == "tuned":
            gc.freeze()
            gc.set_threshold(50_000, 50, 100)
        gc_time = [0.0, 0.0]

        def on_gc(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                gc_time[1] = time.perf_counter()
            else:
                gc_time[0] += time.perf_counter() - gc_time[1]

        gc.callbacks.append(on_gc)
        full_before = gc.get_stats()[2]["collections"]
        wall0, cpu0 = time.perf_counter(), time.process_time()
        results = await asyncio.gather(*(engine.ainvoke("Calculate 15 * 23") for _ in range(n)))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        gc.callbacks.remove(on_gc)
    return {
        "n": n,
        "mode": mode,
        "ok": sum(r.response == ANSWER for r in results),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "gc_s": round(gc_time[0], 2),
        "full_collections": gc.get_stats()[2]["collections"] - full_before,
        "cpu_ms_per_turn": round(cpu / n * 1000, 2),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(probe(int(sys.argv[1]), sys.argv[2]))))
