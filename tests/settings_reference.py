"""The bundled docs' settings reference (``docs_corpus/settings.md``), made from the README's table.

The docs agent searches the bundled documents, not the README: this page gives it every setting, grouped by
topic. ``python tests/settings_reference.py`` writes it again after the README's table changed;
``tests/test_docs_sync.py`` checks that it is up to date.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "src" / "cadence" / "builtins" / "docs_corpus" / "settings.md"
_ROW_RE = re.compile(r"^\| `(CADENCE_[A-Z0-9_]+)` \| (.*?) \| (.*) \|$")
_TOPICS = {
    "MEMORY": "Long-term memory",
    "LOCAL": "The embedded local model",
    "RETENTION": "Checkpoint retention",
    "SUPERVISOR": "Supervisor mode",
    "RESEARCHER": "Planner mode",
    "MODEL": "Model calls",
    "MAX": "Limits",
    "POSTGRES": "Storage",
    "SQLITE": "Storage",
    "DATABASE": "Storage",
    "CHECKPOINT": "Storage",
    "HISTORY": "Storage",
    "DATA": "Storage",
    "PLUGIN": "Plugins",
    "PLUGINS": "Plugins",
    "BUILTIN": "Plugins",
    "DISABLED": "Plugins",
    "AGENT": "Agents",
    "AGENTS": "Agents",
    "APPROVAL": "Human in the loop",
    "API": "Server",
    "HOST": "Server",
    "PORT": "Server",
    "WORKERS": "Server",
    "WORKER": "Server",
    "REQUEST": "Server",
    "SHUTDOWN": "Server",
    "CORS": "Server",
    "THREAD": "Server",
    "SYNTHESIZER": "Answers",
    "SUSPEND": "Answers",
    "STRUCTURED": "Answers",
    "VALIDATION": "Answers",
    "COORDINATOR": "Orchestration",
    "MODE": "Orchestration",
    "GRAPH": "Orchestration",
    "INLINE": "Orchestration",
    "LLM": "Models",
    "TEMPERATURE": "Models",
    "DOCS": "Documents",
    "NOTE": "Documents",
    "SUMMARIZE": "Documents",
}


def render(readme: str) -> str:
    """The settings reference for the README text ``readme``."""
    groups: dict[str, list[str]] = defaultdict(list)
    for line in readme.splitlines():
        row = _ROW_RE.match(line.strip())
        if row is None:
            continue
        name, default, description = row.groups()
        topic = _TOPICS.get(name.removeprefix("CADENCE_").split("_")[0], "Other settings")
        groups[topic].append(f"- `{name}` (default {default}): {description}")
    lines = [
        "# Settings reference",
        "",
        "Every setting is an environment variable with the `CADENCE_` prefix, or a line of a `.env` file in the",
        "working directory; `cadence config` prints the effective values. Lists are comma separated.",
    ]
    for topic in sorted(groups, key=lambda t: (t == "Other settings", t)):
        lines += ["", f"## {topic}", "", *groups[topic]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(render((ROOT / "README.md").read_text()))
    print(f"written: {TARGET.relative_to(ROOT)}")
