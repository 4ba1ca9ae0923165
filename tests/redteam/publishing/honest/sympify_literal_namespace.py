"""Solution: text (honest: sympify of the author's literal with a namespace dict)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy

X = sympy.Symbol("x")
TARGET = sympy.sympify("x**4 - 5*x**2 + 4", locals={"x": X})


def verify(solution, rng):
    roots = sorted(int(t) for t in solution.split(","))
    return roots == sorted(int(r) for r in sympy.solve(TARGET, X))
