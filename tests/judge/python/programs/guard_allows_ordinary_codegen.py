"""The injection guard lets ordinary library code generation through during verify."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# solution: 3
import collections
import dataclasses

import numpy
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    f = sympy.lambdify(x, x**2 + 1, "numpy")
    g = sympy.lambdify(x, sympy.sin(x), "math")
    expr = sympy.sympify("x**2 + 2*x + 1")
    Point = collections.namedtuple("Point", "a b")

    @dataclasses.dataclass(frozen=True)
    class Pair:
        left: int
        right: int

    checks = [
        f(numpy.array([1.0, 2.0])).tolist() == [2.0, 5.0],
        abs(g(0.0)) < 1e-12,
        sympy.factor(expr) == (x + 1) ** 2,
        Point(1, 2).b == 2,
        Pair(1, 2).right == 2,
        int(solution) == 3,
    ]
    return all(checks)
