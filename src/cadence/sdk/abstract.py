"""What a plugin or agent class leaves unimplemented, said so that a misspelt method name shows.

A ``BasePlugin`` whose ``get_metadata`` is spelt ``get_metadat`` is still abstract: Python only says
"Can't instantiate abstract class", and a class method of an abstract class answers ``None``.
:func:`missing_methods` names what is missing and the defined name that looks like it.

This module imports nothing of Cadence outside the SDK.
"""

from __future__ import annotations

import difflib
import inspect


def missing_methods(cls: type) -> str | None:
    """Why ``cls`` cannot be used, or ``None`` when it implements every abstract method.

    E.g. ``"WeatherPlugin does not implement get_metadata (it defines get_metadat: misspelt?)"``.
    A name ``cls`` defines itself (not inherited from the SDK's base classes) that is close to a
    missing method's name is shown as the likely misspelling.
    """
    missing = sorted(getattr(cls, "__abstractmethods__", None) or ())
    if not missing or not inspect.isclass(cls):
        return None
    own = {
        name
        for klass in cls.__mro__
        if not klass.__module__.startswith(("cadence.sdk", "abc", "builtins"))
        for name in vars(klass)
        if not name.startswith("__")
    } - set(missing)
    described = []
    for name in missing:
        close = difflib.get_close_matches(name, sorted(own), n=1, cutoff=0.75)
        described.append(f"{name} (it defines {close[0]}: misspelt?)" if close else name)
    return f"{cls.__name__} does not implement {', '.join(described)}"


__all__ = ["missing_methods"]
