"""Solution: text (honest: parse_math of the text, then sympy)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy
from formalmarket_verify import parse_math

x = sympy.Symbol("x")


def verify(solution, rng):
    expr = parse_math(solution, symbols={"x": x})
    return sympy.simplify(sympy.diff(expr, x) - 3 * x**2) == 0
