"""Solution: text (a publishing attack: with nullcontext(rows) as r: r[0].append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: with nullcontext(rows) as r: r[0].append(text)
import sympy
import contextlib


def verify(solution, rng):
    rows = [[]]
    with contextlib.nullcontext(rows) as alias:
        alias[0].append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
