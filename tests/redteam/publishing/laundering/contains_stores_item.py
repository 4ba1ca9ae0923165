"""Solution: text (a publishing attack: an own __contains__ keeps the item it is asked about; in itself is a bool)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: solution in Bag(): __contains__ appends the item to SEEN
# solution: 2*2
import sympy

SEEN = []


class Bag:
    def __contains__(self, item):
        SEEN.append(item)
        return True


def verify(solution, rng):
    if solution in Bag():
        pass
    return sympy.Matrix([SEEN])[0, 0] == 4  # sink
