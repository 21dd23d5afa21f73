"""Probes of Markdown agent files as editors write them: encodings, line endings, byte order marks."""

from __future__ import annotations

from pathlib import Path

import pytest

from cadence.plugins.markdown import MarkdownAgentError, parse_agent_file

AGENT = (
    "---\r\nname: windows_agent\r\ndescription: An agent saved by a Windows editor.\r\n---\r\nYou help.\r\n"
)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig", "utf-8"])
def test_unicode_files_with_a_byte_order_mark_load(tmp_path: Path, encoding: str) -> None:
    # Notepad's "Unicode" is UTF-16 with a byte order mark: it was 'cannot be read (UnicodeDecodeError…)'
    path = tmp_path / "agent.md"
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    path.write_bytes(bom + AGENT.encode(encoding))
    agent = parse_agent_file(path)
    assert agent.name == "windows_agent" and agent.prompt == "You help."
    assert agent.line_of("description") == 3


def test_a_file_that_is_not_utf8_names_the_line_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "agent.md"
    path.write_bytes(
        "---\nname: cafe\ndescription: Recommends a café nearby.\n---\nYou help.\n".encode("latin-1")
    )
    with pytest.raises(MarkdownAgentError) as info:
        parse_agent_file(path)
    assert info.value.line == 3
    assert (
        "is not UTF-8 text (byte 0xe9)" in info.value.problem
        and "save the file as UTF-8" in info.value.problem
    )
    assert "UnicodeDecodeError" not in info.value.message


async def test_a_reload_that_breaks_the_configured_agent_leaves_the_others_working(tmp_path: Path) -> None:
    # CADENCE_AGENT's file gets a mistake, then a reload: the reload raised ConfigurationError and every
    # later single-mode turn too, even one naming another loaded agent (the graph could not be built)
    from tests.conftest import make_settings

    from cadence.errors import ValidationError
    from cadence.orchestration.engine import Cadence
    from cadence.testing import ScriptedChatModel

    path = tmp_path / "helper.md"
    path.write_text("---\nname: helper\ndescription: Helps with anything at all.\n---\nYou help.\n")
    settings = make_settings(mode="single", agent="helper", agents_dir=[tmp_path], builtin_plugins=["math"])
    engine = Cadence(settings, model=ScriptedChatModel.from_items([{"content": "one"}, {"content": "two"}]))
    assert (await engine.ainvoke("hi")).response == "one"
    path.write_text(path.read_text().replace("---\nYou", "tools: [nope]\n---\nYou"))
    statuses = {s.name: s for s in engine.reload()}
    assert statuses["helper"].status == "failed" and "unknown tool 'nope'" in statuses["helper"].reason
    with pytest.raises(ValidationError) as info:  # the configured agent: 422 with the file's mistake
        await engine.ainvoke("hi again")
    assert info.value.code == "unknown_agent" and "unknown tool 'nope'" in info.value.message
    result = await engine.ainvoke("2+2?", agent="math")
    assert result.response == "two" and result.error is None


@pytest.mark.parametrize(
    ("written", "field", "expected"),
    [
        ("version:\n  1.10", "version", "1.10"),  # on the next line: was '' and so silently 1.0.0
        ("version: 2024-01-01", "version", "2024-01-01"),  # a date to YAML: was "'version' must be text"
        ("capabilities: [yes, 2.10 notes]", "capabilities", ["yes", "2.10 notes"]),  # was 'True'
        ("tools: [on, 1.10]", "tools", ["on", "1.10"]),
    ],
)
def test_every_text_is_read_as_written(written: str, field: str, expected: object) -> None:
    from cadence.plugins.markdown import parse_agent_text

    agent = parse_agent_text(f"---\nname: x\ndescription: An agent of a few fields.\n{written}\n---\nHi\n")
    assert agent.fields[field] == expected


def test_a_quoted_field_name_is_found_on_its_line() -> None:
    # '"colour": red' (JSON-style keys) was reported without a line
    from cadence.plugins.markdown import ToolCatalog, parse_agent_text, plugin_class

    text = '---\n"name": "x"\n"description": "An agent of quoted fields."\n"tools": ["nope"]\n---\nHi\n'
    with pytest.raises(MarkdownAgentError) as info:
        plugin_class(parse_agent_text(text, "a.md"), ToolCatalog([]))
    assert info.value.line == 4 and "unknown tool 'nope'" in info.value.problem
    with pytest.raises(MarkdownAgentError) as unknown:
        parse_agent_text('---\nname: x\ndescription: An agent of a colour.\n"colour": red\n---\nHi\n')
    assert unknown.value.line == 4
