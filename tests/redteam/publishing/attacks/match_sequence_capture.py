"""Solution: text (a publishing attack: match solution.split(): case [a, b])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: match solution.split(): case [a, b]
import sympy


def verify(solution, rng):
    match solution.split():
        case [a, b]:
            return sympy.Matrix([[a, b]])[0, 0] == 4
    return False
