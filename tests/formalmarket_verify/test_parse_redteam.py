"""Red-team findings against the safe parser: results that lie about their own value.

``Rational(2, 2, 1)`` passed sympy's deprecated gcd argument and built an unreduced 2/2 that
is ``!= 1`` and claims ``is_integer`` False while ``r * r == 1``; ``sqrt(4, 0)`` passed
evaluate=False. Each default function now takes exactly its mathematical arguments, and every
rational number in a result is in lowest terms.
"""

from __future__ import annotations

import math

import pytest
import sympy

from formalmarket_verify import ParseError, parse_math

X = sympy.Symbol("x")


@pytest.mark.parametrize(
    "text",
    [
        "Rational(2, 2, 1)",
        "Rational(1, 3, 2)",
        "Rational(6, 4, 3)",
        "sqrt(4, 0)",
        "sqrt(x, 0)",
        "gcd(x, x, 2)",
        "binomial(5)",
        "log(x, 2, 3)",
        "sin(x, 1)",
        "exp()",
        "(Rational(2, 2, 1), 1)",
    ],
)
def test_default_functions_take_only_their_mathematical_arguments(text: str) -> None:
    with pytest.raises(ParseError):
        parse_math(text, {"x": X})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Rational(2, 4)", sympy.Rational(1, 2)),
        ("Rational(6, 3)", sympy.Integer(2)),
        ("Rational(3)", sympy.Integer(3)),
        ("log(8, 2)", sympy.Integer(3)),
        ("binomial(5, 2)", sympy.Integer(10)),
        ("gcd(12, 18)", sympy.Integer(6)),
        ("sqrt(4)", sympy.Integer(2)),
    ],
)
def test_the_same_functions_with_their_arguments_still_work(text: str, expected: object) -> None:
    value = parse_math(text, {"x": X})

    assert value == expected
    assert value.is_integer == expected.is_integer  # type: ignore[attr-defined]


def test_every_rational_of_a_result_is_in_lowest_terms() -> None:
    value = parse_math("Rational(4, 6) * x + 3 / 9 + 0.25", {"x": X})

    rationals = [n for n in sympy.preorder_traversal(value) if isinstance(n, sympy.Rational)]
    assert rationals
    assert all(n.q > 0 and math.gcd(int(n.p), int(n.q)) == 1 for n in rationals)


def test_an_authors_own_function_keeps_its_arguments() -> None:
    value = parse_math("f(1, 2, 3)", functions={"f": lambda a, b, c: a + b + c})

    assert value == 6
