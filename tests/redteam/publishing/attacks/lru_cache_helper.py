"""Solution: text (a publishing attack: a functools.lru_cache helper)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a functools.lru_cache helper
import functools
import sympy


@functools.lru_cache(maxsize=None)
def build(text):
    return sympy.Matrix([[text]])


def verify(solution, rng):
    return build(solution)[0, 0] == 4
