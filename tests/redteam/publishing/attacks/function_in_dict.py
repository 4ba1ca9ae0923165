"""Solution: text (a publishing attack: OPS['m']([[solution]]))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: OPS['m']([[solution]])
import sympy

OPS = {"m": sympy.Matrix}


def verify(solution, rng):
    return OPS["m"]([[solution]])[0, 0] == 4
