"""The chat page at ``/`` and the offline API reference at ``/docs``.

Everything the browser loads ships in this package (``static/``): the page is three plain
files (``index.html``, ``app.js``, ``app.css``; no build step, no framework), and ``/docs``
is FastAPI's Swagger UI page pointed at a vendored copy of ``swagger-ui-dist``
(``static/swagger/``, see its LICENSE) instead of a CDN. ReDoc is not served.

The page and its assets are public (they hold no data); every API call the page makes
carries the API key the user typed when ``CADENCE_API_KEYS`` is set.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from cadence import __version__

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The page's files and the vendored Swagger UI."""

STATIC_PREFIX = "/static"
"""Where :data:`STATIC_DIR` is served."""

SWAGGER_UI_VERSION = "5.35.0"
"""The vendored ``swagger-ui-dist`` release (``static/swagger/``)."""

PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""The page loads nothing but its own files and talks only to this server."""

router = APIRouter(include_in_schema=False)


@cache
def _index_html() -> str:
    """``index.html`` with the version stamped into its asset URLs (a new release is not served stale)."""
    return (STATIC_DIR / "index.html").read_text(encoding="utf-8").replace("__VERSION__", __version__)


@router.get("/", response_class=HTMLResponse)
async def index() -> HTMLResponse:
    """The chat page."""
    return HTMLResponse(_index_html(), headers=PAGE_HEADERS)


@router.get("/docs", response_class=HTMLResponse)
async def swagger_ui() -> HTMLResponse:
    """The interactive API reference, with Swagger UI served from the package (works offline)."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="Cadence API",
        swagger_js_url=f"{STATIC_PREFIX}/swagger/swagger-ui-bundle.js?v={SWAGGER_UI_VERSION}",
        swagger_css_url=f"{STATIC_PREFIX}/swagger/swagger-ui.css?v={SWAGGER_UI_VERSION}",
        swagger_favicon_url=f"{STATIC_PREFIX}/favicon.svg",
        swagger_ui_parameters={"validatorUrl": None},
    )


def install(app: FastAPI) -> None:
    """Serve the page, its assets and ``/docs`` on ``app`` (create it with ``docs_url=None``)."""
    app.include_router(router)
    app.mount(STATIC_PREFIX, StaticFiles(directory=STATIC_DIR), name="static")
