"""Solution: code points of a helper's name (red team 2 F2: getattr reached as
mpmath.libmp.backend.builtins.getattr)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: B.builtins.getattr(sympy, name)
# solution: 112 114 105 109 101 102 97 99 116 111 114 115
import mpmath.libmp.backend as B
import sympy


def verify(solution, rng):
    name = "".join(chr(int(t)) for t in solution.split())
    fn = B.builtins.getattr(sympy, name)  # sink
    return fn(391)[0] == 17
