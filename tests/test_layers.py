"""Dependencies point down: an import walk over ``src/cadence`` against the layer rules.

Every ``import``/``from … import`` of a ``cadence`` module counts, wherever it is written:
at module level, inside a function (lazy imports), under ``TYPE_CHECKING``. The rules
(see docs/architecture.md, "Layers"):

- ``cadence.sdk`` imports nothing of Cadence;
- ``cadence.conventions`` (names and message helpers) builds only on the SDK and the text helpers;
- models import only the SDK, settings, errors, the conventions, the retry helper (``backoff``), the
  shared stopwords (``text``) and the reading of long results (``passages``);
- plugins (discovery, validation, containment) and the built-in plugins sit below the
  orchestration, which sits below the testing helpers, the server and the CLI;
- no import circle between any two modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

LAYERS: list[set[str]] = [
    {"sdk"},
    {"errors", "backoff", "text"},
    {"passages"},
    {"settings", "logs"},
    {"conventions"},
    {"models", "builtins"},
    {"plugins"},
    {"persistence"},
    {"memory"},
    {"orchestration"},
    {"testing"},
    {"cadence"},
    {"server"},
    {"cli"},
]
"""Components, lowest first (``cadence`` is the package's front, ``cadence/__init__.py``)."""

ALLOWED: dict[str, set[str]] = {
    "sdk": set(),
    "errors": set(),
    "backoff": set(),
    "text": set(),
    "passages": {"text"},
    "settings": {"errors"},
    "logs": {"errors"},
    "conventions": {"sdk", "text"},
    "models": {"sdk", "errors", "backoff", "settings", "conventions", "text", "passages"},
    "builtins": {"sdk", "errors", "settings", "text"},
    "plugins": {"sdk", "errors", "settings", "conventions", "builtins"},
    "persistence": {"errors", "backoff", "settings"},
    "memory": {"errors", "settings", "text", "persistence"},
    "orchestration": {
        "sdk",
        "errors",
        "backoff",
        "text",
        "passages",
        "settings",
        "conventions",
        "models",
        "plugins",
        "persistence",
        "memory",
    },
    "testing": {"sdk", "errors", "settings", "conventions", "models", "plugins", "orchestration"},
    "cadence": {"errors", "settings", "orchestration"},
    "server": {
        "cadence",
        "sdk",
        "errors",
        "text",
        "logs",
        "settings",
        "conventions",
        "orchestration",
        "persistence",
        "memory",
    },
    "cli": {
        "cadence",
        "sdk",
        "errors",
        "logs",
        "settings",
        "conventions",
        "orchestration",
        "plugins",
        "testing",
        "server",
        "memory",
    },
}
"""What each component may import (besides itself)."""

UPWARD_EXCEPTIONS: set[tuple[str, str]] = set()
"""Allowed imports from a lower component to a higher one (none today)."""


def module_name(path: Path, src: Path = SRC) -> str:
    """``cadence.x.y`` for ``src/cadence/x/y.py`` (a package is named by its ``__init__``)."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def collect_imports(src: Path = SRC) -> dict[str, set[str]]:
    """Every module of ``cadence`` under ``src`` → the ``cadence`` modules it imports anywhere."""
    files = {module_name(p, src): p for p in sorted((src / "cadence").rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.split(".")[0] == "cadence")
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = mod.split(".") if is_package else mod.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                if base.split(".")[0] != "cadence":
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in files else base)
        targets.discard(mod)
        graph[mod] = {t for t in targets if t in files}
    return graph


def component(module: str) -> str:
    """The layer component of a module: ``cadence.orchestration.graph`` → ``orchestration``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "cadence"


def layer_of(name: str, layers: list[set[str]] = LAYERS) -> int:
    """The index of a component's layer."""
    for i, layer in enumerate(layers):
        if name in layer:
            return i
    raise AssertionError(f"component {name!r} is in no layer; add it to LAYERS and ALLOWED in {__file__}")


def violations(
    graph: Mapping[str, Iterable[str]],
    allowed: Mapping[str, set[str]] = ALLOWED,
    exceptions: set[tuple[str, str]] = UPWARD_EXCEPTIONS,
) -> list[str]:
    """Imports that break the rules, as ``"a -> b"`` lines."""
    bad: list[str] = []
    for mod, targets in graph.items():
        src = component(mod)
        for target in sorted(targets):
            dst = component(target)
            if dst == src or (mod, target) in exceptions:
                continue
            if dst not in allowed.get(src, set()):
                bad.append(f"{mod} -> {target} ({src} may not import {dst})")
    return bad


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in list(graph):
        if v not in index:
            visit(v)
    return found


# -- the rules are consistent with the layer order -------------------------------------------
def test_every_allowed_import_points_down() -> None:
    for src, targets in ALLOWED.items():
        for dst in targets:
            assert layer_of(dst) < layer_of(src), f"{src} may import {dst}, which is not below it"
    assert all(
        layer_of(a) > layer_of(b) for a, b in ((component(x), component(y)) for x, y in UPWARD_EXCEPTIONS)
    )


def test_every_component_has_rules() -> None:
    comps = {component(m) for m in collect_imports()}
    assert comps <= set(ALLOWED), f"components without rules: {sorted(comps - set(ALLOWED))}"
    for comp in comps:
        layer_of(comp)


# -- the code follows them --------------------------------------------------------------------
def test_imports_follow_the_layers() -> None:
    bad = violations(collect_imports())
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_no_import_circles() -> None:
    found = cycles(collect_imports())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_sdk_imports_nothing_of_cadence() -> None:
    graph = collect_imports()
    leaks = {
        m: sorted(t for t in ts if component(t) != "sdk") for m, ts in graph.items() if component(m) == "sdk"
    }
    assert not any(leaks.values()), leaks


# -- the checks catch what they must ----------------------------------------------------------
def test_the_walk_sees_lazy_relative_and_type_checking_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "cadence"
    (pkg / "sdk").mkdir(parents=True)
    (pkg / "orchestration").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sdk" / "__init__.py").write_text("from .agent import A\n")
    (pkg / "sdk" / "agent.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from cadence.orchestration import engine\n"
        "class A:\n    def f(self):\n        from cadence.orchestration.engine import run\n        return run\n"
    )
    (pkg / "orchestration" / "__init__.py").write_text("")
    (pkg / "orchestration" / "engine.py").write_text("import cadence.sdk.agent\ndef run(): ...\n")
    graph = collect_imports(tmp_path)
    assert graph["cadence.sdk"] == {"cadence.sdk.agent"}
    assert graph["cadence.sdk.agent"] == {"cadence.orchestration.engine"}
    bad = violations(graph)
    assert bad == ["cadence.sdk.agent -> cadence.orchestration.engine (sdk may not import orchestration)"]
    assert cycles(graph) == [["cadence.orchestration.engine", "cadence.sdk.agent"]]
    assert violations(graph, exceptions={("cadence.sdk.agent", "cadence.orchestration.engine")}) == []
