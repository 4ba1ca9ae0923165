"""Solution: text (a publishing attack: a dict filled in a loop, then list(values()))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a dict filled in a loop, then list(values())
import sympy


def verify(solution, rng):
    cells = {}
    for i, tok in enumerate(solution.split()):
        cells[i] = tok
    return sympy.Matrix([list(cells.values())])[0, 0] == 4
