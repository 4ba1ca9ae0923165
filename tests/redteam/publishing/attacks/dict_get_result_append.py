"""Solution: text (a publishing attack: table.get(k).append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: table.get(k).append(text)
import sympy


def verify(solution, rng):
    table = {"r": []}
    table.get("r").append(solution)
    return sympy.Matrix([table["r"]])[0, 0] == 4
