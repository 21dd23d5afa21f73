"""Round-2 probes of the HTTP server: what real clients (the official ``openai`` client, curl shapes
from docs/api.md) send and expect."""

from __future__ import annotations

import httpx
import openai
import pytest

from cadence.testing import ScriptedChatModel
from test_server_support import serve


def test_a_failed_turn_is_not_retried_by_the_openai_client() -> None:
    """The client retries 5xx twice by default: a failed turn ran three times (the question three times in
    the thread). The failure says ``x-should-retry: false``; /api/v1/chat's failures too."""
    model = ScriptedChatModel.from_items([{"raise": {"type": "error", "message": "boom"}}], loop=True)
    with serve(model) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=2, timeout=30)
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(
                model="cadence", messages=[{"role": "user", "content": "hi"}], extra_body={"thread_id": "t1"}
            )
        assert info.value.response.headers["x-should-retry"] == "false"
        detail = httpx.get(f"{url}/api/v1/threads/t1").json()
        assert detail["turns"] == 1
        assert [m["content"] for m in detail["messages"] if m["role"] == "user"] == ["hi"]

        failed = httpx.post(f"{url}/api/v1/chat", json={"message": "hi"}, timeout=30)
        assert failed.status_code == 502 and failed.headers["x-should-retry"] == "false"


def test_the_openai_client_retrieves_a_model() -> None:
    """``client.models.retrieve`` (GET /v1/models/{model}, which frameworks call to check a model) was a 404
    for every model, ``cadence`` included."""
    with serve() as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=30)
        for name in ("cadence", "cadence:formal", "cadence:supervisor", "cadence:supervisor:concise"):
            card = client.models.retrieve(name)
            assert (card.id, card.object, card.owned_by) == (name, "model", "cadence")
        for name in ("gpt-4o", "cadence:chatty"):
            with pytest.raises(openai.NotFoundError) as info:
                client.models.retrieve(name)
            assert info.value.body["code"] == "model_not_found"
            assert info.value.body["type"] == "not_found_error"
