"""Solution: the coefficients (highest degree first) of the monic cubic whose roots are 1, 2
and 3 (honest: ints, numpy.roots, sorted real parts, allclose)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1 -6 11 -6"
# wrong: "1 -6 11 6"
import numpy as np

ROOTS = [1.0, 2.0, 3.0]


def verify(solution, rng):
    try:
        coefficients = [int(token) for token in solution.replace(",", " ").split()]
    except ValueError:
        return False
    if len(coefficients) != 4 or coefficients[0] != 1:
        return False
    found = np.roots(coefficients)
    if np.max(np.abs(found.imag)) > 1e-9:
        return False
    return bool(np.allclose(np.sort(found.real), ROOTS))
