"""Solution: text (a publishing attack: base64.b64decode(solution).decode())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: base64.b64decode(solution).decode()
import sympy
import base64


def verify(solution, rng):
    text = base64.b64decode(solution).decode()
    return sympy.Matrix([[text]])[0, 0] == 4
