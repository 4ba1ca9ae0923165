"""Solution: text (a publishing attack: shlex.split(solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: shlex.split(solution)
import sympy
import shlex


def verify(solution, rng):
    parts = shlex.split(solution)
    return sympy.Matrix([parts])[0, 0] == 4
