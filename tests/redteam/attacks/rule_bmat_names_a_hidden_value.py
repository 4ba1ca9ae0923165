"""A verifier builds a block matrix from the solution's layout of its blocks with numpy.bmat.

`numpy.bmat(text)` looks every name of the text up in its caller's namespace, the verifier's
globals included, whatever `ldict` says: the solution named the verifier's own ROOT (kept to
build the target) instead of a layout of A and B: ACCEPTED on main before the fix. bmat of a
str is now a programmer's literal only, like sympify.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: numpy.bmat of a str
# solution: ROOT
import numpy

ROOT = numpy.array([[1, 2], [3, 4]])
TARGET = ROOT @ ROOT


def verify(solution, rng):
    blocks = {"A": numpy.eye(1), "B": numpy.zeros((1, 1))}
    m = numpy.asarray(numpy.bmat(solution.strip(), ldict=blocks))
    return m.shape == (2, 2) and bool((m @ m == TARGET).all())
