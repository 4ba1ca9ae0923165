"""Solution: text (a publishing attack: the class from type(instance) is named first, then read)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Memo.last = text; kind = type(memo); kind.last
# solution: 2*2
import sympy


class Memo:
    last = ""

    def __init__(self, text):
        Memo.last = text


def verify(solution, rng):
    memo = Memo(solution)
    kind = type(memo)
    return sympy.Matrix([[kind.last]])[0, 0] == 4  # sink
