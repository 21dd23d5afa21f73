"""A lean HTTP/1.1 load client for the concurrency section: one keep-alive connection per conversation.

The load generator shares the benchmark machine's cores with the server (and PostgreSQL), so
every millisecond of client CPU per request is a millisecond the server does not get. httpx
costs about 0.8 ms of CPU per request here; this client writes a pre-encoded request and reads
the response by its ``Content-Length`` (or chunked framing) on an ``asyncio`` stream, a tenth of
that. It speaks just enough HTTP for the benchmark's JSON endpoints, and raises
:class:`LoadClientError` (by kind: ``ConnectError``, ``ReadError``, ``ProtocolError``) like
httpx's transport errors, so failures are counted by kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

MAX_HEADER_BYTES = 64 * 1024
"""Longest response head accepted (status line and headers)."""


class LoadClientError(Exception):
    """A request that got no HTTP response; ``kind`` names what failed (for the failure counts)."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


@dataclass
class Response:
    """One HTTP response: status code and body."""

    status_code: int
    content: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.content)


class Connection:
    """One keep-alive HTTP/1.1 connection to ``base`` (``http://host:port``), opened on first use."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """Connect (a refused connect raises :class:`LoadClientError` ``ConnectError``)."""
        try:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        except OSError as exc:
            raise LoadClientError("ConnectError", str(exc)) from exc

    async def close(self) -> None:
        """Close the connection (if open)."""
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()
        self._reader = self._writer = None

    def encode(self, method: str, path: str, body: Any = None) -> bytes:
        """The request's bytes (JSON body when ``body`` is not None); encode once, send many times."""
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        return (head + "\r\n").encode() + payload

    async def send(self, request: bytes) -> Response:
        """Send ``request`` (from :meth:`encode`) and read its response; reconnects once if closed."""
        if self._writer is None or self._writer.is_closing():
            await self.open()
        assert self._reader is not None and self._writer is not None
        try:
            self._writer.write(request)
            return await self._read(self._reader)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            await self.close()
            raise LoadClientError("ReadError", f"{type(exc).__name__}: {exc}") from exc

    async def get(self, path: str) -> Response:
        """``GET path``."""
        return await self.send(self.encode("GET", path))

    async def _read(self, reader: asyncio.StreamReader) -> Response:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > MAX_HEADER_BYTES:
            raise LoadClientError("ProtocolError", "response head too long")
        lines = head.decode("latin-1").split("\r\n")
        try:
            status = int(lines[0].split(" ", 2)[1])
        except (IndexError, ValueError) as exc:
            raise LoadClientError("ProtocolError", f"bad status line {lines[0]!r}") from exc
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await _read_chunked(reader)
        else:
            raise LoadClientError("ProtocolError", "a response without Content-Length or chunked framing")
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return Response(status, body)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    chunks = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")  # no trailers from our server: the closing CRLF
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)
