"""Solution: text (a publishing attack: csv.reader(io.StringIO(solution)))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: csv.reader(io.StringIO(solution))
import sympy
import csv
import io


def verify(solution, rng):
    rows = list(csv.reader(io.StringIO(solution)))
    return sympy.Matrix(rows)[0, 0] == 4
