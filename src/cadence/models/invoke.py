"""What the model-call path needs to know about a model: its name, its server, its failures.

:func:`cadence.orchestration.model_call.call_model` (the one way a node calls its
model) uses these helpers: a readable label and the server URL of a (possibly
bound) model, a once-per-process probe of a self-hosted server, and the one-line
message for each kind of failure (connection, key, rate limit, not found, timeout).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from cadence.errors import ModelCallError

logger = logging.getLogger(__name__)


_KNOWN: dict[int, tuple[Any, str, str | None]] = {}
"""``id(model)`` → ``(model, label, endpoint)``: what :func:`model_label` and :func:`model_endpoint`
found for a model object (held, so its id is not reused); read once per model, not once per call."""
_KNOWN_MAX = 256


def _known(model: Any) -> tuple[str, str | None]:
    entry = _KNOWN.get(id(model))
    if entry is not None and entry[0] is model:
        return entry[1], entry[2]
    label, endpoint = _label(model), _endpoint(model)
    if len(_KNOWN) >= _KNOWN_MAX:
        _KNOWN.pop(next(iter(_KNOWN)))
    _KNOWN[id(model)] = (model, label, endpoint)
    return label, endpoint


def model_label(model: Runnable[Any, Any] | BaseChatModel) -> str:
    """A readable name of the model behind a (possibly bound) runnable."""
    return _known(model)[0]


def model_endpoint(model: Runnable[Any, Any] | BaseChatModel) -> str | None:
    """The base URL of the server behind a (possibly bound) model, when it names one."""
    return _known(model)[1]


def _label(model: Any) -> str:
    inner: Any = model
    for _ in range(5):
        bound = getattr(inner, "bound", None)
        if bound is None:
            break
        inner = bound
    for attr in ("model_label", "model_name", "model", "model_id"):
        value = getattr(inner, attr, None)
        if isinstance(value, str) and value:
            return value
    return getattr(inner, "_llm_type", type(inner).__name__)


def _endpoint(model: Any) -> str | None:
    inner: Any = model
    for _ in range(5):
        bound = getattr(inner, "bound", None)
        if bound is None:
            break
        inner = bound
    for attr in ("openai_api_base", "base_url", "anthropic_api_url"):
        value = getattr(inner, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


_ANSWERED: set[str] = set()
"""Self-hosted model servers that have answered a request (probed once per process)."""


async def check_server(url: str, timeout: float, node: str) -> None:
    """Fail fast unless the server at ``url`` answers HTTP within ``timeout`` seconds.

    Any status counts as an answer. Without this, a server that accepts connections and
    never answers holds every call for the full read timeout (CADENCE_MODEL_TIMEOUT) and
    its retries. Successes are remembered, so each server is probed once.
    """
    if url in _ANSWERED:
        return
    import httpx

    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(timeout)) as client:
            await client.get(url)
    except httpx.TimeoutException as exc:
        raise ModelCallError(
            f"The model for the {node} got no answer from its server at {url} within {timeout:g} s; "
            "check that the server is running and answering, and CADENCE_LLM_BASE_URL "
            "(CADENCE_MODEL_CONNECT_TIMEOUT sets the wait)."
        ) from exc
    except httpx.HTTPError as exc:
        raise ModelCallError(
            f"The model for the {node} cannot reach its server at {url} ({type(exc).__name__}: "
            f"{_clip(str(exc)) or 'no answer'}); check CADENCE_LLM_BASE_URL and that the server is running."
        ) from exc
    _ANSWERED.add(url)


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _causes(exc: BaseException, depth: int = 5) -> Iterator[BaseException]:
    """``exc`` and what caused it, nearest first (at most ``depth``)."""
    seen: BaseException | None = exc
    for _ in range(depth):
        if seen is None:
            return
        yield seen
        seen = seen.__cause__ or seen.__context__


def _is_connection_error(exc: BaseException) -> bool:
    return any(
        isinstance(seen, ConnectionError) or "connect" in type(seen).__name__.lower() for seen in _causes(exc)
    )


def failure_message(
    node: str,
    exc: BaseException,
    *,
    attempts: int,
    timed_out: bool,
    budget: float | None,
    endpoint: str | None,
    label: str | None = None,
) -> str:
    """One line saying why the model call failed and what to check (URL, key, limits), by kind of error.

    ``label`` (:func:`model_label`) tells the embedded model (``local:…``) apart: it has no server
    to check, and its context window is ``CADENCE_LOCAL_MODEL_CONTEXT``.
    """
    what = f"{type(exc).__name__}: {_clip(str(exc))}"
    where = f" at {endpoint}" if endpoint else ""
    tries = f"after {attempts} attempt(s)"
    status = _status(exc)
    embedded = bool(label and label.startswith("local:"))
    if timed_out:
        wait = f"{budget:g} s" if budget is not None else "its timeout"
        if embedded:
            return (
                f"The embedded model ({label}) for the {node} did not finish within {wait} {tries}; it runs "
                "on this machine's CPU, one call at a time, and long messages take longest: raise "
                "CADENCE_MODEL_TIMEOUT or shorten the message."
            )
        return (
            f"The model for the {node} got no answer{where} within {wait} {tries}; "
            "check the server's load, or raise CADENCE_MODEL_TIMEOUT."
        )
    if _is_connection_error(exc):
        return (
            f"The model for the {node} cannot reach its server{where} ({what}); "
            "check CADENCE_LLM_BASE_URL (or the provider's status) and that the server is running."
        )
    if status in (401, 403):
        return (
            f"The model for the {node} was refused: the server{where} rejected the API key ({what}); "
            "check CADENCE_LLM_API_KEY or the provider's key variable (e.g. OPENAI_API_KEY)."
        )
    if status == 429:
        return (
            f"The model for the {node} is rate limited by the server{where} {tries} ({what}); "
            "wait and try again, or raise CADENCE_MODEL_MAX_RETRIES."
        )
    if status == 404:
        return (
            f"The model for the {node} was not found on the server{where} ({what}); "
            "check the model name in CADENCE_LLM and CADENCE_LLM_BASE_URL."
        )
    if is_context_overflow(exc) and embedded:
        return (
            f"The model for the {node} cannot take this much text ({what}); shorten the message "
            "(or raise CADENCE_LOCAL_MODEL_CONTEXT, the embedded model's context window)."
        )
    if is_context_overflow(exc):
        return (
            f"The model for the {node} cannot take this much text ({what}); shorten the message or start a "
            "new conversation (CADENCE_MODEL_INPUT_MAX_TOKENS trims the history sent to the model)."
        )
    what = what.rstrip(".")  # the line goes on: no "file.. Check"
    if embedded:  # no provider: its own errors (a worker that could not start) say what to do
        return f"The embedded model ({label}) for the {node} failed {tries}: {what}."
    return f"The model for the {node} failed {tries}: {what}. Check the provider's status, or try again."


_OVERFLOW_RE = re.compile(
    r"context (?:window|length)|maximum context|context_length_exceeded|too many tokens|prompt is too long|"
    r"input is too long|exceeds? (?:the )?(?:token|context) limit|requested tokens \(\d+\) exceed",
    re.IGNORECASE,
)
"""How providers and llama.cpp say a request holds more tokens than the model takes."""


def is_context_overflow(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the request was longer than the model's context."""
    return any(_OVERFLOW_RE.search(str(seen)) for seen in _causes(exc))
