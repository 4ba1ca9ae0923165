"""Code of the verifier's runs from C inside a library module's import and compiles there.

A library module's body, while the import system runs it, was admitted to compile anything
(its own tables, scipy's ``from module import *``). The verifier puts a key in
``sys.modules`` with the hash of ``sympy.crypto.crypto`` whose ``__eq__`` is
``staticmethod(partial(exec, solution, found))``, then imports ``sympy.crypto``: its body
imports ``sympy.crypto.crypto``, the import system compares the key, and the C callable's
``exec`` had only library frames up to the body's ``exec_module``: ACCEPTED on main before
the fix. A library import now admits only import statements of module names; the rest is
checked as anywhere else.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to compile text that is not a literal
# solution: (lambda: globals().update(r=__import__('sympy').primefactors(1000000016000000063)[0]))()
import functools
import sys

N = 1000000016000000063
TARGET = "sympy.crypto.crypto"  # not imported by the zygote's warm-up


def verify(solution, rng):
    found = {}
    key = type(
        "Key",
        (),
        {
            "__hash__": lambda self: hash(TARGET),
            "__eq__": staticmethod(functools.partial(exec, solution, found)),
        },
    )
    sys.modules[key()] = None
    import sympy.crypto

    r = found.get("r")
    return r is not None and 1 < r < N and N % r == 0
