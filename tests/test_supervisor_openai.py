"""The mode on the OpenAI-compatible endpoint: a model-name suffix or a top-level ``mode``."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from cadence.testing import ScriptedChatModel
from test_server_support import serve

SUPERVISOR_TURN: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "transfer_to_math", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "15 * 23"}}]},
    {"content": "15 * 23 = 345"},
]


def client_for(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=30)


@pytest.mark.parametrize(
    ("model_name", "extra"),
    [("cadence:supervisor", {}), ("cadence:supervisor:concise", {}), ("cadence", {"mode": "supervisor"})],
)
def test_the_mode_by_model_name_or_extra_body(model_name: str, extra: dict[str, Any]) -> None:
    model = ScriptedChatModel.from_items(SUPERVISOR_TURN)
    with serve(model, builtin_plugins=["math"]) as url:
        completion = client_for(url).chat.completions.create(
            model=model_name,
            messages=[{"role": "user", "content": "Calculate 15 * 23"}],
            extra_body=extra or None,
        )
        assert completion.choices[0].message.content == "15 * 23 = 345"
        assert [r.node for r in model.records] == ["supervisor", "math_agent", "math_agent"]
        thread = completion.model_extra["thread_id"]
        trace = httpx.get(f"{url}/api/v1/threads/{thread}").json()
        assert trace["messages"][-1]["content"] == "15 * 23 = 345"


def test_an_unknown_mode_is_rejected() -> None:
    with serve() as url:
        client = client_for(url)
        with pytest.raises(openai.UnprocessableEntityError) as info:
            client.chat.completions.create(
                model="cadence", messages=[{"role": "user", "content": "hi"}], extra_body={"mode": "swarm"}
            )
        assert info.value.body["code"] == "unknown_mode"
        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(
                model="cadence:a:b:c", messages=[{"role": "user", "content": "hi"}]
            )
