"""Solution: two non-negative integers a and b, separated by a space, with a**2 + b**2 == 2026
and a >= b (honest: str.split, isdigit, typing annotations, early returns)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "45 1"
# wrong: "44 2"
import numpy

TARGET = 2026


def verify(solution: str, rng: numpy.random.Generator) -> bool:
    parts = solution.strip().split()
    if len(parts) != 2:
        return False
    if not all(part.isdigit() for part in parts):
        return False
    a, b = (int(part) for part in parts)
    if a < b:
        return False
    return a * a + b * b == TARGET
