"""Solution: the prime factors of 2**32 + 1 in increasing order, separated by " * "
(honest: split, int, math.prod, sympy.isprime on ints)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "641 * 6700417"
# wrong: "3 * 1431655765"
import math

import sympy

F5 = 2**32 + 1


def verify(solution, rng):
    try:
        factors = [int(part) for part in solution.split("*")]
    except ValueError:
        return False
    if len(factors) < 2 or factors != sorted(factors):
        return False
    if math.prod(factors) != F5:
        return False
    return all(sympy.isprime(factor) for factor in factors)
