"""``cadence threads replay``: a stored turn re-run against the current configuration, side by side."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cadence.cli.replay import pick_turn, stored_turns
from test_cli import assert_one_error_line, cli_env, run, thread_messages, use_script  # noqa: F401

FIRST = [
    {"tool_calls": [{"name": "goto_math_agent", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "15 * 23"}}]},
    {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
    {"content": "15 * 23 = 345"},
]


def test_turns_of_a_thread() -> None:
    messages = [
        HumanMessage("q1"),
        AIMessage("", name="math_agent", tool_calls=[{"name": "calculate", "args": {}, "id": "c"}]),
        ToolMessage("3", tool_call_id="c", name="calculate"),
        AIMessage("a1", name="synthesizer"),
        HumanMessage("q2"),
        AIMessage("a2", name="forward", response_metadata={"cadence_forwarded": "math"}),
        HumanMessage("q3 (interrupted, no answer)"),
    ]
    assert stored_turns(messages) == [(0, 3), (4, 5), (6, None)]
    values = {"messages": messages, "tone": "concise"}
    first = pick_turn(values, 1, "t")
    assert (first.question, first.answer, len(first.history), first.tone) == ("q1", "a1", 0, None)
    second = pick_turn(values, 2, "t")
    assert second.answer == "a2" and second.agent == "math" and len(second.history) == 4
    last = pick_turn(values, None, "t")
    assert last.index == 3 and last.answer == "" and last.tone == "concise"
    assert pick_turn(values, -2, "t").index == 2


def test_replay_shows_both_answers(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    use_script(monkeypatch, tmp_path, FIRST, "first")  # each command reads its script afresh
    assert run("chat", "--thread", "t1", "Calculate 15 * 23").exit_code == 0
    second = [
        {"tool_calls": [{"name": "calculate", "args": {"expression": "345 * 2"}}]},
        {"content": "Doubled: 690"},
    ]
    use_script(monkeypatch, tmp_path, second, "second")  # the second turn runs in the single mode
    assert run("chat", "--agent", "math", "--thread", "t1", "Double it").exit_code == 0
    before = thread_messages(cli_env, "local", "t1")

    # a new configuration: the model now words the answer differently
    changed = [*FIRST[:3], {"content": "The product of 15 and 23 is 345."}]
    use_script(monkeypatch, tmp_path, changed, "changed")
    result = run("threads", "replay", "t1", "--turn", "1", "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert (body["turn"], body["turns"], body["question"]) == (1, 2, "Calculate 15 * 23")
    assert body["stored"]["mode"] == "coordinator"  # from the checkpoint that ends with turn 1
    assert body["stored"]["answer"] == "15 * 23 = 345"
    assert body["replayed"]["answer"] == "The product of 15 and 23 is 345."
    assert body["same"] is False and body["model"].startswith("scripted:")
    assert body["replayed"]["trace"]["tools_used"][0]["result"] == "345"
    # the stored thread is unchanged
    assert thread_messages(cli_env, "local", "t1") == before

    # the last turn, replayed with the history before it, side by side in a table
    use_script(monkeypatch, tmp_path, [second[0], {"content": "690"}], "last")
    table = run("threads", "replay", "t1")
    assert table.exit_code == 0, table.output
    assert "Doubled: 690" in table.stdout and "690" in table.stdout
    assert "stored answer" in table.stdout and "replayed now" in table.stdout
    assert "turn 2 of 2" in table.stdout and "the answers differ" in table.stdout
    assert "route: math · 1 tool" in table.stdout  # replayed in the turn's own mode (single, agent math)


def test_replay_of_a_single_mode_turn(
    cli_env: dict[str, str],  # noqa: F811
    tmp_path: Path,
    monkeypatch,
) -> None:
    use_script(monkeypatch, tmp_path, [{"content": "Hi, I compute."}], "single")
    assert run("chat", "--agent", "math", "--thread", "s1", "hello").exit_code == 0
    use_script(monkeypatch, tmp_path, [{"content": "Hi, I compute."}], "again")
    body = json.loads(run("threads", "replay", "s1", "--json").stdout)
    assert body["stored"] == {"answer": "Hi, I compute.", "mode": "single", "agent": "math"}
    assert body["same"] is True and body["replayed"]["trace"]["mode"] == "single"
    assert [c["node"] for c in body["replayed"]["trace"]["model_calls"]] == ["math_agent"]


def test_replay_with_an_agent_runs_in_the_single_mode_and_the_table_keeps_citations(
    cli_env: dict[str, str],  # noqa: F811
    tmp_path: Path,
    monkeypatch,
) -> None:
    use_script(monkeypatch, tmp_path, FIRST, "coordinator")
    assert run("chat", "--thread", "c1", "Calculate 15 * 23").exit_code == 0
    use_script(monkeypatch, tmp_path, [{"content": "345 [calc.md]"}], "agent")
    body = json.loads(run("threads", "replay", "c1", "--agent", "math", "--json").stdout)
    assert body["stored"]["mode"] == "coordinator" and body["replayed"]["trace"]["mode"] == "single"
    use_script(monkeypatch, tmp_path, [{"content": "345 [calc.md]"}], "again")
    table = run("threads", "replay", "c1", "--agent", "math")
    assert table.exit_code == 0, table.output
    assert "345 [calc.md]" in table.stdout  # a citation is not read as a style tag


def test_replay_errors_are_one_line(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    use_script(monkeypatch, tmp_path, FIRST, "stored")
    assert_one_error_line(run("threads", "replay", "nope"), "there is no database at")
    assert run("chat", "--thread", "t2", "Calculate 15 * 23").exit_code == 0
    assert_one_error_line(run("threads", "replay", "nope"), "No stored thread 'nope'")
    assert_one_error_line(run("threads", "replay", "t2", "--turn", "5"), "has 1 turn(s)")
