"""Error responses: every error is JSON ``{"error": {"code", "message"}}`` with the right status.

- malformed JSON, or no body where one is needed → 400 ``invalid_json`` (``details[].position``: where
  the JSON broke, as a character offset);
- request validation (unknown field, wrong type, bad tone, too long) → 422;
- :class:`~cadence.errors.CadenceError` → its ``status_code`` (401, 403, 404, 409, 422, 502, 504);
- Starlette/FastAPI HTTP errors (unknown route, wrong method) → their status with a code;
- anything else → 500 ``internal_error`` (logged).

Under ``/v1/`` (the OpenAI-compatible API) the error also carries OpenAI's ``type`` and ``param``.

Every JSON the server writes (responses, SSE and WebSocket events) goes through :func:`json_text`,
so text that cannot be encoded (a lone surrogate from a model or a plugin) is sent as U+FFFD
instead of failing the response; :class:`JSONResponse` is the app's response class.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse as _JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from cadence.errors import CadenceError, StorageError
from cadence.text import valid_unicode

logger = logging.getLogger(__name__)

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal_error",
    502: "model_error",
    503: "not_ready",
    504: "turn_timeout",
}

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    409: "conflict_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    422: "invalid_request_error",
}

_VALIDATION_CODES = {
    "extra_forbidden": "unknown_field",
    "missing": "missing_field",
    "literal_error": "invalid_value",
    "string_pattern_mismatch": "invalid_value",
    "string_unicode": "invalid_text",
}


def _finite(value: Any) -> Any:
    """``value`` with every float that is not finite (NaN, infinity) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def json_text(data: Any, **options: Any) -> str:
    """``data`` as JSON text that always encodes as UTF-8 (a lone surrogate becomes U+FFFD) and is valid
    JSON: a number that is not finite (a model's ``NaN`` in a tool call's arguments) is ``null``, as
    pydantic writes it (``NaN`` is not JSON: browsers and most clients refuse the whole event);
    ``options`` go to :func:`json.dumps`."""
    options.pop("allow_nan", None)
    try:
        text = json.dumps(data, ensure_ascii=False, default=str, allow_nan=False, **options)
    except ValueError:  # a float that is not finite: rare, so only then walked
        text = json.dumps(_finite(data), ensure_ascii=False, default=str, allow_nan=False, **options)
    return valid_unicode(text)


class JSONResponse(_JSONResponse):
    """Starlette's JSON response, written with :func:`json_text` (compact, finite numbers only)."""

    def render(self, content: Any) -> bytes:
        """The body: ``content`` as compact JSON, its text made valid UTF-8."""
        return json_text(content, separators=(",", ":")).encode("utf-8")


def error_body(
    code: str, message: str, *, status: int = 400, openai: bool = False, **extra: Any
) -> dict[str, Any]:
    """The JSON error body; ``extra`` keys with a value are added inside ``error``."""
    error: dict[str, Any] = {"code": code, "message": message}
    error.update({k: v for k, v in extra.items() if v is not None})
    if openai:
        error.setdefault("type", _OPENAI_TYPES.get(status, "api_error"))
        error.setdefault("param", None)
    return {"error": error}


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: dict[str, str] | None = None,
    openai: bool = False,
    **extra: Any,
) -> JSONResponse:
    """A JSON error response."""
    return JSONResponse(
        error_body(code, message, status=status, openai=openai, **extra), status, headers=headers
    )


NO_RETRY = {"x-should-retry": "false"}
"""Header of the response of a turn that ran and failed: the turn is recorded in its thread (question
and fallback answer), so sending the request again is another turn. OpenAI's clients obey it (they retry
5xx by default, which repeated the question in the thread, or started a new thread each time)."""


def turn_error_headers(status: int) -> dict[str, str]:
    """:data:`NO_RETRY` for a turn that failed with ``status``, except 503 (the server stopping, the database
    unavailable: the question is kept, and sending it again, to this server or another, is the remedy)."""
    return {} if status == 503 else NO_RETRY


def turn_error_status(code: str | None) -> int:
    """HTTP status of a turn that ended with an engine error: 504 timeout, 503 server stopping or
    database unable to store it, 500 bug, else 502 upstream."""
    if code == "turn_timeout":
        return 504
    if code == "shutting_down" or code in StorageError.codes:
        return 503
    if code == "internal_error":
        return 500
    return 502


def _is_openai(request: Request) -> bool:
    return request.url.path.startswith("/v1/")


def validation_code(field: str, kind: str) -> str:
    """The error code of one pydantic validation problem on ``field``."""
    if field == "tone" and kind == "literal_error":
        return "invalid_tone"
    if field == "message" and kind == "string_too_short":
        return "empty_message"
    return _VALIDATION_CODES.get(kind, "invalid_request")


EMPTY_BODY_MESSAGE = (
    "The request body is empty; send a JSON object with 'Content-Type: application/json' "
    "(see /docs for its fields)."
)
"""The 400 ``invalid_json`` of a request that needs a body and sent none."""


