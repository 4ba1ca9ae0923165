"""Solution: text (a publishing attack: collections.deque().append(tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: collections.deque().append(tok)
import collections
import sympy


def verify(solution, rng):
    queue = collections.deque()
    queue.append(solution)
    return sympy.Matrix([list(queue)])[0, 0] == 4
