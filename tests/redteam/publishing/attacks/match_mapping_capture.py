"""Solution: text (a publishing attack: match json mapping capture)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: match json mapping capture
import json
import sympy


def verify(solution, rng):
    match json.loads(solution):
        case {"value": value}:
            return sympy.Matrix([[value]])[0, 0] == 4
    return False
