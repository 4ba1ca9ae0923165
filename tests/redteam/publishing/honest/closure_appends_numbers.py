"""Solution: text (honest: a nested helper appends int()s to the enclosing list)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    factors = []

    def keep(text):
        factors.append(int(text))

    for tok in solution.split("*"):
        keep(tok)
    return sympy.prod(factors) == 391 and all(sympy.isprime(f) for f in factors)
