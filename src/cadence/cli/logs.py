"""Logging for the CLI (the set-up lives in :mod:`cadence.logs`, shared with the server)."""

from __future__ import annotations

from cadence.logs import (
    LEVELS,
    NOISY_LOGGERS,
    CompactFormatter,
    StderrHandler,
    clip,
    configure_logging,
    parse_level,
)

__all__ = [
    "LEVELS",
    "NOISY_LOGGERS",
    "CompactFormatter",
    "StderrHandler",
    "clip",
    "configure_logging",
    "parse_level",
]
