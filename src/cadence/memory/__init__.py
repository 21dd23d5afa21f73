"""Long-term memory per user and project (seed 002's "memory that outlives a thread").

- :mod:`.store`: the LangGraph ``BaseStore`` (SQLite beside the checkpoints, PostgreSQL, or in memory);
- :mod:`.recall`: terms, BM25, relevance and the adequacy score (pure functions);
- :mod:`.ingest`: the facts a user states, clipping of results and answers;
- :mod:`.service`: :class:`MemoryService` — remember, recall, list, forget, consolidate.

The package sits with persistence: it imports settings, errors, the shared stopwords and the
database plumbing, never the orchestration.
"""

from cadence.memory.service import ConsolidationReport, MemoryItem, MemoryKind, MemoryService, Recall
from cadence.memory.store import open_kept_memory_store, open_memory_store

__all__ = [
    "ConsolidationReport",
    "MemoryItem",
    "MemoryKind",
    "MemoryService",
    "Recall",
    "open_kept_memory_store",
    "open_memory_store",
]
