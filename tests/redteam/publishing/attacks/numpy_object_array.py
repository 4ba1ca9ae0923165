"""Solution: text (a publishing attack: numpy object array of text then Matrix)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: numpy object array of text then Matrix
import numpy
import sympy


def verify(solution, rng):
    cells = numpy.array(solution.split(), dtype=object)
    return sympy.Matrix([list(cells)])[0, 0] == 4
