"""``cadence threads list|show|history|fork``: look at stored conversations and travel in time.

- ``list``: the user's threads (from the API's thread records and the checkpoints, so threads
  started with ``cadence chat`` are there too), newest first, paused ones marked;
- ``show``: a thread's conversation (``--internal`` adds routing, agent steps, tool calls and
  results) and what it waits for;
- ``history``: its checkpoints (id, step, the node that wrote it, what runs next, the messages
  it added) — the ids ``fork`` takes;
- ``fork``: run the thread again from a checkpoint, forcing a route (``--route``) or replacing
  tool results (``--tool-result CALL_ID=TEXT``); a branch that pauses asks inline.

The commands register onto :data:`cadence.cli.threads.threads_app`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from cadence.cli.common import (
    check_thread_id,
    checked_user,
    dump_json,
    fail,
    guarded,
    load_settings,
    missing_database,
    no_database,
    out_console,
    run_command,
)
from cadence.cli.logs import clip
from cadence.cli.threads import threads_app
from cadence.settings import Settings

UserOption = Annotated[
    str | None, typer.Option("--user", "-u", help="User id (default: CADENCE_DEFAULT_USER).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@contextlib.asynccontextmanager
async def _engine(settings: Settings, *, inert: bool = True) -> AsyncIterator[Any]:
    """The engine over the configured database; ``inert``: with a model that is never called."""
    from cadence.orchestration.engine import Cadence

    if inert:
        from cadence.testing import ScriptedChatModel

        async with Cadence.open(settings, model=ScriptedChatModel.from_items([])) as engine:
            yield engine
    else:
        async with Cadence.open(settings) as engine:
            yield engine


def _user(settings: Settings, user: str | None, thread: str | None = None) -> str:
    """The user (checked), after checking ``thread``: ids the HTTP API refuses are usage errors."""
    check_thread_id(settings, thread)
    return checked_user(settings, user)


async def _list_threads(settings: Settings, user: str, limit: int) -> list[dict[str, Any]]:
    async with _engine(settings) as engine:
        return list(await engine.threads(user_id=user, limit=limit))


@threads_app.command("list")
@guarded
def threads_list(
    user: UserOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=500, help="At most this many.")] = 50,
    json_output: JsonOption = False,
) -> None:
    """List your threads, most recent first (paused ones wait for an approval)."""
    settings = load_settings()
    who = _user(settings, user)
    missing = missing_database(settings)
    rows = [] if missing else run_command(_list_threads(settings, who, limit))
    if json_output:
        typer.echo(dump_json({"threads": rows}))
        return
    if not rows:
        where = f" (no database at {missing})" if missing else ""
        out_console().print(f"No threads yet{where}; start one with: cadence chat", soft_wrap=True)
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("thread", no_wrap=True)  # whole: it is what --thread and show take
    for column in ("updated", "messages", "title"):
        table.add_column(column, overflow="fold")
    for row in rows:
        title = Text(clip(str(row["title"]), 70))
        if row.get("paused"):
            title = Text("⏸ ", style="yellow") + title
        table.add_row(row["thread_id"], _when(row["updated_at"]), str(row.get("messages", "")), title)
    out_console().print(table)


def _when(value: Any) -> str:
    try:
        return datetime.fromisoformat(str(value)).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return str(value)


@threads_app.command("show")
@guarded
def threads_show(
    thread: Annotated[str, typer.Argument(help="The thread id.")],
    user: UserOption = None,
    internal: Annotated[
        bool, typer.Option("--internal", help="Also show routing, agent steps, tool calls and results.")
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Show a thread's conversation and the approvals it waits for."""
    from cadence.conventions import FINAL_NODES
    from cadence.orchestration.approval import pending_approvals
    from cadence.orchestration.engine import thread_key
    from cadence.orchestration.inspection import message_record

    settings = load_settings()
    who = _user(settings, user, thread)
    if missing := missing_database(settings):
        raise no_database(missing, thread)

    async def read() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with _engine(settings) as engine:
            snapshot = await engine.graph.aget_state({"configurable": {"thread_id": thread_key(who, thread)}})
            messages = list((snapshot.values or {}).get("messages") or [])
            if not messages:
                raise fail(f"No thread {thread!r} for user {who!r}; list them with: cadence threads list")
            records = []
            for msg in messages:
                record = message_record(msg)
                shown = msg.type == "human" or (
                    msg.type == "ai" and msg.name in FINAL_NODES and not getattr(msg, "tool_calls", None)
                )
                if internal or shown:
                    records.append(record)
            return records, list(pending_approvals(snapshot, thread))

    records, pending = run_command(read())
    if json_output:
        typer.echo(dump_json({"thread_id": thread, "messages": records, "approvals": pending}))
        return
    out = out_console()
    for record in records:
        who_said = record["role"] if not record.get("name") else f"{record['role']} ({record['name']})"
        style = "bold cyan" if record["role"] == "user" else ("dim" if record["role"] == "tool" else "bold")
        out.print(Text(f"{who_said}:", style=style))
        if record["content"].strip():
            out.print(record["content"], markup=False, highlight=False, soft_wrap=True)
        for call in record.get("tool_calls") or []:
            out.print(Text(f"  → {call['name']}({dump_json(call['args'])}) [id {call['id']}]", style="dim"))
    for approval in pending:
        from cadence.cli.approvals import describe

        out.print(
            Text(f"⏸ waits for approval: {describe(dict(approval))} [id {approval['id']}]", style="yellow")
        )
    if pending:
        out.print(Text(f"decide it with: cadence chat --thread {thread}", style="dim"))


