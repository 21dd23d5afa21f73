"""The ``cadence`` CLI: chat (one-shot, JSON, interactive), plugins, graph, config, serve and error lines."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import types
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import Result
from langchain_core.messages import HumanMessage
from typer.testing import CliRunner

from cadence.cli.main import app
from cadence.orchestration.engine import Cadence, thread_key
from cadence.settings import Settings

MATH_SCRIPT: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "goto_math_agent", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "15 * 23"}}]},
    {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
    {"content": "15 * 23 = 345"},
]
HELLO_SCRIPT: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
    {"content": "Hello again!"},
]
RATE_LIMIT: dict[str, Any] = {"raise": {"type": "rate_limit", "message": "429 Too Many Requests"}}
SRC = Path(__file__).resolve().parents[1] / "src"

runner = CliRunner()


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment of a CLI run: SQLite under a tmp data dir, only the math plugin, fast retries."""
    env = {
        "CADENCE_DATA_DIR": str(tmp_path / "data"),
        "CADENCE_DATABASE_URL": f"sqlite:///{tmp_path / 'data' / 'cli.db'}",
        "CADENCE_BUILTIN_PLUGINS": "math",
        "CADENCE_ENTRY_POINTS_ENABLED": "false",
        "CADENCE_MODEL_RETRY_BASE_DELAY": "0.01",
        "CADENCE_MODEL_RETRY_MAX_DELAY": "0.02",
        "CADENCE_LOG_LEVEL": "WARNING",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def use_script(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, items: list[dict[str, Any]], name: str
) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    monkeypatch.setenv("CADENCE_LLM", f"scripted:{path}")
    return path


def run(*args: str, input: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=input)


def assert_one_error_line(result: Result, contains: str) -> None:
    assert result.exit_code != 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert contains in lines[0], lines[0]
    assert "Traceback" not in result.output
    assert result.stdout == ""


def thread_messages(env: dict[str, str], user: str, thread: str) -> list[Any]:
    settings = Settings(database_url=env["CADENCE_DATABASE_URL"], builtin_plugins=["math"], llm="scripted:x")

    async def read() -> list[Any]:
        from cadence.testing import ScriptedChatModel

        async with Cadence.open(settings, model=ScriptedChatModel.from_items([])) as engine:
            snapshot = await engine.graph.aget_state(
                {"configurable": {"thread_id": thread_key(user, thread)}}
            )
            return list((snapshot.values or {}).get("messages") or [])

    return asyncio.run(read())


# -- chat -------------------------------------------------------------------------------
def test_chat_json_prints_one_deterministic_object(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch
) -> None:
    use_script(monkeypatch, tmp_path, MATH_SCRIPT, "math")
    result = run("chat", "--json", "Calculate 15 * 23")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\n") == 1  # exactly one line, one object
    payload = json.loads(result.stdout)
    assert set(payload) == {"response", "thread_id", "trace"}
    assert payload["response"] == "15 * 23 = 345"
    assert isinstance(payload["thread_id"], str) and payload["thread_id"]
    trace = payload["trace"]
    assert trace["routing_history"] == ["math"]
    assert trace["agent_hops"] == 1 and trace["tool_hops"] == 1
    assert trace["tools_used"][0]["name"] == "calculate"
    assert trace["tools_used"][0]["result"] == "345"
    assert trace["suspended"] is False and trace["suspend_reason"] is None
    assert [c["node"] for c in trace["model_calls"]] == [
        "coordinator",
        "math_agent",
        "coordinator",
        "synthesizer",
    ]
    assert "usage" in trace and "duration_ms" in trace
    assert (tmp_path / "data" / "cli.db").is_file()  # the CLI used the configured SQLite database


def test_chat_plain_prints_answer_and_route(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, MATH_SCRIPT, "math")
    result = run("chat", "--tone", "concise", "--user", "ann", "--thread", "t1", "Calculate", "15", "*", "23")
    assert result.exit_code == 0, result.output
    assert "15 * 23 = 345" in result.stdout
    assert "route: math → synthesizer · 1 tool" in result.stderr
    messages = thread_messages(cli_env, "ann", "t1")
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == ["Calculate 15 * 23"]


def test_a_thread_of_cadence_chat_is_the_apis_thread(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch
) -> None:
    """The API listed only the threads the server had recorded: one of ``cadence chat`` was missing,
    then shown with no turns and the time of the read as its creation."""
    from cadence.server import create_app
    from cadence.testing import ScriptedChatModel
    from test_server_support import live_server

    use_script(monkeypatch, tmp_path, HELLO_SCRIPT, "hello")
    assert run("chat", "--thread", "t1", "what is 1+1").exit_code == 0
    between = datetime.now(UTC)
    assert run("chat", "--thread", "t1", "and now?").exit_code == 0
    settings = Settings(database_url=cli_env["CADENCE_DATABASE_URL"], builtin_plugins=["math"])
    app = create_app(settings, engine_kwargs={"model": ScriptedChatModel.from_items(HELLO_SCRIPT)})
    with live_server(app) as url:
        listed = httpx.get(f"{url}/api/v1/threads", params={"limit": 500}).json()["threads"]
        [row] = [t for t in listed if t["thread_id"] == "t1"]
        assert (row["turns"], row["title"]) == (2, "what is 1+1")
        assert datetime.fromisoformat(row["created_at"]) < between < datetime.fromisoformat(row["updated_at"])
        turn = httpx.post(f"{url}/api/v1/chat", json={"message": "third", "thread_id": "t1"})
        assert turn.status_code == 200, turn.text
        detail = httpx.get(f"{url}/api/v1/threads/t1").json()
        assert (detail["turns"], detail["created_at"]) == (3, row["created_at"])
        questions = [m["content"] for m in detail["messages"] if m["role"] == "user"]
        assert questions == ["what is 1+1", "and now?", "third"]
    listed_by_cli = run("threads", "list", "--json")
    assert [t["thread_id"] for t in json.loads(listed_by_cli.stdout)["threads"]] == ["t1"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("chat", "--thread", "../x", "hi"), "Invalid thread id '../x': use letters, digits"),
        (("chat", "--thread", "t" * 129, "hi"), "the limit is 128 (CADENCE_MAX_ID_CHARS)"),
        (("chat", "-u", "bad\x01user", "hi"), "Invalid user id 'bad\\x01user'"),
        (("chat", "-u", "a::b", "hi"), "may not contain '::'"),
        (("threads", "show", "../x"), "Invalid thread id"),
        (("threads", "history", "ok", "-u", "a::b"), "Invalid user id"),
        (("threads", "fork", "../x", "cp1"), "Invalid thread id"),
        (("threads", "list", "-u", "bad\nuser"), "Invalid user id"),
        (("threads", "replay", "../x"), "Invalid thread id"),
        (("memory", "list", "-u", "a::b"), "Invalid user id"),
    ],
)
def test_ids_the_api_refuses_are_usage_errors(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch, args: tuple[str, ...], fragment: str
) -> None:
    """``cadence chat --thread ../x`` stored a thread the HTTP API could not reach."""
    use_script(monkeypatch, tmp_path, HELLO_SCRIPT, "hello")
    result = run(*args)
    assert_one_error_line(result, fragment)
    assert result.exit_code == 2  # like click's usage errors
    assert not (tmp_path / "data" / "cli.db").exists()  # nothing was opened, nothing stored


