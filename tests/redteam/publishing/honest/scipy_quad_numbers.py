"""Solution: text (honest: scipy.integrate.quad against a number parsed from the text)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import scipy.integrate


def verify(solution, rng):
    claimed = float(solution)
    value, _ = scipy.integrate.quad(lambda t: t**2, 0.0, 1.0)
    return abs(value - claimed) < 1e-9
