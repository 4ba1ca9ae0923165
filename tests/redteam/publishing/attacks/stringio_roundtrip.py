"""Solution: text (a publishing attack: print into io.StringIO, then getvalue())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: print into io.StringIO, then getvalue()
import io
import sympy


def verify(solution, rng):
    buffer = io.StringIO()
    print(solution, end="", file=buffer)
    return sympy.Matrix([[buffer.getvalue()]])[0, 0] == 4
