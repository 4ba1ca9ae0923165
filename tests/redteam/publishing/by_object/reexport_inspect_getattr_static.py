"""Solution: code points of a helper's name (red team 2 F2: inspect reached as
sympy.utilities.decorator.inspect)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: D.inspect.getattr_static(sympy, name)
# solution: 112 114 105 109 101 102 97 99 116 111 114 115
import sympy
import sympy.utilities.decorator as D


def verify(solution, rng):
    name = "".join(chr(int(t)) for t in solution.split())
    fn = D.inspect.getattr_static(sympy, name)  # sink
    return fn(391)[0] == 17
