"""Request size and time limits: bodies larger than ``CADENCE_MAX_REQUEST_BYTES`` get 413 before any
parsing; a body that does not arrive within ``CADENCE_REQUEST_BODY_TIMEOUT_S`` (a client sending less than
its ``Content-Length``, or trickling it) gets 408 and the connection is closed.

A pure ASGI middleware (streaming-safe). A declared ``Content-Length`` over the limit
is refused without keeping the body; a body without one (chunked) is read up to the
limit and refused as soon as it goes over, so an endless upload cannot fill memory.

Before the 413 is sent, the rest of the upload is read and dropped (at most
:data:`DRAIN_FACTOR` times the limit, for at most ``CADENCE_REQUEST_DRAIN_S``): the response
closes the connection, and closing a socket with unread data resets it, which can destroy
the 413 before the client reads it. A client that waits for ``100 Continue`` has sent
nothing yet and gets the 413 at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import MutableMapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cadence.server.errors import error_body

REQUEST_TOO_LARGE = "request_too_large"
DRAIN_FACTOR = 8
"""An over-limit upload is read and dropped up to this many times ``CADENCE_MAX_REQUEST_BYTES``
(for at most ``CADENCE_REQUEST_DRAIN_S``); beyond that the connection is closed as it is."""


REQUEST_TIMEOUT = "request_timeout"
"""The error code of a request whose body did not arrive within ``CADENCE_REQUEST_BODY_TIMEOUT_S``."""


def body_timeout_message(seconds: float) -> str:
    """The error message of a request whose body did not arrive in time."""
    return (
        f"The request body did not arrive within {seconds:g} s (CADENCE_REQUEST_BODY_TIMEOUT_S); "
        "send the whole body it announces."
    )


def too_large_message(limit: int) -> str:
    """The error message of a request over the limit."""
    return f"The request is larger than {limit} bytes (CADENCE_MAX_REQUEST_BYTES); send less."


class BodyLimitMiddleware:
    """Answer 413 ``request_too_large`` to HTTP requests whose body exceeds ``max_bytes``, and 408
    ``request_timeout`` to those whose body does not arrive within ``body_timeout_s``."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, drain_s: float = 10.0, body_timeout_s: float = 30.0
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.drain_s = drain_s
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            if declared <= DRAIN_FACTOR * self.max_bytes and not _expects_continue(scope):
                await self._drain(receive, 0)
            await self._reject(scope, send)
            return
        # read the body (bounded in size and time) before handing it on: the server stops at a declared
        # length; without one (chunked) the size is counted here
        buffered: list[Message] = []
        size = 0
        try:
            async with asyncio.timeout(self.body_timeout_s):
                while True:
                    message = await receive()
                    buffered.append(message)
                    if message["type"] != "http.request":
                        break
                    size += len(message.get("body", b""))
                    if size > self.max_bytes:
                        if message.get("more_body", False):
                            await self._drain(receive, size)
                        await self._reject(scope, send)
                        return
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await self._reject(scope, send, timed_out=True)
            return

        async def replay() -> Message:
            if buffered:
                return buffered.pop(0)
            return await receive()

        await self.app(scope, replay, send)

    async def _drain(self, receive: Receive, read: int) -> None:
        """Read and drop the rest of the request body, within the drain bounds."""
        if self.drain_s <= 0:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.drain_s):
                while read <= DRAIN_FACTOR * self.max_bytes:
                    message = await receive()
                    if message["type"] != "http.request" or not message.get("more_body", False):
                        return
                    read += len(message.get("body", b""))

    async def _reject(self, scope: Scope, send: Send, *, timed_out: bool = False) -> None:
        openai = str(scope.get("path", "")).startswith("/v1/")
        if timed_out:
            status = 408
            body = error_body(
                REQUEST_TIMEOUT, body_timeout_message(self.body_timeout_s), status=408, openai=openai
            )
        else:
            status = 413
            body = error_body(REQUEST_TOO_LARGE, too_large_message(self.max_bytes), status=413, openai=openai)
        data = json.dumps(body).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})


def _expects_continue(scope: MutableMapping[str, Any]) -> bool:
    return any(
        key.lower() == b"expect" and value.lower() == b"100-continue"
        for key, value in scope.get("headers") or []
    )


def _content_length(scope: MutableMapping[str, Any]) -> int | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
