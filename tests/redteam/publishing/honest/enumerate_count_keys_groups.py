"""Solution: text (honest: the count of enumerate() keys the groups of parsed numbers)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    groups = {}
    for i, tok in enumerate(solution.split()):
        groups.setdefault(i % 2, []).append(int(tok))
    return sympy.Matrix([groups[0], groups[1]]).det() == -2
