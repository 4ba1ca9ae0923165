"""Solution: text (honest: an own class holding ints, with a method)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


class Triple:
    def __init__(self, a, b, c):
        self.a, self.b, self.c = a, b, c

    def is_pythagorean(self):
        return self.a**2 + self.b**2 == self.c**2


def verify(solution, rng):
    a, b, c = (int(t) for t in solution.split())
    return Triple(a, b, c).is_pythagorean() and sympy.gcd(a, b) == 1
