"""Solution: x**6 - 1 factored completely over the integers (honest: parse_math,
sympy.factor_list of the target for the count, Poly.is_irreducible for each factor)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "(x - 1)*(x + 1)*(x**2 + x + 1)*(x**2 - x + 1)"
# wrong: "(x**3 - 1)*(x**3 + 1)"
import sympy
from formalmarket_verify import ParseError, parse_math

x = sympy.Symbol("x")
TARGET = x**6 - 1
_, EXPECTED_FACTORS = sympy.factor_list(TARGET)


def verify(solution, rng):
    try:
        product = parse_math(solution, {"x": x})
    except ParseError:
        return False
    if isinstance(product, tuple) or sympy.expand(product - TARGET) != 0:
        return False
    factors = [f for f in sympy.Mul.make_args(product) if not f.is_number]
    if len(factors) != len(EXPECTED_FACTORS):
        return False
    return all(sympy.Poly(f, x).is_irreducible for f in factors)
