"""The streaming helpers shared by the embedded and the scripted model."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import aclosing
from typing import Any

import pytest
from langchain_core.callbacks import AsyncCallbackHandler, AsyncCallbackManagerForLLMRun
from langchain_core.messages import AIMessageChunk, BaseMessageChunk

from cadence.models.chunks import stream_in_thread


class Tokens(AsyncCallbackHandler):
    """Records the tokens reported to a run manager."""

    def __init__(self) -> None:
        self.tokens: list[str] = []

    async def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        """Record one token."""
        self.tokens.append(token)


def manager(handler: Tokens) -> AsyncCallbackManagerForLLMRun:
    """A run manager reporting to ``handler``."""
    from uuid import uuid4

    return AsyncCallbackManagerForLLMRun(
        run_id=uuid4(), handlers=[handler], inheritable_handlers=[], parent_run_id=None
    )


async def test_pieces_arrive_in_order_and_their_text_is_reported() -> None:
    handler = Tokens()
    pieces = [AIMessageChunk(content="Hello"), AIMessageChunk(content=""), AIMessageChunk(content=" world")]
    chunks = [c async for c in stream_in_thread(lambda cancel: iter(pieces), manager(handler))]
    assert [c.message.content for c in chunks] == ["Hello", "", " world"]
    assert handler.tokens == ["Hello", " world"]


async def test_the_producers_error_is_raised_to_the_caller() -> None:
    def produce(cancel: threading.Event) -> Iterator[BaseMessageChunk]:
        yield AIMessageChunk(content="a")
        raise RuntimeError("generation failed")

    seen: list[str] = []
    with pytest.raises(RuntimeError, match="generation failed"):
        async for chunk in stream_in_thread(produce, None):
            seen.append(chunk.message.content)
    assert seen == ["a"]


async def test_stopping_early_tells_the_producer_to_stop() -> None:
    stopped = threading.Event()
    produced: list[int] = []

    def produce(cancel: threading.Event) -> Iterator[BaseMessageChunk]:
        for i in range(10_000):
            if cancel.wait(0.001):
                stopped.set()
                return
            produced.append(i)
            yield AIMessageChunk(content=str(i))

    stream = stream_in_thread(produce, None)
    async with aclosing(stream):
        async for _chunk in stream:
            break
    # generous bound: the producer notices the cancel at its next piece
    assert stopped.wait(30)
    assert len(produced) < 10_000
