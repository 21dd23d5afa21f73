"""The official ``openai`` client against the OpenAI-compatible endpoints of a real server."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from cadence.testing import ScriptedChatModel
from test_server_support import ANSWER, scripted, serve


def client_for(url: str, key: str = "unused") -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=30)


def test_openai_client_non_streamed_and_streamed() -> None:
    with serve() as url:
        client = client_for(url)
        completion = client.chat.completions.create(
            model="cadence", messages=[{"role": "user", "content": "Say hello"}], user="carol"
        )
        assert completion.choices[0].message.content == ANSWER
        assert completion.choices[0].finish_reason == "stop"
        assert completion.usage is not None and completion.usage.total_tokens > 0
        thread = completion.model_extra["thread_id"]

        stream = client.chat.completions.create(
            model="cadence:concise",
            messages=[{"role": "user", "content": "Stream it"}],
            stream=True,
            stream_options={"include_usage": True},
            user="carol",
            extra_body={"thread_id": thread},
        )
        chunks = list(stream)
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == ANSWER
        assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1
        assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
        assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
        assert {c.model_extra["thread_id"] for c in chunks} == {thread}

        # the thread continued: carol's thread now holds both turns
        detail = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "carol"}).json()
        assert [m["content"] for m in detail["messages"] if m["role"] == "user"] == ["Say hello", "Stream it"]


def test_openai_thread_header_tone_models_and_errors() -> None:
    with serve() as url:
        client = client_for(url)
        models = [m.id for m in client.models.list()]
        assert models[0] == "cadence" and "cadence:formal" in models and "cadence:supervisor" in models
        for model in ("cadence:supervisor:planner", "cadence:formal:concise"):  # two modes, two tones
            with pytest.raises(openai.UnprocessableEntityError, match="names two"):
                client.chat.completions.create(model=model, messages=[{"role": "user", "content": "hi"}])

        raw = client.chat.completions.with_raw_response.create(
            model="cadence:formal", messages=[{"role": "user", "content": "hi"}]
        )
        thread = raw.headers["x-cadence-thread-id"]
        assert raw.parse().model_extra["thread_id"] == thread
        again = client.chat.completions.create(
            model="cadence",
            messages=[{"role": "user", "content": "more"}],
            extra_headers={"X-Cadence-Thread-Id": thread},
        )
        assert again.model_extra["thread_id"] == thread

        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.UnprocessableEntityError):
            client.chat.completions.create(
                model="cadence:grumpy", messages=[{"role": "user", "content": "hi"}]
            )
        with pytest.raises(openai.UnprocessableEntityError):
            client.chat.completions.create(model="cadence", messages=[{"role": "assistant", "content": "hi"}])


def test_openai_stateless_history_seeds_a_new_thread() -> None:
    model = ScriptedChatModel.from_items([{"content": ANSWER}], loop=True)
    with serve(model) as url:
        completion = client_for(url).chat.completions.create(
            model="cadence",
            messages=[
                {"role": "system", "content": "ignored"},
                {"role": "user", "content": "My name is Ada."},
                {"role": "assistant", "content": "Nice to meet you, Ada."},
                {"role": "user", "content": "What is my name?"},
            ],
            temperature=0.2,  # unknown to Cadence: ignored
        )
        thread = completion.model_extra["thread_id"]
        detail = httpx.get(f"{url}/api/v1/threads/{thread}").json()
        assert detail["title"] == "My name is Ada."  # the thread's first message (was the last question)
        messages = detail["messages"]
        assert [m["content"] for m in messages] == [
            "My name is Ada.",
            "Nice to meet you, Ada.",
            "What is my name?",
            ANSWER,
        ]
        # the model saw the seeded history
        seen = [str(m.content) for m in model.records[-1].messages]
        assert any("My name is Ada." in s for s in seen)


def test_openai_keys_and_model_failure() -> None:
    model = ScriptedChatModel.from_items([{"raise": {"type": "error", "message": "boom"}}], loop=True)
    with serve(model, api_keys=["k1"]) as url:
        with pytest.raises(openai.AuthenticationError):
            client_for(url, "wrong").models.list()
        client = client_for(url, "k1")
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(model="cadence", messages=[{"role": "user", "content": "hi"}])
        assert info.value.status_code == 502
        assert info.value.response.headers["x-cadence-thread-id"]
        assert info.value.body["code"] == "model_error" and info.value.body["thread_id"]
        with pytest.raises(openai.APIError, match="boom"):
            list(
                client.chat.completions.create(
                    model="cadence", messages=[{"role": "user", "content": "hi"}], stream=True
                )
            )


def test_openai_stream_ends_with_the_answer_the_final_check_kept() -> None:
    """A streamed draft the final-answer check replaces is followed by the kept answer; ``n`` must be 1."""
    from conftest import FINALIZE, call, goto

    draft = "The answer is 37."  # states a number no tool found: replaced by the check
    script = [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": draft}]
    with serve(ScriptedChatModel.from_items(script), builtin_plugins=["math"]) as url:
        client = client_for(url)
        stream = client.chat.completions.create(
            model="cadence", messages=[{"role": "user", "content": "What is 2 + 2?"}], stream=True
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        thread = httpx.get(f"{url}/api/v1/threads").json()["threads"][0]["thread_id"]
        detail = httpx.get(f"{url}/api/v1/threads/{thread}").json()
        kept = [m["content"] for m in detail["messages"] if m["role"] == "assistant"][-1]
        assert kept != draft and "4" in kept
        assert text.startswith(draft) and text.endswith(f"\n\n{kept}")

        for n in (0, 3):
            with pytest.raises(openai.UnprocessableEntityError):
                client.chat.completions.create(
                    model="cadence", messages=[{"role": "user", "content": "hi"}], n=n
                )


def test_openai_answer_that_cannot_be_encoded_is_sent_with_replacement_characters() -> None:
    """A lone surrogate in the model's answer: U+FFFD in its place, streamed or not; the stream ends."""
    with serve(scripted(text="bad \ud800 text")) as url:
        client = client_for(url)
        messages = [{"role": "user", "content": "hi"}]
        completion = client.chat.completions.create(model="cadence", messages=messages)
        assert completion.choices[0].message.content == "bad \ufffd text"
        body = {"model": "cadence", "stream": True, "messages": messages}
        raw = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30).text
        data = [line[6:] for line in raw.splitlines() if line.startswith("data: ")]
        assert data[-1] == "[DONE]"
        chunks = [json.loads(d) for d in data[:-1]]
        assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == "bad \ufffd text"
        assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_openai_text_parts_need_string_text() -> None:
    with serve() as url:
        bad_parts: list[dict[str, object]] = [
            {"type": "text", "text": None},
            {"type": "text", "text": {"a": 1}},
            {"type": "text"},
            {"text": 5},
        ]
        for part in bad_parts:
            for messages in (
                [{"role": "user", "content": [part]}],
                [{"role": "user", "content": [part]}, {"role": "user", "content": "hi"}],
            ):
                body = {"model": "cadence", "messages": messages}
                resp = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30)
                assert resp.status_code == 422, (part, resp.text)
                error = resp.json()["error"]
                assert error["code"] == "invalid_value" and error["type"] == "invalid_request_error"
                assert error["message"].startswith("messages.0.content: a text part needs a string 'text'")
        assert httpx.get(f"{url}/api/v1/threads").json()["threads"] == []  # nothing was stored
        parts = [{"type": "text", "text": "Say "}, {"type": "image_url", "image_url": {}}, {"text": "hello"}]
        body = {"model": "cadence", "messages": [{"role": "user", "content": parts}]}
        thread = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30).json()["thread_id"]
        detail = httpx.get(f"{url}/api/v1/threads/{thread}").json()
        assert detail["messages"][0]["content"] == "Say hello"
