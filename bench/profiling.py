"""pyinstrument helpers: profile a coroutine and say where the time went, by package and by function."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

IDLE = "event loop idle (waiting on executor/SQLite threads, timers, sockets)"
PACKAGES: tuple[tuple[str, str], ...] = (
    ("/src/cadence/", "cadence (our code)"),
    ("/langgraph/checkpoint/", "langgraph checkpoint"),
    ("/langgraph/", "langgraph (pregel)"),
    ("/langchain_core/callbacks/", "langchain_core callbacks/tracing"),
    ("/langchain_core/tracers/", "langchain_core callbacks/tracing"),
    ("/langchain_core/", "langchain_core (runnables, messages)"),
    ("/pydantic", "pydantic"),
    ("/aiosqlite/", "sqlite I/O"),
    ("/sqlite3/", "sqlite I/O"),
    ("/asyncio/", "asyncio"),
    ("/bench/", "benchmark harness / scripted model"),
    ("/cadence/testing/", "benchmark harness / scripted model"),
)


def package_of(path: str | None) -> str:
    """The group a source file belongs to."""
    if not path:
        return "other"
    norm = path.replace("\\", "/")
    if "/cadence/testing/" in norm:
        return "benchmark harness / scripted model"
    for marker, group in PACKAGES:
        if marker in norm:
            return group
    return "other (stdlib, uuid, copy, json…)"


@dataclass
class ProfileSummary:
    """Where the profiled time went."""

    total_s: float
    by_package: dict[str, float]
    """Self time per package group, as a share of the total."""
    our_functions: list[tuple[str, float]] = field(default_factory=list)
    """Cadence functions by inclusive time share (recursion counted once), highest first."""
    hot_functions: list[tuple[str, float]] = field(default_factory=list)
    """Any function by self time share, highest first."""


def _label(frame: Any) -> str:
    path = (frame.file_path or "").replace("\\", "/")
    for marker in ("/src/", "/site-packages/", "/lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{path}:{frame.line_no} {frame.function}"


def summarize(session: Any, top: int = 12) -> ProfileSummary:
    """Aggregate a pyinstrument session into package shares and hot functions."""
    root = session.root_frame()
    if root is None:
        return ProfileSummary(0.0, {})
    total = root.time or 1e-12
    by_package: dict[str, float] = defaultdict(float)
    ours: dict[str, float] = defaultdict(float)
    self_times: dict[str, float] = defaultdict(float)

    def walk(frame: Any, active: frozenset[str]) -> None:
        if frame.is_synthetic:  # "[self]" / "[await]" leaves: already in the parent's self time
            return
        own = frame.total_self_time
        label = _label(frame)
        idle = frame.function in {"poll", "select", "epoll.poll"} or label.endswith(("epoll.poll", " select"))
        by_package[IDLE if idle else package_of(frame.file_path)] += own
        self_times[label] += own
        path = (frame.file_path or "").replace("\\", "/")
        if "/src/cadence/" in path and "/cadence/testing/" not in path and label not in active:
            ours[label] += frame.time
            active = active | {label}
        for child in frame.children:
            walk(child, active)

    walk(root, frozenset())
    return ProfileSummary(
        total_s=total,
        by_package={k: v / total for k, v in sorted(by_package.items(), key=lambda kv: -kv[1])},
        our_functions=sorted(((k, v / total) for k, v in ours.items()), key=lambda kv: -kv[1])[:top],
        hot_functions=sorted(((k, v / total) for k, v in self_times.items()), key=lambda kv: -kv[1])[:top],
    )


async def profile_async(run: Callable[[], Awaitable[None]], html: Path | None = None) -> ProfileSummary:
    """Profile ``await run()`` (the whole thread: every task of the loop) and summarise it.

    ``html``: also save pyinstrument's HTML report there.
    """
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0002, async_mode="disabled")
    profiler.start()
    await run()
    profiler.stop()
    if html is not None:
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(profiler.output_html(), encoding="utf-8")
    return summarize(profiler.last_session)
