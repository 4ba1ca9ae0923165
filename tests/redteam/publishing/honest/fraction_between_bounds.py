"""Solution: a fraction p/q with 1 <= q <= 40 strictly between 8/13 and 13/21
(honest: Fraction of the text in try/except, chained comparison with module constants)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "21/34"
# wrong: "5/8"
from fractions import Fraction

LOW = Fraction(8, 13)
HIGH = Fraction(13, 21)
MAX_DENOMINATOR = 40


def verify(solution, rng):
    text = solution.strip()
    if "/" not in text:
        return False
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return False
    return LOW < value < HIGH and value.denominator <= MAX_DENOMINATOR
