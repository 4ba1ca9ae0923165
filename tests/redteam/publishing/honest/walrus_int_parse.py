"""Solution: text (honest: a walrus binding of an int)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    if (n := int(solution)) <= 1:
        return False
    return sympy.isprime(n) and n % 4 == 1