def _detail(err: Mapping[str, Any]) -> dict[str, Any]:
    """One validation problem as ``details`` shows it: ``field``, ``type``, ``message``; malformed JSON
    names no field (its location is the character offset where parsing failed: ``position``)."""
    loc = [p for p in err.get("loc", ()) if p != "body"]
    if err.get("type") == "json_invalid":
        position = loc[0] if loc and isinstance(loc[0], int) else None
        return {"field": "body", "type": "json_invalid", "message": err.get("msg"), "position": position}
    return {
        "field": ".".join(str(p) for p in loc) or "body",
        "type": err.get("type"),
        "message": err.get("msg"),
    }


def _validation_summary(exc: RequestValidationError) -> tuple[int, str, str, list[dict[str, Any]]]:
    errors = list(exc.errors())
    details = [_detail(err) for err in errors]
    malformed = next((d for d in details if d["type"] == "json_invalid"), None)
    if malformed is not None:
        ctx = str((errors[0].get("ctx") or {}).get("error", ""))
        if malformed["position"] is not None:
            ctx = (
                f"{ctx}, at character {malformed['position']}"
                if ctx
                else f"at character {malformed['position']}"
            )
        return 400, "invalid_json", f"The request body is not valid JSON ({ctx}).".replace(" ()", ""), details
    body_errors = [e for e in errors if tuple(e.get("loc", ())) == ("body",)]
    if any(e.get("type") == "missing" for e in body_errors):  # no body at all (an empty one included)
        return 400, "invalid_json", EMPTY_BODY_MESSAGE, details
    # a body FastAPI did not parse as JSON (no JSON content type, or not JSON at all)
    if any(isinstance(e.get("input"), bytes | str) for e in body_errors):
        message = "The request body must be a JSON object sent with 'Content-Type: application/json'."
        return 400, "invalid_json", message, details
    first = errors[0] if errors else {}
    loc = [str(p) for p in first.get("loc", ()) if p != "body"]
    field = ".".join(loc) or "body"
    kind = str(first.get("type", ""))
    code = validation_code(field, kind)
    if kind == "extra_forbidden":
        message = f"Unknown field {field!r}; remove it (see the API reference for the accepted fields)."
    else:
        message = f"{field}: {first.get('msg', 'invalid value')}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem(s))"
    return 422, code, message, details


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves on this request's path (Starlette names only the first route's)."""
    methods: set[str] = set()
    routes = [*request.app.router.routes, *getattr(request.app.state, "api_routes", [])]
    for route in routes:
        if not hasattr(route, "path_regex"):
            continue  # an included router (newer FastAPI): its routes are in app.state.api_routes
        match, _ = route.matches(request.scope)  # PARTIAL: the path matches, the method does not
        if match != Match.NONE:
            methods.update(getattr(route, "methods", None) or ())
    return sorted(methods)


_OPENAI_PATHS = ("/chat/completions", "/models", "/completions", "/embeddings")
"""Paths an OpenAI client calls when its base URL lacks ``/v1``."""

_UNPARSABLE_BODY = "There was an error parsing the body"
"""FastAPI's 400 detail for a body its JSON decoder gave up on (invalid UTF-8, nesting too deep)."""


def install_error_handlers(app: FastAPI) -> None:
    """Replace FastAPI's default handlers so every error has the Cadence shape."""

    @app.exception_handler(CadenceError)
    async def _cadence(request: Request, exc: CadenceError) -> JSONResponse:
        status = exc.status_code if 400 <= exc.status_code < 600 else 500
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return error_response(status, exc.code, exc.message, headers=headers, openai=_is_openai(request))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        status, code, message, details = _validation_summary(exc)
        return error_response(status, code, message, details=details, openai=_is_openai(request))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        headers = dict(exc.headers or {})
        if exc.status_code == 400 and message == _UNPARSABLE_BODY:  # FastAPI's words for it
            code = "invalid_json"
            message = (
                "The body could not be parsed as JSON: send UTF-8 JSON, nested at most a few hundred levels."
            )
        if exc.status_code == 404 and message == "Not Found":
            message = f"No endpoint {request.method} {request.url.path}; see /docs."
            if request.url.path.rstrip("/").startswith(_OPENAI_PATHS):  # an OpenAI client's base URL
                message += " The OpenAI-compatible API is under /v1: use http://<host>:<port>/v1 as base URL."
        if exc.status_code == 405:
            allowed = allowed_methods(request)
            if allowed:
                headers["Allow"] = ", ".join(allowed)
                message = f"{request.method} is not allowed on {request.url.path}; use {', '.join(allowed)}."
        return error_response(
            exc.status_code,
            code,
            message,
            headers=headers or None,
            openai=_is_openai(request),
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(
            500, "internal_error", f"Internal error ({type(exc).__name__}); see the server log.",
            openai=_is_openai(request),
        )  # fmt: skip
