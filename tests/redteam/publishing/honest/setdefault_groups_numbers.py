"""Solution: text (honest: setdefault(...).append of numbers)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    groups = {}
    for tok in solution.split():
        groups.setdefault(int(tok) % 2, []).append(int(tok))
    return sympy.Matrix([groups[0], groups[1]]).det() == -2
