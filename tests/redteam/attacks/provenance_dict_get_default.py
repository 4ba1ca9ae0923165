"""`dict.get(k, default)`: the value found is the solution's, whatever the default."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: p:primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


def verify(solution, rng):
    fields = dict(item.split(":", 1) for item in solution.strip().split(";"))
    p = sympy.sympify(fields.get("p", sympy.Integer(2)))
    return 1 < p < N and N % p == 0
