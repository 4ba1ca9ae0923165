"""A verifier that catches every exception and accepts on error: the refusal is still the
verdict (RUNTIME_ERROR), whatever verify returns afterwards."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: 1/0
import sympy


def verify(solution, rng):
    try:
        return sympy.sympify(solution) == 4
    except Exception:
        return True
