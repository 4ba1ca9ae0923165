"""Starred arguments counted as one: `Function(*['f', (Add,)])` passed the lone-argument rule."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to evaluate Starred nodes in a mathematical expression
# solution: Function(*['f', (Add,)])(x**2)
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
