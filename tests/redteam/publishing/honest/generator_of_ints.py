"""Solution: text (honest: a nested generator yields int()s)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    def numbers():
        for tok in solution.split(","):
            yield int(tok)

    return sympy.Tuple(*numbers()) == sympy.Tuple(3, 4, 5)
