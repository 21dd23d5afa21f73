"""The web page's routes without a browser: offline assets, public page with API keys, the modes and
graph endpoints, renaming threads, and the package data that ships the assets."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import httpx
import pytest
from tests.test_server_support import scripted, settings

from cadence.persistence.threads import SqliteThreadStore
from cadence.server import create_app
from cadence.server.web import STATIC_DIR

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
async def client() -> httpx.AsyncClient:
    app = create_app(settings(builtin_plugins=["math"]), engine_kwargs={"model": scripted()})
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield c


def _local_refs(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]+)"', html)


async def test_page_and_its_assets_are_served_from_the_package(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    refs = _local_refs(page.text)
    assert {"/static/app.js?v=0.1.0", "/static/app.css?v=0.1.0", "/static/favicon.svg"} <= set(refs)
    for ref in refs:
        asset = await client.get(ref)
        assert asset.status_code == 200, ref
    js = await client.get("/static/app.js")
    assert "javascript" in js.headers["content-type"]


def test_assets_load_nothing_from_elsewhere() -> None:
    allowed = {"http://www.w3.org/2000/svg"}
    for name in ("index.html", "app.js", "app.css"):
        text = (STATIC_DIR / name).read_text(encoding="utf-8")
        urls = set(re.findall(r"https?://[^\s\"'`)]+", text)) - allowed
        assert urls == set(), name
        assert not re.search(r"\.(inner|outer)HTML\s*=|insertAdjacentHTML|document\.write", text), name


async def test_docs_use_the_vendored_swagger_ui(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text.lower() and "https://" not in docs.text
    refs = _local_refs(docs.text)
    assert {r.split("?")[0] for r in refs} == {
        "/static/swagger/swagger-ui.css",
        "/static/swagger/swagger-ui-bundle.js",
        "/static/favicon.svg",
    }
    for ref in refs:
        assert (await client.get(ref)).status_code == 200, ref
    assert (STATIC_DIR / "swagger" / "LICENSE").is_file()
    assert (await client.get("/redoc")).status_code == 404


async def test_with_api_keys_the_page_is_public_and_the_api_is_not() -> None:
    app = create_app(settings(api_keys=["k1"]), engine_kwargs={"model": scripted()})
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            assert (await c.get("/")).status_code == 200
            assert (await c.get("/static/app.js")).status_code == 200
            assert (await c.get("/static/swagger/swagger-ui.css")).status_code == 200
            assert (await c.get("/api/v1/modes")).status_code == 401
            assert (await c.get("/docs")).status_code == 401
            assert (await c.get("/static/../api/v1/modes")).status_code in {401, 404}
            assert (await c.get("/api/v1/modes", headers={"X-API-Key": "k1"})).status_code == 200


async def test_modes_and_tones(client: httpx.AsyncClient) -> None:
    data = (await client.get("/api/v1/modes")).json()
    names = [m["name"] for m in data["modes"]]
    assert {"coordinator", "supervisor"} <= set(names)
    assert data["default_mode"] == "coordinator"
    assert [m["name"] for m in data["modes"] if m["default"]] == ["coordinator"]
    described = {m["name"]: m["description"] for m in data["modes"]}
    assert described["coordinator"].startswith("The coordinator mode")  # from modes/coordinator.py
    supervisor = next(m for m in data["modes"] if m["name"] == "supervisor")
    assert supervisor["entry"] == "supervisor" and "supervisor" in supervisor["description"].lower()
    assert data["tones"] == ["natural", "explanatory", "formal", "concise", "learning"]
    assert data["default_tone"] == "natural"


async def test_graph_of_a_mode(client: httpx.AsyncClient) -> None:
    graph = (await client.get("/api/v1/modes/supervisor/graph")).json()
    ids = {n["id"] for n in graph["nodes"]}
    assert {"__start__", "supervisor", "math_agent", "synthesizer", "__end__"} <= ids
    assert all(e["source"] in ids and e["target"] in ids for e in graph["edges"])
    assert any(e["conditional"] and e["label"] for e in graph["edges"])
    assert {"source": "__start__", "target": "supervisor", "conditional": False, "label": None} in graph[
        "edges"
    ]
    assert graph["mermaid"].startswith("---") or "graph TD" in graph["mermaid"]
    coordinator = (await client.get("/api/v1/modes/Coordinator/graph")).json()
    assert coordinator["mode"] == "coordinator" and "coordinator" in {n["id"] for n in coordinator["nodes"]}
    unknown = await client.get("/api/v1/modes/nope/graph")
    assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "unknown_mode"


async def test_rename_a_thread(client: httpx.AsyncClient) -> None:
    made = (await client.post("/api/v1/chat", json={"message": "first question", "user_id": "ann"})).json()
    tid = made["thread_id"]
    before = (await client.get(f"/api/v1/threads/{tid}", params={"user_id": "ann"})).json()
    renamed = await client.patch(
        f"/api/v1/threads/{tid}", params={"user_id": "ann"}, json={"title": "  My\tbudget\n talk "}
    )
    assert renamed.status_code == 200
    assert renamed.json()["title"] == "My budget talk"
    assert renamed.json()["updated_at"] == before["updated_at"]
    listed = (await client.get("/api/v1/threads", params={"user_id": "ann"})).json()["threads"]
    assert [t["title"] for t in listed] == ["My budget talk"]
    # another user's thread is not found; bad titles and unknown fields are 422
    other = await client.patch(f"/api/v1/threads/{tid}", params={"user_id": "bob"}, json={"title": "mine"})
    assert other.status_code == 404 and other.json()["error"]["code"] == "thread_not_found"
    missing = await client.patch("/api/v1/threads/nope", params={"user_id": "ann"}, json={"title": "x"})
    assert missing.status_code == 404
    blank = await client.patch(f"/api/v1/threads/{tid}", params={"user_id": "ann"}, json={"title": " \n "})
    assert blank.status_code == 422 and blank.json()["error"]["code"] == "empty_title"
    long = await client.patch(f"/api/v1/threads/{tid}", params={"user_id": "ann"}, json={"title": "x" * 81})
    assert long.status_code == 422
    extra = await client.patch(
        f"/api/v1/threads/{tid}", params={"user_id": "ann"}, json={"title": "a", "x": 1}
    )
    assert extra.status_code == 422 and extra.json()["error"]["code"] == "unknown_field"
    # a later turn keeps the new title
    await client.post("/api/v1/chat", json={"message": "again", "thread_id": tid, "user_id": "ann"})
    assert (await client.get(f"/api/v1/threads/{tid}", params={"user_id": "ann"})).json()[
        "title"
    ] == "My budget talk"


async def test_sqlite_store_renames_only_the_owners_thread(tmp_path: Path) -> None:
    async with SqliteThreadStore.open(tmp_path / "t.db") as store:
        await store.claim("ann", "t1", title="hello")
        record = await store.rename("ann", "t1", "New\x00name")
        assert record is not None and record.title == "New name"
        assert await store.rename("bob", "t1", "stolen") is None
        assert await store.rename("ann", "missing", "x") is None
        assert (await store.get("t1")).title == "New name"


def test_package_data_ships_every_asset() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["cadence"]
    package = ROOT / "src" / "cadence"
    files = [p.relative_to(package).as_posix() for p in STATIC_DIR.rglob("*") if p.is_file()]
    assert "server/web/static/swagger/swagger-ui-bundle.js" in files
    unshipped = [
        f for f in files if not any(fnmatch.fnmatch(f, g) and f.count("/") == g.count("/") for g in globs)
    ]
    assert unshipped == []
