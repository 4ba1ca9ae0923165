"""Solution: a field name (a publishing attack, red team S1 + R2: the text laundered through an
own __eq__ becomes a field name that dataclass prints into generated source)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: (Term(solution) == 0).left.text -> MappingProxyType({name: int}) -> dataclass
# solution: __class__,)if 0 else __import__('sympy').primefactors(391)[0]if 1 else(0
import dataclasses
import types


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
    name = (Term(solution) == 0).left.text
    fields = types.MappingProxyType({name: int})  # sink
    record = dataclasses.dataclass(
        type("Record", (), {"__annotations__": fields}), init=False, repr=False
    )
    first = record()
    return (first == first) == 17
