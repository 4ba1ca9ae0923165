"""Solution: text (a publishing attack: r = same(rows); r[0].append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: r = same(rows); r[0].append(text)
import sympy


def same(value):
    return value


def verify(solution, rng):
    rows = [[]]
    alias = same(rows)
    alias[0].append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
