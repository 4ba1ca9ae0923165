"""Solution format: a positive rational number r, other than 1, with r * r = 1 (none exists)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# solution: Rational(2, 2, 1)
# An honest verifier that passes the publishing check. parse_math used to pass a third
# argument to sympy.Rational (its gcd), building an unreduced 2/2: `!= 1`, `is_integer` False,
# yet r * r == 1. The library now checks each function's arity and that every rational
# in its result is in lowest terms.
import sympy

from formalmarket_verify import ParseError, parse_math


def verify(solution, rng):
    try:
        r = parse_math(solution)
    except ParseError:
        return False
    return isinstance(r, sympy.Rational) and r > 0 and r != 1 and r * r == 1
