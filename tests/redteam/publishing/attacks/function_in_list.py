"""Solution: text (a publishing attack: FNS[0]([[solution]]))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: FNS[0]([[solution]])
import sympy

FNS = [sympy.Matrix]


def verify(solution, rng):
    return FNS[0]([[solution]])[0, 0] == 4
