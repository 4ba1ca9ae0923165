"""Solution: a line of Python (a publishing attack, red team S2: type() was a sanitiser, so a
class attribute read through type(instance) was clean)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Memo.last = text in __init__; type(memo).last
# solution: return __import__('sympy').primefactors(391)[0]
import dataclasses


class Memo:
    last = ""

    def __init__(self, text):
        Memo.last = text


def verify(solution, rng):
    memo = Memo(solution)
    body = type(memo).last
    f = dataclasses._create_fn("f", [], [body])  # sink
    return f() == 17
