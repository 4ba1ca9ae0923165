"""Solution: the exact value of the sum of 1/n**2 for n >= 1, as an expression (pi allowed,
no decimals) (honest: parse_math, atoms(Float), evalf against mpmath.zeta at 40 digits)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "pi**2/6"
# wrong: "1.6449340668482264"
import mpmath
import sympy
from formalmarket_verify import ParseError, parse_math

DIGITS = 40


def verify(solution, rng):
    try:
        value = parse_math(solution)
    except ParseError:
        return False
    if isinstance(value, tuple) or not value.is_number:
        return False
    if value.atoms(sympy.Float):
        return False
    with mpmath.workdps(DIGITS):
        expected = mpmath.zeta(2)
        got = mpmath.mpf(str(sympy.N(value, DIGITS)))
        return abs(got - expected) < mpmath.mpf(10) ** (5 - DIGITS)
