"""`return value or default`: the value is the solution's text."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


def pick(value, default=sympy.Integer(1)):
    return value or default


def verify(solution, rng):
    p = sympy.sympify(pick(solution.strip()))
    return 1 < p < N and N % p == 0
