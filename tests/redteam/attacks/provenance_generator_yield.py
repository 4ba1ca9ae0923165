"""A generator that `yield`s the solution's tokens, sympified by the consumer."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


def tokens(text):
    for part in text.split():
        yield part


def verify(solution, rng):
    p = sympy.sympify(next(tokens(solution)))
    return 1 < p < N and N % p == 0
