"""Solution: text (a publishing attack: table.get(k, solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: table.get(k, solution)
import sympy


def verify(solution, rng):
    text = {}.get("k", solution)
    return sympy.Matrix([[text]])[0, 0] == 4
