"""Solution: text (a publishing attack: {**d, 'v': solution})."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: {**d, 'v': solution}
import sympy


def verify(solution, rng):
    base = {"w": 1}
    d = {**base, "v": solution}
    return sympy.Matrix([[d["v"]]])[0, 0] == 4
