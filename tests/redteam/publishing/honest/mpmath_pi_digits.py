"""Solution: pi to exactly 30 decimal places, truncated, e.g. 3.14... (honest: a regex for the
shape, then mpmath at 50 digits and a string comparison)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "3.141592653589793238462643383279"
# wrong: "3.141592653589793238462643383270"
import re

import mpmath

PLACES = 30
SHAPE = re.compile(r"3\.\d{%d}" % PLACES)


def expected_digits() -> str:
    with mpmath.workdps(PLACES + 20):
        text = mpmath.nstr(mpmath.pi, PLACES + 10, strip_zeros=False)
    return text[: PLACES + 2]


def verify(solution, rng):
    candidate = solution.strip()
    if SHAPE.fullmatch(candidate) is None:
        return False
    return candidate == str(expected_digits())
