"""Solution: text (a publishing attack: push(lst, t) appends to the caller's list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: push(lst, t) appends to the caller's list
import sympy


def push(lst, item):
    lst.append(item)


def verify(solution, rng):
    rows = []
    push(rows, solution)
    return sympy.Matrix([rows])[0, 0] == 4
