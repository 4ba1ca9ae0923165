"""Solution: text (honest: a float root checked against random points)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import math


def verify(solution, rng):
    root = float(solution)
    for _ in range(5):
        shift = float(rng.uniform(-1e-12, 1e-12))
        if abs((root + shift) ** 3 - 2) > 1e-9:
            return False
    return math.isfinite(root)
