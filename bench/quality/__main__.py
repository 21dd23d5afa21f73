"""``python -m bench.quality``: run the evaluation set on the embedded model and report.

Usage::

    python -m bench.quality                 # every item, tones on 20 items (about 5 minutes on 2 cores)
    python -m bench.quality --limit 10      # the first 10 items only (iteration)
    python -m bench.quality --only sym-01,fu-01 --verbose
    python -m bench.quality --memory off    # without long-term memory (default: on, as CADENCE_MEMORY)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import platform
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.quality import HERE, Item, Outcome, check, load_items, summarize

ROOT = HERE.parent.parent
RESULTS = HERE / "results.json"
DOC = ROOT / "docs" / "benchmarks.md"
START, END = "<!-- quality:start -->", "<!-- quality:end -->"
TONES = ("natural", "concise", "explanatory", "formal", "learning")


def _engine(workdir: Path, memory: bool = True) -> Any:
    """The evaluated engine: the embedded model, the built-in plugins, long-term memory on or off.

    Every item runs as the same user (in its own thread), so with memory on what earlier items
    taught is recalled in later ones, as for a real user.
    """
    from cadence import Cadence
    from cadence.settings import Settings

    settings = Settings(
        llm="local",
        data_dir=workdir,
        database_url="memory://",
        entry_points_enabled=False,
        builtin_plugins=["math", "info", "docs", "geo", "text"],  # the default set
        log_level="ERROR",
        memory=memory,
    )
    return Cadence(settings)


async def run_item(engine: Any, item: Item, tone: str | None = None) -> Outcome:
    """All turns of ``item`` on a fresh thread; the last answer is checked."""
    thread: str | None = None
    seconds: list[float] = []
    result = None
    for message in item.turns:
        start = time.perf_counter()
        result = await engine.ainvoke(message, thread_id=thread, tone=tone)
        seconds.append(time.perf_counter() - start)
        thread = result.thread_id
    assert result is not None
    tools = [t.get("name") for t in result.trace.get("tools_used") or []]
    reason = check(item, result.response, tools)
    return Outcome(
        item=item,
        answer=result.response,
        passed=not reason,
        reason=reason,
        seconds=seconds,
        tools=tools,
        notes=list(result.trace.get("notes") or []),
    )


def spread(items: Sequence[Item], n: int) -> list[Item]:
    """``n`` items taken in turn from each category (so every kind of question is answered in each tone)."""
    by_category: dict[str, list[Item]] = {}
    for item in items:
        by_category.setdefault(item.category, []).append(item)
    queues = list(by_category.values())
    out: list[Item] = []
    while len(out) < n and any(queues):
        for queue in queues:
            if queue and len(out) < n:
                out.append(queue.pop(0))
    return out


def _words(text: str) -> int:
    return len(text.split())


async def run(items: Sequence[Item], tone_items: int, verbose: bool, memory: bool = True) -> dict[str, Any]:
    """Evaluate ``items`` (default tone), then every tone on ``tone_items`` tool items of every category."""
    with tempfile.TemporaryDirectory(prefix="cadence-quality-") as tmp:
        engine = _engine(Path(tmp), memory)
        model = engine._models("coordinator", None)
        started = time.perf_counter()
        if callable(getattr(model, "aload", None)):
            await model.aload()
        load_s = time.perf_counter() - started
        outcomes: list[Outcome] = []
        for item in items:
            outcome = await run_item(engine, item)
            outcomes.append(outcome)
            mark = "ok  " if outcome.passed else "FAIL"
            print(f"{mark} {item.id:8} {sum(outcome.seconds):5.2f}s  {outcome.answer[:110]!r}", flush=True)
            if verbose or not outcome.passed:
                detail = f"       tools={outcome.tools} notes={outcome.notes} {outcome.reason}"
                print(detail, flush=True)
        tone_rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TONES}
        subset = spread([i for i in items if i.category != "no_tool"], tone_items)
        for tone in TONES if tone_items else ():
            for item in subset:
                outcome = await run_item(engine, item, tone=tone)
                tone_rows[tone].append({"id": item.id, "answer": outcome.answer, "passed": outcome.passed})
            print(f"tone {tone}: done", flush=True)
        engine.close()
    summary = summarize(outcomes)
    summary["load_s"] = load_s
    summary["memory"] = memory
    summary["tones"] = _tone_summary(tone_rows)
    return {
        "summary": summary,
        "rows": [
            {
                "id": o.item.id,
                "category": o.item.category,
                "turns": list(o.item.turns),
                "answer": o.answer,
                "passed": o.passed,
                "reason": o.reason,
                "seconds": [round(s, 3) for s in o.seconds],
                "tools": o.tools,
                "notes": o.notes,
            }
            for o in outcomes
        ],
        "tone_rows": tone_rows,
    }


def _tone_summary(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    natural = {r["id"]: r["answer"] for r in rows.get("natural", [])}
    out: dict[str, Any] = {}
    for tone, items in rows.items():
        if not items:
            continue
        words = [_words(r["answer"]) for r in items]
        differ = sum(1 for r in items if r["answer"].strip() != natural.get(r["id"], "").strip())
        out[tone] = {
            "mean_words": sum(words) / len(words),
            "accuracy": sum(r["passed"] for r in items) / len(items),
            "differs_from_natural": differ / len(items),
            "items": len(items),
        }
    return out


def render(results: dict[str, Any]) -> str:
    """The Markdown section written between the quality markers."""
    s = results["summary"]
    lines = [
        START,
        "## 5. Answer quality of the embedded default model",
        "",
        f"`python -m bench.quality` on {results.get('machine', 'this machine')}, "
        f"{results.get('date', '')}: {s['items']} questions of `bench/quality/questions.json` "
        "(rules in `bench/quality/__init__.py`), embedded SmolLM2-135M, built-in plugins, "
        "one thread per item, all of one user"
        + (", long-term memory on" if s.get("memory", True) else ", long-term memory off")
        + f". Model load {s['load_s']:.2f} s.",
        "",
        "| Category | Items | Accuracy |",
        "| --- | ---: | ---: |",
    ]
    for name, row in s["categories"].items():
        lines.append(f"| {name} | {row['items']} | {row['accuracy']:.0%} |")
    lines += [
        f"| **overall** | {s['items']} | **{s['overall']:.0%}** |",
        "",
        f"Seconds per turn ({s['turns']} turns): median **{s['median_s']:.2f} s**, p95 {s['p95_s']:.2f} s.",
        "",
    ]
    if s.get("tones"):
        lines += [
            "Tones, on the same tool questions answered in each tone:",
            "",
            "| Tone | Items | Mean words | Accuracy | Differs from natural |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for tone, row in s["tones"].items():
            lines.append(
                f"| {tone} | {row['items']} | {row['mean_words']:.1f} | {row['accuracy']:.0%} "
                f"| {row['differs_from_natural']:.0%} |"
            )
        lines.append("")
    failed = [r for r in results["rows"] if not r["passed"]]
    if failed:
        lines += ["Failures:", ""]
        for r in failed:
            lines.append(f"- `{r['id']}` {r['turns'][-1]!r}: {r['reason']} — answer {r['answer'][:120]!r}")
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def write_doc(results: dict[str, Any], doc: Path = DOC) -> None:
    """Replace (or append) the quality section of ``doc``."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    section = render(results)
    if START in text and END in text:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        text = head + section + tail
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    doc.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality", description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="Only the first N items.")
    parser.add_argument("--only", default="", help="Comma-separated item ids.")
    parser.add_argument("--tone-items", type=int, default=20, help="Items answered in every tone (0: skip).")
    parser.add_argument("--verbose", action="store_true", help="Print tools and notes of every item.")
    parser.add_argument(
        "--no-write", action="store_true", help="Print only; leave the doc and results alone."
    )
    parser.add_argument("--report-only", action="store_true", help="Re-render the doc from results.json.")
    parser.add_argument(
        "--memory",
        choices=("on", "off"),
        default="on",
        help="Long-term memory (CADENCE_MEMORY, default on): every item is a thread of the same user.",
    )
    args = parser.parse_args(argv)
    for key in [k for k in os.environ if k.startswith("CADENCE_")]:
        del os.environ[key]  # the evaluation's settings are explicit
    logging.basicConfig(level=logging.ERROR)
    if args.report_only:
        write_doc(json.loads(RESULTS.read_text(encoding="utf-8")))
        return 0
    items = load_items()
    if args.only:
        wanted = set(args.only.split(","))
        items = [i for i in items if i.id in wanted]
    if args.limit:
        items = items[: args.limit]
    results = asyncio.run(run(items, args.tone_items, args.verbose, memory=args.memory == "on"))
    results["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    results["date"] = time.strftime("%Y-%m-%d")
    print(render(results))
    if not args.no_write:
        RESULTS.write_text(json.dumps(results, indent=1), encoding="utf-8")
        write_doc(results)
        print(f"written: {RESULTS.relative_to(ROOT)}, {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
