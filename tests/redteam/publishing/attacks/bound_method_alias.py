"""Solution: text (a publishing attack: f = expr.subs; f(x, solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: f = expr.subs; f(x, solution)
import sympy

x = sympy.Symbol("x")


def verify(solution, rng):
    substitute = (x + 1).subs
    return substitute(x, solution) == 5
