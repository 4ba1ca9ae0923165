"""Solution: text (a publishing attack: sum([tuple(parts)], T): T + the parts)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: sum([tuple(parts)], T): T + the parts
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    total = sum([tuple(solution.split(","))], T)
    return total[1] == 4
