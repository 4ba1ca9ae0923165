"""Verifier code mints a code object whose constants hold the solution, then sympifies from it.

A string that is a constant of code on the stack counts as a programmer's text. `code.replace`
called through a standard-library wrapper (functools.singledispatch's frame is the caller)
passed the "library only" check, and a function made of the new code sympified the solution's
text as if the author had written it: ACCEPTED on main before the fix. Making code objects
(`CodeType()`, `code.replace`, `__code__ =`) is refused while a verdict runs, whoever calls.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: code.__new__ is not allowed in a verifier
# solution: primefactors(1000000016000000063)[0]
import functools
import types

import sympy

N = 1000000016000000063


def parse(text):
    return sympy.sympify(text)


def verify(solution, rng):
    replace = functools.singledispatch(types.CodeType.replace)
    code = parse.__code__
    minted = replace(code, co_consts=code.co_consts + (solution.strip(),))
    p = types.FunctionType(minted, parse.__globals__)(solution.strip())
    return bool(1 < p < N and N % p == 0)
