"""Solution: text (a publishing attack: dict(d, v=solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: dict(d, v=solution)
import sympy


def verify(solution, rng):
    d = dict({"w": 1}, v=solution)
    return sympy.Matrix([[d["v"]]])[0, 0] == 4
