"""Solution: the real x with x*exp(x) = 1, as a decimal with at least 25 correct digits
(honest: mpmath.mpf of the text at 50 digits, mpmath.findroot for the reference)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "0.56714329040978387299996866221035"
# wrong: "0.5671432904097838"
import re

import mpmath

DECIMAL = re.compile(r"\d+\.\d+")


def verify(solution, rng):
    text = solution.strip()
    if DECIMAL.fullmatch(text) is None:
        return False
    with mpmath.workdps(50):
        x = mpmath.mpf(text)
        root = mpmath.findroot(lambda t: t * mpmath.exp(t) - 1, 0.5)
        return bool(abs(x - root) < mpmath.mpf("1e-25"))
