"""The verifier's own `.count()` that sympifies what it is given."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


class Factors:
    def count(self, text):
        p = sympy.sympify(text)
        return int(1 < p < N and N % p == 0)


def verify(solution, rng):
    return Factors().count(solution.strip()) == 1
