"""Linear equations in one unknown, solved exactly for the calculator ("Solve 2x + 3 = 11": x = 4).

An equation is read as two sides around one ``=``, each a sum of numbers and one letter (the unknown) with
``+ - * /``, parentheses and implicit products ("2x", "3(x + 1)"). Each side is worked out as ``a·x + b``
with exact fractions (Python's :mod:`ast`, never ``eval``), and ``a₁x + b₁ = a₂x + b₂`` gives
``x = (b₂ - b₁) / (a₁ - a₂)``. An equation that is not linear (``x²``, ``x·x``, a division by the unknown)
is an error saying so; a text that is no equation in one letter is not this module's (None).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from fractions import Fraction

from cadence.builtins._common import BuiltinToolError

MAX_EQUATION_CHARS = 200
"""Longest equation read (a homework equation is far shorter)."""


class EquationError(BuiltinToolError):
    """An equation that cannot be solved here (not linear, no unknown, or no single solution)."""


_ASKED_RE = re.compile(
    r"^\s*(?:and\s+|what\s+about\s+|now\s+)?(?:please\s+)?(?:solve|find|work\s+out|what\s+is|what's|calculate)?"
    r"\s*(?:for\s+)?"
    r"(?:(?P<var>[a-z])\s*(?:if|when|given|in|:|,)\s*)?(?:the\s+equation\s*)?:?\s*"
    r"(?P<equation>[^=]+=[^=]+?)\s*(?:,?\s*(?:solve\s+)?for\s+(?P<for>[a-z]))?"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""An equation, with the words asking to solve it ("Solve 2x + 3 = 11", "What is x if 3x - 7 = 2x + 5?",
"2(x + 4) = 18, x = ?")."""
_UNKNOWN_ASKED_RE = re.compile(r",?\s*\b[a-z]\s*=\s*\?+\s*$", re.IGNORECASE)
"""The unknown asked after the equation ("2(x + 4) = 18, x = ?")."""
_IMPLICIT_PRODUCT_RE = re.compile(r"(?<=[\d)])\s*(?=[a-z(])|(?<=[a-z)])\s*(?=\()", re.IGNORECASE)
"""Where a product is written without ``*``: "2x", "3(x + 1)", "(x + 1)(2)", "x(3)"."""


@dataclass(frozen=True)
class _Linear:
    """``a·x + b``."""

    a: Fraction
    b: Fraction

    def __add__(self, other: _Linear) -> _Linear:
        return _Linear(self.a + other.a, self.b + other.b)

    def __sub__(self, other: _Linear) -> _Linear:
        return _Linear(self.a - other.a, self.b - other.b)

    def __mul__(self, other: _Linear) -> _Linear:
        if self.a and other.a:
            raise EquationError("Only linear equations are solved here: the unknown is multiplied by itself.")
        return _Linear(self.a * other.b + other.a * self.b, self.b * other.b)

    def __truediv__(self, other: _Linear) -> _Linear:
        if other.a:
            raise EquationError("Only linear equations are solved here: the unknown is in a divisor.")
        if not other.b:
            raise EquationError("The equation divides by zero.")
        return _Linear(self.a / other.b, self.b / other.b)


def _side(node: ast.AST, unknown: str) -> _Linear:
    """One side of the equation (a parsed expression) as ``a·x + b``."""
    if isinstance(node, ast.Expression):
        return _side(node.body, unknown)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return _Linear(Fraction(0), Fraction(str(node.value)))
    if isinstance(node, ast.Name) and node.id.lower() == unknown:
        return _Linear(Fraction(1), Fraction(0))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _side(node.operand, unknown)
        return _Linear(-inner.a, -inner.b) if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        left, right = _side(node.left, unknown), _side(node.right, unknown)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            return left / right
        if isinstance(node.op, ast.Pow):
            raise EquationError("Only linear equations are solved here: the unknown is raised to a power.")
    raise EquationError("Only sums and products of numbers and one unknown are solved here.")


def _number(value: Fraction) -> str:
    """A fraction as people write it: ``4``, ``-2.5``, ``1/3 (about 0.333333)``."""
    if value.denominator == 1:
        return str(value.numerator)
    decimal = float(value)
    if Fraction(str(decimal)) == value and len(str(decimal)) <= 12:
        return str(decimal)
    return f"{value.numerator}/{value.denominator} (about {decimal:.6g})"


def solve(text: str) -> str | None:
    """The solution of a linear equation in one unknown written in ``text``, as a sentence ("x = 4 (2x + 3 =
    11)."); None when ``text`` is no equation in one letter; :class:`EquationError` when it is one this
    cannot solve (not linear, no solution, every number a solution)."""
    if not isinstance(text, str) or len(text) > MAX_EQUATION_CHARS:
        return None
    text = _UNKNOWN_ASKED_RE.sub("", text)  # "2(x + 4) = 18, x = ?"
    if text.count("=") != 1:
        return None
    match = _ASKED_RE.match(text)
    if match is None:
        return None
    equation = " ".join(match.group("equation").split())
    letters = {c.lower() for c in re.findall(r"(?<![a-z])[a-z](?![a-z])", equation, re.IGNORECASE)}
    if len(letters) != 1 or re.search(r"[a-z]{2,}", equation, re.IGNORECASE):
        return None  # no unknown, several, or words: not an equation this reads
    unknown = letters.pop()
    named = {(match.group(k) or "").lower() for k in ("var", "for")} - {""}
    if named and named != {unknown}:
        return None
    left, right = (_IMPLICIT_PRODUCT_RE.sub("*", side).replace("^", "**") for side in equation.split("="))
    try:
        sides = [_side(ast.parse(side.strip(), mode="eval"), unknown) for side in (left, right)]
    except SyntaxError:
        return None
    a, b = sides[0].a - sides[1].a, sides[1].b - sides[0].b
    if not a:
        if not b:
            raise EquationError(f"Every value of {unknown} solves {equation}: both sides are the same.")
        raise EquationError(f"No value of {unknown} solves {equation}: the sides differ by a constant.")
    return f"{unknown} = {_number(b / a)} (solving {equation})."


__all__ = ["EquationError", "solve"]
