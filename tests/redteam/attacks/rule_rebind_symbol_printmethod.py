"""A verifier gives sympy's Symbol class a _numpycode method (the printer's printmethod).

A printer prints a node with the node's own printmethod when it has one: added on Symbol, it
returned the solution's text. Expected ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Symbol._numpycode
# solution: __import__('sympy').primefactors(391)[0]
import sympy

X = sympy.Symbol("x")


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    sympy.Symbol._numpycode = lambda self, printer: formula
    return sympy.lambdify(X, X, "numpy")(0) == 17
