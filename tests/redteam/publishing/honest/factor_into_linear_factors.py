"""Solution: x**4 - 5*x**2 + 4 written as a product of linear factors in x, e.g. (x - a)*(...)
(honest: parse_math, expand, Mul.make_args and Poly degrees)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "(x - 1)*(x + 1)*(x - 2)*(x + 2)"
# wrong: "(x**2 - 1)*(x**2 - 4)"
import sympy
from formalmarket_verify import ParseError, parse_math

x = sympy.Symbol("x")
TARGET = x**4 - 5 * x**2 + 4


def verify(solution, rng):
    try:
        expr = parse_math(solution, symbols={"x": x})
    except ParseError:
        return False
    if isinstance(expr, tuple):
        return False
    if sympy.expand(expr - TARGET) != 0:
        return False
    for factor in sympy.Mul.make_args(expr):
        if factor.is_number:
            continue
        base, exponent = factor.as_base_exp()
        if not (exponent.is_Integer and exponent > 0):
            return False
        if sympy.Poly(base, x).degree() != 1:
            return False
    return True
