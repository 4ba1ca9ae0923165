"""Solution: text (a publishing attack: traceback.format_exception_only quotes the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: traceback.format_exception_only quotes the text
import traceback
import sympy


def verify(solution, rng):
    try:
        raise ValueError(solution)
    except ValueError as error:
        text = traceback.format_exception_only(error)[0].split(": ", 1)[1].strip()
    return sympy.Matrix([[text]])[0, 0] == 4
