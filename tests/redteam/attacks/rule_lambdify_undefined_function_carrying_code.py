"""A verifier makes an undefined function whose class carries a printmethod.

Function("f", _numpycode=...) puts the method in the new class's own dict; lambdify vetted an
undefined function by its name only. Expected ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: undefined function carrying code
# solution: __import__('sympy').primefactors(391)[0]
import sympy

X = sympy.Symbol("x")


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    f = sympy.Function("f", _numpycode=lambda self, printer: formula)
    return sympy.lambdify(X, f(X), "numpy")(0) == 17
