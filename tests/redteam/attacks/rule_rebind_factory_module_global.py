"""A verifier rebinds a module global that a listed factory (namedtuple) runs through.

collections._iskeyword decides which field names namedtuple accepts before it writes its
lambda; the factory's check of the text stands, and now so does its path: a compile in the
factory is refused while a name of collections is not the zygote's.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: collections._iskeyword is not the library's own
import collections


def verify(solution, rng):
    collections._iskeyword = lambda name: False
    Point = collections.namedtuple("Point", "a b")
    return Point(1, 2).a == 1
