"""Open the LangGraph checkpointer named by a database URL.

- ``sqlite:///path/to/file.db`` (default, under the data directory): ``AsyncSqliteSaver``;
- ``postgresql://user:pass@host/db``: ``AsyncPostgresSaver`` (extra ``postgres``);
- ``memory://``: ``InMemorySaver`` (tests).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from cadence.errors import ConfigurationError


def parse_database_url(url: str) -> tuple[str, str]:
    """``(kind, target)`` with kind ``sqlite``, ``postgres`` or ``memory``."""
    text = url.strip()
    if text in {"memory", "memory://", ":memory:"}:
        return "memory", ""
    if text.startswith("sqlite:///"):
        return "sqlite", text[len("sqlite:///") :]
    if text.startswith("sqlite://"):
        return "sqlite", text[len("sqlite://") :]
    if text.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        return "postgres", text.replace("postgresql+psycopg://", "postgresql://", 1)
    raise ConfigurationError(
        f"Unsupported CADENCE_DATABASE_URL {url!r}; use sqlite:///path.db, postgresql://user:pass@host/db or memory://"
    )


@contextlib.asynccontextmanager
async def open_checkpointer(url: str) -> AsyncIterator[Any]:
    """An async context manager yielding a ready checkpointer for ``url``."""
    kind, target = parse_database_url(url)
    if kind == "memory":
        yield InMemorySaver()
        return
    if kind == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        path = Path(target).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            await saver.setup()
            yield saver
        return
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    except ImportError as exc:
        raise ConfigurationError(
            'PostgreSQL needs the postgres extra: pip install "cadence-agents[postgres]"'
        ) from exc
    try:
        async with AsyncPostgresSaver.from_conn_string(target) as saver:
            await saver.setup()
            yield saver
    except OSError as exc:
        raise ConfigurationError(f"Cannot reach PostgreSQL at {url.split('@')[-1]}: {exc}") from exc
