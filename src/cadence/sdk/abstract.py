"""What a plugin or agent class leaves unimplemented or misspells, said so that the mistake shows.

A ``BasePlugin`` whose ``get_metadata`` is spelt ``get_metadat`` is still abstract: Python only says
"Can't instantiate abstract class", and a class method of an abstract class answers ``None``.
:func:`missing_methods` names what is missing and the defined name that looks like it.

This module imports nothing of Cadence outside the SDK.
"""

from __future__ import annotations

import difflib
import inspect
import logging
from collections.abc import Iterable
from types import FunctionType

logger = logging.getLogger(__name__)


def _own_names(cls: type) -> set[str]:
    """The names ``cls`` and its bases define, but for the SDK's own classes (and ``object``)."""
    return {
        name
        for klass in cls.__mro__
        if not klass.__module__.startswith(("cadence.sdk", "abc", "builtins"))
        for name in vars(klass)
        if not name.startswith("__")
    }


def missing_methods(cls: type) -> str | None:
    """Why ``cls`` cannot be used, or ``None`` when it implements every abstract method.

    E.g. ``"WeatherPlugin does not implement get_metadata (it defines get_metadat: misspelt?)"``.
    A name ``cls`` defines itself (not inherited from the SDK's base classes) that is close to a
    missing method's name is shown as the likely misspelling.
    """
    missing = sorted(getattr(cls, "__abstractmethods__", None) or ())
    if not missing or not inspect.isclass(cls):
        return None
    own = _own_names(cls) - set(missing)
    described = []
    for name in missing:
        close = difflib.get_close_matches(name, sorted(own), n=1, cutoff=0.75)
        described.append(f"{name} (it defines {close[0]}: misspelt?)" if close else name)
    return f"{cls.__name__} does not implement {', '.join(described)}"


def misspelt_hooks(cls: type, hooks: Iterable[str]) -> list[tuple[str, str]]:
    """``(name, hook)`` for each method ``cls`` itself defines whose name looks like a misspelling of one
    of ``hooks`` (``healthcheck`` for ``health_check``) that the plugin's classes do not define: Cadence
    never calls it, so it silently does nothing."""
    defined = _own_names(cls)
    hooks = [h for h in hooks if h not in defined]
    found = []
    for name, value in vars(cls).items():
        if name.startswith("__") or not isinstance(value, FunctionType | classmethod | staticmethod):
            continue
        close = difflib.get_close_matches(name, hooks, n=1, cutoff=0.85)
        if close:
            found.append((name, close[0]))
    return found


def warn_misspelt_hooks(cls: type, hooks: Iterable[str]) -> None:
    """Log a warning for each of :func:`misspelt_hooks` (a class is being defined: nothing to fail yet)."""
    for name, hook in misspelt_hooks(cls, hooks):
        logger.warning(
            "%s.%s is never called by Cadence: did you mean %s?", cls.__qualname__, name, hook,
            extra={"cls": f"{cls.__module__}.{cls.__qualname__}"},
        )  # fmt: skip


__all__ = ["missing_methods", "misspelt_hooks", "warn_misspelt_hooks"]
