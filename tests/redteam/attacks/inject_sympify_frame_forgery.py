"""A verifier that sympifies its input; the solution walks frames to force True."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: __import__('os')._exit(0) or x**2
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
