"""Code of the verifier's runs inside an admitted sympify and compiles from C.

``sympify("x", locals={key: 0})`` of a literal is admitted, and sympy's ``auto_symbol`` looks
``x`` up in ``locals``: a key with the same hash is compared, and its ``__eq__`` is
``staticmethod(partial(exec, solution, found))``, a C callable, so no frame of the verifier's
lies between the ``exec`` and the admitted entry. The guard admitted every compile below the
entry with only library frames between: the solution's text ran, ACCEPTED on main before the
fix. An admitted entry now admits only its own compile (text built from the literal).
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to compile text that is not a literal
# solution: (lambda: globals().update(r=__import__('sympy').primefactors(1000000016000000063)[0]))()
import functools

import sympy

N = 1000000016000000063


def verify(solution, rng):
    found = {}
    key = type(
        "Key",
        (),
        {
            "__hash__": lambda self: hash("x"),
            "__eq__": staticmethod(functools.partial(exec, solution, found)),
        },
    )
    sympy.sympify("x", locals={key(): 0})
    r = found.get("r")
    return r is not None and 1 < r < N and N % r == 0
