"""``cadence``: chat with the engine, inspect plugins, the graph and the settings, or serve the API.

Every mistake a user can make (bad provider string, unreachable server, missing
key, unknown tone, malformed settings) ends with one ``error: …`` line on stderr
and a non-zero exit code, never a traceback. Answers go to stdout; the status
line, the route taken and logs go to stderr.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from cadence import __version__
from cadence.cli.common import (
    check_thread_id,
    checked_user,
    command_runner,
    dump_json,
    err_console,
    fail,
    failure_text,
    guarded,
    load_settings,
    out_console,
    print_error,
    run_command,
    stdin_lines,
)
from cadence.cli.logs import clip
from cadence.cli.memory import memory_app
from cadence.cli.scaffold import new_plugin
from cadence.cli.threads import threads_app
from cadence.errors import CadenceError, ConfigurationError
from cadence.orchestration.inputs import visible
from cadence.orchestration.tones import TONE_NAMES, ResponseTone
from cadence.settings import Settings

logger = logging.getLogger("cadence.cli")

F = TypeVar("F", bound=Callable[..., Any])

app = typer.Typer(
    name="cadence",
    help="Cadence: multi-agent conversations on LangGraph.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
plugins_app = typer.Typer(help="Inspect plugins.", no_args_is_help=True, pretty_exceptions_enable=False)
app.add_typer(plugins_app, name="plugins")
plugins_app.command("new")(guarded(new_plugin))
app.add_typer(threads_app, name="threads")
app.add_typer(memory_app, name="memory")
import cadence.cli.history  # noqa: E402  (registers 'cadence threads list|show|history|fork')
import cadence.cli.replay  # noqa: E402, F401  (registers 'cadence threads replay')

HELP_TEXT = (
    "commands: /exit (or exit, Ctrl-D) quit · /new new thread · /thread show thread id · /tone <name> · /help"
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"cadence {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Cadence: a coordinator routes your question to plugin agents; a synthesizer answers in your tone."""


# -- chat -----------------------------------------------------------------------------
def _with_mode(settings: Any, mode: str | None, agent: str | None = None) -> Any:
    """``settings`` with ``mode`` as the default mode (checked: a one-line error lists the modes).

    ``agent`` (``--agent``) selects the single mode's agent and implies ``--mode single``.
    """
    from cadence.orchestration.modes import check_mode

    try:
        name = check_mode(mode if mode is not None else ("single" if agent else settings.mode))
    except CadenceError as exc:
        raise fail(exc.message) from None
    if agent is None:
        return settings.model_copy(update={"mode": name})
    if name != "single":
        raise fail(f"--agent talks to one agent in the single mode; drop --mode {name} or --agent.")
    return settings.model_copy(update={"mode": name, "agent": agent})


async def _run_turn(
    engine: Any, message: str, *, thread: str | None, user: str | None, tone: str | None, json_output: bool
) -> dict[str, Any] | None:
    """Run one turn, render it (or print its JSON) and return its error (None when it succeeded).

    A turn that pauses for approval asks inline and continues (see :mod:`cadence.cli.approvals`).
    """
    from cadence.cli.approvals import run_turn

    return await run_turn(engine, message, thread=thread, user=user, tone=tone, json_output=json_output)


def _error_text(error: dict[str, Any]) -> str:
    return str(error.get("message") or error.get("code") or "the turn failed")


@app.command()
@guarded
def chat(
    question: Annotated[
        list[str] | None, typer.Argument(help="The question. Omit it to open an interactive session.")
    ] = None,
    tone: Annotated[
        str | None, typer.Option("--tone", "-t", help=f"Answer tone: {', '.join(TONE_NAMES)}.")
    ] = None,
    thread: Annotated[
        str | None, typer.Option("--thread", help="Thread id to continue (default: a new thread).")
    ] = None,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="User id (default: CADENCE_DEFAULT_USER).")
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per answer (response, thread_id, trace).")
    ] = False,
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode",
            "-m",
            help="Orchestration mode: coordinator, supervisor, planner or single (default CADENCE_MODE).",
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent", "-a", help="Talk to this one agent (plugin or Markdown agent): the single mode."
        ),
    ] = None,
) -> None:
    """Ask one question, or chat interactively in one thread."""
    settings = _with_mode(load_settings(), mode, agent)
    check_thread_id(settings, thread)  # the ids the HTTP API accepts: the thread must be reachable there
    if user is not None:
        user = checked_user(settings, user)
    tone = ResponseTone.parse(tone).value if tone is not None else None
    text = " ".join(question or [])
    if question and not visible(text):
        raise fail(
            "The question is empty (nothing visible in it); type a question or omit it for an interactive "
            "session."
        )
    if not question:
        _interactive(settings, tone=tone, thread=thread, user=user, json_output=json_output)
        return

    from cadence.orchestration.engine import Cadence

    async def once() -> dict[str, Any] | None:
        async with Cadence.open(settings) as engine:
            return await _run_turn(engine, text, thread=thread, user=user, tone=tone, json_output=json_output)

    error = run_command(once())
    if error:
        raise fail(_error_text(error))


