"""Every configuration mistake is one ``error:`` line naming the setting or URL, in ``chat`` and ``serve``."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cadence.cli.main import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLI environment: data under tmp, the math plugin only, fast retries, default log level."""
    for key, value in {
        "CADENCE_DATA_DIR": str(tmp_path / "data"),
        "CADENCE_BUILTIN_PLUGINS": "math",
        "CADENCE_ENTRY_POINTS_ENABLED": "false",
        "CADENCE_MODEL_RETRY_BASE_DELAY": "0.01",
        "CADENCE_MODEL_RETRY_MAX_DELAY": "0.02",
        "NO_PROXY": "127.0.0.1,localhost",
    }.items():
        monkeypatch.setenv(key, value)


def one_error_line(result: Result) -> str:
    """The single ``error:`` line of a failed command (fails if there is anything else on stderr)."""
    assert result.exit_code not in (0, None), result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in result.output
    return lines[0]


def turn_error_line(result: Result) -> str:
    """The ``error:`` line of a turn that failed: exactly one, last, after the nodes' one-line warnings."""
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert errors == [lines[-1]], result.stderr
    assert "Traceback" not in result.output and len(lines) <= 4, result.stderr
    assert "API key" not in result.stderr and "rate limit" not in result.stderr
    return lines[-1]


def both(*args: str) -> Iterator[str]:
    """The error line of ``chat <args>`` and of ``serve --port 0`` (both must fail the same way)."""
    yield one_error_line(runner.invoke(app, ["chat", *args]))
    yield one_error_line(runner.invoke(app, ["serve", "--port", "0"]))


def test_bad_llm_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CADENCE_LLM", "nonsense:model")
    for line in both("hi"):
        assert "Unknown model 'nonsense:model'" in line and "openai:<model>" in line


def test_data_dir_that_is_a_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("CADENCE_DATA_DIR", str(blocker))
    monkeypatch.setenv("CADENCE_LLM", "scripted:unused.json")
    (tmp_path / "unused.json").write_text('[{"content": "x"}]')
    for line in both("hi"):
        assert f"{blocker} is a file, not a folder" in line and "CADENCE_DATA_DIR" in line


def test_data_dir_that_cannot_be_written_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        # root ignores permission bits; /proc refuses new folders to everyone
        target = Path("/proc/cadence-test-data")
    else:
        parent = tmp_path / "read-only"
        parent.mkdir()
        parent.chmod(0o500)
        target = parent / "data"
    monkeypatch.setenv("CADENCE_DATA_DIR", str(target))
    (tmp_path / "unused.json").write_text('[{"content": "x"}]')
    monkeypatch.setenv("CADENCE_LLM", "scripted:unused.json")
    for line in both("hi"):
        assert f"Cannot create the folder {target}" in line and "CADENCE_DATA_DIR" in line


def test_read_only_database_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can write read-only files")
    data = tmp_path / "data"
    data.mkdir()
    (data / "cadence.db").write_bytes(b"")
    (data / "cadence.db").chmod(0o400)
    data.chmod(0o500)
    (tmp_path / "unused.json").write_text('[{"content": "x"}]')
    monkeypatch.setenv("CADENCE_LLM", "scripted:unused.json")
    for line in both("hi"):
        assert "Cannot use the SQLite database" in line and "CADENCE_DATA_DIR" in line


def test_port_in_use_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "unused.json").write_text('[{"content": "x"}]')
    monkeypatch.setenv("CADENCE_LLM", "scripted:unused.json")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        line = one_error_line(runner.invoke(app, ["serve", "--port", str(port)]))
    assert f"Cannot listen on 127.0.0.1:{port}" in line and "CADENCE_PORT" in line