@threads_app.command("history")
@guarded
def threads_history(
    thread: Annotated[str, typer.Argument(help="The thread id.")],
    user: UserOption = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many.")] = None,
    json_output: JsonOption = False,
) -> None:
    """List a thread's checkpoints, newest first: the ids 'cadence threads fork' starts from.

    With CADENCE_CHECKPOINT_DURABILITY=exit (the default) a thread keeps one checkpoint per turn
    and per pause; async or sync keep one per step.
    """
    settings = load_settings()
    who = _user(settings, user, thread)
    if missing := missing_database(settings):
        raise no_database(missing, thread)

    async def read() -> list[dict[str, Any]]:
        async with _engine(settings) as engine:
            return await engine.history(thread_id=thread, user_id=who, limit=limit)

    entries = run_command(read())
    if json_output:
        typer.echo(dump_json({"thread_id": thread, "checkpoints": entries}))
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("checkpoint", no_wrap=True, min_width=36)  # whole: it is what fork takes
    for column in ("step", "node", "next", "added"):
        table.add_column(column, overflow="fold")
    for entry in entries:
        table.add_row(
            str(entry["checkpoint_id"]),
            str(entry["step"]),
            str(entry["node"] or ""),
            ", ".join(entry["next"]) or "(end)",
            Text(_summary(entry)),
        )
    out_console().print(table)


def _summary(entry: dict[str, Any]) -> str:
    parts = []
    for msg in entry["messages"]:
        if msg.get("tool_calls"):
            parts += [f"{c['name']}({clip(dump_json(c['args']), 40)}) [{c['id']}]" for c in msg["tool_calls"]]
        elif msg["role"] == "tool":
            parts.append(f"{msg['name']} → {clip(msg['content'].replace(chr(10), ' '), 40)}")
        elif msg["content"].strip():
            parts.append(f"{msg['role']}: {clip(msg['content'].replace(chr(10), ' '), 50)}")
    if entry.get("approvals"):
        parts.append("⏸ approval asked")
    return " · ".join(parts)


@threads_app.command("fork")
@guarded
def threads_fork(
    thread: Annotated[str, typer.Argument(help="The thread id.")],
    checkpoint: Annotated[
        str, typer.Argument(help="The checkpoint to start from (cadence threads history).")
    ],
    route: Annotated[
        str | None, typer.Option("--route", help="Force the next decision: an agent's name or 'finalize'.")
    ] = None,
    tool_result: Annotated[
        list[str] | None,
        typer.Option("--tool-result", help="Replace a tool result: CALL_ID=TEXT (repeatable)."),
    ] = None,
    user: UserOption = None,
    json_output: JsonOption = False,
) -> None:
    """Run a thread again from a checkpoint (time travel) and print the branch's answer."""
    from cadence.cli.approvals import run_with_approvals

    results: dict[str, str] = {}
    for item in tool_result or []:
        call_id, sep, text = item.partition("=")
        if not sep or not call_id.strip():
            raise fail(f"--tool-result {item!r}: write CALL_ID=TEXT (the call ids are in the history).")
        results[call_id.strip()] = text
    settings = load_settings()
    who = _user(settings, user, thread)
    if missing := missing_database(settings):
        raise no_database(missing, thread)

    async def run() -> dict[str, Any] | None:
        async with _engine(settings, inert=False) as engine:

            def start() -> AsyncIterator[dict[str, Any]]:
                return engine.fork_stream(
                    checkpoint,
                    thread_id=thread,
                    user_id=who,
                    route=route,
                    tool_results=results or None,
                    tokens=not json_output,
                )

            return await run_with_approvals(engine, start, user=who, json_output=json_output)

    error = run_command(run())
    if error:
        raise fail(str(error.get("message") or error.get("code")))


__all__ = ["threads_fork", "threads_history", "threads_list", "threads_show"]
