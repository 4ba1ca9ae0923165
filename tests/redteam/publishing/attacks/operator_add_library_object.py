"""Solution: text (a publishing attack: operator.add(T, tuple(parts)))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: operator.add(T, tuple(parts))
import sympy
import operator

T = sympy.Tuple(1)


def verify(solution, rng):
    total = operator.add(T, tuple(solution.split(",")))
    return total[1] == 4
