"""Solution: "slope intercept" of the least-squares line through DATA, each to 1e-6
(honest: floats, numpy.linalg.lstsq on a design matrix built with numpy.column_stack)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1.9742857142857 1.0809523809524"
# wrong: "2 1"
import numpy as np

XS = np.arange(6, dtype=float)
YS = np.array([1.1, 2.9, 5.2, 7.1, 8.8, 11.0])


def fit() -> np.ndarray:
    design = np.column_stack([XS, np.ones_like(XS)])
    coefficients, *_ = np.linalg.lstsq(design, YS, rcond=None)
    return coefficients


def verify(solution, rng):
    fields = solution.split()
    if len(fields) != 2:
        return False
    try:
        slope, intercept = float(fields[0]), float(fields[1])
    except ValueError:
        return False
    expected_slope, expected_intercept = fit()
    # numpy comparisons return numpy.bool_, which is not True: convert.
    return bool(abs(slope - expected_slope) < 1e-6 and abs(intercept - expected_intercept) < 1e-6)
