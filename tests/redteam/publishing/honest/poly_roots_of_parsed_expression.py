"""Solution: text (honest: parse_math, Poly, and its real roots)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy
from formalmarket_verify import parse_math

x = sympy.Symbol("x")


def verify(solution, rng):
    expr = parse_math(solution, symbols={"x": x})
    poly = sympy.Poly(expr, x)
    return poly.degree() == 2 and sorted(poly.real_roots()) == [-1, 1]
