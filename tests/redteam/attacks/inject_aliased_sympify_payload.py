"""A verifier that reaches sympify through a module-level alias, which publishing once missed.

The run-time guard refuses the payload; the publishing checks now refuse the verifier too
(test_publishing_refuses_verifiers_with_injection_flows).
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: __import__('os')._exit(0) or 4
import sympy

parse = sympy.sympify


def verify(solution, rng):
    return parse(solution) == 4
