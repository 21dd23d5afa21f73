"""Checkpoint retention: bound the LangGraph checkpoint tables.

LangGraph keeps every checkpoint of every thread (one per turn with the default
``CADENCE_CHECKPOINT_DURABILITY=exit``, the turn's end; two for a turn run by the engine alone,
which checkpoints the question first), and each one holds the thread's whole state, so a thread's
rows grow with the square of its length. Retention deletes, per thread, among its own
checkpoints and, apart, among those of its subgraphs (every agent run of the supervisor mode
checkpoints under a namespace of its own, with ``CADENCE_CHECKPOINT_DURABILITY`` async or sync: ranked
per namespace, they would be kept forever, a few per agent run):

- every checkpoint beyond the newest ``CADENCE_RETENTION_KEEP_LAST`` (0: no count limit);
- every checkpoint older than ``CADENCE_RETENTION_MAX_AGE_HOURS`` (0: no age limit);

with their pending writes (and, in PostgreSQL, the channel blobs no remaining checkpoint uses).
**The latest checkpoint of a thread is never deleted**, nor its writes, nor its subgraphs' latest:
they are what the next turn starts from and what a paused thread (an interrupt waiting for an
approval, in a subgraph too) resumes from.
What retention takes away is the older history: the checkpoint history of a thread lists (and
can fork or replay from) only what is kept.

A pass runs in the background every ``CADENCE_RETENTION_INTERVAL_S`` seconds in one process of
all those sharing the database (a :class:`~cadence.persistence.locks.LeaderJob`); see
:func:`apply_retention` to run one by hand. ``memory://`` has no retention (a process's memory
goes with it). SQLite reuses the freed pages for new rows (the file stops growing; it shrinks
only with ``VACUUM``); PostgreSQL reuses them after its autovacuum.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any

from cadence.persistence.databases import (
    connect_postgres,
    connect_sqlite,
    parse_database_url,
    retry_while_locked,
)
from cadence.settings import Settings

logger = logging.getLogger(__name__)

BATCH_THREADS = 50
"""Threads pruned per SQLite write transaction (keeps the writer lock short for running turns)."""

_UUID_EPOCH = 0x01B21DD213814000  # 100 ns intervals between 1582-10-15 and 1970-01-01


@dataclass(frozen=True)
class RetentionPolicy:
    """What to keep: the newest ``keep_last`` checkpoints (0: all) not older than ``max_age_s`` (0: any)."""

    keep_last: int = 50
    max_age_s: float = 0.0

    @classmethod
    def from_settings(cls, settings: Settings) -> RetentionPolicy:
        """The policy of ``CADENCE_RETENTION_KEEP_LAST`` and ``CADENCE_RETENTION_MAX_AGE_HOURS``."""
        return cls(keep_last=settings.retention_keep_last, max_age_s=settings.retention_max_age_hours * 3600)

    @property
    def enabled(self) -> bool:
        """Whether the policy deletes anything at all."""
        return self.keep_last > 0 or self.max_age_s > 0


@dataclass
class RetentionReport:
    """What one pass deleted."""

    threads: int = 0
    checkpoints: int = 0
    writes: int = 0
    blobs: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """The report as a plain dict (logs, benchmarks)."""
        return asdict(self)


def checkpoint_id_at(timestamp: float) -> str:
    """The smallest LangGraph checkpoint id (UUID v6) of ``timestamp``: older ids sort below it.

    LangGraph's checkpoint ids are time-ordered UUID v6 strings, so "older than T" is a string
    comparison, in SQLite and PostgreSQL alike.
    """
    ticks = int(timestamp * 10_000_000) + _UUID_EPOCH
    value = ((ticks >> 12) & 0xFFFFFFFFFFFF) << 80 | (ticks & 0x0FFF) << 64 | 0x6 << 76 | 0x8 << 60
    return str(uuid.UUID(int=value))


def _keep_limit(policy: RetentionPolicy) -> int:
    """How many to keep by count (at least the latest)."""
    return max(1, policy.keep_last) if policy.keep_last > 0 else 2**62


def _cutoff(policy: RetentionPolicy, now: float) -> str:
    """Checkpoint ids below this are too old ('' when there is no age limit: nothing is below it)."""
    return checkpoint_id_at(now - policy.max_age_s) if policy.max_age_s > 0 else ""


# -- SQLite -----------------------------------------------------------------------------------
# A thread's checkpoints are ranked in two groups: its own (namespace '') and all its subgraphs' together
# (ids are time-ordered across namespaces); ``root`` names the group.
_SQLITE_CANDIDATES = """
SELECT thread_id, checkpoint_ns = '' AS root FROM checkpoints
GROUP BY thread_id, checkpoint_ns = ''
HAVING count(*) > ? OR (count(*) > 1 AND min(checkpoint_id) < ?)
"""

_SQLITE_VICTIMS = """
SELECT checkpoint_ns, checkpoint_id FROM (
    SELECT checkpoint_ns, checkpoint_id, ROW_NUMBER() OVER (ORDER BY checkpoint_id DESC) AS rank
    FROM checkpoints WHERE thread_id = ? AND (checkpoint_ns = '') = ?
) WHERE rank > ? OR (rank > 1 AND checkpoint_id < ?)
"""


def _by_namespace(victims: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Victim checkpoint ids grouped by their namespace."""
    grouped: dict[str, list[str]] = {}
    for ns, checkpoint_id in victims:
        grouped.setdefault(ns, []).append(checkpoint_id)
    return grouped


