"""The rng is numpy.random.default_rng(seed): seed 7 gives a known first draw."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# seed: 7
import numpy


def verify(solution, rng):
    expected = numpy.random.default_rng(7).integers(0, 10**9)
    return bool(rng.integers(0, 10**9) == expected) is True
