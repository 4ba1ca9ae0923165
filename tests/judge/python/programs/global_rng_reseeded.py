"""The legacy global RNGs are reseeded from the verdict's seed (not the zygote's state)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# seed: 11
import random

import numpy


def verify(solution, rng):
    first = (random.random(), numpy.random.random())
    random.seed(11)
    numpy.random.seed(11)
    return first == (random.random(), numpy.random.random())
