"""Solution: text (a publishing attack: rows = [(r := [])]; r.append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows = [(r := [])]; r.append(text)
import sympy


def verify(solution, rng):
    rows = [(r := [])]
    r.append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
