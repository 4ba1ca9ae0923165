"""Solution: text (honest: a copy of a list of numbers gets a word; the numbers stay numbers)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy

WEIGHTS = [1, 2, 3]


def verify(solution, rng):
    seen = list(WEIGHTS)
    seen.append(solution.strip())
    others = WEIGHTS.copy()
    others.append(solution.strip())
    return sympy.Matrix([WEIGHTS]).rank() == 1 and len(seen) == len(others) == 4
