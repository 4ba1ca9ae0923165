"""Solution: text (a publishing attack: raise ValueError(solution); e.args[0])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: raise ValueError(solution); e.args[0]
import sympy


def verify(solution, rng):
    try:
        raise ValueError(solution)
    except ValueError as error:
        text = error.args[0]
    return sympy.Matrix([[text]])[0, 0] == 4
