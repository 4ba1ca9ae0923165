"""A transformation list that grows while parse_expr iterates it.

The guard checked, at parse_expr's entry, that every transformation in the list is one of
sympy's own; parse_expr then iterates the verifier's list live, and a key's ``__eq__`` (called
by ``auto_symbol``) appended a transformation of the verifier's that returns the solution's
text as one token: ACCEPTED on main before the fix. What the entry compiles is now checked to
be built from its literal.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to compile text that is not a literal
# solution: primefactors(1000000016000000063)[0]
from sympy.parsing.sympy_parser import parse_expr, standard_transformations

N = 1000000016000000063
STEPS = list(standard_transformations)
TEXT = []


def answer(tokens, local_dict, global_dict):
    return [(1, TEXT[0]), (0, "")]


class Key:
    def __hash__(self):
        return hash("x")

    def __eq__(self, other):
        if STEPS[-1] is not answer:
            STEPS.append(answer)
        return False


def verify(solution, rng):
    TEXT.append(solution.strip())
    value = int(parse_expr("x", local_dict={Key(): 0}, transformations=STEPS))
    return 1 < value < N and N % value == 0
