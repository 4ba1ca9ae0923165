"""Solution: "p/q r/s", positive rationals x, y with x**2 + y**2 = 1, denominators below 30,
other than 3/5, 4/5 in either order (honest: Fraction, tuple comparisons with constants)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "5/13 12/13"
# wrong: "3/5 4/5"
from fractions import Fraction

EXCLUDED = {(Fraction(3, 5), Fraction(4, 5)), (Fraction(4, 5), Fraction(3, 5))}


def verify(solution, rng):
    parts = solution.split()
    if len(parts) != 2:
        return False
    try:
        x, y = Fraction(parts[0]), Fraction(parts[1])
    except (ValueError, ZeroDivisionError):
        return False
    if (x, y) in EXCLUDED or x <= 0 or y <= 0:
        return False
    if max(x.denominator, y.denominator) >= 30:
        return False
    return x * x + y * y == 1
