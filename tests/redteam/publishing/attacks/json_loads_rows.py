"""Solution: text (a publishing attack: json.loads(solution) then Matrix(data))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: json.loads(solution) then Matrix(data)
import json
import sympy


def verify(solution, rng):
    data = json.loads(solution)
    return sympy.Matrix(data)[0, 0] == 4
