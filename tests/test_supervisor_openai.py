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


TWO_AGENT_TURN: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "transfer_to_math", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "2026 - 2018"}}]},
    {"content": "It has been 8 years."},
    {"tool_calls": [{"name": "transfer_to_info", "args": {}}]},
    {"content": "Python 3.7 came out in 2018."},
    {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
    {"content": "Python 3.7 came out in 2018, 8 years ago."},
]


@pytest.mark.parametrize(
    ("script", "question", "answer"),
    [
        (
            TWO_AGENT_TURN,
            "How many years since Python 3.7 came out?",
            "Python 3.7 came out in 2018, 8 years ago.",
        ),
        (
            SUPERVISOR_TURN,
            "Calculate 15 * 23",
            "15 * 23 = 345",
        ),  # the agent's answer stands: it is the answer
    ],
)
def test_a_streamed_completion_carries_the_answer_not_the_agents_answers(
    script: list[dict[str, Any]], question: str, answer: str
) -> None:
    # the agents' tokens are in Cadence's own stream (naming their nodes); the completion's content is the
    # turn's answer alone: streamed content cannot be taken back
    model = ScriptedChatModel.from_items(script)
    with serve(model, builtin_plugins=["math", "info"]) as url:
        stream = client_for(url).chat.completions.create(
            model="cadence:supervisor", messages=[{"role": "user", "content": question}], stream=True
        )
        content = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
        assert content == answer