# -- model servers ------------------------------------------------------------------------
@contextlib.contextmanager
def silent_server() -> Iterator[str]:
    """A server that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_unreachable_model_server_names_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain_openai")
    with socket.socket() as sock:  # a free port nobody listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    monkeypatch.setenv("CADENCE_LLM", "openai-compatible:m")
    monkeypatch.setenv("CADENCE_LLM_BASE_URL", url)
    line = turn_error_line(runner.invoke(app, ["chat", "hi"]))
    assert url in line and "CADENCE_LLM_BASE_URL" in line


def test_server_that_never_answers_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain_openai")
    monkeypatch.setenv("CADENCE_LLM", "openai-compatible:m")
    monkeypatch.setenv("CADENCE_MODEL_CONNECT_TIMEOUT", "1")
    with silent_server() as url:
        monkeypatch.setenv("CADENCE_LLM_BASE_URL", url)
        started = time.monotonic()
        line = turn_error_line(runner.invoke(app, ["chat", "hi"]))
        elapsed = time.monotonic() - started
    assert url in line and "within 1 s" in line and "CADENCE_MODEL_CONNECT_TIMEOUT" in line
    assert elapsed < 20, elapsed  # the read timeout (60 s) and its retries are not waited for


def test_connect_and_read_timeouts_are_separate_settings() -> None:
    pytest.importorskip("langchain_openai")
    from cadence.models.factory import ModelFactory
    from cadence.settings import Settings

    settings = Settings(
        llm="openai-compatible:m",
        llm_base_url="http://127.0.0.1:9/v1",
        model_timeout=42,
        model_connect_timeout=3,
    )
    timeout = ModelFactory(settings).get("agent").request_timeout  # type: ignore[attr-defined]
    assert (timeout.read, timeout.connect) == (42, 3)


def _chained(cause: Exception) -> Exception:
    """``cause`` wrapped the way the embedded model's worker reports it."""
    try:
        raise RuntimeError("the worker failed") from cause
    except RuntimeError as exc:
        return exc


class _StatusError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status


@pytest.mark.parametrize(
    ("exc", "says", "never"),
    [
        (ConnectionRefusedError("refused"), "cannot reach its server at http://h/v1", "API key"),
        (_StatusError(401), "rejected the API key", "rate limit"),
        (_StatusError(429), "rate limited", "API key"),
        (_StatusError(404), "not found", "API key"),
        (_StatusError(500), "failed after 2 attempt(s)", "API key"),
        # a request longer than the model's context: shorten it, retrying cannot help
        (
            ValueError("This model's maximum context length is 8192 tokens"),
            "cannot take this much text",
            "try again",
        ),
        (
            _chained(ValueError("Requested tokens (18037) exceed context window of 4096")),
            "shorten the message",
            "status",
        ),
        (ValueError("the context was cancelled"), "failed after 2 attempt(s)", "much text"),
    ],
)
def test_model_failures_say_what_to_check(exc: Exception, says: str, never: str) -> None:
    from cadence.models.invoke import failure_message

    text = failure_message("coordinator", exc, attempts=2, timed_out=False, budget=5, endpoint="http://h/v1")
    assert says in text and never not in text and "\n" not in text


def test_an_agent_whose_own_model_cannot_be_built_is_skipped_not_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Markdown agent's bad ``model:`` skips that agent (status ``failed``); the rest keeps working."""
    import json

    from cadence.orchestration.engine import Cadence
    from cadence.settings import Settings

    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "bad.md").write_text(
        "---\nname: unknown\ndescription: A made-up provider.\nmodel: nowhere:thing\n---\nx\n"
    )
    (agents / "keyless.md").write_text(
        "---\nname: keyless\ndescription: OpenAI without a key.\nmodel: openai:gpt-4.1-mini\n---\nx\n"
    )
    (agents / "fine.md").write_text("---\nname: fine\ndescription: A working agent.\n---\nYou answer.\n")
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": "Hello from fine."}]))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("CADENCE_AGENTS_DIR", str(agents))
    monkeypatch.setenv("CADENCE_LLM", f"scripted:{script}")
    engine = Cadence(Settings())
    status = {s.name: s for s in engine.plugin_statuses}
    assert status["unknown"].status == "failed" and "'nowhere:thing' cannot be used" in (
        status["unknown"].reason or ""
    )
    assert status["keyless"].status == "failed" and "OPENAI_API_KEY" in (status["keyless"].reason or "")
    assert set(engine.plugin_manager.bundles) == {"math", "fine"}
    assert engine.invoke("hi", mode="single", agent="fine").response == "Hello from fine."
    listed = runner.invoke(app, ["plugins", "list", "--json"])  # the CLI's list says the same
    assert listed.exit_code == 0, listed.output
    failed = {p["name"] for p in json.loads(listed.stdout)["plugins"] if p["status"] == "failed"}
    assert failed == {"unknown", "keyless"}
