"""Solution: text (a publishing attack: Tuple(*(t for t in parts)))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Tuple(*(t for t in parts))
import sympy


def verify(solution, rng):
    gen = (t for t in solution.split())
    return sympy.Tuple(*gen)[0] == 4
