"""Solution: text (a publishing attack: the loop variable after the loop)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: the loop variable after the loop
import sympy


def verify(solution, rng):
    for tok in solution.split():
        pass
    return sympy.Matrix([[tok]])[0, 0] == 4
