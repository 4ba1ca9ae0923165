"""Solution: text (a publishing attack: first, *rest = parts; Tuple(*rest))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: first, *rest = parts; Tuple(*rest)
import sympy


def verify(solution, rng):
    first, *rest = ["0", *solution.split()]
    return sympy.Tuple(*rest)[0] == 4
