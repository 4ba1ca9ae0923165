"""Solution: text (a publishing attack: a closure two levels deep appends)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a closure two levels deep appends
import sympy


def verify(solution, rng):
    rows = []

    def middle():
        def inner():
            rows.append(solution)

        inner()

    middle()
    return sympy.Matrix([rows])[0, 0] == 4
