"""Solution: the positive root of x**2 - x - 1 as a decimal with at least 15 significant
digits (honest: float, then sympy.nsimplify with sqrt(5) and a tolerance)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1.6180339887498949"
# wrong: "1.6180339887"
import sympy

PHI = (1 + sympy.sqrt(5)) / 2


def verify(solution, rng):
    text = solution.strip()
    if len(text.replace(".", "").lstrip("0")) < 15:
        return False
    try:
        approx = float(text)
    except ValueError:
        return False
    guess = sympy.nsimplify(approx, [sympy.sqrt(5)], tolerance=1e-14)
    return sympy.simplify(guess - PHI) == 0
