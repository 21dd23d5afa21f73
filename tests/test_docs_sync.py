"""The README documents every setting and the CI script runs the README's two commands (after the
browser set-up the README also documents)."""

from __future__ import annotations

from pathlib import Path

from cadence.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_readme_documents_every_setting() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = [name for name in Settings.model_fields if f"`CADENCE_{name.upper()}`" not in readme]
    assert missing == []


def test_ci_runs_the_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    block = readme.split("```bash", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(block) == 2
    ci_lines = [
        line.strip() for line in ci.splitlines() if line.strip() and not line.startswith(("#", "set ", "cd "))
    ]
    assert ci_lines[-2:] == [line.strip() for line in block]
    # before them, only the browser for the web page's tests, which the README documents
    assert ci_lines[:-2] == [".ci/install-chromium"]
    assert "`.ci/install-chromium`" in readme


def test_the_bundled_settings_reference_is_the_readmes_table() -> None:
    """The docs agent searches the bundled documents: `python tests/settings_reference.py` writes it again."""
    from settings_reference import TARGET, render

    assert TARGET.read_text() == render((ROOT / "README.md").read_text())
