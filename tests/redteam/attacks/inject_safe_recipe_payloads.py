"""The verifier library's safe parser turns every injection payload into a plain rejection."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# solution: __import__('sys')._getframe(1)
import sympy
from formalmarket_verify import parse_math


PAYLOADS = [
    "__import__('os')._exit(0)",
    "().__class__.__base__.__subclasses__()",
    "exec('import os')",
    "x.func.__globals__",
    "(lambda: 1)()",
    "2**10**10**10",
    "((10**1000)**1000)**1000",
    "factorial(10**9)",
    "open('/etc/passwd')",
    "[c for c in ().__class__.__bases__]",
    "x if 1 else x",
    "sin(" * 200 + "x" + ")" * 200,
]


def verify(solution, rng):
    x = sympy.Symbol("x")
    for payload in PAYLOADS + [solution]:
        try:
            parse_math(payload, {"x": x})
        except ValueError:
            continue
        return True  # a payload got through the parser
    return False