async def _sqlite_tables(conn: Any) -> set[str]:
    async with conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cursor:
        return {row[0] for row in await cursor.fetchall()}


async def _prune_sqlite_batch(
    conn: Any, batch: list[tuple[Any, ...]], keep: int, cutoff: str
) -> RetentionReport:
    """Prune a few threads in one ``BEGIN IMMEDIATE`` transaction."""
    done = RetentionReport()
    await conn.execute("BEGIN IMMEDIATE")
    try:
        for thread_id, root in batch:
            async with conn.execute(_SQLITE_VICTIMS, (thread_id, root, keep, cutoff)) as cursor:
                victims = [(row[0], row[1]) for row in await cursor.fetchall()]
            for ns, ids in _by_namespace(victims).items():
                for i in range(0, len(ids), 500):
                    chunk = ids[i : i + 500]
                    marks = ",".join("?" * len(chunk))
                    where = f"thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({marks})"
                    cursor = await conn.execute(f"DELETE FROM writes WHERE {where}", (thread_id, ns, *chunk))
                    done.writes += max(0, cursor.rowcount)
                    cursor = await conn.execute(
                        f"DELETE FROM checkpoints WHERE {where}", (thread_id, ns, *chunk)
                    )
                    done.checkpoints += max(0, cursor.rowcount)
            done.threads += 1 if victims else 0
    except BaseException:
        await conn.execute("ROLLBACK")
        raise
    await conn.execute("COMMIT")
    return done


async def prune_sqlite(path: str, policy: RetentionPolicy, *, now: float | None = None) -> RetentionReport:
    """One retention pass over the checkpoints of the SQLite database at ``path``.

    Threads are pruned in batches, each batch in one ``BEGIN IMMEDIATE`` transaction: it holds
    SQLite's writer lock, so the victims (chosen inside it) cannot race a turn saving a checkpoint.
    """
    report = RetentionReport()
    started = time.perf_counter()
    keep, cutoff = _keep_limit(policy), _cutoff(policy, time.time() if now is None else now)
    async with connect_sqlite(path, isolation_level=None) as conn:
        if not {"checkpoints", "writes"} <= await _sqlite_tables(conn):
            return report
        async with conn.execute(_SQLITE_CANDIDATES, (keep, cutoff)) as cursor:
            candidates = [tuple(row) for row in await cursor.fetchall()]
        for start in range(0, len(candidates), BATCH_THREADS):
            batch = candidates[start : start + BATCH_THREADS]
            results: list[RetentionReport] = []

            async def attempt(batch: list[Any] = batch, out: list[RetentionReport] = results) -> None:
                out.append(await _prune_sqlite_batch(conn, batch, keep, cutoff))

            await retry_while_locked(attempt)
            report.threads += results[-1].threads
            report.checkpoints += results[-1].checkpoints
            report.writes += results[-1].writes
    report.seconds = round(time.perf_counter() - started, 3)
    return report


# -- PostgreSQL ---------------------------------------------------------------------------------
_PG_CANDIDATES = """
SELECT thread_id, checkpoint_ns = '' AS root FROM checkpoints
GROUP BY thread_id, checkpoint_ns = ''
HAVING count(*) > %s OR (count(*) > 1 AND min(checkpoint_id) < %s)
"""

_PG_VICTIMS = """
SELECT checkpoint_ns, checkpoint_id FROM (
    SELECT checkpoint_ns, checkpoint_id, ROW_NUMBER() OVER (ORDER BY checkpoint_id DESC) AS rank
    FROM checkpoints WHERE thread_id = %s AND (checkpoint_ns = '') = %s
) AS ranked WHERE rank > %s OR (rank > 1 AND checkpoint_id < %s)
"""

_PG_DELETE_WRITES = """
DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s)
"""

_PG_DELETE_CHECKPOINTS = """
WITH deleted AS (
    DELETE FROM checkpoints
    WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s)
    RETURNING checkpoint -> 'channel_versions' AS versions
)
SELECT DISTINCT v.key, v.value FROM deleted CROSS JOIN LATERAL jsonb_each_text(deleted.versions) AS v
"""

