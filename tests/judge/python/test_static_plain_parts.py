"""Plainness.parts: the parts of a literal, a display or an operator, read by both
``Plainness.is_plain`` (plain when its parts are) and the verifier's own helpers' results
(``OwnFunctions``: new and plain when its parts are)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from judge.python.static.plain import Plainness
from judge.python.static.scope import ModuleIndex


@pytest.mark.parametrize(
    ("expression", "parts"),
    [
        ("1", []),
        ("f'{x}'", []),
        ("[a, *b]", ["a", "*b"]),
        ("{a, b}", ["a", "b"]),
        ("{k: v, **m}", ["k", "v", "m"]),
        ("a + b", ["a", "b"]),
        ("-a", ["a"]),
        ("a and b and c", ["a", "b", "c"]),
        ("a < b <= c", ["a", "b", "c"]),
        ("a if condition else b", ["a", "b"]),
        ("f(a)", None),
        ("x.y", None),
        ("x[0]", None),
        ("name", None),
    ],
)
def test_the_parts_of_an_expression(expression: str, parts: list[str] | None) -> None:
    node = ast.parse(expression, mode="eval").body

    found = Plainness.parts(node)

    assert (None if found is None else [ast.unparse(part) for part in found]) == parts


def _plainness(source: str) -> tuple[Plainness, ast.Module]:
    tree = ast.parse(textwrap.dedent(source))
    return Plainness(ModuleIndex(tree)), tree


def _value_of(tree: ast.Module, name: str) -> ast.expr:
    return next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == name
    )


@pytest.mark.parametrize(
    ("body", "plain"),
    [
        ("return {'a': 1, 'b': [2, -3]}", True),
        ("return ('x' + 'y', 1 < 2 if flag else 3)", True),
        ("local = {'a': 1}; return dict(local=local)", False),  # not a display
        ("local = {'a': 1}; return {'b': local}", True),
        ("local = {'a': 1}; return {**local}", False),  # refused as before: a ** is not new
        ("return [BASE]", False),  # BASE exists before the call
    ],
)
def test_a_helpers_result_is_plain_when_its_parts_are_new_and_plain(body: str, plain: bool) -> None:
    plainness, tree = _plainness(
        f"""
        BASE = {{'a': 1}}
        flag = True
        def helper():
            {body}
        VALUE = helper()
        """
    )

    assert plainness.is_plain(_value_of(tree, "VALUE"), tree) is plain
    assert plainness.is_plain(_value_of(tree, "BASE"), tree) is True
