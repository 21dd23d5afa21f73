"""Built-in tools under hostile input: clean one-line errors that leak no server paths, and no hangs."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from cadence.builtins.docs import DocsError, get_index, make_docs_tools
from cadence.builtins.math import CalculationError, percentage, statistics


@pytest.fixture
def docs(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    folder = tmp_path / "secret-server-location" / "docs"
    folder.mkdir(parents=True)
    (folder / "guide.md").write_text("# Guide\n\nPlugins are loaded from folders.\n")
    return folder, {t.name: t for t in make_docs_tools(folder)}


@pytest.mark.parametrize(
    "path",
    [
        "x" * 10_000 + ".md",
        "y" * 300 + ".md",  # one component longer than the OS allows
        "guide.md\x00.md",
        "../../etc/passwd.md",
        "/etc/hostname.md",
        "guide.py",
        "missing.md",
    ],
)
def test_read_doc_bad_paths_give_clean_errors(docs: tuple[Path, dict[str, object]], path: str) -> None:
    folder, tools = docs
    with pytest.raises(DocsError) as info:
        tools["read_doc"].invoke({"path": path})  # type: ignore[attr-defined]
    message = str(info.value)
    assert "secret-server-location" not in message and str(folder) not in message
    assert "\n" not in message and len(message) < 300
    assert "search_docs" in message or "document" in message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_in_docs_folder_is_skipped_not_waited_on(docs: tuple[Path, dict[str, object]]) -> None:
    folder, tools = docs
    os.mkfifo(folder / "pipe.md")
    results: dict[str, object] = {}

    def run() -> None:
        results["list"] = tools["list_docs"].invoke({})  # type: ignore[attr-defined]
        results["search"] = tools["search_docs"].invoke({"query": "plugins folders"})  # type: ignore[attr-defined]
        try:
            tools["read_doc"].invoke({"path": "pipe.md"})  # type: ignore[attr-defined]
        except DocsError as exc:
            results["read"] = str(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=60)  # generous; before the fix it never returned
    assert not worker.is_alive(), "a docs tool blocked on the FIFO"
    assert results["list"] == "1 document(s): guide.md."
    assert "guide.md:" in str(results["search"])
    assert "pipe.md" in str(results["read"])
    assert get_index(folder)._lock.acquire(timeout=1)  # the index lock is free
    get_index(folder)._lock.release()


@pytest.mark.parametrize("numbers", [[1e308, 1e308], [1.7e308, 1.7e308, -1e308], [-1e308, -1e308, -1e308]])
def test_statistics_overflow_is_a_calculation_error(numbers: list[float]) -> None:
    with pytest.raises(CalculationError, match="too large to summarise"):
        statistics.invoke({"numbers": numbers})


def test_statistics_of_ordinary_numbers_is_unchanged() -> None:
    assert statistics.invoke({"numbers": [1, 2, 3, 4]}) == (
        "count: 4; sum: 10; mean: 2.5; median: 2.5; min: 1; max: 4; range: 3; "
        "sample standard deviation: 1.29099444874; population standard deviation: 1.11803398875"
    )


def test_percentage_overflow_is_a_calculation_error() -> None:
    with pytest.raises(CalculationError, match="too large"):
        percentage.invoke({"part": 1e308, "whole": 1e-308})
