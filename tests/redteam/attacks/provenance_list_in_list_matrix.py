"""Solution text stored in a list inside a list, then `Matrix(rows)`: Matrix sympifies each
entry, and the payload makes the judge factor N. Issue 25: no text becomes code unless a
programmer wrote it, whatever path it took."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


def verify(solution, rng):
    rows = [[]]
    for token in solution.split(";"):
        rows[-1].append(token.strip())
    p = sympy.Matrix(rows)[0, 0]
    return 1 < p < N and N % p == 0
