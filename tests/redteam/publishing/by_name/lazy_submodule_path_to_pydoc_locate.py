"""Solution: the name of a function that factors N (a publishing attack: pydoc.locate reached
through scipy._lib._docscrape, a submodule that only scipy.stats loads: the sandbox's zygote
has it, a fresh web process does not, and a path the host could not resolve was judged as
written; the name is rebuilt by control flow, which the taint analysis counts as clean)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: name rebuilt letter by letter from ALPHABET; scipy._lib._docscrape.pydoc.locate(name)
# solution: sympy.primefactors
import scipy

N = 1000000016000000063
ALPHABET = "abcdefghijklmnopqrstuvwxyz."


def verify(solution, rng):
    name = "".join(c for s in solution.strip() for c in ALPHABET if c == s)
    finder = scipy._lib._docscrape.pydoc.locate(name)  # sink
    p, q = sorted(finder(N))
    return p * q == N and p > 1 and q > 1
