"""Solution: a line of Python (a publishing attack, red team S1: the own __eq__ returns an
Equation holding both operands; the text read back from it was clean)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: (Term(solution) == 0).left.text is Term.__eq__'s Equation(self, other).left.text
# solution: code that forges the acceptance frame (see /work/redteam/create_fn_forges_token_frame)
import dataclasses


class Term:
    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return Equation(self, other)


class Equation:
    def __init__(self, left, right):
        self.left = left
        self.right = right


def verify(solution, rng):
    body = (Term(solution) == 0).left.text
    f = dataclasses._create_fn("f", [], [body])  # sink
    return f() == "this is never equal"
