"""A solution injected through sympify reaches for the harness frame to steal the token."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused
# solution: __import__('sys')._getframe(3).f_locals['token']
import sympy


def verify(solution, rng):
    return bool(sympy.sympify(solution) == 0)
