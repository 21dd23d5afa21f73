"""Input checks shared by every endpoint: ids, text, metadata (422 before anything is stored).

The request models declare the static shape (patterns, types); the limits that are
settings (``CADENCE_MAX_ID_CHARS``, ``CADENCE_MAX_METADATA_BYTES``, …) are checked here and
written into the OpenAPI schema by :func:`apply_schema_limits`, so the schema says what
the server really accepts. The id and text checks are the engine's and the CLI's too
(:mod:`cadence.orchestration.inputs`, re-exported here).
"""

from __future__ import annotations

import json
from typing import Any

from cadence.errors import ValidationError
from cadence.orchestration.inputs import (
    LABEL_PATTERN,
    THREAD_ID_PATTERN,
    USER_ID_PATTERN,
    check_text,
    validate_label,
    validate_thread_id,
    validate_user_id,
)
from cadence.settings import Settings

METADATA_MAX_DEPTH = 32
"""Nesting levels allowed in ``metadata`` (objects and lists)."""

INT64 = (-(2**63), 2**63 - 1)
"""Integers in ``metadata`` must fit in 64 bits (the checkpoint's serializer)."""

LIMIT_KEY = "x-cadence-limit"
"""Marks a schema node whose ``maxLength``/``maxItems`` comes from a setting."""


def _invalid(message: str, code: str = "invalid_value") -> ValidationError:
    return ValidationError(message, code=code)


def _walk(field: str, value: Any, depth: int, code: str) -> None:
    if depth > METADATA_MAX_DEPTH:
        raise _invalid(f"{field}: nested deeper than {METADATA_MAX_DEPTH} levels.", code)
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return
    if isinstance(value, int):
        if not INT64[0] <= value <= INT64[1]:
            raise _invalid(f"{field}: integers must fit in 64 bits; send large numbers as strings.", code)
        return
    if isinstance(value, dict):
        for item in value.values():
            _walk(field, item, depth + 1, code)
    elif isinstance(value, list):
        for item in value:
            _walk(field, item, depth + 1, code)


def check_json(field: str, value: Any, *, code: str) -> int:
    """The size of ``value`` as compact JSON (bytes); 422 if it cannot be stored: ``invalid_text`` for a
    lone surrogate (in a key too), ``code`` for a number that is not finite, an integer beyond 64 bits
    or nesting deeper than :data:`METADATA_MAX_DEPTH` levels."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        raise _invalid(f"{field}: must be JSON with finite numbers.", code) from None
    check_text(field, text)
    _walk(field, value, 1, code)
    return len(text.encode("utf-8"))


def validate_metadata(metadata: dict[str, Any] | None, settings: Settings) -> None:
    """422 for metadata that is too large, too deep, or not storable (64-bit integers, finite numbers)."""
    if metadata is None:
        return
    size = check_json("metadata", metadata, code="invalid_metadata")
    if size > settings.max_metadata_bytes:
        raise _invalid(
            f"metadata is {size} bytes as JSON; the limit is {settings.max_metadata_bytes} "
            "(CADENCE_MAX_METADATA_BYTES).",
            "metadata_too_large",
        )


def limit(setting: str) -> dict[str, Any]:
    """``json_schema_extra`` marking a field whose length limit is the setting ``setting``."""
    return {LIMIT_KEY: setting}


def apply_schema_limits(node: Any, settings: Settings) -> None:
    """Replace every :func:`limit` marker in an OpenAPI schema by the setting's value.

    Strings get ``maxLength`` and arrays ``maxItems``, on the node itself or on its
    ``anyOf`` branches (optional fields).
    """
    if isinstance(node, list):
        for item in node:
            apply_schema_limits(item, settings)
        return
    if not isinstance(node, dict):
        return
    name = node.pop(LIMIT_KEY, None)
    if name is not None:
        value = int(getattr(settings, name))
        targets = [b for b in node.get("anyOf", []) if isinstance(b, dict)] or [node]
        for target in targets:
            if target.get("type") == "string":
                target["maxLength"] = value
            elif target.get("type") == "array":
                target["maxItems"] = value
    for child in node.values():
        apply_schema_limits(child, settings)


__all__ = [
    "LABEL_PATTERN",
    "THREAD_ID_PATTERN",
    "USER_ID_PATTERN",
    "apply_schema_limits",
    "check_json",
    "check_text",
    "limit",
    "validate_label",
    "validate_metadata",
    "validate_thread_id",
    "validate_user_id",
]
