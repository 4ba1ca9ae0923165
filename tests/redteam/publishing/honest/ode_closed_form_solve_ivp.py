"""Solution: a closed form y(t) of y' = -2*y + t with y(0) = 1, in the variable t
(honest: parse_math, diff/simplify, then subs at random times against scipy's solve_ivp)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "t/2 - 1/4 + 5*exp(-2*t)/4"
# wrong: "exp(-2*t) + t/2"
import numpy as np
import sympy
from formalmarket_verify import ParseError, parse_math
from scipy.integrate import solve_ivp

t = sympy.Symbol("t", real=True)


def rhs(time, y):
    return -2.0 * y + time


def verify(solution, rng):
    try:
        y = parse_math(solution, symbols={"t": t}, max_nodes=200)
    except ParseError:
        return False
    if isinstance(y, tuple) or y.free_symbols - {t}:
        return False
    if sympy.simplify(sympy.diff(y, t) + 2 * y - t) != 0:
        return False
    if sympy.simplify(y.subs(t, 0) - 1) != 0:
        return False
    times = np.sort(rng.uniform(0.1, 3.0, size=4))
    numeric = solve_ivp(rhs, (0.0, 3.0), [1.0], t_eval=times, rtol=1e-10, atol=1e-12)
    for time, expected in zip(times, numeric.y[0]):
        got = float(y.subs(t, float(time)).evalf())
        if abs(got - expected) > 1e-6:
            return False
    return True
