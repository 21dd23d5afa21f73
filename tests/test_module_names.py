"""No module of ``src/cadence`` defines a module-level name twice.

A second ``_ASKED_RE = ...`` further down a long module silently replaces the first for every function
that reads it, the functions above included: a reader written for one pattern then runs with another.
Typing overloads (``@overload`` stubs before the implementation) are the one allowed repetition.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "cadence"


def _is_overload(node: ast.AST) -> bool:
    decorators = getattr(node, "decorator_list", [])
    return any(
        (isinstance(d, ast.Name) and d.id == "overload")
        or (isinstance(d, ast.Attribute) and d.attr == "overload")
        for d in decorators
    )


def _defined_names(node: ast.stmt) -> list[str]:
    """The module-level names a statement binds (definitions and plain assignments)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [] if _is_overload(node) else [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return [node.target.id]
    return []


def test_no_module_defines_a_name_twice() -> None:
    twice = []
    for path in sorted(SRC.rglob("*.py")):
        seen: dict[str, int] = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            for name in _defined_names(node):
                if name in seen and name != "__all__":
                    twice.append(
                        f"{path.relative_to(SRC)}:{node.lineno}: {name} (first at line {seen[name]})"
                    )
                seen.setdefault(name, node.lineno)
    assert twice == []
