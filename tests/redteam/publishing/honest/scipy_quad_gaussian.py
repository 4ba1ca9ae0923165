"""Solution: the integral of exp(-t**2) for t from 0 to 1, as a decimal number accurate to
1e-9 (honest: float(), scipy.integrate.quad against a module-level integrand)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "0.7468241328124271"
# wrong: "0.75"
import math

from scipy import integrate

TOLERANCE = 1e-9


def integrand(t: float) -> float:
    return math.exp(-t * t)


def verify(solution, rng):
    try:
        claimed = float(solution.strip())
    except ValueError:
        return False
    if not math.isfinite(claimed):
        return False
    value, error = integrate.quad(integrand, 0.0, 1.0, epsabs=1e-13)
    return abs(claimed - value) <= TOLERANCE + error
