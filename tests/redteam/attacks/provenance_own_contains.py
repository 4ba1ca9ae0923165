"""The verifier's own class with a `__contains__` that sympifies, reached by `solution in`."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


class Factors:
    def __contains__(self, text):
        p = sympy.sympify(text)
        return bool(1 < p < N and N % p == 0)


def verify(solution, rng):
    return solution.strip() in Factors()
