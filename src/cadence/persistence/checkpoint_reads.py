"""One read of a thread's latest checkpoint where a turn used to make two.

A turn on an existing thread first checks that the thread waits for no approval
(:meth:`~cadence.orchestration.engine.Cadence.ensure_not_paused`), which reads the thread's latest
checkpoint; the run that follows (LangGraph's loop) reads the same checkpoint again. Each read loads
the thread's whole state, every message of it, so on a long thread the second read was a fifth of
the turn, and on PostgreSQL one more round trip per turn.

:class:`ReadAheadSaver` (a mixin of the checkpointers Cadence opens) lets the check hand its read on:
:meth:`~ReadAheadSaver.hand_over` answers the next read of that thread's latest checkpoint with it,
once. The hand-over is withdrawn by any write to the thread through the saver, by the end of the
turn, and after :data:`HANDED_TTL_S` seconds; the check itself always reads the database. Between
the check and the run no other writer can change the thread: the server holds the thread's lock
across both, and within a process the engine holds the thread for the turn.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

HANDED_TTL_S = 60.0
"""Seconds a handed-over read stays usable (a safety net: the turn withdraws it when it ends)."""


class ReadAheadSaver:
    """Mixin for a LangGraph checkpointer: a read handed over answers the next read of the thread's latest
    checkpoint (root namespace, no checkpoint id), once."""

    def _handed(self) -> dict[str, tuple[float, Any]]:
        handed = self.__dict__.get("_cadence_handed")
        if handed is None:
            handed = self.__dict__["_cadence_handed"] = {}
        return handed

    def hand_over(self, thread_id: str, saved: Any) -> None:
        """Answer the next read of ``thread_id``'s latest checkpoint with ``saved`` (a ``CheckpointTuple``,
        or None for a thread with no checkpoint), read just now."""
        self._handed()[thread_id] = (time.monotonic(), saved)

    def withdraw(self, thread_id: str | None = None) -> None:
        """Forget the read handed over for ``thread_id`` (every thread's when None)."""
        if thread_id is None:
            self._handed().clear()
        else:
            self._handed().pop(str(thread_id), None)

    def _take(self, config: Any) -> tuple[bool, Any]:
        conf = (config or {}).get("configurable") or {}
        thread = conf.get("thread_id")
        if thread is None or conf.get("checkpoint_ns") or conf.get("checkpoint_id"):
            return False, None
        entry = self._handed().pop(str(thread), None)
        if entry is None or time.monotonic() - entry[0] > HANDED_TTL_S:
            return False, None
        return True, entry[1]

    def _withdraw_config(self, config: Any) -> None:
        thread = ((config or {}).get("configurable") or {}).get("thread_id")
        if thread is not None:
            self.withdraw(str(thread))

    async def aget_tuple(self, config: Any) -> Any:
        """The read handed over for this thread's latest checkpoint, else the saver's own read."""
        found, saved = self._take(config)
        if found:
            return saved
        return await super().aget_tuple(config)  # type: ignore[misc]

    async def aput(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        """Store a checkpoint (a write to the thread: its handed-over read no longer holds)."""
        self._withdraw_config(config)
        return await super().aput(config, *args, **kwargs)  # type: ignore[misc]

    async def aput_writes(self, config: Any, *args: Any, **kwargs: Any) -> None:
        """Store a step's pending writes (the thread's handed-over read no longer holds)."""
        self._withdraw_config(config)
        await super().aput_writes(config, *args, **kwargs)  # type: ignore[misc]

    async def adelete_thread(self, thread_id: Any) -> None:
        """Delete a thread's checkpoints (and the read handed over for it)."""
        self.withdraw(str(thread_id))
        await super().adelete_thread(thread_id)  # type: ignore[misc]

    async def acopy_thread(self, source_thread_id: Any, target_thread_id: Any) -> None:
        """Copy a thread's checkpoints to another thread (whose handed-over read no longer holds)."""
        self.withdraw(str(target_thread_id))
        await super().acopy_thread(source_thread_id, target_thread_id)  # type: ignore[misc]

    async def adelete_for_runs(self, *args: Any, **kwargs: Any) -> None:
        """Delete the checkpoints of some runs (every handed-over read is withdrawn)."""
        self.withdraw()
        await super().adelete_for_runs(*args, **kwargs)  # type: ignore[misc]

    async def aprune(self, *args: Any, **kwargs: Any) -> None:
        """Prune threads' checkpoints (every handed-over read is withdrawn)."""
        self.withdraw()
        await super().aprune(*args, **kwargs)  # type: ignore[misc]

    def put(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        """Store a checkpoint, synchronously (the thread's handed-over read no longer holds)."""
        self._withdraw_config(config)
        return super().put(config, *args, **kwargs)  # type: ignore[misc]

    def put_writes(self, config: Any, *args: Any, **kwargs: Any) -> None:
        """Store pending writes, synchronously (the thread's handed-over read no longer holds)."""
        self._withdraw_config(config)
        super().put_writes(config, *args, **kwargs)  # type: ignore[misc]

    def delete_thread(self, thread_id: Any) -> None:
        """Delete a thread's checkpoints, synchronously (and the read handed over for it)."""
        self.withdraw(str(thread_id))
        super().delete_thread(thread_id)  # type: ignore[misc]


class ReadAheadMemorySaver(ReadAheadSaver, InMemorySaver):
    """LangGraph's ``InMemorySaver`` taking reads handed over (the engine's default checkpointer)."""


__all__ = ["HANDED_TTL_S", "ReadAheadMemorySaver", "ReadAheadSaver"]
