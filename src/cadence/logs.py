"""The one logging set-up of the CLI and the server: one compact line per record on stderr.

Library code only logs (``logging.getLogger(__name__)`` with structured ``extra``);
the entry points (every ``cadence`` command, :func:`cadence.server.run_server`) call
:func:`configure_logging` with ``CADENCE_LOG_LEVEL``. Records show their extras as
``key=value``; noisy libraries stay at WARNING or above.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from cadence.errors import ConfigurationError

NOISY_LOGGERS = (
    "httpx",
    "httpcore",
    "openai",
    "anthropic",
    "urllib3",
    "aiosqlite",
    "asyncio",
    "langchain",
    "langchain_core",
    "langgraph",
    "multipart",
    "filelock",
    "llama_cpp",
)
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_STANDARD_ATTRS = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "taskName",
}


class CompactFormatter(logging.Formatter):
    """``level name: message key=value …``; tracebacks only when ``verbose`` (DEBUG)."""

    def __init__(self, verbose: bool = False) -> None:
        super().__init__()
        self.verbose = verbose

    def format(self, record: logging.LogRecord) -> str:
        extras = {
            k: v for k, v in record.__dict__.items() if k not in _STANDARD_ATTRS and not k.startswith("_")
        }
        text = f"{record.levelname.lower()} {record.name}: {record.getMessage()}"
        if extras:
            text += " " + " ".join(f"{k}={_short(v)}" for k, v in extras.items())
        if self.verbose and record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that always writes to the *current* ``sys.stderr`` (test runners swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        return


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with ``…`` when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any, limit: int = 300) -> str:
    return clip(str(value).replace("\n", " "), limit)


def parse_level(name: str) -> int:
    """The numeric level for ``name`` (case-insensitive); a clear error when it is not a level."""
    text = (name or "").strip().upper()
    if text == "WARN":
        text = "WARNING"
    if text not in LEVELS:
        raise ConfigurationError(
            f"CADENCE_LOG_LEVEL {name!r} is not a log level; use one of: {', '.join(LEVELS)}.",
            code="invalid_log_level",
        )
    return getattr(logging, text)


def configure_logging(level_name: str) -> int:
    """Send logs to stderr at ``level_name`` and keep third-party libraries at WARNING or above."""
    level = parse_level(level_name)
    root = logging.getLogger()
    for handler in list(root.handlers):  # calling it again replaces Cadence's handler
        if getattr(handler, "_cadence_cli", False):
            root.removeHandler(handler)
    handler = StderrHandler()
    handler._cadence_cli = True  # type: ignore[attr-defined]
    handler.setFormatter(CompactFormatter(verbose=level <= logging.DEBUG))
    root.addHandler(handler)
    root.setLevel(level)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    return level
