"""`Float('1.4142136', 7)`: a 7-digit number passes a verifier that wants sqrt(2) to 15 digits
and recognises it with nsimplify, which trusts the Float's own precision (ACCEPTED through the
old run-time grammar, which allowed calls)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: Float('1.4142136', 7)
import sympy


def verify(solution, rng):
    r = sympy.sympify(solution.strip())
    digits = len(solution.strip().replace(".", "").lstrip("0"))
    return r.is_Float and sympy.nsimplify(r) == sympy.sqrt(2) and digits >= 8
