"""The scripted model (``cadence.testing``): a script with a mistake is refused when it is loaded,
naming the item, rather than failing mid-turn as if the model's provider had."""

from __future__ import annotations

from typing import Any

import pytest

from cadence.errors import ValidationError
from cadence.testing import ScriptedChatModel


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ({"content": 5}, "'content' must be text"),
        ({"tool_calls": {"name": "x"}}, "'tool_calls' must be a list"),
        ({"tool_calls": [{"name": "calculate", "args": [1, 2]}]}, "needs 'args' as an object"),
        ({"tool_calls": [{"args": {}}]}, "without a string 'name'"),
        (  # OpenAI's key: the call ran with no arguments at all
            {"tool_calls": [{"name": "calculate", "arguments": {"expression": "1 + 1"}}]},
            "tool call 'calculate' has unknown keys ['arguments']; allowed: ['args', 'id', 'name']",
        ),
        ({"content": "x", "delay_s": "slow"}, "'delay_s' must be a number"),
        ({"content": "x", "delay_s": -1}, "'delay_s' must be a number"),
        ({"content": "x", "usage": 5}, "'usage' must be an object"),
        (
            {"raise": {"type": "error", "msg": "boom"}},
            "'raise' has unknown keys ['msg']; allowed: ['message', 'type']",
        ),
        ({"content": "x", "usage": {"input_tokens": "many"}}, "'usage' must be an object"),
    ],
)
def test_a_bad_item_is_refused_at_loading(item: dict[str, Any], said: str) -> None:
    with pytest.raises(ValidationError) as info:
        ScriptedChatModel.from_items([{"content": "fine"}, item])
    assert "item 1" in info.value.message and said in info.value.message


def test_good_items_load() -> None:
    ScriptedChatModel.from_items(
        [
            {"content": "x", "delay_s": 0.5, "usage": {"input_tokens": 3, "output_tokens": 1}},
            {"tool_calls": [{"name": "calculate", "args": {"expression": "1 + 1"}}]},
            {"tool_calls": [{"name": "calculate", "args": '{"expression": "1"}', "id": "call_1"}]},
            {"content": [{"type": "text", "text": "parts"}]},
        ]
    )


async def test_content_given_as_parts_is_answered_and_streamed_as_its_text() -> None:
    """A list of content parts (which the script's check accepts) had raised "'list' object has no attribute
    'split'" when its tokens were counted, and streamed as nothing."""
    from cadence.testing import ScriptedChatModel

    parts = [{"type": "text", "text": "Hello, parts answer."}]
    model = ScriptedChatModel.from_items([{"content": parts}, {"content": parts}])
    said = await model.ainvoke("hi")
    assert said.content == parts and said.usage_metadata["output_tokens"] == 3
    streamed = None
    async for chunk in model.astream("hi"):
        streamed = chunk if streamed is None else streamed + chunk
    assert streamed is not None and streamed.content == "Hello, parts answer."
