"""Solution: text (a publishing attack: a class attribute read back through instance.__class__)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Memo.last = text; memo.__class__.last
# solution: 2*2
import sympy


class Memo:
    last = ""

    def __init__(self, text):
        Memo.last = text


def verify(solution, rng):
    memo = Memo(solution)
    return sympy.Matrix([[memo.__class__.last]])[0, 0] == 4  # sink
