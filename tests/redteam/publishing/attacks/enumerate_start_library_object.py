"""Solution: text (a publishing attack: enumerate(parts, start=T): the count is T)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: enumerate(parts, start=T): the count is T
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    for head, text in enumerate([solution], T):
        return (head + tuple(text.split(",")))[1] == 4
