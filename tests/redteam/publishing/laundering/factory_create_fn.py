"""Solution: a line of Python (a publishing attack, red team S1: an own __eq__ returns the
text, and a comparison was counted a plain bool; dataclasses._create_fn compiles it)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Box(solution) == 0 is Box.__eq__'s return value, self.t: the solution's text
# solution: return __import__('sympy').primefactors(391)[0]
import dataclasses


class Box:
    def __init__(self, t):
        self.t = t

    def __eq__(self, other):
        return self.t


def verify(solution, rng):
    body = Box(solution) == 0
    f = dataclasses._create_fn("f", [], [body])  # sink
    return f() == 17
