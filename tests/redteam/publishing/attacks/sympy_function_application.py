"""Solution: text (a publishing attack: f(solution) for an undefined sympy Function)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: f(solution) for an undefined sympy Function
import sympy

f = sympy.Function("f")


def verify(solution, rng):
    return f(solution).args[0] == 4
