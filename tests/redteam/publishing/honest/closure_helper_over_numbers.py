"""Solution: text (honest: a nested helper reads the enclosing function's parsed numbers)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    numbers = [int(tok) for tok in solution.split()]

    def product():
        return sympy.prod(numbers)

    return product() == 391 and all(n > 1 for n in numbers)
