"""Solution: sqrt(3) with at least 50 correct significant digits, as a decimal (honest: the
global mpmath precision set with mp.dps, mpf of the text, nstr comparisons)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1.732050807568877293527446341505872366942805253810380628"
# wrong: "1.732050807568877293527446341505872366942805253810"
from mpmath import mp, mpf, nstr, sqrt

mp.dps = 60
DIGITS = 50


def verify(solution, rng):
    text = solution.strip()
    if len(text.replace(".", "")) < DIGITS:
        return False
    try:
        value = mpf(text)
    except (ValueError, TypeError):
        return False
    return nstr(value, DIGITS) == nstr(sqrt(3), DIGITS)
