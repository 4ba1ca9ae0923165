"""Solution: text (a publishing attack: d.update(v=solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: d.update(v=solution)
import sympy


def verify(solution, rng):
    d = {}
    d.update(v=solution)
    return sympy.Matrix([[d["v"]]])[0, 0] == 4
