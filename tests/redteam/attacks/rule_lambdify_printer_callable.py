"""A verifier hands lambdify a printer of its own that prints the solution's text.

lambdify's check passed every callable argument, so printer=lambda expr: solution printed the
text into the code lambdify compiles under its admitted call (outside red team, R5): ACCEPTED
before the fix. printer must now be None or one of sympy's own printer classes (or an instance
of one carrying no code of its own); callables are taken only as values of a modules= namespace.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: lambdify
# solution: __import__('sympy').primefactors(391)[0]
import sympy

N = 391
X = sympy.Symbol("x")


def verify(solution, rng):
    candidate = sympy.lambdify(X, X, printer=lambda expr: solution)(0)
    return 1 < candidate < N and N % candidate == 0
