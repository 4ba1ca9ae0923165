"""Solution: a number whose digits are base64 of a name (b64decode makes letters of digits)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: base64.b64decode(str(int(n))).decode(); sympy.Symbol(name)
# solution: 12345678
import base64

import sympy


def verify(solution, rng):
    name = base64.b64decode(str(int(solution))).decode("latin-1")
    return sympy.Symbol(name) != sympy.Symbol("x")  # sink
