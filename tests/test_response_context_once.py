"""The final-answer nodes build their response context once per call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from tests.conftest import make_settings

from cadence.orchestration.response_context import ResponseContext, ResponseContextBuilder
from cadence.orchestration.suspend import SuspendNode
from cadence.orchestration.synthesizer import FinalAnswerNode, Synthesizer
from cadence.testing import ScriptedChatModel


class CountingBuilder(ResponseContextBuilder):
    """A response-context builder that counts its builds."""

    def __init__(self) -> None:
        super().__init__({})
        self.builds = 0

    def build(self, state: Mapping[str, Any]) -> ResponseContext:
        """Count, then build as usual."""
        self.builds += 1
        return super().build(state)


@pytest.mark.parametrize("node_class", [Synthesizer, SuspendNode])
async def test_final_answer_node_builds_the_response_context_once(
    node_class: type[FinalAnswerNode],
) -> None:
    model = ScriptedChatModel.from_items([{"content": "Hello there."}])
    node = node_class(model, {}, make_settings())
    builder = CountingBuilder()
    node.context_builder = builder
    state = {"messages": [HumanMessage("Hi")], "tone": "formal"}
    update = await node(state, {}, None)
    assert isinstance(update["messages"][-1], AIMessage)
    assert builder.builds == 1


def test_build_messages_still_builds_the_context_when_not_given() -> None:
    node = Synthesizer(ScriptedChatModel.from_items([]), {}, make_settings())
    builder = CountingBuilder()
    node.context_builder = builder
    messages = node.build_messages({"messages": [HumanMessage("Hi")]}, make_settings())
    assert builder.builds == 1 and messages[-1].content == "Hi"
