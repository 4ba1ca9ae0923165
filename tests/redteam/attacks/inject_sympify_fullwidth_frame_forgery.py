"""A verifier that sympifies its input; the solution spells frame attributes in fullwidth letters.

The compiler NFKC-normalises identifiers (`ｆ_ｂａｃｋ` is `f_back`), so a guard that reads the raw
text missed them: this payload walked from a generator's frame up to the harness, read the
verdict's token and wrote a well-formed acceptance frame (ACCEPTED before the fix).
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: (Symbol('q')._assumptions.update(g=(len.\uff46_\uff47\uff4c\uff4f\uff42\uff41\uff4c\uff53['_write_frame'](b'A'+len.\uff46_\uff4c\uff4f\uff43\uff41\uff4c\uff53['token']) or len.\uff46_\uff47\uff4c\uff4f\uff42\uff41\uff4c\uff53['o'+'s']._exit(0) for abs in [1] for len in [Symbol('q')._assumptions['g'].\uff47\uff49_\uff46\uff52\uff41\uff4d\uff45.\uff46_\uff42\uff41\uff43\uff4b.\uff46_\uff42\uff41\uff43\uff4b.\uff46_\uff42\uff41\uff43\uff4b.\uff46_\uff42\uff41\uff43\uff4b.\uff46_\uff42\uff41\uff43\uff4b.\uff46_\uff42\uff41\uff43\uff4b])), next(Symbol('q')._assumptions['g']))[1]
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
