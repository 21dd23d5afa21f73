"""Routing texts: the words a tool is chosen by, kept out of the description providers receive.

A tool's description travels to a hosted model with every call that offers the tool, so it should
say briefly what the tool does and how to call it. The embedded default model chooses among an
agent's tools lexically instead (it ranks the question against each tool's text), and there a
tool that reads many phrasings needs them listed: "split a bill", "convert 5 km to miles", "25%
off". A routing text carries that list without charging hosted models for it::

    @route_text("Arithmetic, in symbols or in words: sums, percent off, tips, unit conversions ...")
    @tool
    def calculate(expression: str) -> str:
        \"\"\"Evaluate an arithmetic expression and return the exact result.\"\"\"

or, without a decorator, ``route_text("...")(calculate)``. The text lives in the tool's
``metadata`` (:data:`ROUTE_TEXT_METADATA_KEY`) and replaces the description only for a model that
routes in-process (``cadence.models.preroute.routing_schema``); write it as a description (it is
shown to that model in place of the docstring), the docstring's content included.

A tool that reads the user's own words (a calculator reading "what's 15% of 80", a clock reading a
place) can also say which texts it reads at all, with :func:`reads`::

    @reads(lambda text: any(ch.isdigit() for ch in text))
    @tool
    def calculate(expression: str) -> str: ...

The embedded model routes a question to an agent only when one of the agent's tools may read it (a
tool without a reader may read anything), so "Who won the world cup in 2018?" does not go to the
calculator because a unit it converts is named "cup": the reply is then the model's own. A reader
must be cheap, side-effect free, and say ``False`` only when the tool surely cannot take the text
(a ``True`` costs a failed call at worst; a wrong ``False`` loses a question the agent answers).
Hosted models choose by themselves and never consult it.

A reader that finds the very thing its tool answers about (a place the geo agent knows, not just a
word) may return :data:`SURELY` instead of ``True``: the embedded model then routes a question
none of whose words any agent's routing text has to that agent ("Where is Timbuktu?", "Tell me
about Canada": every word is a place name or a common word). Return it only when the tool will
answer the text; ``True`` stays the answer for "may read".

A tool of several arguments can also say how they are read from a question, with
:func:`reads_arguments`: the embedded model then calls it with those arguments instead of generating
them (a small model fills a time and two places slowly, and may swap them)::

    @reads_arguments(lambda text: {"a": m[1], "b": m[2]} if (m := PAIR_RE.search(text)) else None)
    @tool
    def compare(a: str, b: str) -> str: ...

The argument reader returns the arguments (a mapping with every required one) or ``None`` when it
cannot read them from the text, and must be cheap and side-effect free like a reader. Hosted models
never consult it.

This module imports nothing of Cadence outside the SDK.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import IntEnum
from typing import Any, TypeVar

from langchain_core.tools import BaseTool

from cadence.sdk.tools import CONTROL_METADATA_KEY

ROUTE_TEXT_METADATA_KEY = "cadence_route_text"
"""``tool.metadata[ROUTE_TEXT_METADATA_KEY]``: the tool's routing text (the words it is chosen by, for a
model that routes lexically in-process); the schema sent to providers keeps the short description."""

READS_METADATA_KEY = "cadence_reads"
"""``tool.metadata[READS_METADATA_KEY]``: the tool's reader (:func:`reads`), ``text -> bool``."""

Reader = Callable[[str], bool]
"""Whether a text (the user's question, or one part of it) is one a tool may read."""

ARGUMENTS_METADATA_KEY = "cadence_reads_arguments"
"""``tool.metadata[ARGUMENTS_METADATA_KEY]``: the tool's argument reader (:func:`reads_arguments`)."""

ArgumentReader = Callable[[str], Mapping[str, Any] | None]
"""The arguments a tool takes for a text (the user's question), or None when they cannot be read."""


class Reading(IntEnum):
    """What a reader says of a text: ``False``/``True`` (0/1) are :data:`NOT`/:data:`MAY`; :data:`SURELY`
    is a ``True`` that is sure the tool answers the text."""

    NOT = 0
    MAY = 1
    SURELY = 2


