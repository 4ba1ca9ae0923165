"""Starred arguments counted as one: `Function(*['f', (Add,)])` passed the lone-argument rule."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: Function(*['f', (Add,)])(x**2)
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
