"""A verifier hands sympy's MonomialOps._build the solution's text as the code to exec.

MonomialOps._build is a listed factory (it compiles the monomial arithmetic sympy generates),
so its compile was admitted whatever the code: the solution's module ran as the factory's
code: ACCEPTED on main before the fix. The code it compiles must now be built of exactly the
node kinds sympy generates (no call, attribute or import).
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: that is not the code its library generates
# solution: from sympy import primefactors\nanswer = lambda: primefactors(391)[0]\n

from sympy.polys.monomials import MonomialOps

N = 391
STORE = {}


class Box:
    @property
    def text(self):
        return STORE["text"]


def verify(solution, rng):
    STORE["text"] = solution
    candidate = int(MonomialOps(1)._build(Box().text, "answer")())
    return 1 < candidate < N and N % candidate == 0
