"""Solution: text (a publishing attack: table.get('r')[0] = text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: table.get('r')[0] = text
import sympy


def verify(solution, rng):
    table = {"r": [0]}
    table.get("r")[0] = solution
    return sympy.Matrix([table["r"]])[0, 0] == 4
