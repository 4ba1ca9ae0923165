"""Solution: text (a publishing attack: dict.fromkeys(parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: dict.fromkeys(parts)
import sympy


def verify(solution, rng):
    keys = list(dict.fromkeys(solution.split()))
    return sympy.Matrix([keys])[0, 0] == 4
