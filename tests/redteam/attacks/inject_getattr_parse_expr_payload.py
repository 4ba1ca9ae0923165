"""A verifier that fetches parse_expr with getattr, which publishing once missed.

The payload only uses words the guard allows once NFKC-normalised... except that it needs
`f_back` to climb to the harness: refused at run time, and the verifier at publishing.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: (Symbol('q')._assumptions.update(g=(abs for abs in [1])), next(Symbol('q')._assumptions['g'].\uff47\uff49_\uff46\uff52\uff41\uff4d\uff45.\uff46_\uff42\uff41\uff43\uff4b))[1]
import sympy.parsing.sympy_parser


def verify(solution, rng):
    parser = getattr(sympy.parsing.sympy_parser, "parse_expr")
    return parser(solution) == 4
