"""A sympify payload that tries to write a forged frame with exec."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: exec("import os; os.write(1023, b'\\x00\\x00\\x00\\x01A'); os._exit(0)")
import sympy


def verify(solution, rng):
    return sympy.sympify(solution) == 4
