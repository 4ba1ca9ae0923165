"""Solution: text (a publishing attack: ''.join(reversed(solution)) into Matrix)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: ''.join(reversed(solution)) into Matrix
import sympy


def verify(solution, rng):
    text = "".join(reversed(solution))
    return sympy.Matrix([[text[::-1]]])[0, 0] == 4
