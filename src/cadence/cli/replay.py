"""``cadence threads replay ID``: re-run a stored turn against the current configuration.

The stored thread is read from the checkpoints (``CADENCE_DATABASE_URL``) and never changed:
the turn's question is asked again in a scratch copy of the thread (kept in memory) holding
the conversation before it, with the turn's tone and mode (from the newest checkpoint that ends
with that turn), by an engine built from the
current settings (a new model, a changed prompt or Markdown agent, other plugins). The stored
answer and the new one are shown side by side (``--json``: one object with both).

Registered onto :data:`cadence.cli.threads.threads_app` when this module is imported (the
``cadence`` command imports it).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any

import typer
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
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
from cadence.cli.render import route_line
from cadence.cli.threads import threads_app
from cadence.conventions import FINAL_NODES, message_text
from cadence.errors import NotFoundError, ValidationError
from cadence.settings import Settings

FORWARDED_KEY = "cadence_forwarded"
"""``response_metadata`` key naming the agent whose answer a forwarded final answer is."""


@dataclass
class StoredTurn:
    """One turn of a stored thread: its question, the conversation before it, its answer."""

    index: int
    """1-based position of the turn in the thread."""
    question: str
    history: list[BaseMessage]
    answer: str
    tone: str | None = None
    mode: str | None = None
    agent: str | None = None


@dataclass
class ReplayResult:
    """A stored turn and its replay against the current configuration."""

    thread_id: str
    user_id: str
    turn: int
    turns: int
    question: str
    stored: dict[str, Any]
    replayed: dict[str, Any]
    model: str
    same: bool = field(default=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``--json``)."""
        return asdict(self)


def stored_turns(messages: list[BaseMessage]) -> list[tuple[int, int | None]]:
    """``(question index, final answer index or None)`` for each turn of a thread's messages."""
    starts = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    turns: list[tuple[int, int | None]] = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(messages)
        answer = next(
            (
                i
                for i in range(end - 1, start, -1)
                if isinstance(messages[i], AIMessage) and messages[i].name in FINAL_NODES
            ),
            None,
        )
        turns.append((start, answer))
    return turns


def pick_turn(values: dict[str, Any], turn: int | None, thread_id: str) -> StoredTurn:
    """The stored turn ``turn`` (1-based; negative counts from the end; None: the last)."""
    messages = list(values.get("messages") or [])
    turns = stored_turns(messages)
    if not turns:
        raise NotFoundError(f"Thread {thread_id!r} has no stored turn to replay.")
    number = len(turns) if turn is None else (turn if turn > 0 else len(turns) + turn + 1)
    if not 1 <= number <= len(turns):
        raise ValidationError(
            f"Thread {thread_id!r} has {len(turns)} turn(s); --turn must be 1 to {len(turns)} "
            "(or -1 for the last).",
            code="invalid_turn",
        )
    start, answer_at = turns[number - 1]
    answer = messages[answer_at] if answer_at is not None else None
    return StoredTurn(
        index=number,
        question=message_text(messages[start]),
        history=messages[:start],
        answer=message_text(answer) if answer is not None else "",
        tone=values.get("tone") if number == len(turns) else None,
        agent=(answer.response_metadata or {}).get(FORWARDED_KEY) if answer is not None else None,
    )


