"""A verifier rebinds a printer class's method that lambdify prints a Symbol with.

NumPyPrinter._print_Symbol returned the solution's text; lambdify of plain names compiled it
under its admission. Expected ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: NumPyPrinter._print_Symbol
# solution: __import__('sympy').primefactors(391)[0]
import sympy
from sympy.printing.numpy import NumPyPrinter

X = sympy.Symbol("x")


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    NumPyPrinter._print_Symbol = lambda self, expr: formula
    return sympy.lambdify(X, X + 1, "numpy")(0) == 18  # the formula + 1
