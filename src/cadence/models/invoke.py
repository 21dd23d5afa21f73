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
            logger.warning(
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
            if context is not None and context.expired(keep_reserve=keep_reserve):
                raise TurnTimeoutError(
                    f"the turn's deadline passed while the {node} waited for its model"
                ) from exc
            kind = "timed out" if isinstance(exc_to_check, TimeoutError) else "failed"
            raise ModelCallError(
                f"The model for the {node} {kind} after {attempt} attempt(s): {type(exc).__name__}: {exc}. "
                "Check the provider's status, your API key and rate limits, or try again."
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
