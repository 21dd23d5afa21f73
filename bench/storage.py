"""Section 3c: database size per 1,000 turns, without and with checkpoint retention.

1,000 one-agent tool turns (scripted model, ``Cadence.ainvoke``, the default durability) on
``THREADS`` threads of ``TURNS_PER_THREAD`` turns each, twice per backend on a fresh database:

- **without retention**: the checkpoint tables as LangGraph leaves them;
- **with retention** (``CADENCE_RETENTION_KEEP_LAST`` at its default, then at ``SMALL_KEEP``): a
  retention pass after every 100 turns, as the server's background job would do, then the size at the end.

Sizes: SQLite: the file (``page_count × page_size``) and the pages in use (minus the free list,
which SQLite reuses for new rows); PostgreSQL: ``pg_total_relation_size`` of the checkpoint tables
after a plain ``VACUUM`` (what autovacuum does: freed space becomes reusable, files do not shrink).
PostgreSQL reuses the rows a pass deleted only once a vacuum has marked them free; its autovacuum
wakes every minute, longer than the whole fill here, so the fill runs a plain ``VACUUM`` of the
checkpoint tables every ``PASS_EVERY`` turns (with and without retention) in its place.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from bench.conversations import ONE_AGENT, cadence_script
from bench.frameworks import CadenceSubject, bench_settings
from cadence.persistence import open_checkpointer
from cadence.persistence.retention import RetentionPolicy, apply_retention
from cadence.settings import Settings
from cadence.testing import ScriptedChatModel

THREADS = 10
TURNS_PER_THREAD = 100
PASS_EVERY = 100
SMALL_KEEP = 10
"""A second, tighter retention: what the knob buys (the kept checkpoints each hold the whole thread)."""
PG_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


async def _sqlite_size(path: Path) -> dict[str, float]:
    import aiosqlite

    async with aiosqlite.connect(str(path)) as conn:

        async def one(pragma: str) -> int:
            async with conn.execute(f"PRAGMA {pragma}") as cursor:
                row = await cursor.fetchone()
                return int(row[0]) if row else 0

        pages, free, size = await one("page_count"), await one("freelist_count"), await one("page_size")
        async with conn.execute("SELECT count(*) FROM checkpoints") as cursor:
            rows = (await cursor.fetchone() or [0])[0]
    return {
        "file_mb": round(pages * size / 2**20, 2),
        "in_use_mb": round((pages - free) * size / 2**20, 2),
        "checkpoints": rows,
    }


async def _pg_vacuum(url: str) -> None:
    """A plain ``VACUUM`` of the checkpoint tables: what autovacuum does between retention passes."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("VACUUM " + ", ".join(PG_TABLES))


async def _pg_size(url: str) -> dict[str, float]:
    import psycopg

    await _pg_vacuum(url)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        total = 0
        for table in PG_TABLES:
            cur = await conn.execute("SELECT pg_total_relation_size(%s)", (table,))
            total += int((await cur.fetchone() or [0])[0])
        cur = await conn.execute("SELECT count(*) FROM checkpoints")
        rows = (await cur.fetchone() or [0])[0]
    return {"file_mb": round(total / 2**20, 2), "in_use_mb": round(total / 2**20, 2), "checkpoints": rows}


async def _size(url: str) -> dict[str, float]:
    if url.startswith("sqlite"):
        return await _sqlite_size(Path(url.split("sqlite:///", 1)[1]))
    return await _pg_size(url)


async def _fill(url: str, settings: Settings, policy: RetentionPolicy | None, turns: int) -> dict[str, Any]:
    """1,000 turns on ``url``; a retention pass every PASS_EVERY turns when ``policy`` is given."""
    passes: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    async with open_checkpointer(url) as saver:
        subject = CadenceSubject(
            settings, ScriptedChatModel.from_items(cadence_script(ONE_AGENT), loop=True), saver
        )
        done = 0
        for _ in range(turns):
            for thread in range(THREADS):
                await subject.turn(ONE_AGENT.message, f"storage-{thread}")
                done += 1
                if done % PASS_EVERY:
                    continue
                if policy is not None:
                    passes.append((await apply_retention(url, policy)).as_dict())
                if not url.startswith("sqlite"):
                    await _pg_vacuum(url)
    turns_s = time.perf_counter() - t0
    size = await _size(url)
    return {
        **size,
        "turns": done,
        "turns_s": round(turns_s, 1),
        "retention_passes": len(passes),
        "retention_s_per_pass": round(sum(p["seconds"] for p in passes) / len(passes), 3) if passes else 0.0,
        "deleted_checkpoints": sum(p["checkpoints"] for p in passes),
    }


async def run_storage(workdir: Path, turns_per_thread: int = TURNS_PER_THREAD) -> dict[str, Any]:
    """Section 3c for SQLite and (when it can start) PostgreSQL."""
    from bench.pg_server import UNAVAILABLE, new_database, postgres_server

    settings = bench_settings(workdir / "data")
    policy = RetentionPolicy.from_settings(settings)
    rows: list[dict[str, Any]] = []
    with postgres_server() as pg_url:
        for backend in ("sqlite", "postgres"):
            if backend == "postgres" and pg_url is None:
                continue
            variants = [
                ("without retention", None),
                (f"keep last {policy.keep_last} (default)", policy),
                (f"keep last {SMALL_KEEP}", RetentionPolicy(keep_last=SMALL_KEEP)),
            ]
            for label, pol in variants:
                if backend == "sqlite":
                    url = f"sqlite:///{workdir / f'storage-{len(rows)}.db'}"
                else:
                    url = new_database(pg_url)  # type: ignore[arg-type]
                filled = await _fill(url, settings, pol, turns_per_thread)
                row = {"backend": backend, "retention": label, **filled}
                rows.append(row)
                on_disk, in_use, count = row["file_mb"], row["in_use_mb"], row["checkpoints"]
                print(f"  storage {backend:8} {label}: {on_disk} MB, {in_use} MB used, {count} rows")
                with contextlib.suppress(OSError):
                    if backend == "sqlite":
                        Path(url.split("sqlite:///", 1)[1]).unlink()
    return {
        "rows": rows,
        "threads": THREADS,
        "turns_per_thread": turns_per_thread,
        "pass_every": PASS_EVERY,
        "keep_last": policy.keep_last,
        "skipped": list(UNAVAILABLE),
    }
