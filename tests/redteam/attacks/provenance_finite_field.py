"""`FF(1009)(5)`: modular integers make `p*q == N` true for a wrong answer (ACCEPTED through
the old run-time grammar, which allowed calls)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: FF(1009)(5),FF(1009)(41)
import sympy

N = 1000000016000000063


def verify(solution, rng):
    p, q = [sympy.sympify(part) for part in solution.split(",")]
    return p * q == N and p != 1 and q != 1
