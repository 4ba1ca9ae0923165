"""`sys.exc_info()` hands the verifier the exception that carries the solution's text."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: discrete_log(1000003, 123456, 5)
import sys

import sympy


def verify(solution, rng):
    try:
        {}[solution.strip()]
    except KeyError:
        x = sympy.sympify(sys.exc_info()[1].args[0])
    return pow(5, int(x), 1000003) == 123456
