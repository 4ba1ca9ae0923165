"""Solution: text (honest: a root with scipy.optimize.brentq and a parsed float)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import scipy.optimize


def verify(solution, rng):
    claimed = float(solution)
    root = scipy.optimize.brentq(lambda t: t**3 - 2, 0.0, 2.0)
    return abs(root - claimed) < 1e-9
