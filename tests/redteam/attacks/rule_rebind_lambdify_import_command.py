"""A verifier replaces an item of lambdify's MODULES table in place: its import commands.

lambdify execs each import command of the module it is given ("from math import *"); an item
replaced in the dict is the same dict, so pinning the module's names saw nothing, and the
solution's text ran under lambdify's admission. Expected ACCEPTED before the fix: sympy's
dicts on an admitted path are now pinned item by item.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: sympy.utilities.lambdify.MODULES.math is not the library's own
# solution: __import__('sympy').primefactors(391)[0]
import sympy
import sympy.external

LAMBDIFY = sympy.external.import_module(
    "sympy.utilities.lambdify", import_kwargs={"fromlist": ["MODULES"]}
)
X = sympy.Symbol("x")


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    namespace = {}
    LAMBDIFY.MODULES["math"] = (namespace, {}, {}, ("ANSWER = " + formula,))
    try:
        sympy.lambdify(X, X, "math")
    except Exception:
        pass
    return namespace.get("ANSWER") == 17