def test_forking_a_missing_thread_says_the_thread_is_missing(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch
) -> None:
    use_script(monkeypatch, tmp_path, HELLO_SCRIPT, "hello")
    assert run("chat", "--thread", "t1", "hi").exit_code == 0  # the database exists, the thread does not
    result = run("threads", "fork", "nope", "cp1")
    assert_one_error_line(result, "No thread 'nope' for this user.")
    assert result.exit_code == 1


def test_unknown_tone_is_one_line(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, MATH_SCRIPT, "math")
    result = run("chat", "--tone", "sarcastic", "hi")
    assert_one_error_line(result, "Unknown tone 'sarcastic'; choose one of: natural")


def test_bad_provider_is_one_line(cli_env: dict[str, str], monkeypatch) -> None:
    monkeypatch.setenv("CADENCE_LLM", "nope:x")
    result = run("chat", "--json", "hi")
    assert_one_error_line(result, "Unknown model 'nope:x'")


def test_missing_script_is_one_line(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CADENCE_LLM", f"scripted:{tmp_path / 'missing.json'}")
    assert_one_error_line(run("chat", "hi"), "no script file")


def test_openai_compatible_without_base_url_is_one_line(cli_env: dict[str, str], monkeypatch) -> None:
    pytest.importorskip("langchain_openai")
    monkeypatch.setenv("CADENCE_LLM", "openai-compatible:some-model")
    assert_one_error_line(run("chat", "hi"), "CADENCE_LLM_BASE_URL")


def test_missing_api_key_is_one_line(cli_env: dict[str, str], monkeypatch) -> None:
    pytest.importorskip("langchain_openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("CADENCE_LLM", "openai:gpt-4.1-mini")
    assert_one_error_line(run("chat", "hi"), "OPENAI_API_KEY")


def test_malformed_settings_are_one_line(cli_env: dict[str, str], monkeypatch) -> None:
    monkeypatch.setenv("CADENCE_MAX_AGENT_HOPS", "lots")
    assert_one_error_line(run("config"), "CADENCE_MAX_AGENT_HOPS")


def test_bad_log_level_is_one_line(cli_env: dict[str, str], monkeypatch) -> None:
    monkeypatch.setenv("CADENCE_LOG_LEVEL", "LOUD")
    assert_one_error_line(run("config"), "CADENCE_LOG_LEVEL")


def test_unreachable_server_fails_the_turn_cleanly(cli_env: dict[str, str], monkeypatch) -> None:
    pytest.importorskip("langchain_openai")
    with socket.socket() as sock:  # a free port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("CADENCE_LLM", "openai-compatible:m")
    monkeypatch.setenv("CADENCE_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("CADENCE_MODEL_MAX_RETRIES", "1")
    monkeypatch.setenv("CADENCE_LOG_LEVEL", "ERROR")
    result = run("chat", "hi")
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: The model for the"), result.stderr
    assert "Traceback" not in result.output


def test_rate_limit_is_retried(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, [RATE_LIMIT, RATE_LIMIT, *MATH_SCRIPT], "flaky")
    result = run("chat", "--json", "Calculate 15 * 23")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["response"] == "15 * 23 = 345"
    assert payload["trace"]["model_calls"][0]["attempts"] == 3
    assert payload["trace"]["tools_used"][0]["result"] == "345"


def test_persistent_failure_exits_1_and_thread_stays_usable(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("CADENCE_MODEL_MAX_RETRIES", "2")
    use_script(monkeypatch, tmp_path, [RATE_LIMIT] * 6, "down")
    failed = run("chat", "--thread", "t-fail", "Calculate 15 * 23")
    assert failed.exit_code == 1, failed.output
    assert "Traceback" not in failed.output
    assert "Sorry, I couldn't finish this answer" in failed.stdout  # the fallback answer is printed
    last = [line for line in failed.stderr.splitlines() if line.strip()][-1]
    assert last.startswith("error: The model for the") and "RateLimitError" in last

    failed_json = run("chat", "--json", "--thread", "t-fail2", "again?")
    assert failed_json.exit_code == 1
    assert json.loads(failed_json.stdout)["error"]["code"] == "model_error"

    use_script(monkeypatch, tmp_path, HELLO_SCRIPT, "hello")
    again = run("chat", "--json", "--thread", "t-fail", "Are you back?")
    assert again.exit_code == 0, again.output
    payload = json.loads(again.stdout)
    assert payload["response"] == "Hello again!" and payload["thread_id"] == "t-fail"
    messages = thread_messages(cli_env, "local", "t-fail")
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == [
        "Calculate 15 * 23",
        "Are you back?",
    ]


def test_interactive_session_keeps_its_thread(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, [*MATH_SCRIPT, *HELLO_SCRIPT], "two")
    keys = "Calculate 15 * 23\n\n/thread\n/tone sarcastic\n/tone formal\nhello\n/exit\nnever sent\n"
    result = run("chat", "--thread", "s1", input=keys)
    assert result.exit_code == 0, result.output
    assert "15 * 23 = 345" in result.stdout and "Hello again." in result.stdout  # the formal tone's answer
    assert "Hello again!" not in result.stdout  # piped: the final answer alone, not the streamed draft too
    assert "thread s1" in result.stderr
    assert "error: Unknown tone 'sarcastic'" in result.stderr
    assert result.stderr.count("route: ") == 2
    messages = thread_messages(cli_env, "local", "s1")
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == ["Calculate 15 * 23", "hello"]


def test_a_question_of_invisible_characters_is_blank(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch
) -> None:
    """Zero-width spaces and a byte-order mark passed the blank check and ran a whole turn."""
    use_script(monkeypatch, tmp_path, HELLO_SCRIPT, "hello")
    assert_one_error_line(run("chat", "\u200b\ufeff"), "The question is empty (nothing visible in it)")
    result = run("chat", "--thread", "s2", input="\u200b \u2060\nhello\n")  # the invisible line is skipped
    assert result.exit_code == 0, result.output
    messages = thread_messages(cli_env, "local", "s2")
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == ["hello"]


@pytest.mark.parametrize("word", ["exit", "Quit"])
def test_a_bare_exit_word_ends_the_session_and_is_not_sent(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch, word: str
) -> None:
    use_script(monkeypatch, tmp_path, MATH_SCRIPT, "one")
    result = run("chat", "--thread", "x1", input=f"Calculate 15 * 23\n{word}\nnever sent\n")
    assert result.exit_code == 0, result.output
    messages = thread_messages(cli_env, "local", "x1")
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == ["Calculate 15 * 23"]


def test_interactive_ends_on_eof_and_json_lines(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, [*MATH_SCRIPT, *HELLO_SCRIPT], "two")
    result = run("chat", "--json", input="Calculate 15 * 23\nhello\n")  # stdin ends: Ctrl-D
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["thread_id"] == second["thread_id"]
    assert first["trace"]["routing_history"] == ["math"] and second["response"] == "Hello again!"


def test_bytes_that_are_not_utf8_are_one_line_each_and_lose_no_memory(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch
) -> None:
    """A non-UTF-8 byte read from a terminal: refused in one line (it silently lost the turn's memories)."""
    import os
    import subprocess
    import sys

    script = use_script(monkeypatch, tmp_path, HELLO_SCRIPT, "hello")
    env = {**os.environ, **cli_env, "CADENCE_LLM": f"scripted:{script}", "PYTHONPATH": str(SRC)}
    one_shot = subprocess.run(
        [sys.executable, "-m", "cadence.cli", "chat", os.fsdecode(b"My name is Ad\xe9.")],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert one_shot.returncode == 1 and "Traceback" not in one_shot.stderr
    assert one_shot.stderr.strip().startswith("error: The message contains invalid Unicode")
    strict = subprocess.run(  # a strict UTF-8 terminal: the line cannot even be read
        [sys.executable, "-m", "cadence.cli", "chat"],
        env={**env, "PYTHONIOENCODING": "utf-8:strict"}, input=b"hi \xff\n", capture_output=True, timeout=60,
    )  # fmt: skip
    assert strict.returncode == 0 and b"Traceback" not in strict.stderr
    assert b"error: that line is not UTF-8 text" in strict.stderr


# -- other commands ----------------------------------------------------------------------
def test_plugins_list(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "broken.py").write_text("def oops(:\n", encoding="utf-8")
    monkeypatch.setenv("CADENCE_PLUGINS_DIR", str(plugins))
    result = run("plugins", "list", "--json")
    assert result.exit_code == 0, result.output
    statuses = {p["name"]: p for p in json.loads(result.stdout)["plugins"]}
    assert statuses["math"]["status"] == "loaded" and statuses["math"]["version"]
    assert statuses["broken"]["status"] == "failed"
    assert "SyntaxError" in statuses["broken"]["reason"]

    table = run("plugins", "list")
    assert table.exit_code == 0
    assert "math" in table.stdout and "loaded" in table.stdout
    assert "failed" in table.stdout and "SyntaxError" in table.stdout


def test_graph_prints_mermaid(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CADENCE_LLM", "nope:x")  # drawing the graph contacts no model
    result = run("graph")
    assert result.exit_code == 0, result.output
    assert "graph TD;" in result.stdout
    for node in ("coordinator", "math_agent", "math_tools", "synthesizer", "suspend"):
        assert node in result.stdout
    out = tmp_path / "graph.mmd"
    assert run("graph", "-o", str(out)).exit_code == 0
    assert "graph TD;" in out.read_text(encoding="utf-8")


def test_config_masks_secrets(cli_env: dict[str, str], monkeypatch) -> None:
    monkeypatch.setenv("CADENCE_LLM_API_KEY", "sk-very-secret-value")
    monkeypatch.setenv("CADENCE_API_KEYS", "k-one,k-two:bob")
    monkeypatch.setenv("CADENCE_DATABASE_URL", "postgresql://cadence:pw-very-secret@db.example/cadence")
    result = run("config")
    assert result.exit_code == 0, result.output
    assert "sk-very-secret-value" not in result.output and "k-one" not in result.output
    assert "pw-very-secret" not in result.output
    assert "CADENCE_LLM_API_KEY" in result.stdout and "***" in result.stdout
    as_json = run("config", "--json")
    data = json.loads(as_json.stdout)
    assert data["llm_api_key"] == "***"
    assert data["api_keys"] == ["***", "***:bob"]
    assert data["database_url"] == "postgresql://***@db.example/cadence"
    assert data["builtin_plugins"] == ["math"]


def test_serve_calls_run_server(cli_env: dict[str, str], monkeypatch) -> None:
    calls: list[tuple[Any, ...]] = []
    fake = types.ModuleType("cadence.server")
    fake.run_server = lambda settings, host, port, **_: calls.append((settings, host, port))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cadence.server", fake)
    result = run("serve", "--port", "8123")
    assert result.exit_code == 0, result.output
    ((settings, host, port),) = calls
    assert isinstance(settings, Settings) and host == "127.0.0.1" and port == 8123


def test_serve_without_server_is_one_line(cli_env: dict[str, str], monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "cadence.server", None)
    assert_one_error_line(run("serve"), "HTTP server is not available")


def test_version_and_help() -> None:
    assert run("--version").stdout.startswith("cadence ")
    result = run("--help")
    assert result.exit_code == 0
    for command in ("chat", "plugins", "graph", "config", "serve"):
        assert command in result.stdout


def test_entry_point_in_a_subprocess(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The real process: stdout holds only the JSON even with DEBUG logging on stderr.

    (At INFO/DEBUG the tool-start log record must not use reserved LogRecord keys such as ``args``.)
    """
    script = tmp_path / "math.json"
    script.write_text(json.dumps(MATH_SCRIPT), encoding="utf-8")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")},
        **cli_env,
        "CADENCE_LLM": f"scripted:{script}",
        "CADENCE_LOG_LEVEL": "DEBUG",
        "PYTHONPATH": str(SRC),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cadence.cli.main import main; main()",
            "chat",
            "--json",
            "Calculate 15 * 23",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    used = json.loads(proc.stdout)["trace"]["tools_used"][0]
    assert used["error"] is None, used["error"]
    assert used["result"] == "345"
    assert "Traceback" not in proc.stderr
    assert "info cadence" in proc.stderr or "debug cadence" in proc.stderr  # logs went to stderr

    bad = subprocess.run(
        [sys.executable, "-m", "cadence.cli", "chat", "--tone", "sarcastic", "hi"],
        capture_output=True,
        text=True,
        env={**env, "CADENCE_LOG_LEVEL": "WARNING"},
        timeout=120,
    )
    assert bad.returncode != 0 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        "error: Unknown tone 'sarcastic'; choose one of: natural, explanatory, formal, concise, learning."
    ]
