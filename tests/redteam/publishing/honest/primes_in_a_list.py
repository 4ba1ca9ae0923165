"""Solution: text (honest: a list of ints, each prime, summing to a target)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    numbers = [int(t) for t in solution.split(",")]
    return len(numbers) == 3 and all(sympy.isprime(n) for n in numbers) and sum(numbers) == 31
