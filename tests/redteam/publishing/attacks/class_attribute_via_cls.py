"""Solution: text (a publishing attack: a classmethod stores into cls)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a classmethod stores into cls
import sympy


class Store:
    value = 0

    @classmethod
    def keep(cls, text):
        cls.value = text


def verify(solution, rng):
    Store.keep(solution)
    return sympy.Matrix([[Store.value]])[0, 0] == 4
