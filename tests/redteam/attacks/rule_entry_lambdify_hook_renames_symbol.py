"""A lambdify namespace whose ``__dict__`` renames a Symbol after the guard vetted it.

lambdify's entry vetted every name it prints (``renamed`` is a plain identifier) and took
any callable in ``modules=``; lambdify then reads each namespace's ``__dict__``, and this
one's property set the Symbol's name to the solution's text, which lambdify printed into the
code it compiled: ACCEPTED on main before the fix. The entry now takes exact types only (a
module name, a library module, a dict with str keys whose values may be callables), so no
code of the verifier's runs between the vetting and the compile.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to lambdify a Namespace
# solution: __import__('sympy').primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063
X = sympy.Symbol("renamed")
TEXT = []


class Namespace:
    def __call__(self):
        return None

    @property
    def __dict__(self):
        X.name = TEXT[0]
        return {}


def verify(solution, rng):
    TEXT.append(solution.strip())
    f = sympy.lambdify([], X + 0, modules=[Namespace(), "sympy"])
    value = int(f())
    return 1 < value < N and N % value == 0
