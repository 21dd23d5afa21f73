"""``cadence threads ...`` on a database that does not exist: said so, nothing created."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cadence.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(
    "args",
    [
        ["threads", "show", "t1"],
        ["threads", "history", "t1"],
        ["threads", "replay", "t1"],
        ["threads", "fork", "t1", "some-checkpoint"],
    ],
)
def test_reading_a_thread_of_a_missing_database_says_so_and_creates_nothing(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mistyped URL or data directory created an empty database (and its folder, and the memory
    database) and answered as if the thread were merely unknown."""
    monkeypatch.setenv("CADENCE_DATABASE_URL", f"sqlite:///{tmp_path / 'typo' / 'cadence.db'}")
    monkeypatch.setenv("CADENCE_LLM", "scripted")
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == (
        f"error: No thread 't1': there is no database at {tmp_path / 'typo' / 'cadence.db'} "
        "(nothing was stored there); check CADENCE_DATABASE_URL (or CADENCE_DATA_DIR)."
    )
    assert not (tmp_path / "typo").exists()


def test_listing_the_threads_of_a_missing_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "typo" / "cadence.db"
    monkeypatch.setenv("CADENCE_DATABASE_URL", f"sqlite:///{db}")
    listed = runner.invoke(app, ["threads", "list"])
    assert listed.exit_code == 0 and f"no database at {db}" in " ".join(listed.stdout.split())
    as_json = runner.invoke(app, ["threads", "list", "--json"])
    assert as_json.exit_code == 0 and as_json.stdout.strip() == '{"threads": []}'
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize(
    "url",
    ["sqlite:///{tmp}/a.db", "sqlite://rel/a.db", "sqlite:///:memory:", "memory://", "postgresql://h/db"],
)
def test_the_missing_database_check_reads_urls_as_persistence_does(url: str, tmp_path: Path) -> None:
    from cadence.cli.common import missing_database
    from cadence.persistence.databases import parse_database_url
    from cadence.settings import Settings

    url = url.format(tmp=tmp_path)
    kind, target = parse_database_url(url)
    expected = str(Path(target).absolute()) if kind == "sqlite" else None
    assert missing_database(Settings(database_url=url)) == expected
