"""Answer quality of the embedded default model: an evaluation set with rule-checked answers.

``python -m bench.quality`` runs every item of ``bench/quality/questions.json`` through a
real :class:`~cadence.Cadence` engine on the embedded model (``CADENCE_LLM=local``,
built-in plugins, in-memory checkpoints, one thread per item), checks each final answer
with the item's rule, measures seconds per turn, measures the tones on a subset, prints
the table and writes it into ``docs/benchmarks.md`` (between the ``quality`` markers)
and the raw rows into ``bench/quality/results.json``.

Rules (all computed when the answer arrives, so time questions stay checkable):

``numbers``
    every listed number appears in the answer (``1,024`` and ``1024`` both count);
``time_in``
    the current local time of an IANA zone (``HH:MM`` or ``h:MM AM/PM``, within
    two minutes of the answer) appears;
``offset``
    the absolute difference of two zones' UTC offsets appears as a number of hours
    (``5.5``, ``5:30`` or ``5 hours 30 minutes`` for half hours);
``keywords``
    at least one keyword that is not already in the question appears (case-insensitive);
``chat``
    a non-empty answer, no tool used, no sentence repeated, no prompt text echoed.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.json"

PROMPT_ECHO_MARKERS = (
    "synthesizer",
    "coordinator",
    "system prompt",
    "you are a",
    "tool call",
    "goto_",
    "transfer_to_",
    "results given",
    "in one sentence",
)
"""Fragments of Cadence's own prompts that must never appear in a chat answer."""


@dataclass(frozen=True)
class Item:
    """One evaluation item: a conversation (the last turn is checked) and its rule."""

    id: str
    """Stable identifier (``sym-01``)."""
    category: str
    """The category reported in the table."""
    turns: tuple[str, ...]
    """User messages, sent in order on one thread."""
    rule: Mapping[str, Any]
    """The check applied to the last turn's answer."""


@dataclass
class Outcome:
    """The result of one item."""

    item: Item
    """The item."""
    answer: str
    """The last turn's final answer."""
    passed: bool
    """Whether the rule holds."""
    reason: str
    """Why it failed (empty when it passed)."""
    seconds: list[float] = field(default_factory=list)
    """Wall time of each turn."""
    tools: list[str] = field(default_factory=list)
    """Tools the last turn used."""
    notes: list[str] = field(default_factory=list)
    """Trace notes of the last turn (answer-check fallbacks, for example)."""


def load_items(path: Path = QUESTIONS) -> list[Item]:
    """The evaluation items of ``path``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        Item(id=i["id"], category=i["category"], turns=tuple(i["turns"]), rule=i["rule"])
        for i in data["items"]
    ]


_NUMBER_RE = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text`` (thousands separators allowed)."""
    out = []
    for raw in _NUMBER_RE.findall(text):
        cleaned = raw.replace(",", "")
        if re.fullmatch(r"-?\d+(?:\.\d+)?", cleaned):
            out.append(float(cleaned))
    return out


def _has_number(text: str, value: float) -> bool:
    return any(abs(n - value) <= 1e-6 * max(1.0, abs(value)) for n in numbers_in(text))


def _clock_forms(moment: datetime) -> set[str]:
    hour12 = moment.hour % 12 or 12
    return {
        moment.strftime("%H:%M"),
        f"{moment.hour}:{moment.minute:02d}",
        f"{hour12}:{moment.minute:02d}",
    }


def _offset_forms(hours: float) -> list[str]:
    whole = int(hours)
    minutes = round((hours - whole) * 60)
    if minutes == 0:
        return [rf"\b{whole}\s*(?:hours?|h)\b", rf"\b{whole}\b"]
    return [
        rf"\b{hours:g}\b",
        rf"\b{whole}:{minutes:02d}\b",
        rf"\b{whole}\s*hours?\s*(?:and\s*)?{minutes}\s*minutes?",
        rf"\b{whole}h\s*{minutes}",
    ]


def check(item: Item, answer: str, tools: Sequence[str], now: datetime | None = None) -> str:
    """Why ``answer`` fails the item's rule ("" when it passes)."""
    rule = item.rule
    text = answer or ""
    if not text.strip():
        return "empty answer"
    now = now or datetime.now(UTC)
    if "numbers" in rule:
        missing = [n for n in rule["numbers"] if not _has_number(text, float(n))]
        return f"missing {missing}" if missing else ""
    if "time_in" in rule:
        zone = ZoneInfo(rule["time_in"])
        forms: set[str] = set()
        for back in range(0, 3):
            forms |= _clock_forms((now - timedelta(minutes=back)).astimezone(zone))
        if any(re.search(rf"(?<![\d:]){re.escape(f)}(?!\d)", text) for f in forms):
            return ""
        return f"no current {rule['time_in']} time ({sorted(forms)[0]}...)"
    if "offset" in rule:
        a, b = (ZoneInfo(z) for z in rule["offset"])
        delta = now.astimezone(a).utcoffset() - now.astimezone(b).utcoffset()  # type: ignore[operator]
        hours = abs(delta.total_seconds()) / 3600
        if any(re.search(p, text, re.IGNORECASE) for p in _offset_forms(hours)):
            return ""
        return f"no offset of {hours:g} hours"
    if "keywords" in rule:
        asked = " ".join(item.turns).lower()
        keywords = [k for k in rule["keywords"] if k.lower() not in asked]
        if any(k.lower() in text.lower() for k in keywords):
            return ""
        return f"none of {keywords}"
    if rule.get("chat"):
        if tools:
            return f"used tools {list(tools)}"
        lowered = text.lower()
        echoed = [m for m in PROMPT_ECHO_MARKERS if m in lowered]
        if echoed:
            return f"echoes prompt text {echoed}"
        sentences = [s.strip().lower() for s in re.split(r"[.!?\n]+", text) if len(s.strip()) > 12]
        if len(sentences) != len(set(sentences)):
            return "repeats itself"
        if len(text) > 600:
            return "too long for a chat reply"
        return ""
    raise ValueError(f"item {item.id}: unknown rule {dict(rule)}")


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` by linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def summarize(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Accuracy per category and overall, median and p95 seconds per turn."""
    categories: dict[str, list[Outcome]] = {}
    for o in outcomes:
        categories.setdefault(o.item.category, []).append(o)
    seconds = [s for o in outcomes for s in o.seconds]
    return {
        "overall": sum(o.passed for o in outcomes) / max(1, len(outcomes)),
        "items": len(outcomes),
        "categories": {
            name: {"accuracy": sum(o.passed for o in rows) / len(rows), "items": len(rows)}
            for name, rows in categories.items()
        },
        "median_s": statistics.median(seconds) if seconds else 0.0,
        "p95_s": percentile(seconds, 0.95),
        "turns": len(seconds),
    }