async def replay_turn(
    settings: Settings,
    thread_id: str,
    *,
    user_id: str | None = None,
    turn: int | None = None,
    mode: str | None = None,
    agent: str | None = None,
    tone: str | None = None,
    engine_kwargs: dict[str, Any] | None = None,
) -> ReplayResult:
    """Replay turn ``turn`` of a stored thread with the current ``settings`` (the thread is not changed).

    ``mode``, ``agent`` and ``tone`` default to the stored turn's (the mode is read from the
    checkpoint's metadata, the agent of a single-mode turn from its answer); an ``agent`` given
    without a ``mode`` implies the single mode.
    """
    from langgraph.checkpoint.memory import InMemorySaver

    from cadence.orchestration.engine import Cadence, answer_writer, thread_key

    user = (user_id or settings.default_user).strip() or settings.default_user
    kwargs = dict(engine_kwargs or {})
    async with Cadence.open(settings, **kwargs) as stored_engine:
        config = {"configurable": {"thread_id": thread_key(user, thread_id)}}
        snapshot = await stored_engine.graph.aget_state(config)
        if not snapshot.values or not snapshot.values.get("messages"):
            raise NotFoundError(
                f"No stored thread {thread_id!r} for user {user!r}; check the id and --user "
                "(and CADENCE_DATABASE_URL)."
            )
        stored = pick_turn(dict(snapshot.values), turn, thread_id)
        turns = len(stored_turns(list(snapshot.values.get("messages") or [])))
        # the turn's mode and tone: those of the newest checkpoint that ends with this turn
        async for past in stored_engine.graph.aget_state_history(config):
            if len(stored_turns(list((past.values or {}).get("messages") or []))) == stored.index:
                stored.mode = (past.metadata or {}).get("cadence_mode")
                stored.tone = stored.tone or (past.values or {}).get("tone")
                break

        # the replay runs in a scratch copy of the thread, in memory, with the current configuration
        replayer = await asyncio.to_thread(lambda: Cadence(settings, checkpointer=InMemorySaver(), **kwargs))
        # an agent named for the replay implies the single mode (as ``cadence chat --agent`` does)
        run_mode = mode or ("single" if agent else stored.mode) or None
        run_agent = agent if agent is not None else (stored.agent if run_mode == "single" else None)
        scratch = f"replay-{uuid.uuid4().hex[:12]}"
        if stored.history:
            graph = replayer.graph_for(run_mode)
            await graph.aupdate_state(
                {"configurable": {"thread_id": thread_key(user, scratch)}},
                {"messages": stored.history},
                as_node=answer_writer(graph),
            )
        result = await replayer.ainvoke(
            stored.question,
            thread_id=scratch,
            user_id=user,
            tone=tone or stored.tone,
            mode=run_mode,
            agent=run_agent,
        )
    return ReplayResult(
        thread_id=thread_id,
        user_id=user,
        turn=stored.index,
        turns=turns,
        question=stored.question,
        stored={"answer": stored.answer, "mode": stored.mode, "agent": stored.agent},
        replayed={"answer": result.response, "trace": result.trace, "error": result.error},
        model=settings.llm,
        same=result.response.strip() == stored.answer.strip(),
    )


def render(result: ReplayResult) -> None:
    """The two answers side by side, with the question and the replay's route."""
    console = out_console()
    console.print(Text(f"thread {result.thread_id} · turn {result.turn} of {result.turns}", style="dim"))
    console.print(Text("question: ", style="bold") + Text(result.question))
    table = Table(show_lines=True, expand=True, header_style="bold")
    table.add_column("stored answer", ratio=1, overflow="fold")
    table.add_column(f"replayed now ({result.model})", ratio=1, overflow="fold")
    # Text, not markup: an answer's "[overview.md]" citations are not style tags
    table.add_row(
        Text(result.stored["answer"] or "(no answer stored)"), Text(result.replayed["answer"] or "")
    )
    console.print(table)
    trace = result.replayed.get("trace") or {}
    console.print(Text(route_line(trace), style="dim"))
    console.print(Text("same answer" if result.same else "the answers differ", style="dim"))
    if result.replayed.get("error"):
        console.print(Text(f"replay error: {result.replayed['error'].get('message')}", style="red"))


@threads_app.command("replay")
@guarded
def replay(
    thread_id: Annotated[str, typer.Argument(help="The stored thread's id.")],
    turn: Annotated[
        int | None, typer.Option("--turn", help="Which turn: 1 is the first, -1 the last (default).")
    ] = None,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="The thread's user (default: CADENCE_DEFAULT_USER).")
    ] = None,
    mode: Annotated[
        str | None, typer.Option("--mode", "-m", help="Replay in this mode (default: the turn's own).")
    ] = None,
    agent: Annotated[
        str | None, typer.Option("--agent", "-a", help="Replay with this agent (the single mode).")
    ] = None,
    tone: Annotated[str | None, typer.Option("--tone", "-t", help="Replay in this tone.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print both answers as JSON.")] = False,
) -> None:
    """Re-run a stored turn against the current configuration and show both answers side by side."""
    settings = load_settings()
    check_thread_id(settings, thread_id)
    if user is not None:
        user = checked_user(settings, user)
    if missing := missing_database(settings):
        raise no_database(missing, thread_id)
    result = run_command(
        replay_turn(settings, thread_id, user_id=user, turn=turn, mode=mode, agent=agent, tone=tone)
    )
    if json_output:
        typer.echo(dump_json(result.to_dict()))
    else:
        render(result)
    if result.replayed.get("error"):
        raise fail(str(result.replayed["error"].get("message") or "the replay failed"))


__all__ = ["ReplayResult", "StoredTurn", "pick_turn", "replay", "replay_turn", "stored_turns"]
