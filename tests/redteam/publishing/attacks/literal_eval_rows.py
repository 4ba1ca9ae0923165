"""Solution: text (a publishing attack: ast.literal_eval(solution) then Matrix(data))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: ast.literal_eval(solution) then Matrix(data)
import ast
import sympy


def verify(solution, rng):
    data = ast.literal_eval(solution)
    return sympy.Matrix(data)[0, 0] == 4
