"""Solution: text (a publishing attack: str(e) of an exception quoting the solution)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: str(e) of an exception quoting the solution
import sympy


def verify(solution, rng):
    try:
        raise KeyError(solution)
    except KeyError as error:
        text = str(error)[1:-1]
    return sympy.Matrix([[text]])[0, 0] == 4
