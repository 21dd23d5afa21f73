"""``cadence memory``: the long-term memory of a user (list, forget, consolidate).

Works on the configured store directly (``CADENCE_DATABASE_URL``: the SQLite file beside the
checkpoints, or PostgreSQL); no model is started. ``--user`` defaults to
``CADENCE_DEFAULT_USER``; ``--project`` is optional (without it: all of the user's memories).
With ``CADENCE_MEMORY=off`` the commands still work on what was kept before (nothing new is
kept then, but a user can always see and delete what is stored about them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.table import Table
from rich.text import Text

from cadence.cli.common import (
    checked_user,
    dump_json,
    err_console,
    fail,
    guarded,
    load_settings,
    out_console,
    run_command,
)
from cadence.cli.logs import clip
from cadence.settings import Settings

T = TypeVar("T")

memory_app = typer.Typer(
    help="Long-term memory: list, forget, consolidate.", no_args_is_help=True, pretty_exceptions_enable=False
)
"""The ``cadence memory`` command group."""

UserOption = Annotated[
    str | None, typer.Option("--user", "-u", help="User id (default: CADENCE_DEFAULT_USER).")
]
ProjectOption = Annotated[
    str | None, typer.Option("--project", "-p", help="Only this project's memories (default: all).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _with_memory(settings: Settings, action: Callable[[Any], Awaitable[T]]) -> T:
    """Open the memory store of ``settings`` and run ``action(service)`` (memory off: the store of
    what was kept before, never created for it)."""
    from cadence.memory import MemoryService, open_kept_memory_store, open_memory_store

    opener = open_memory_store if settings.memory else open_kept_memory_store

    async def run() -> T:
        async with opener(settings) as store:
            return await action(MemoryService(store, settings))

    return run_command(run())


def _user(settings: Settings, user: str | None) -> str:
    return checked_user(settings, user)


def _project(project: str | None) -> str | None:
    """``--project`` checked: an empty one is an error, not "every project" (``forget --all --project ""``
    forgot all of the user's memories)."""
    if project is not None and not project.strip():
        raise fail("--project is empty; omit it to mean every project, or name the project.")
    return project


@memory_app.command("list")
@guarded
def memory_list(
    user: UserOption = None,
    project: ProjectOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many.")] = 50,
    json_output: JsonOption = False,
) -> None:
    """List a user's memories, most recently updated first."""
    settings = load_settings()
    who, project = _user(settings, user), _project(project)
    items = _with_memory(settings, lambda m: m.list(who, project_id=project, limit=limit))
    if json_output:
        body = {"user_id": who, "enabled": settings.memory, "memories": [i.to_dict() for i in items]}
        typer.echo(dump_json(body))
        return
    if not settings.memory:
        err_console().print("Long-term memory is off (CADENCE_MEMORY=off): nothing new is kept.")
    if not items:
        out_console().print(
            f"No memories for user {who!r}" + (f" in project {project!r}." if project else ".")
        )
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("id", no_wrap=True)  # whole: it is what forget takes
    table.add_column("kind", overflow="fold")
    table.add_column("memory", overflow="fold", min_width=24)
    for column in ("project", "thread", "updated"):
        table.add_column(column, overflow="fold")
    for i in items:
        table.add_row(
            i.id,
            i.kind,
            clip(i.text, 80),
            i.project_id or "",
            Text(i.source_thread or "", style="dim"),
            i.updated_at.strftime("%Y-%m-%d %H:%M"),
        )
    out_console().print(table)


@memory_app.command("forget")
@guarded
def memory_forget(
    memory_id: Annotated[
        str | None, typer.Argument(help="The memory to forget (see 'cadence memory list').")
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Forget all of the user's memories.")] = False,
    user: UserOption = None,
    project: ProjectOption = None,
    json_output: JsonOption = False,
) -> None:
    """Forget one memory by id, or all of a user's memories with --all."""
    if (memory_id is None) == (not all_):
        raise fail("Name one memory id, or pass --all to forget all of the user's memories (not both).")
    settings = load_settings()
    who, project = _user(settings, user), _project(project)
    if all_:
        deleted = _with_memory(settings, lambda m: m.forget_all(who, project_id=project))
    else:
        found = _with_memory(settings, lambda m: m.forget(who, str(memory_id), project_id=project))
        if not found:
            raise fail(f"No memory {memory_id!r} for user {who!r}; see 'cadence memory list'.")
        deleted = 1
    if json_output:
        typer.echo(dump_json({"user_id": who, "deleted": deleted}))
        return
    typer.echo(f"forgot {deleted} memor{'y' if deleted == 1 else 'ies'} of user {who!r}")


@memory_app.command("consolidate")
@guarded
def memory_consolidate(
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="Only this user's memories (default: every user's).")
    ] = None,
    project: ProjectOption = None,
    json_output: JsonOption = False,
) -> None:
    """Merge duplicates, keep the newest fact per topic, summarise old entries, trim (serve: on idle)."""
    settings = load_settings()
    project = _project(project)
    if user is None and project is not None:
        raise fail("--project needs --user (a project belongs to a user).")
    if user is not None:
        user = checked_user(settings, user)
    report = _with_memory(
        settings,
        lambda m: m.consolidate(user, project_id=project) if user is not None else m.consolidate_all(),
    )
    if json_output:
        typer.echo(dump_json(report.to_dict()))
        return
    counts = report.to_dict()
    typer.echo(
        f"consolidated {counts['namespaces']} namespace(s): merged {counts['merged']}, superseded "
        f"{counts['superseded']}, summarised {counts['summarised']}, trimmed {counts['trimmed']}"
    )


__all__ = ["memory_app"]