BARE_EXIT_WORDS = frozenset({"exit", "quit"})
"""A line that is only one of these words ends an interactive chat, like ``/exit``."""


def _slash_command(
    text: str, err: Console, *, thread_id: str, tone: str | None
) -> tuple[str, str | None] | None:
    """Handle one ``/command`` of the prompt loop: the new ``(thread_id, tone)``, or None to exit."""
    command, _, arg = text.partition(" ")
    command = command.lower()
    if command in {"/exit", "/quit", "/q"}:
        return None
    if command == "/help":
        err.print(Text(HELP_TEXT, style="dim"))
    elif command == "/thread":
        err.print(Text(f"thread {thread_id}", style="dim"))
    elif command == "/new":
        thread_id = uuid.uuid4().hex
        err.print(Text(f"new thread {thread_id}", style="dim"))
    elif command == "/tone":
        try:
            tone = ResponseTone.parse(arg).value if arg.strip() else None
            err.print(Text(f"tone: {tone or 'natural'}", style="dim"))
        except CadenceError as exc:
            print_error(exc.message)
    else:
        print_error(f"Unknown command {command!r}; {HELP_TEXT}")
    return thread_id, tone


def _typing() -> bool:
    """Whether someone types the chat's lines (stdin is a terminal), not a pipe or a file."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):  # replaced or closed stdin
        return False


def _interactive(
    settings: Settings, *, tone: str | None, thread: str | None, user: str | None, json_output: bool
) -> None:
    """The prompt loop: every turn continues the same thread until /exit or Ctrl-D."""
    from cadence.orchestration.engine import Cadence

    out, err = out_console(), err_console()
    thread_id = thread or uuid.uuid4().hex
    with command_runner() as runner:
        stack = contextlib.AsyncExitStack()
        engine = runner.run(stack.enter_async_context(Cadence.open(settings)))
        try:
            if settings.mode == "single":  # no agent to talk to: say so once, not at every line
                from cadence.orchestration.modes.single import resolve_agent

                try:
                    resolve_agent(settings.agent, engine.plugin_manager.bundles)
                except CadenceError as exc:
                    raise fail(exc.message) from None
            if not json_output:
                err.print(Text(f"thread {thread_id} · {HELP_TEXT}", style="dim"))
            if thread is not None:  # a thread paused for approval is decided before the first prompt
                from cadence.cli.approvals import decide_pending

                try:
                    _, error = runner.run(
                        decide_pending(engine, thread=thread_id, user=user, json_output=json_output)
                    )
                except KeyboardInterrupt:
                    error = None
                if error:
                    print_error(_error_text(error))
            # the prompt only for someone typing: piped lines get the answers alone on stdout
            prompt = Text("you › ", style="bold cyan") if not json_output and _typing() else None
            while True:
                try:
                    if stdin_lines.pending:  # a reply Ctrl-C gave up on: the line typed next is this one
                        line = stdin_lines.read(prompt or "", out if prompt else None)
                        if line is None:
                            raise EOFError
                    else:
                        line = out.input(prompt) if prompt else input()
                except (EOFError, KeyboardInterrupt):
                    if prompt:
                        out.print()
                    break
                except UnicodeDecodeError as exc:  # a strict UTF-8 terminal read bytes that are not UTF-8
                    print_error(f"that line is not UTF-8 text ({exc.reason}); type it again as UTF-8")
                    continue
                text = line.strip()
                if not visible(text):  # blank, or only invisible characters (zero-width spaces, BOM)
                    continue
                # what people type to leave a prompt: never sent as a question
                if text.lower() in BARE_EXIT_WORDS:
                    break
                if text.startswith("/"):
                    state = _slash_command(text, err, thread_id=thread_id, tone=tone)
                    if state is None:
                        break
                    thread_id, tone = state
                    continue
                try:
                    error = runner.run(
                        _run_turn(
                            engine, text, thread=thread_id, user=user, tone=tone, json_output=json_output
                        )
                    )
                except KeyboardInterrupt:
                    typer.echo("interrupted; the thread is kept", err=True)
                    continue
                except (typer.Exit, typer.Abort):
                    raise
                except Exception as exc:  # one turn's failure, in one line: the session goes on
                    print_error(failure_text(exc))
                    continue
                if error:
                    print_error(_error_text(error))
        finally:
            runner.run(stack.aclose())


# -- plugins --------------------------------------------------------------------------
def _first_clause(text: str, limit: int = 70) -> str:
    head = text.split(": ", 1)[0] if ": " in text[:limit] else text
    return clip(head, limit)


_STATUS_STYLE = {"loaded": "green", "failed": "red", "overridden": "yellow", "disabled": "dim"}


@plugins_app.command("list")
@guarded
def plugins_list(
    json_output: Annotated[bool, typer.Option("--json", help="Print the statuses as JSON.")] = False,
) -> None:
    """List every plugin candidate with its status and, when it failed, why."""
    from cadence.orchestration.engine import load_plugins

    statuses = load_plugins(load_settings()).statuses  # as an engine would load them
    if json_output:
        typer.echo(dump_json({"plugins": [s.to_dict() for s in statuses]}))
        return
    if not statuses:
        out_console().print("No plugins found (CADENCE_BUILTIN_PLUGINS, CADENCE_PLUGINS_DIR, entry points).")
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("plugin", "status", "version", "source", "health", "details"):
        table.add_column(column, overflow="fold")
    for s in statuses:
        if s.reason:
            details = s.reason + (f" ({s.location})" if s.status == "failed" else "")
        else:
            details = _first_clause(s.description or "")
        table.add_row(
            s.name,
            Text(s.status, style=_STATUS_STYLE.get(s.status, "")),
            s.version or "",
            s.source,
            clip(s.health or "", 40),
            Text(details, style="red" if s.status == "failed" else ""),
        )
    out_console().print(table)


# -- graph ----------------------------------------------------------------------------
@app.command()
@guarded
def graph(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the diagram to this file.")
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option("--mode", "-m", help="The mode whose graph to print (default CADENCE_MODE)."),
    ] = None,
) -> None:
    """Print a mode's compiled graph as a Mermaid diagram (no model is contacted)."""
    from cadence.orchestration.engine import Cadence
    from cadence.testing import ScriptedChatModel

    settings = _with_mode(load_settings(), mode)
    # The graph's shape does not depend on the model: build it with an inert one.
    engine = Cadence(settings, model=ScriptedChatModel.from_items([]))
    diagram = engine.draw_mermaid()
    if output is not None:
        output.write_text(diagram, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)
        return
    typer.echo(diagram)


