"""A property on ``ast.Expression.body`` hands an admitted compile another tree.

``sympify("x", evaluate=False)`` of a literal compiles the tree that sympy's ``evaluateFalse``
builds; the guard admits it, then ``compile`` reads the tree's fields, and a class-level
property wins over the node's own ``body``: it returned the tree of the solution's text
(``ast.parse`` of text builds a tree and runs nothing). ast's node classes were not in the
record of the parser's path: ACCEPTED on main before the fix. They are now, for every tree an
admitted entry compiles.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ast.Expression.body is not the library's own
# solution: primefactors(1000000016000000063)[0]
import ast

import sympy

N = 1000000016000000063
TREE = []


def verify(solution, rng):
    TREE.append(ast.parse(solution.strip(), mode="eval").body)
    ast.Expression.body = property(lambda self: TREE[0], lambda self, value: None)
    value = int(sympy.sympify("x", evaluate=False))
    return 1 < value < N and N % value == 0
