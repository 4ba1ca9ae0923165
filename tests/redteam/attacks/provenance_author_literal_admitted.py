"""The rule admits what a programmer wrote: the verifier's own literals (one handed to a
library as in `Poly("x**2 + 1", x)`), a solution equal to one of them, and library factories."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# solution: x**2 - 1
import sympy

ANSWERS = ("x**2 - 1", "x**2 + 1")


def verify(solution, rng):
    x = sympy.Symbol("x")
    p = sympy.Poly("x**2 + 1", x)
    f = sympy.lambdify(x, p.as_expr(), "math")
    return solution in ANSWERS and sympy.sympify(solution) == x**2 - 1 and f(2.0) == 5.0