SURELY = Reading.SURELY
"""A reader's answer for a text its tool surely answers (see the module docs); truthy like ``True``."""

T = TypeVar("T", bound=BaseTool)


def route_text(text: str) -> Callable[[T], T]:
    """Give a tool a routing text (a decorator, applied above ``@tool``); returns the same tool object."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("route_text needs a non-empty text: the words the tool is chosen by")

    def mark(target: T) -> T:
        if not isinstance(target, BaseTool):
            raise TypeError(f"route_text expects a LangChain tool (apply it above @tool), got {target!r}")
        target.metadata = {**(target.metadata or {}), ROUTE_TEXT_METADATA_KEY: " ".join(text.split())}
        return target

    return mark


def routing_text(tool: BaseTool) -> str:
    """The text ``tool`` is chosen by: its routing text (:func:`route_text`), else its description."""
    text = (tool.metadata or {}).get(ROUTE_TEXT_METADATA_KEY)
    return text if isinstance(text, str) and text else tool.description


def reads(reader: Reader) -> Callable[[T], T]:
    """Give a tool a reader (a decorator, applied above ``@tool``): ``reader(text)`` says whether the
    tool may read ``text``; returns the same tool object. See the module docs."""
    if not callable(reader):
        raise TypeError(f"reads expects a function of a text returning a bool, got {reader!r}")

    def mark(target: T) -> T:
        if not isinstance(target, BaseTool):
            raise TypeError(f"reads expects a LangChain tool (apply it above @tool), got {target!r}")
        target.metadata = {**(target.metadata or {}), READS_METADATA_KEY: reader}
        return target

    return mark


def reader_of(tool: BaseTool) -> Reader | None:
    """The tool's reader (:func:`reads`), or None: the tool may read any text."""
    reader = (tool.metadata or {}).get(READS_METADATA_KEY)
    return reader if callable(reader) else None


def reads_arguments(reader: ArgumentReader) -> Callable[[T], T]:
    """Give a tool an argument reader (a decorator, applied above ``@tool``): ``reader(text)`` returns the
    arguments the tool takes for ``text``, or None; returns the same tool object. See the module docs."""
    if not callable(reader):
        raise TypeError(f"reads_arguments expects a function of a text returning arguments, got {reader!r}")

    def mark(target: T) -> T:
        if not isinstance(target, BaseTool):
            raise TypeError(
                f"reads_arguments expects a LangChain tool (apply it above @tool), got {target!r}"
            )
        target.metadata = {**(target.metadata or {}), ARGUMENTS_METADATA_KEY: reader}
        return target

    return mark


def argument_reader_of(tool: BaseTool) -> ArgumentReader | None:
    """The tool's argument reader (:func:`reads_arguments`), or None."""
    reader = (tool.metadata or {}).get(ARGUMENTS_METADATA_KEY)
    return reader if callable(reader) else None


def may_read(tools: Sequence[BaseTool]) -> Reader | None:
    """The reader of an agent with ``tools``: a text is read when one of them may read it (:data:`SURELY` when
    one of them says so); None (any text) when one of them has no reader, or there are none. Control tools
    (``back``: they steer, they read nothing) do not count. A reader that raises counts as reading the
    text."""
    readers = [reader_of(t) for t in tools if not (t.metadata or {}).get(CONTROL_METADATA_KEY)]
    if not readers or any(r is None for r in readers):
        return None
    chosen = [r for r in readers if r is not None]

    def any_reads(text: str) -> bool:
        read = False
        for reader in chosen:
            try:
                said = reader(text)
            except Exception:
                said = True
            if said is SURELY:
                return SURELY  # type: ignore[return-value]  # an int subclass, truthy like True
            read = read or bool(said)
        return read

    return any_reads


__all__ = [
    "READS_METADATA_KEY",
    "ROUTE_TEXT_METADATA_KEY",
    "SURELY",
    "Reader",
    "Reading",
    "may_read",
    "reader_of",
    "reads",
    "route_text",
    "routing_text",
]
