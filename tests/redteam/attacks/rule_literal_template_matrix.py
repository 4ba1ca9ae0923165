"""A literal the verifier sympifies builds `Matrix(rows)` of the solution's fields.

Matrix sympifies each str of `rows`; below the admitted literal "Matrix(rows)" that used to
be admitted too: the solution's text (a modular inverse the judge computes) became code,
ACCEPTED on main before the fix.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: mod_inverse(1234567, 1000000007)
import sympy

P = 1000000007


def verify(solution, rng):
    rows = [[field.strip() for field in solution.split(";")]]
    m = sympy.sympify("Matrix(rows)", locals={"rows": rows})
    return m.shape == (1, 1) and (m[0, 0] * 1234567) % P == 1
