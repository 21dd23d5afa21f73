"""Optional API keys (``CADENCE_API_KEYS``): ``key`` or ``key:user_id``.

When keys are configured, every request except ``/health``, ``/ready`` and the web page
(``/`` and its ``/static/`` assets, which hold no data) needs
``Authorization: Bearer <key>`` or ``X-API-Key: <key>`` (WebSocket clients that
cannot set headers may use ``?api_key=<key>``); a request sending two different keys is 401
``conflicting_api_keys``, even when one of them is valid. A key bound to a user acts only as
that user: naming another user is 403, naming none means the bound user.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from cadence.errors import PermissionDeniedError
from cadence.server.errors import error_body
from cadence.server.validation import validate_user_id
from cadence.settings import Settings

PUBLIC_PATHS = frozenset({"/health", "/ready", "/"})
"""Served without a key: the probes, and the web page (it holds no data; it asks for the key)."""
PUBLIC_PREFIXES = ("/static/",)
"""The web page's assets (cadence.server.web), also public."""
_SCOPE_KEY = "cadence.principal"
_HOW = "'Authorization: Bearer <key>' or 'X-API-Key: <key>'"
"""How to send a key (the 401 messages)."""


_KEY_IN_URL = re.compile(r"([?&]api(?:_|%5F)key=)[^&\s\"]*", re.IGNORECASE)
"""An API key in a URL's query (``?api_key=``: WebSocket clients that cannot set headers)."""


class RedactApiKeys(logging.Filter):
    """Replaces the value of ``api_key=`` in a log record's arguments by ``***``: uvicorn logs every
    WebSocket's URL with its query (``"WebSocket /api/v1/ws?api_key=…" [accepted]``) at INFO, and every
    request's in its access log, which put the key in plain text into the server's logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record's string arguments; never drops a record."""
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, str) and _KEY_IN_URL.search(a) for a in args):
            record.args = tuple(_KEY_IN_URL.sub(r"\1***", a) if isinstance(a, str) else a for a in args)
        return True


def redact_keys_in_server_logs() -> None:
    """Add :class:`RedactApiKeys` to uvicorn's loggers (once; their configuration keeps filters)."""
    for name in ("uvicorn.error", "uvicorn.access"):
        server_logger = logging.getLogger(name)
        if not any(isinstance(f, RedactApiKeys) for f in server_logger.filters):
            server_logger.addFilter(RedactApiKeys())


@dataclass(frozen=True)
class Principal:
    """Who is calling: ``key_user`` is set when the key is bound to a user."""

    authenticated: bool
    key_user: str | None = None
    keys_enabled: bool = False

    @property
    def is_admin(self) -> bool:
        """Unbound keys (or no keys configured) may use administrative endpoints."""
        return self.key_user is None


def parse_keys(keys: list[str]) -> list[tuple[str, str | None]]:
    """``[(key, bound_user | None)]`` from ``key`` / ``key:user_id`` entries."""
    out: list[tuple[str, str | None]] = []
    for entry in keys:
        key, sep, user = entry.partition(":")
        key = key.strip()
        if key:
            out.append((key, (user.strip() or None) if sep else None))
    return out


def resolve_user(principal: Principal, requested: str | None, settings: Settings) -> str:
    """The user a request acts as; 403 if a user-bound key names someone else, 422 for an invalid id."""
    requested = (requested or "").strip() or None
    if requested is not None:
        validate_user_id(requested, settings)
    if principal.key_user is not None:
        if requested is not None and requested != principal.key_user:
            raise PermissionDeniedError(
                f"This API key is bound to user {principal.key_user!r} and cannot act as {requested!r}.",
                code="forbidden_user",
            )
        return principal.key_user
    return requested or settings.default_user


async def get_principal(conn: HTTPConnection) -> Principal:
    """FastAPI dependency: the principal the auth middleware attached to the request (a coroutine: a
    plain ``def`` dependency would run in FastAPI's thread pool)."""
    return conn.scope.get(_SCOPE_KEY) or Principal(authenticated=False)


class AuthMiddleware:
    """Pure ASGI middleware (streaming-safe) that checks API keys on HTTP and WebSocket."""

    def __init__(self, app: ASGIApp, keys: list[str]) -> None:
        self.app = app
        self.keys = parse_keys(keys)

    def _match(self, presented: str | None) -> tuple[bool, str | None]:
        if not presented:
            return False, None
        found, user = False, None
        for key, bound in self.keys:
            if hmac.compare_digest(key.encode(), presented.encode()):
                found, user = True, bound
        return found, user

    @staticmethod
    def _presented(scope: Scope) -> tuple[dict[str, str], bool]:
        """The keys the request presents, by where (``Authorization: Bearer``, ``X-API-Key``, a WebSocket's
        ``?api_key=``), and whether it sent an ``Authorization`` header of another scheme (``Basic …``,
        ``Token …``, a bare key)."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        auth = headers.get("authorization", "").strip()
        scheme, _, credentials = auth.partition(" ")
        found: dict[str, str] = {}
        bearer = scheme.lower() == "bearer"
        if bearer and credentials.strip():
            found["Authorization: Bearer"] = credentials.strip()
        if headers.get("x-api-key", "").strip():
            found["X-API-Key"] = headers["x-api-key"].strip()
        if scope["type"] == "websocket":
            query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
            values = query.get("api_key") or []
            if values and values[0]:
                found["?api_key="] = values[0]
        return found, bool(auth) and not bearer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in {"http", "websocket"}:
            await self.app(scope, receive, send)
            return
        if not self.keys:
            scope[_SCOPE_KEY] = Principal(authenticated=False)
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        if path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES):
            await self.app(scope, receive, send)
            return
        found, other_scheme = self._presented(scope)
        presented = next(iter(found.values()), None)
        ok, user = self._match(presented)
        conflict = len(set(found.values())) > 1  # which one to believe? neither
        if ok and not conflict:
            scope[_SCOPE_KEY] = Principal(authenticated=True, key_user=user, keys_enabled=True)
            await self.app(scope, receive, send)
            return
        code = "invalid_api_key" if presented or other_scheme else "missing_api_key"
        if conflict:
            code = "conflicting_api_keys"
            message = (
                f"Two different API keys were sent ({' and '.join(found)}); they disagree: send one key, "
                "in one of them."
            )
        elif presented:
            message = "The API key is not valid."
        elif other_scheme:
            message = f"The Authorization header must use the Bearer scheme: send {_HOW}."
        else:
            message = f"An API key is required: send {_HOW}."
        body = error_body(code, message, status=401, openai=str(scope.get("path", "")).startswith("/v1/"))
        if scope["type"] == "http":
            await _send_json(send, 401, body, {"www-authenticate": "Bearer"})
        else:
            await _reject_websocket(receive, send, body)


async def _send_json(send: Send, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
    data = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


async def _reject_websocket(receive: Receive, send: Send, body: dict[str, Any]) -> None:
    """Accept, send one error event and close with 4401 so the client sees why."""
    message = await receive()
    if message.get("type") != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json.dumps({"type": "error", "status": 401, **body})})
    await send({"type": "websocket.close", "code": 4401, "reason": "unauthorized"})
