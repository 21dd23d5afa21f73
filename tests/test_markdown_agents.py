"""Agents written in Markdown: loading, validation errors (file and line), routing in every mode, reload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import FINALIZE, call, goto, make_settings, transfer

from cadence.builtins.text import split_sentences
from cadence.orchestration.engine import Cadence
from cadence.plugins.manager import PluginManager
from cadence.plugins.markdown import MarkdownAgent, MarkdownAgentError, parse_agent_text
from cadence.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "agents"

NOTES = (
    "Weekly sync, 3 March. Attendees: Ana, Ben, Chloe. "
    "The team decided to ship version 2.1 on Friday. Ben will update the release notes by Thursday. "
    "Chloe reported that the login bug is fixed. The budget review moves to next week. "
    "Ana will book the room for the budget review."
)


def write_agent(folder: Path, filename: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """---
name: release_helper
description: Answers questions about the release checklist and computes dates.
capabilities: [release checklist, version numbers]
tools: [calculate]
---
You help with releases.

## Constraints
- Always compute with the calculate tool.
"""


def statuses_by_name(manager: PluginManager) -> dict[str, object]:
    return {s.name: s for s in manager.statuses}


# -- loading -----------------------------------------------------------------------------------------
def test_shipped_examples_load_as_plugins() -> None:
    manager = PluginManager(make_settings(agents_dir=[EXAMPLES]))
    manager.load()
    for name, tools in (
        ("meeting_notes", ["summarize_text", "back"]),
        ("process_checklist", ["calculate", "percent_of", "back"]),
    ):
        bundle = manager.bundles[name]
        assert bundle.source.kind == "markdown"
        assert isinstance(bundle.agent, MarkdownAgent)
        assert [t.name for t in bundle.tools] == tools
        status = statuses_by_name(manager)[name]
        assert status.status == "loaded" and status.source == "markdown"
        assert status.location.endswith(".md") and status.health.startswith("markdown agent")
    notes = manager.bundles["meeting_notes"]
    # the body is the system prompt, sections kept as written
    prompt = notes.agent.get_system_prompt()
    assert prompt.startswith("You are a meeting-notes assistant.")
    assert "## Behaviour guidelines" in prompt and "## Process constraints" in prompt
    assert notes.metadata.response_suggestion.startswith("Start with a one-line summary")
    assert "list the decisions taken in a meeting" in notes.metadata.capabilities


def test_every_front_matter_field(tmp_path: Path) -> None:
    write_agent(
        tmp_path,
        "full.md",
        """---
name: Full Agent
description: Uses every field of the front matter at once.
version: 2.3.0
capabilities:
  - one thing
  - another thing
