"""Run every benchmark section and write ``docs/benchmarks.md`` + ``docs/benchmarks.png``.

Usage::

    python -m bench            # full run (about 15 minutes on 2 cores)
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
    workers: tuple[int, ...] = (1,)
    storage_turns_per_thread: int = 100
    scaling_rounds: int = 9
    """Rounds of the machine's own 1 → 2 process scaling (section 3's reference)."""
    scaling_turns: int = 300
    """Turns per process in each of those rounds."""


FULL = Plan(200, 20, 200, [10, 100, 1000], ["memory", "sqlite", "postgres"], 1000, 1000, (1, 2), 100)
QUICK = Plan(30, 5, 50, [10, 100], ["memory", "sqlite"], 100, 200, (1, 2), 10, 1, 100)
SECTIONS = "overhead,tokens,concurrency,storage,local,supervisor"


async def run_all(plan: Plan, sections: set[str]) -> dict[str, Any]:
    """Run the chosen sections; each one's failure is recorded, not raised."""
    from bench import concurrency, local_model, machine_scaling, overhead, storage
    from bench.conversations import ONE_AGENT

    results: dict[str, Any] = {"plan": plan.__dict__, "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    load = os.getloadavg()
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
        if "tokens" in sections:
            from bench.tokens import run_tokens

            print("[2] model calls and input tokens")
            results["tokens"] = await run_tokens(work)
        elif "overhead" in results:  # section 2 is also measured with section 1: keep the newest
            results["tokens"] = results["overhead"]["tokens"]
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
                    work, plan.levels, plan.server_backends, workers=list(plan.workers)
                )
                print("[3] the machine's own 1 -> 2 process scaling (in-process turns)")
                results["machine_scaling"] = await machine_scaling.run_machine_scaling(
                    plan.scaling_rounds, plan.scaling_turns
                )
                print(f"  two processes / one: {results['machine_scaling']['median_ratio']}x (median round)")
                print("[3] profiling the server under load")
                results["server_profile"] = await concurrency.profile_server(
                    work, plan.server_profile_n, "memory"
                )
                print("[3] garbage-collector probe")
                results["gc_probe"] = concurrency.run_gc_probe(plan.gc_probe_n)
            except Exception as exc:
                results["concurrency_error"] = f"{type(exc).__name__}: {exc}"
                print(f"  concurrency failed: {results['concurrency_error']}")
        if "supervisor" in sections:
            print("[6] supervisor mode against langgraph-supervisor")
            from bench import supervisor

            results["supervisor"] = await supervisor.run_supervisor(work, plan.turns, plan.warmup)
        if "storage" in sections:
            print("[3c] database size per 1,000 turns, without and with retention")
            try:
                results["storage"] = await storage.run_storage(work, plan.storage_turns_per_thread)
            except Exception as exc:
                results["storage"] = {"skipped": f"failed: {type(exc).__name__}: {exc}"}
    results["runtime_s"] = round(time.perf_counter() - t0, 1)
    results["conditions"] = (
        f"{os.cpu_count()} cores shared with other jobs; 1-minute load average {load[0]:.1f} when the run "
        f"started, {os.getloadavg()[0]:.1f} when it ended (a load above the core count means the benchmark "
        "competed for the CPU: absolute times are inflated and noisy, ratios measured side by side less so)."
    )
    return results


RUN_KEYS = {"plan", "started", "runtime_s", "mode", "carried_over", "commit", "conditions"}
"""Keys describing a run, not a section: never carried over."""


def _commit() -> str:
    """The checked-out commit (short), or '' outside a git checkout."""
    import subprocess

    try:
        cmd = ["git", "rev-parse", "--short", "HEAD"]
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def merge_previous(results: dict[str, Any], path: Path) -> dict[str, Any]:
    """Keep the sections this run did not measure from the previous results (marked with their date)."""
    if not path.exists():
        return results
    previous = json.loads(path.read_text(encoding="utf-8"))
    fresh = set(results)
    earlier = dict(previous.get("carried_over") or {})
    carried: dict[str, str] = {}
    for key, value in previous.items():
        if key in fresh or key in RUN_KEYS or f"{key}_error" in fresh:  # a failed section is not replaced
            continue
        if key.endswith("_error") and key.removesuffix("_error") in fresh:  # measured fine this time
            continue
        results[key] = value
        carried[key] = earlier.get(key, previous.get("started", "?"))
    if carried:
        results["carried_over"] = carried
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
        default=SECTIONS,
        help=f"Comma-separated, of {SECTIONS}; sections not run keep their previous results.",
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
        results["commit"] = os.environ.get("BENCH_COMMIT") or _commit()
        results = merge_previous(results, args.results)
        args.results.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
        print(f"raw results: {args.results}")
    write_report(results, args.doc)
    print(f"report: {args.doc} (runtime {results.get('runtime_s')} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
