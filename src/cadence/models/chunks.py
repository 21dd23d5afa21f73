"""Streaming helpers shared by Cadence's own chat models (embedded and scripted).

How a chunk reaches LangChain is the same for both models: its text is reported to the run
manager as a new token (what LangGraph's ``messages`` stream reads), then the chunk is yielded.
The embedded model generates in a worker thread; :func:`stream_in_thread` hands its pieces to
the event loop as they come.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessageChunk, ToolCall, ToolCallChunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool


def bind_openai_tools(
    model: BaseChatModel, tools: Sequence[Any], tool_choice: str | None, **kwargs: Any
) -> Runnable[LanguageModelInput, AIMessage]:
    """``model`` bound to ``tools`` as OpenAI-style schemas (and ``tool_choice``) in each call's kwargs."""
    if tool_choice is not None:
        kwargs["tool_choice"] = tool_choice
    return model.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)


def tool_call_chunks(calls: Sequence[ToolCall]) -> list[ToolCallChunk]:
    """Complete tool calls as the chunks a streaming chat model emits (arguments as JSON text)."""
    return [
        ToolCallChunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i, type="tool_call_chunk")
        for i, c in enumerate(calls)
    ]


def new_token(chunk: ChatGenerationChunk) -> str:
    """The text a chunk adds, reported to the run manager as a new token (empty: nothing to report)."""
    content = chunk.message.content
    return content if isinstance(content, str) else ""


def report_tokens(
    chunks: Iterable[ChatGenerationChunk], run_manager: CallbackManagerForLLMRun | None
) -> Iterator[ChatGenerationChunk]:
    """Each chunk, its text first reported to ``run_manager`` as a new token (synchronous streams)."""
    for chunk in chunks:
        token = new_token(chunk)
        if run_manager is not None and token:
            run_manager.on_llm_new_token(token, chunk=chunk)
        yield chunk


async def areport_tokens(
    chunks: Iterable[ChatGenerationChunk], run_manager: AsyncCallbackManagerForLLMRun | None
) -> AsyncIterator[ChatGenerationChunk]:
    """Each chunk, its text first reported to ``run_manager`` as a new token (asynchronous streams)."""
    for chunk in chunks:
        token = new_token(chunk)
        if run_manager is not None and token:
            await run_manager.on_llm_new_token(token, chunk=chunk)
        yield chunk


async def stream_in_thread(
    produce: Callable[[threading.Event], Iterable[BaseMessageChunk]],
    run_manager: AsyncCallbackManagerForLLMRun | None,
    executor: Executor | None = None,
) -> AsyncGenerator[ChatGenerationChunk, None]:
    """The pieces a blocking producer yields in a worker thread, as chunks on the event loop.

    ``produce(cancel)`` runs in ``executor`` (None: the loop's default one; never on the loop); each piece
    reaches the caller as it comes, its text reported to ``run_manager`` as a new token, and
    the producer's exception is raised here. When the caller stops early (close it, e.g. with
    ``contextlib.aclosing``), ``cancel`` is set so the producer stops at its next piece; what it
    raises after that is dropped.
    """
    cancel = threading.Event()
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def run() -> None:
        try:
            for piece in produce(cancel):
                loop.call_soon_threadsafe(queue.put_nowait, ("chunk", piece))
        except BaseException as exc:  # delivered to the consumer
            loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))
        else:
            loop.call_soon_threadsafe(queue.put_nowait, ("done", None))

    worker = loop.run_in_executor(executor, run)
    try:
        while True:
            kind, value = await queue.get()
            if kind == "done":
                break
            if kind == "error":
                raise value
            chunk = ChatGenerationChunk(message=value)
            token = new_token(chunk)
            if run_manager is not None and token:
                await run_manager.on_llm_new_token(token, chunk=chunk)
            yield chunk
    finally:
        cancel.set()  # on early exit the producer stops at its next piece
        worker.add_done_callback(lambda f: f.exception() if not f.cancelled() else None)
