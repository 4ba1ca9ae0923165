"""Solution: the minimal polynomial of sqrt(2) + sqrt(3) over the rationals, monic, in x
(honest: sympy.minimal_polynomial and Poly equality with a parsed expression)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "x**4 - 10*x**2 + 1"
# wrong: "x**2 - 5"
import sympy
from formalmarket_verify import parse_math

x = sympy.Symbol("x")
ALPHA = sympy.sqrt(2) + sympy.sqrt(3)
EXPECTED = sympy.Poly(sympy.minimal_polynomial(ALPHA, x), x)


def verify(solution, rng):
    try:
        claimed = sympy.Poly(parse_math(solution, {"x": x}), x)
    except (ValueError, sympy.PolynomialError):
        return False
    if not claimed.is_monic:
        return False
    return claimed == EXPECTED
