"""Solution: text (a publishing attack: the class of an element of a list of own instances)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Memo.last = text; type(memos[0]).last
# solution: 2*2
import sympy


class Memo:
    last = ""

    def __init__(self, text):
        Memo.last = text


def verify(solution, rng):
    memos = [Memo(solution)]
    return sympy.Matrix([[type(memos[0]).last]])[0, 0] == 4  # sink
