"""Solution: text (a publishing attack: h.set(solution) stores into self)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: h.set(solution) stores into self
import sympy


class Holder:
    value = 0

    def put(self, text):
        self.value = text


def verify(solution, rng):
    h = Holder()
    h.put(solution)
    return sympy.Matrix([[h.value]])[0, 0] == 4
