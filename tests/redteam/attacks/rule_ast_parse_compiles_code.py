"""A verifier switches ast.parse's flag off, so that ast.parse of the solution returns code.

ast.parse is listed because it builds a tree (compiling a tree is refused), and was admitted
with no check: with ast.PyCF_ONLY_AST set to 0, ast.parse compiled the solution's text to a
code object, which exec then ran with no compile at all. A listed factory with no check of
its own admits nothing now; ast.parse's is that the compile it asks for makes a tree.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: InjectionBlocked
# solution: import sympy; answer = sympy.primefactors(391)[0]
import ast

N = 391


def verify(solution, rng):
    ast.PyCF_ONLY_AST = 0
    scope = {}
    exec(ast.parse(solution), scope)
    candidate = scope["answer"]
    return 1 < candidate < N and N % candidate == 0
