"""Solution: the Taylor polynomial of tan(x) at 0 up to and including x**7 (honest:
parse_math, sympy.series(...).removeO(), expand, Poly degree)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "x + x**3/3 + 2*x**5/15 + 17*x**7/315"
# wrong: "x + x**3/3 + x**5/5 + x**7/7"
import sympy
from formalmarket_verify import ParseError, parse_math

x = sympy.Symbol("x")
ORDER = 7
EXPECTED = sympy.series(sympy.tan(x), x, 0, ORDER + 1).removeO()


def verify(solution, rng):
    try:
        claimed = parse_math(solution, symbols={"x": x})
    except ParseError:
        return False
    if isinstance(claimed, tuple):
        return False
    try:
        poly = sympy.Poly(claimed, x)
    except sympy.PolynomialError:
        return False
    if poly.degree() > ORDER:
        return False
    return sympy.expand(claimed - EXPECTED) == 0
