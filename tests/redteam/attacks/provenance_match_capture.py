"""A `match` capture, then `Tuple + tuple(fields)`: the fields are sympified by Tuple."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: n=prime(100000)
import sympy


def verify(solution, rng):
    match solution.strip().split("=", 1):
        case ["n", value]:
            fields = (value,)
        case _:
            return False
    n = (sympy.Tuple() + sympy.Tuple(*[sympy.sympify(f) for f in fields]))[0]
    return n == 1299709
