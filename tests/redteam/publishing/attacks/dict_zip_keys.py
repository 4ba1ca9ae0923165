"""Solution: text (a publishing attack: dict(zip(keys, parts)))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: dict(zip(keys, parts))
import sympy


def verify(solution, rng):
    named = dict(zip(["a", "b"], solution.split()))
    return sympy.Matrix([[named["a"]]])[0, 0] == 4
