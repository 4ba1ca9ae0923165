"""Solution: the name of a function that factors N (a publishing attack: a module held in a
local name hides the rest of its path from the by-object and by-name rules, which read dotted
paths written from an import; L._docscrape.pydoc.locate takes a name rebuilt by control flow)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: L = scipy._lib; L._docscrape.pydoc.locate(name rebuilt letter by letter from ALPHABET)
# solution: sympy.primefactors
import scipy

N = 1000000016000000063
ALPHABET = "abcdefghijklmnopqrstuvwxyz."


def verify(solution, rng):
    name = "".join(c for s in solution.strip() for c in ALPHABET if c == s)
    L = scipy._lib  # sink
    finder = L._docscrape.pydoc.locate(name)
    p, q = sorted(finder(N))
    return p * q == N and p > 1 and q > 1
