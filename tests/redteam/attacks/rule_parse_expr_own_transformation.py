"""A verifier parses a literal with parse_expr and a transformation of its own.

The transformation returns the solution's tokens; the compile happened below the admitted
literal's call and was admitted whatever text it was (outside red team, R4): ACCEPTED before
the fix. The admission now carries over only when every transformation is one of sympy_parser's
own (by identity); otherwise the compiled text is checked on its own.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: InjectionBlocked
# solution: __import__('sympy').primefactors(391)[0]
import io
import tokenize

from sympy.parsing.sympy_parser import parse_expr, standard_transformations

N = 391


def verify(solution, rng):
    tokens = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(solution).readline)]

    def spelled(_tokens, local_dict, global_dict):
        return tokens

    candidate = parse_expr("x", transformations=(*standard_transformations, spelled))
    return 1 < candidate < N and N % candidate == 0
