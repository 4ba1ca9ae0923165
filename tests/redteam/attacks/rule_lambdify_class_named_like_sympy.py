"""A verifier's own Symbol subclass names itself a sympy module.

lambdify took a node whose class's __module__ starts with a sympy package, a string the class
sets itself. Now every class of the node's MRO must be one the zygote captured, by identity.
Expected ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: not a library class
# solution: __import__('sympy').primefactors(391)[0]
import sympy


class Name(sympy.Symbol):
    __module__ = "sympy.core.symbol"
    FORMULA = [""]

    def _numpycode(self, printer):
        return self.FORMULA[0]


def verify(solution, rng):
    Name.FORMULA[0] = "".join(chr(ord(s)) for s in solution)
    return sympy.lambdify([], Name("y"), "numpy")() == 17
