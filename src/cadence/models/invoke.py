"""One way to call a model: message safety, timeout, deadline, retries and usage accounting.

Every node calls its model through :func:`call_model`, so that no model is sent an
unanswered tool call, every call has a timeout bounded by the turn's deadline,
transient errors are retried with backoff, and token usage reported by the
provider is recorded in the turn's trace.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig

from cadence.errors import ModelCallError, TurnTimeoutError
from cadence.models.retry import RetryPolicy, is_transient
from cadence.orchestration.nodes import FINAL_NODES
from cadence.orchestration.safety import safe_messages
from cadence.orchestration.turn import ModelCallRecord, TurnContext

logger = logging.getLogger(__name__)


def model_label(model: Runnable[Any, Any] | BaseChatModel) -> str:
    """A readable name of the model behind a (possibly bound) runnable."""
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


def model_endpoint(model: Runnable[Any, Any] | BaseChatModel) -> str | None:
    """The base URL of the server behind a (possibly bound) model, when it names one."""
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


def _is_connection_error(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        name = type(seen).__name__.lower()
        if isinstance(seen, ConnectionError) or "connect" in name:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def failure_message(
    node: str,
    exc: BaseException,
    *,
    attempts: int,
    timed_out: bool,
    budget: float | None,
    endpoint: str | None,
) -> str:
    """One line saying why the model call failed and what to check (URL, key, limits), by kind of error."""
    what = f"{type(exc).__name__}: {_clip(str(exc))}"
    where = f" at {endpoint}" if endpoint else ""
    tries = f"after {attempts} attempt(s)"
    status = _status(exc)
    if timed_out:
        wait = f"{budget:g} s" if budget is not None else "its timeout"
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
    return f"The model for the {node} failed {tries}: {what}. Check the provider's status, or try again."


def retry_policy_for(context: TurnContext | None) -> RetryPolicy:
    """The retry policy from the turn's settings (defaults without a context)."""
    if context is None:
        return RetryPolicy()
    s = context.settings
    return RetryPolicy(
        max_retries=s.model_max_retries,
        base_delay=s.model_retry_base_delay,
        max_delay=s.model_retry_max_delay,
        max_time=s.model_retry_max_time,
    )


async def call_model(
    model: Runnable[Any, Any],
    messages: Sequence[BaseMessage],
    *,
    node: str,
    context: TurnContext | None,
    config: RunnableConfig | None = None,
    timeout: float | None = None,
    raw: bool = False,
) -> Any:
    """Call ``model`` with a safe copy of ``messages`` and return its ``AIMessage``.

    With ``raw=True`` the runnable's output is returned as it is (structured output).
    Raises :class:`ModelCallError` after the retries are spent (or on a permanent
    error) and :class:`TurnTimeoutError` when the turn's deadline has passed.
    """
    policy = retry_policy_for(context)
    per_call = timeout
    if context is not None:
        per_call = min(timeout or context.settings.model_timeout, context.settings.model_timeout)
    keep_reserve = node not in FINAL_NODES
    safe = safe_messages(messages)
    label = model_label(model)
    endpoint = model_endpoint(model)
    if context is not None and endpoint is not None and endpoint == context.settings.llm_base_url:
        t0 = time.monotonic()
        try:
            await check_server(endpoint, context.settings.model_connect_timeout, node)
        except ModelCallError as exc:
            context.trace.model_calls.append(
                ModelCallRecord(
                    node=node,
                    model=label,
                    duration_ms=(time.monotonic() - t0) * 1000,
                    attempts=1,
                    error=exc.message,
                )
            )
            raise
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        if context is not None and context.expired(keep_reserve=keep_reserve):
            raise TurnTimeoutError(f"the turn's deadline passed before the {node} could call its model")
        budget = context.budget(per_call, keep_reserve=keep_reserve) if context is not None else per_call
        t0 = time.monotonic()
        try:
            if budget is None:
                result = await model.ainvoke(safe, config)
            else:
                result = await asyncio.wait_for(model.ainvoke(safe, config), timeout=budget)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # classified below
            exc_to_check: BaseException = exc
            if isinstance(exc, asyncio.TimeoutError | TimeoutError):
                exc_to_check = TimeoutError(f"model call timed out after {budget:.1f}s")
            elapsed = time.monotonic() - started
            transient = is_transient(exc_to_check)
            deadline_left = None
            if context is not None:
                deadline_left = (context.remaining() or 0) - (context.final_reserve if keep_reserve else 0)
            delay = policy.delay(attempt)
            can_retry = (
                transient
                and attempt <= policy.max_retries
                and elapsed + delay < policy.max_time
                and (deadline_left is None or deadline_left > delay)
            )
            (logger.info if can_retry else logger.warning)(
                "model call failed",
                extra={
                    "node": node,
                    "model": label,
                    "attempt": attempt,
                    "error": f"{type(exc).__name__}: {exc}",
                    "retrying": can_retry,
                },
            )
            if can_retry:
                await asyncio.sleep(delay)
                continue
            if context is not None:
                context.trace.model_calls.append(
                    ModelCallRecord(
                        node=node,
                        model=label,
                        duration_ms=(time.monotonic() - t0) * 1000,
                        attempts=attempt,
                        error=f"{type(exc).__name__}: {exc}",
                    )
                )
            if isinstance(exc, ModelCallError):
                raise exc  # already one classified line (e.g. the embedded model's worker crashed)
            if context is not None and context.expired(keep_reserve=keep_reserve):
                raise TurnTimeoutError(
                    f"the turn's deadline passed while the {node} waited for its model"
                ) from exc
            timed_out = isinstance(exc_to_check, TimeoutError) or "timeout" in type(exc).__name__.lower()
            raise ModelCallError(
                failure_message(
                    node, exc, attempts=attempt, timed_out=timed_out, budget=budget, endpoint=endpoint
                )
            ) from exc
        if raw:
            raw_msg = result.get("raw") if isinstance(result, dict) else None
            usage = getattr(raw_msg, "usage_metadata", None) or {}
        else:
            if not isinstance(result, AIMessage):
                result = AIMessage(content=str(getattr(result, "content", result)))
            usage = result.usage_metadata or {}
        if context is not None:
            context.trace.model_calls.append(
                ModelCallRecord(
                    node=node,
                    model=label,
                    input_tokens=int(usage.get("input_tokens", 0) or 0),
                    output_tokens=int(usage.get("output_tokens", 0) or 0),
                    duration_ms=(time.monotonic() - t0) * 1000,
                    attempts=attempt,
                )
            )
        return result