tools: calculate, summarize_text
model: openai:gpt-4.1-mini
temperature: 0.2
max_tokens: 300
response_suggestion: Be short.
agent_type: utility
---
Prompt.
""",
    )
    manager = PluginManager(make_settings(builtin_plugins=["math"], agents_dir=[tmp_path]))
    manager.load()
    meta = manager.bundles["full_agent"].metadata
    assert (meta.name, meta.version, meta.agent_type.value) == ("Full Agent", "2.3.0", "utility")
    assert meta.capabilities == ["one thing", "another thing"]
    assert meta.llm_requirements.model == "openai:gpt-4.1-mini"
    assert (meta.llm_requirements.temperature, meta.llm_requirements.max_tokens) == (0.2, 300)
    assert meta.response_suggestion == "Be short."
    # summarize_text comes from the built-in text plugin, which is not loaded as an agent
    assert "text" not in manager.bundles
    assert [t.name for t in manager.bundles["full_agent"].tools] == ["calculate", "summarize_text", "back"]


# -- validation -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("no front matter\n", 1, "no front matter"),
        ("---\nname: x\n", 1, "never closed"),
        ("---\nname: a\ndescription: [unclosed\n---\nbody\n", 3, "invalid front matter (YAML"),
        ("---\ndescription: Something long enough here.\n---\nbody\n", 2, "'name' field is missing"),
        (
            "---\nname: abc\ndescription: Long enough text.\ncolour: red\n---\nbody\n",
            4,
            "unknown field 'colour'",
        ),
        ("---\nname: abc\ndescription: Long enough text.\n---\n\n\n", 4, "system prompt"),
        ("---\nname: abc\ndescription: short\n---\nbody\n", 3, "'description'"),
        ("---\nname: 9abc\ndescription: Long enough text.\n---\nbody\n", 2, "'name'"),
        ("---\nname: abc\ndescription: Long enough text.\nversion: x.y\n---\nbody\n", 4, "'version'"),
        ("---\nname: abc\ndescription: Long enough text.\ntools: {a: 1}\n---\nbody\n", 4, "'tools'"),
        ("---\nname: abc\ndescription: Long enough text.\ntemperature: 9\n---\nbody\n", 4, "'temperature'"),
        # YAML keeps the last of two equal keys: the first was dropped without a word
        (
            "---\nname: abc\ndescription: Long enough text.\nname: xyz\n---\nbody\n",
            4,
            "'name' is written twice",
        ),
        (
            "---\nname: abc\ndescription: Long enough text.\ntools: [calculate]\n\ntools: [percent_of]\n---\nb\n",
            6,
            "'tools' is written twice (first on line 4)",
        ),
        # YAML's own words were "found character '\t' that cannot start any token"
        ("---\nname:\tabc\ndescription: Long enough text.\n---\nbody\n", 2, "a tab character (column 6)"),
        (
            "---\nname: abc\ndescription: Long enough text.\ntools:\n\t- calculate\n---\nb\n",
            5,
            "spaces, not tabs",
        ),
        # yes/true is a boolean to YAML, and pydantic took it as 1 (one output token)
        ("---\nname: abc\ndescription: Long enough text.\nmax_tokens: yes\n---\nbody\n", 4, "a number"),
        ("---\nname: abc\ndescription: Long enough text.\ntemperature: on\n---\nbody\n", 4, "a number"),
    ],
)
def test_invalid_files_are_rejected_with_file_and_line(text: str, line: int, fragment: str) -> None:
    from cadence.plugins.markdown import ToolCatalog, plugin_class

    with pytest.raises(MarkdownAgentError) as info:
        plugin_class(parse_agent_text(text, "agents/bad.md"), ToolCatalog([]))
    assert info.value.line == line, info.value.message
    assert fragment in info.value.message
    assert info.value.message.startswith(f"agents/bad.md, line {line}: ")


def test_invalid_files_are_skipped_and_listed_with_their_reason(tmp_path: Path) -> None:
    write_agent(tmp_path, "good.md", GOOD)
    write_agent(
        tmp_path,
        "unknown-tool.md",
        "---\nname: broken\ndescription: Names a tool nobody has.\ntools: [calculate, teleport]\n---\nHi.\n",
    )
    write_agent(tmp_path, "clash.md", "---\nname: math\ndescription: Takes a built-in's name.\n---\nHi.\n")
    write_agent(tmp_path, "twin.md", GOOD.replace("release checklist", "twin"))
    write_agent(tmp_path, "yaml.md", "---\nname: y\ndescription: ok ok ok ok\ntools: [a\n---\nHi.\n")
    write_agent(tmp_path, "README.md", "# not an agent\n")
    manager = PluginManager(make_settings(builtin_plugins=["math"], agents_dir=[tmp_path]))
    statuses = manager.load()
    assert set(manager.bundles) == {"math", "release_helper"}
    failed = {Path(s.location).name: s.reason for s in statuses if s.status == "failed"}
    assert set(failed) == {"unknown-tool.md", "clash.md", "twin.md", "yaml.md"}
    assert failed["unknown-tool.md"].startswith("line 4: unknown tool 'teleport'")
    assert "calculate" in failed["unknown-tool.md"]  # the available tools are listed
    assert failed["clash.md"].startswith("line 2: the name 'math' is already taken by the builtin plugin")
    assert failed["twin.md"].startswith("line 2: the name 'release_helper' is already taken by the markdown")
    assert "good.md" in failed["twin.md"]
    assert failed["yaml.md"].startswith("line 4: invalid front matter")


def test_missing_agents_dir_is_reported(tmp_path: Path) -> None:
    manager = PluginManager(make_settings(builtin_plugins=[], agents_dir=[tmp_path / "nope"]))
    statuses = manager.load()
    assert [(s.source, s.status) for s in statuses] == [("markdown", "failed")]
    assert "does not exist" in statuses[0].reason


def test_disabled_markdown_agent(tmp_path: Path) -> None:
    write_agent(tmp_path, "good.md", GOOD)
    manager = PluginManager(
        make_settings(builtin_plugins=["math"], agents_dir=[tmp_path], disabled_plugins=["release_helper"])
    )
    manager.load()
    assert "release_helper" not in manager.bundles
    assert statuses_by_name(manager)["release_helper"].status == "disabled"


def test_reload_picks_up_new_and_changed_files(tmp_path: Path) -> None:
    engine = Cadence(
        make_settings(builtin_plugins=["math"], agents_dir=[tmp_path]), model=ScriptedChatModel.from_items([])
    )
    assert set(engine.plugin_manager.bundles) == {"math"}
    path = write_agent(tmp_path, "good.md", GOOD)
    engine.reload()
    assert "release_helper_agent" in engine.graph.get_graph().nodes
    path.write_text(GOOD.replace("You help with releases.", "You help with releases, politely."))
    engine.reload()
    assert "politely" in engine.plugin_manager.bundles["release_helper"].agent.get_system_prompt()


# -- routing in every mode ---------------------------------------------------------------------------------
async def test_coordinator_routes_to_a_markdown_agent(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("meeting_notes"),
            call("summarize_text", text=NOTES, max_sentences=2),
            FINALIZE,
            {"content": "The team will ship 2.1 on Friday; Ben updates the release notes."},
        ],
        agents_dir=[EXAMPLES],
    )
    result = await engine.ainvoke(f"Summarize these notes: {NOTES}")
    assert result.trace["routing_history"] == ["meeting_notes"]
    assert [r.node for r in model.records] == [
        "coordinator",
        "meeting_notes_agent",
        "coordinator",
        "synthesizer",
    ]
    # the coordinator was offered the markdown agent like any plugin
    assert "goto_meeting_notes_agent" in model.records[0].tools
    # the agent's model saw the file's body as its system prompt and was offered its tools
    agent_call = model.records[1]
    assert agent_call.messages[0].content.startswith("You are a meeting-notes assistant.")
    assert agent_call.tools == ["summarize_text"]  # a text answer hands back: no back schema
    summary = result.trace["tools_used"][0]
    assert summary["name"] == "summarize_text" and not summary["error"]
    picked = split_sentences(summary["result"])
    assert len(picked) == 2 and all(sentence in NOTES for sentence in picked)
    # the synthesizer got the agent's response suggestion
    assert "Start with a one-line summary" in str(model.records[-1].messages[0].content)


async def test_supervisor_hands_off_to_a_markdown_agent(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("process_checklist"),
            call("calculate", expression="3 * 400 + 50"),
            {"content": "1. Total: 1250 (done)."},
            {"tool_calls": [{"name": "forward_message", "args": {"from_agent": "process_checklist"}}]},
        ],
        mode="supervisor",
        agents_dir=[EXAMPLES],
    )
    result = await engine.ainvoke("3 chairs at 400 plus 50 shipping: what approvals?")
    assert result.response == "1. Total: 1250 (done)."
    assert result.trace["routing_history"] == ["process_checklist"]
    assert [r.node for r in model.records] == [
        "supervisor",
        "process_checklist_agent",
        "process_checklist_agent",
        "supervisor",
    ]
    # the supervisor was offered the markdown agent's handoff tool like any plugin's
    assert "transfer_to_process_checklist" in model.records[0].tools
    assert result.trace["tools_used"][0]["result"] == "1250"


def test_plugins_list_shows_markdown_agents_and_health(tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from cadence.cli.main import app

    monkeypatch.setenv("CADENCE_ENTRY_POINTS_ENABLED", "false")
    write_agent(tmp_path / "bad", "bad.md", "---\nname: x\n")
    monkeypatch.setenv("CADENCE_AGENTS_DIR", f"{EXAMPLES},{tmp_path / 'bad'}")
    result = CliRunner().invoke(app, ["plugins", "list", "--json"])
    assert result.exit_code == 0, result.output
    plugins = json.loads(result.stdout)["plugins"]
    rows = {Path(p["location"]).name if p["source"] == "markdown" else p["name"]: p for p in plugins}
    assert rows["meeting-notes.md"]["status"] == "loaded"
    assert rows["bad.md"]["status"] == "failed" and rows["bad.md"]["reason"].startswith("line 1:")
    assert rows["math"]["health"] == "ok"
    table = CliRunner().invoke(app, ["plugins", "list"])
    assert "meeting_notes" in table.stdout and "markdown" in table.stdout and "health" in table.stdout


# -- the docs -----------------------------------------------------------------------------------------------
def test_the_docs_example_and_every_field_reference(tmp_path: Path) -> None:
    import re

    from cadence.plugins.markdown import FIELDS

    docs = (ROOT / "docs" / "agents-in-markdown.md").read_text()
    first = re.findall(r"```markdown\n(.*?)```", docs, re.S)[0]
    write_agent(tmp_path / "first", "packing-list.md", first)
    manager = PluginManager(make_settings(builtin_plugins=["math"], agents_dir=[tmp_path / "first"]))
    manager.load()
    assert [t.name for t in manager.bundles["packing_list"].tools] == ["calculate", "back"]
    # the mistake shown in the docs is reported on the line the docs say
    write_agent(tmp_path / "typo", "packing-list.md", first.replace("[calculate]", "[calculator]"))
    manager = PluginManager(make_settings(builtin_plugins=["math"], agents_dir=[tmp_path / "typo"]))
    manager.load()
    reason = next(s.reason for s in manager.statuses if s.source == "markdown")
    assert (
        reason.startswith("line 7: unknown tool 'calculator'") and "line 7: unknown tool 'calculator'" in docs
    )
    # every field has a section with an example, and each example is valid
    for field in FIELDS:
        section = docs.split(f"### `{field}`", 1)[1].split("###", 1)[0]
        example = re.findall(r"```yaml\n(.*?)```", section, re.S)[0]
        base = {"name": "name: doc_example\n", "description": "description: An example from the docs.\n"}
        base[field] = example
        text = "---\n" + "".join(base.values()) + "---\nInstructions.\n"
        path = write_agent(tmp_path / f"field_{field}", "example.md", text)
        manager = PluginManager(make_settings(builtin_plugins=["math"], agents_dir=[path.parent]))
        manager.load()
        status = next(s for s in manager.statuses if s.source == "markdown")
        assert status.status == "loaded", (field, status.reason)


def test_agents_shipped_in_an_installed_package(tmp_path: Path, monkeypatch) -> None:
    """A distribution declaring ``cadence.agents`` (a real dist-info on sys.path, nothing patched)."""
    import sys

    site = tmp_path / "site"
    package = site / "shipped_agents_pkg" / "agents"
    write_agent(package, "release.md", GOOD)
    (package / "__init__.py").write_text("")
    (package.parent / "__init__.py").write_text("")
    info = site / "shipped_agents_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shipped-agents-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cadence.agents]\nreleases = shipped_agents_pkg.agents\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        manager = PluginManager(make_settings(builtin_plugins=["math"], entry_points_enabled=True))
        manager.load()
        bundle = manager.bundles["release_helper"]
        assert bundle.source.kind == "markdown" and bundle.source.location.endswith("release.md")
        off = PluginManager(make_settings(builtin_plugins=["math"], entry_points_enabled=False))
        off.load()
        assert "release_helper" not in off.bundles
    finally:
        for name in ("shipped_agents_pkg", "shipped_agents_pkg.agents"):
            sys.modules.pop(name, None)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("import sys\nsys.exit(7)\n", "SystemExit(7) raised by the plugin's code"),
        ("raise KeyboardInterrupt\n", "KeyboardInterrupt() raised by the plugin's code"),
        ("raise RuntimeError('broken agents')\n", "RuntimeError: broken agents"),
    ],
)
def test_a_package_of_agents_that_fails_at_import_is_a_failed_plugin(
    tmp_path: Path, monkeypatch, body: str, reason: str
) -> None:
    """Whatever a ``cadence.agents`` package raises at import (``SystemExit`` too) is reported, not raised."""
    import sys

    site = tmp_path / "site"
    (site / "exiting_agents_pkg").mkdir(parents=True)
    (site / "exiting_agents_pkg" / "__init__.py").write_text(body)
    info = site / "exiting_agents_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: exiting-agents-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cadence.agents]\nexiting = exiting_agents_pkg\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        manager = PluginManager(make_settings(builtin_plugins=["math"], entry_points_enabled=True))
        manager.load()
    finally:
        sys.modules.pop("exiting_agents_pkg", None)
    status = next(s for s in manager.statuses if s.name == "exiting")
    assert (status.status, status.source, status.location) == ("failed", "markdown", "exiting_agents_pkg")
    assert status.reason is not None and status.reason.startswith(reason) and "\n" not in status.reason
    assert "math" in manager.bundles


def test_api_lists_markdown_agents_with_health() -> None:
    import httpx

    from test_server_support import serve

    with serve(builtin_plugins=["math"], agents_dir=[EXAMPLES]) as url:
        plugins = httpx.get(f"{url}/api/v1/plugins", timeout=30).json()["plugins"]
    by_name = {p["name"]: p for p in plugins}
    assert by_name["meeting_notes"]["source"] == "markdown" and by_name["meeting_notes"]["status"] == "loaded"
    assert by_name["meeting_notes"]["health"] == "markdown agent (summarize_text)"
    assert by_name["math"]["health"] == "ok"


async def test_planner_mode_uses_a_markdown_agents_tools(engine_factory) -> None:
    planned = [
        {"name": "calculate", "args": {"expression": "15 * 23"}},
        {"name": "summarize_text", "args": {"text": NOTES, "max_sentences": 1}},
    ]
    engine, model = engine_factory(
        [
            {
                "tool_calls": [
                    {
                        "name": "make_plan",
                        "args": {"thought": "t", "delegate_to": "researcher", "tools": planned},
                    }
                ]
            },
            {"content": "345; the team ships 2.1 on Friday."},
        ],
        mode="planner",
        agents_dir=[EXAMPLES],
    )
    result = await engine.ainvoke("15 * 23, and summarize the notes", user_id="u")
    assert result.error is None and [r.node for r in model.records] == ["planner", "root"]
    # summarize_text is offered by the markdown agent meeting_notes (the text plugin is not loaded)
    assert "text" not in engine.plugin_manager.bundles
    assert [t["name"] for t in result.trace["tools_used"]] == ["calculate", "summarize_text"]


def test_text_fields_are_read_as_written() -> None:
    """YAML reads ``yes`` as true and ``1.10`` as 1.1: a name or a version is the text written."""
    agent = parse_agent_text(
        "---\nname: yes\ndescription: An agent that agrees with things.\nversion: 1.10  # minor\n---\nAgree.\n"
    )
    assert agent.fields["name"] == "yes" and agent.fields["version"] == "1.10"
