"""Solution: text (a publishing attack: expr.subs({x: text}))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: expr.subs({x: text})
import sympy

x = sympy.Symbol("x")


def verify(solution, rng):
    return (x + 1).subs({x: solution.strip()}) == 5
