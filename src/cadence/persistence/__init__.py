"""Persistence: the LangGraph checkpointer chosen by ``CADENCE_DATABASE_URL``."""

from cadence.persistence.checkpointer import open_checkpointer, parse_database_url

__all__ = ["open_checkpointer", "parse_database_url"]