_PG_ORPHANED_PARENTS = """
UPDATE checkpoints SET parent_checkpoint_id = NULL
WHERE thread_id = %s AND checkpoint_ns = %s AND parent_checkpoint_id = ANY(%s)
"""

_PG_REFERENCED = """
SELECT DISTINCT v.key, v.value FROM checkpoints c
CROSS JOIN LATERAL jsonb_each_text(c.checkpoint -> 'channel_versions') AS v
WHERE c.thread_id = %s AND c.checkpoint_ns = %s
"""

_PG_DELETE_BLOBS = """
DELETE FROM checkpoint_blobs
WHERE thread_id = %s AND checkpoint_ns = %s AND channel = %s AND version = ANY(%s)
"""


async def prune_postgres(
    url: str, target: str, policy: RetentionPolicy, *, now: float | None = None
) -> RetentionReport:
    """One retention pass over the checkpoints of the PostgreSQL database ``target``.

    Each thread namespace is pruned in its own ``REPEATABLE READ`` transaction: it sees one snapshot,
    so a checkpoint a turn saves meanwhile is neither chosen nor deleted, and a channel blob is deleted
    only when no remaining checkpoint of that snapshot references it (a new checkpoint references only
    blobs of its parent, the latest, which is kept, or blobs it writes itself).
    """
    report = RetentionReport()
    started = time.perf_counter()
    keep, cutoff = _keep_limit(policy), _cutoff(policy, time.time() if now is None else now)
    conn = await connect_postgres(url, target)
    async with conn:
        cursor = await conn.execute("SELECT to_regclass('checkpoints') IS NOT NULL")
        row = await cursor.fetchone()
        if not row or not row[0]:
            return report
        cursor = await conn.execute(_PG_CANDIDATES, (keep, cutoff))
        candidates = [tuple(r) for r in await cursor.fetchall()]
        for thread_id, root in candidates:
            async with conn.transaction():
                await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                cursor = await conn.execute(_PG_VICTIMS, (thread_id, root, keep, cutoff))
                victims = [(r[0], r[1]) for r in await cursor.fetchall()]
                if not victims:
                    continue
                for ns, ids in _by_namespace(victims).items():
                    cursor = await conn.execute(_PG_DELETE_WRITES, (thread_id, ns, ids))
                    report.writes += max(0, cursor.rowcount)
                    cursor = await conn.execute(_PG_DELETE_CHECKPOINTS, (thread_id, ns, ids))
                    freed = {(r[0], r[1]) for r in await cursor.fetchall()}
                    report.checkpoints += len(ids)
                    await conn.execute(_PG_ORPHANED_PARENTS, (thread_id, ns, ids))
                    cursor = await conn.execute(_PG_REFERENCED, (thread_id, ns))
                    garbage: dict[str, list[str]] = {}
                    for channel, version in freed - {(r[0], r[1]) for r in await cursor.fetchall()}:
                        garbage.setdefault(channel, []).append(version)
                    for channel, versions in garbage.items():
                        cursor = await conn.execute(_PG_DELETE_BLOBS, (thread_id, ns, channel, versions))
                        report.blobs += max(0, cursor.rowcount)
                report.threads += 1
    report.seconds = round(time.perf_counter() - started, 3)
    return report


async def apply_retention(url: str, policy: RetentionPolicy, *, now: float | None = None) -> RetentionReport:
    """One retention pass over the database of ``url`` (nothing for ``memory://`` or a disabled policy)."""
    if not policy.enabled:
        return RetentionReport()
    kind, target = parse_database_url(url)
    if kind == "memory":
        return RetentionReport()
    if kind == "sqlite":
        report = await prune_sqlite(target, policy, now=now)
    else:
        report = await prune_postgres(url, target, policy, now=now)
    if report.checkpoints:
        logger.info("retention deleted %d checkpoint(s) of %d thread(s)", report.checkpoints, report.threads,
                    extra={"retention": report.as_dict()})  # fmt: skip
    return report


def retention_job(settings: Settings) -> Any:
    """The background job of ``settings`` (a coroutine function for a LeaderJob), or None if off."""
    policy = RetentionPolicy.from_settings(settings)
    kind, _ = parse_database_url(settings.resolved_database_url)
    if kind == "memory" or not policy.enabled or settings.retention_interval_s <= 0:
        return None
    url = settings.resolved_database_url

    async def job() -> None:
        await apply_retention(url, policy)

    return job


__all__ = [
    "RetentionPolicy",
    "RetentionReport",
    "apply_retention",
    "checkpoint_id_at",
    "prune_postgres",
    "prune_sqlite",
    "retention_job",
]
