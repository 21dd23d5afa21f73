"""Run every benchmark section and write ``docs/benchmarks.md`` + ``docs/benchmarks.png``.

Usage::

    python -m bench            # full run (about 5 minutes on 2 cores)
    python -m bench --quick    # short run for iteration
    python -m bench --report-only   # re-render the doc from bench/results.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results.json"


@dataclass(frozen=True)
class Plan:
    """How much of each section to run."""

    turns: int
    warmup: int
    profile_turns: int
    levels: list[int]
    server_backends: list[str]
    server_profile_n: int
    gc_probe_n: int


FULL = Plan(200, 20, 200, [10, 100, 1000], ["memory", "sqlite"], 1000, 1000)
QUICK = Plan(30, 5, 50, [10, 100], ["memory"], 100, 200)


async def run_all(plan: Plan, sections: set[str]) -> dict[str, Any]:
    """Run the chosen sections; each one's failure is recorded, not raised."""
    from bench import concurrency, local_model, overhead
    from bench.conversations import ONE_AGENT

    results: dict[str, Any] = {"plan": plan.__dict__, "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cadence-bench-") as tmp:
        work = Path(tmp)
        if "overhead" in sections:
            print("[1-2] overhead per turn, model calls and tokens")
            results["overhead"] = await overhead.run_overhead(work, plan.turns, plan.warmup)
            print("[1] profiling the one-agent turn (pyinstrument)")
            results["profile"] = {
                backend: await overhead.profile_cadence(work, ONE_AGENT, backend, plan.profile_turns)
                for backend in ("memory", "sqlite")
            }
        if "local" in sections:
            print("[4] embedded local model")
            try:
                results["local"] = await local_model.run_local(work)
            except Exception as exc:
                results["local"] = {"skipped": f"failed: {type(exc).__name__}: {exc}"}
        if "concurrency" in sections:
            print("[3] concurrency through the HTTP server")
            try:
                results["concurrency"] = await concurrency.run_concurrency(
                    work, plan.levels, plan.server_backends
                )
                print("[3] profiling the server under load")
                results["server_profile"] = await concurrency.profile_server(
                    work, plan.server_profile_n, "memory"
                )
                print("[3] garbage-collector probe")
                results["gc_probe"] = concurrency.run_gc_probe(plan.gc_probe_n)
            except Exception as exc:
                results["concurrency_error"] = f"{type(exc).__name__}: {exc}"
                print(f"  concurrency failed: {results['concurrency_error']}")
    results["runtime_s"] = round(time.perf_counter() - t0, 1)
    return results


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Fewer turns, N up to 100, memory server only.")
    parser.add_argument(
        "--report-only", action="store_true", help="Only re-render the doc from results.json."
    )
    parser.add_argument(
        "--sections",
        default="overhead,concurrency,local",
        help="Comma-separated: overhead,concurrency,local.",
    )
    parser.add_argument("--results", type=Path, default=RESULTS, help="Where to write/read the raw results.")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "benchmarks.md")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    for key in [k for k in os.environ if k.startswith("CADENCE_")]:
        del os.environ[key]  # the benchmark's settings are explicit
    from bench.report import write_report
    from bench.server_app import raise_fd_limit

    raise_fd_limit()
    if args.report_only:
        results = json.loads(args.results.read_text(encoding="utf-8"))
    else:
        plan = QUICK if args.quick else FULL
        results = asyncio.run(run_all(plan, set(args.sections.split(","))))
        results["mode"] = "quick" if args.quick else "full"
        args.results.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
        print(f"raw results: {args.results}")
    write_report(results, args.doc)
    print(f"report: {args.doc} (runtime {results.get('runtime_s')} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
