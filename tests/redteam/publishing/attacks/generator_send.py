"""Solution: text (a publishing attack: a value sent into a generator)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a value sent into a generator
import sympy


def collector():
    received = yield
    yield sympy.Matrix([received])


def verify(solution, rng):
    gen = collector()
    next(gen)
    return gen.send(solution)[0, 0] == 4
