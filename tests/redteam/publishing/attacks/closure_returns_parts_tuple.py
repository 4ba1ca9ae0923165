"""Solution: text (a publishing attack: Tuple(1) + a nested helper's tuple of the enclosing parts)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Tuple(1) + a nested helper's tuple of the enclosing parts
import sympy


def verify(solution, rng):
    parts = solution.split(",")

    def fields():
        return tuple(parts)

    return (sympy.Tuple(1) + fields())[1] == 4
