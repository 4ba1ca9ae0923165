"""Verifier code switches the rule off through the guard's own functions, then sympifies.

`harness_guard.reset()` cleared the armed flag: the solution's text then became code and the
judge computed the answer: ACCEPTED on main before the fix. Arming is one way now: reset (and a
second arm) while a verdict runs is refused, and the child exits armed. (The guard's module
state stays reachable to verifier code that writes to it directly; the rule protects a
verifier from its solution's text, not a verifier from itself: see docs/python-judge.md.)
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: cannot be reset while a verdict runs
# solution: primefactors(1000000016000000063)[0]
import sys

import sympy

N = 1000000016000000063


def verify(solution, rng):
    sys.modules["harness_guard"].reset()
    p = sympy.sympify(solution.strip())
    return bool(1 < p < N and N % p == 0)