# -- config ---------------------------------------------------------------------------
@app.command()
@guarded
def config(
    json_output: Annotated[bool, typer.Option("--json", help="Print the settings as JSON.")] = False,
) -> None:
    """Show the effective settings (environment, .env and defaults) with secrets masked."""
    settings = load_settings()
    masked = settings.masked()
    if json_output:
        typer.echo(dump_json(masked))
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("setting", style="cyan", no_wrap=True)
    table.add_column("value", overflow="fold")
    for name, value in masked.items():
        shown = ", ".join(value) if isinstance(value, list) else ("" if value is None else str(value))
        table.add_row(f"CADENCE_{name.upper()}", Text(shown, style="dim" if value in (None, []) else ""))
    if not settings.database_url:
        table.add_row("database (effective)", settings.resolved_database_url)
    out_console().print(table)


# -- serve ----------------------------------------------------------------------------
@app.command()
@guarded
def serve(
    host: Annotated[str | None, typer.Option("--host", help="Bind address (default: CADENCE_HOST).")] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", "-p", min=0, max=65535, help="Port (default: CADENCE_PORT; 0: any free port)."
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            min=1,
            max=64,
            help="Worker processes sharing the database (default: CADENCE_WORKERS); see docs/deployment.md.",
        ),
    ] = None,
) -> None:
    """Serve the HTTP API (with --workers K: K processes on one port and one database)."""
    settings = load_settings()
    try:
        from cadence.server import run_server
    except ImportError as exc:
        raise ConfigurationError(
            f"The HTTP server is not available in this installation ({exc}). "
            'Reinstall with: pip install "cadence-agents"'
        ) from exc

    def ready(url: str) -> None:
        typer.echo(
            f"Cadence {__version__} serving on {url} (chat: {url}/, API docs: {url}/docs); "
            "press Ctrl-C to stop",
            err=True,
        )

    chosen_port = settings.port if port is None else port
    run_server(settings, host or settings.host, chosen_port, on_ready=ready, workers=workers)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    app(args=argv, prog_name="cadence")


if __name__ == "__main__":  # pragma: no cover
    main()
