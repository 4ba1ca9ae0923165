"""Solution: text (a publishing attack: head, *rest = [T, *parts])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: head, *rest = [T, *parts]
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    head, *rest = [T, *solution.split(",")]
    return (head + tuple(rest))[1] == 4
