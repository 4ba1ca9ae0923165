"""Solution: code points of a dotted name (red team 2 F2: pydoc reached as
scipy._lib._docscrape.pydoc)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: D.pydoc.locate(name)
# solution: 115 121 109 112 121 46 112 114 105 109 101 102 97 99 116 111 114 115
import scipy._lib._docscrape as D


def verify(solution, rng):
    name = "".join(chr(int(t)) for t in solution.split())
    fn = D.pydoc.locate(name)  # sink
    return fn(391)[0] == 17
