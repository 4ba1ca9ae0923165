"""The issue's yardstick: all four libraries, a 300x300 solve, an integral, a root."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# solution: ok
# time_limit_s: 10
# memory_limit_mb: 256
import mpmath
import numpy
import scipy.linalg
import sympy


def verify(solution, rng):
    a = rng.standard_normal((300, 300)) + 300 * numpy.eye(300)
    b = rng.standard_normal(300)
    x = scipy.linalg.solve(a, b)
    if not numpy.allclose(a @ x, b):
        return False
    t = sympy.Symbol("t")
    if sympy.integrate(sympy.sin(t) ** 2, (t, 0, sympy.pi)) != sympy.pi / 2:
        return False
    root = mpmath.findroot(lambda y: y**2 - 2, 1.5)
    return abs(root - mpmath.sqrt(2)) < 1e-12 and solution == "ok"
