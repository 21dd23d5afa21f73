"""``call_model``: a tool binding is called as its model with the bound arguments."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableBinding
from langchain_core.tools import tool

from cadence.orchestration.model_call import call_model, unbind
from cadence.testing import ScriptedChatModel


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return term


class StartRecorder(AsyncCallbackHandler):
    """Records the tags and metadata of every chat model start."""

    def __init__(self) -> None:
        self.starts: list[tuple[list[str], dict[str, Any]]] = []

    async def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.starts.append((list(kwargs.get("tags") or []), dict(kwargs.get("metadata") or {})))


def test_unbind_takes_a_plain_tool_binding_apart() -> None:
    model = ScriptedChatModel.from_items([])
    bound = model.bind_tools([lookup], tool_choice="auto")
    target, kwargs = unbind(bound)
    assert target is model
    assert kwargs["tool_choice"] == "auto"
    assert [t["function"]["name"] for t in kwargs["tools"]] == ["lookup"]


def test_unbind_leaves_bindings_with_config_and_other_runnables_alone() -> None:
    model = ScriptedChatModel.from_items([])
    configured = RunnableBinding(bound=model, kwargs={"stop": ["x"]}, config={"tags": ["mine"]})
    nested = model.bind_tools([lookup]).with_config(tags=["mine"])
    assert unbind(configured) == (configured, {})
    assert unbind(nested) == (nested, {})
    assert unbind(model) == (model, {})


async def test_call_model_sends_the_bound_tools_and_the_callers_config() -> None:
    model = ScriptedChatModel.from_items([{"content": "found it"}])
    recorder = StartRecorder()
    config = {"callbacks": [recorder], "tags": ["turn"], "metadata": {"thread": "t-1"}}
    out = await call_model(
        model.bind_tools([lookup], tool_choice="auto"),
        [HumanMessage(content="look up x")],
        node="agent",
        context=None,
        config=config,  # type: ignore[arg-type]
    )
    assert out.content == "found it"
    assert model.records[0].tools == ["lookup"]
    assert model.records[0].kwargs.get("tool_choice") == "auto"
    [(tags, metadata)] = recorder.starts
    assert tags == ["turn"]
    assert metadata["thread"] == "t-1"
