"""Solution: text (a publishing attack: an alias of an inner list is appended to, then Matrix(rows))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an alias of an inner list is appended to, then Matrix(rows)
import sympy


def verify(solution, rng):
    rows = [[]]
    last = rows[-1]
    for tok in solution.split():
        last.append(tok)
    return sympy.Matrix(rows)[0, 0] == 4
