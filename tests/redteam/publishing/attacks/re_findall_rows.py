"""Solution: text (a publishing attack: re.findall then Matrix)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: re.findall then Matrix
import re
import sympy


def verify(solution, rng):
    cells = re.findall(r"[^,]+", solution)
    return sympy.Matrix([cells])[0, 0] == 4
