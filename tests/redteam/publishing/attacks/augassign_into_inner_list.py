"""Solution: text (a publishing attack: rows[0] += [tok])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows[0] += [tok]
import sympy


def verify(solution, rng):
    rows = [[]]
    for tok in solution.split():
        rows[0] += [tok]
    return sympy.Matrix(rows)[0, 0] == 4
