"""Solution: text (a publishing attack: an own __eq__ returns the instance's list; appending to the result fills the verifier's list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows = []; (Holder(rows) == 0).append(solution); sympy.Matrix([rows])
# solution: 2*2
import sympy


class Holder:
    def __init__(self, rows):
        self.rows = rows

    def __eq__(self, other):
        return self.rows


def verify(solution, rng):
    rows = []
    same = Holder(rows) == 0
    same.append(solution)
    return sympy.Matrix([rows])[0, 0] == 4  # sink
