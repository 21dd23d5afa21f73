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
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig

from cadence.backoff import retry_async
from cadence.conventions import FINAL_NODES
from cadence.errors import ModelCallError, TurnTimeoutError
from cadence.models.invoke import check_server, failure_message, model_endpoint, model_label
from cadence.models.retry import RetryPolicy, is_transient
from cadence.orchestration.safety import safe_messages
from cadence.orchestration.turn import ModelCallRecord, TurnContext

logger = logging.getLogger(__name__)


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


class _CallTimedOut(TimeoutError):
    """One attempt ran out of its time budget (a transient failure)."""

    def __init__(self, budget: float | None) -> None:
        super().__init__(f"model call timed out after {budget or 0:.1f}s")


def _original(exc: BaseException) -> BaseException:
    """The exception the model raised (a timed-out attempt: the ``TimeoutError`` itself)."""
    if isinstance(exc, _CallTimedOut) and exc.__cause__ is not None:
        return exc.__cause__
    return exc


def unbind(model: Runnable[Any, Any]) -> tuple[Runnable[Any, Any], dict[str, Any]]:
    """A chat model with bound arguments only (``bind_tools``, ``bind``) as the model and those arguments.

    ``RunnableBinding.ainvoke`` merges its own (empty) config into the caller's on every call
    (three ``ensure_config`` passes and two callback-manager copies) before calling the model
    with the bound arguments; calling the model with them directly is the same call for a
    binding without config or config factories. Any other runnable is returned as it is.
    """
    if (
        isinstance(model, RunnableBinding)
        and isinstance(model.bound, BaseChatModel)
        and not model.config
        and not model.config_factories
    ):
        return model.bound, model.kwargs  # read only: unpacked into each call
    return model, {}


def budget_of(context: TurnContext | None, per_call: float | None, keep_reserve: bool) -> float | None:
    """The time budget of one attempt: the per-call timeout bounded by the turn's deadline."""
    return context.budget(per_call, keep_reserve=keep_reserve) if context is not None else per_call


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
    target, bound_kwargs = unbind(model)
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
    # what the latest attempt saw, for the failure record and message
    last = {"attempt": 0, "t0": time.monotonic(), "budget": budget_of(context, per_call, keep_reserve)}
    expired_before_call = False

    async def attempt_call(attempt: int) -> Any:
        nonlocal expired_before_call
        last["attempt"] = attempt
        if context is not None and context.expired(keep_reserve=keep_reserve):
            expired_before_call = True
            raise TurnTimeoutError(f"the turn's deadline passed before the {node} could call its model")
        budget = budget_of(context, per_call, keep_reserve)
        last["budget"] = budget
        last["t0"] = time.monotonic()
        if budget is None:
            return await target.ainvoke(safe, config, **bound_kwargs)
        # the time limit runs in this task (asyncio.timeout), not in a task of its own per call
        try:
            async with asyncio.timeout(budget):
                return await target.ainvoke(safe, config, **bound_kwargs)
        except TimeoutError as exc:
            raise _CallTimedOut(budget) from exc

    def time_left() -> float | None:
        if context is None:
            return None
        return (context.remaining() or 0) - (context.final_reserve if keep_reserve else 0)

    def on_retry(attempt: int, exc: BaseException, wait: float) -> None:
        logger.info(
            "model call failed",
            extra={
                "node": node,
                "model": label,
                "attempt": attempt,
                "error": f"{type(_original(exc)).__name__}: {_original(exc)}",
                "retrying": True,
            },
        )

    try:
        result = await retry_async(
            attempt_call,
            retry_on=is_transient,
            max_attempts=policy.max_retries + 1,
            delay=policy.delay,
            max_time=policy.max_time,
            time_left=time_left,
            on_retry=on_retry,
        )
    except asyncio.CancelledError:
        # cut short from outside (a decision's time limit, the turn's end): still in the trace
        if context is not None and int(last["attempt"]) > 0:
            context.trace.model_calls.append(
                ModelCallRecord(
                    node=node,
                    model=label,
                    duration_ms=(time.monotonic() - float(last["t0"])) * 1000,
                    attempts=int(last["attempt"]),
                    error="cancelled: the call was cut short by its node's time limit or the turn's end",
                )
            )
        raise
    except Exception as failure:
        if expired_before_call:
            raise
        exc = _original(failure)
        attempt = int(last["attempt"])
        logger.warning(
            "model call failed",
            extra={
                "node": node,
                "model": label,
                "attempt": attempt,
                "error": f"{type(exc).__name__}: {exc}",
                "retrying": False,
            },
        )
        if context is not None:
            context.trace.model_calls.append(
                ModelCallRecord(
                    node=node,
                    model=label,
                    duration_ms=(time.monotonic() - float(last["t0"])) * 1000,
                    attempts=attempt,
                    error=f"{type(exc).__name__}: {exc}",
                )
            )
        if isinstance(exc, ModelCallError):
            raise  # already one classified line (e.g. the embedded model's worker crashed)
        if context is not None and context.expired(keep_reserve=keep_reserve):
            raise TurnTimeoutError(
                f"the turn's deadline passed while the {node} waited for its model"
            ) from exc
        timed_out = isinstance(failure, _CallTimedOut) or "timeout" in type(exc).__name__.lower()
        raise ModelCallError(
            failure_message(
                node,
                exc,
                attempts=attempt,
                timed_out=timed_out,
                budget=last["budget"],
                endpoint=endpoint,
                label=label,
            )
        ) from exc
    t0 = float(last["t0"])
    attempt = int(last["attempt"])
    if raw:
        raw_msg = result.get("raw") if isinstance(result, dict) else None
        usage = getattr(raw_msg, "usage_metadata", None) or {}
    else:
        if not isinstance(result, AIMessage):
            result = AIMessage(content=str(getattr(result, "content", result)))
        # an id of its own in the thread: some servers reuse response ids (Ollama's OpenAI endpoint draws
        # 'chatcmpl-N' from 999), and the history's reducer would replace the earlier message with it
        result = result.model_copy(update={"id": f"{result.id or 'msg'}-{uuid.uuid4().hex[:12]}"})
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
