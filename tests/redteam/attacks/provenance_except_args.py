"""`except E as e: e.args[0]`: the exception's argument is the solution's text."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


def verify(solution, rng):
    try:
        raise ValueError(solution.strip())
    except ValueError as error:
        p = sympy.sympify(error.args[0])
    return 1 < p < N and N % p == 0
