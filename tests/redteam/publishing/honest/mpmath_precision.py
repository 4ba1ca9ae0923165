"""Solution: text (honest: mpmath with a Fraction parsed from the text)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import fractions
import mpmath


def verify(solution, rng):
    claimed = fractions.Fraction(solution)
    with mpmath.workdps(30):
        return abs(mpmath.mpf(claimed.numerator) / claimed.denominator - mpmath.sqrt(2)) < 1e-6
