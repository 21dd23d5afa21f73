"""Concurrency: 50 conversations on a real server run in parallel, not one after another."""

from __future__ import annotations

import asyncio
import time

import httpx

from test_server_support import ANSWER, scripted, serve

DELAY_S = 0.2  # per model call; a turn makes two calls (coordinator + synthesizer)
CONVERSATIONS = 50
TURNS = 2


async def _conversation(client: httpx.AsyncClient, user: str) -> None:
    thread = None
    for turn in range(TURNS):
        body = {"message": f"question {turn}", "user_id": user}
        if thread:
            body["thread_id"] = thread
        resp = await client.post("/api/v1/chat", json=body)
        assert resp.status_code == 200, resp.text
        assert resp.json()["response"] == ANSWER
        thread = resp.json()["thread_id"]


async def _run(url: str) -> tuple[float, float]:
    limits = httpx.Limits(max_connections=CONVERSATIONS + 5, max_keepalive_connections=CONVERSATIONS + 5)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await _conversation(client, "warmup")
        started = time.monotonic()
        await _conversation(client, "single")
        single = time.monotonic() - started

        started = time.monotonic()
        await asyncio.gather(*(_conversation(client, f"user{i}") for i in range(CONVERSATIONS)))
        parallel = time.monotonic() - started
        threads = (await client.get("/api/v1/threads", params={"user_id": "user7"})).json()["threads"]
        assert len(threads) == 1 and threads[0]["turns"] == TURNS
    return single, parallel


def test_fifty_concurrent_conversations(tmp_path) -> None:
    with serve(scripted(delay_s=DELAY_S), database_url=f"sqlite:///{tmp_path / 'c.db'}") as url:
        single, parallel = asyncio.run(_run(url))
    serial = CONVERSATIONS * single
    assert single >= TURNS * 2 * DELAY_S  # the model really sleeps
    assert parallel < 0.4 * serial, f"50 conversations took {parallel:.2f}s; one takes {single:.2f}s"
