"""A verifier calls dataclasses._create_fn itself with the solution's text as the body.

_create_fn is the dataclasses factory, and the guard recognised it by (file, function) alone,
whoever called it and with no check of its text: the solution's `return ...` line ran as the
factory's code and the judge computed the answer (outside red team, R1): ACCEPTED before the
fix. A factory is now admitted only on the path that reaches it (from _process_class through
the guard's wrapper, which vetted the field names), and its text must be what dataclasses
generates for those names.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: not the code its library generates
# solution: return __import__('sympy').primefactors(391)[0]
import dataclasses

N = 391
STORE = {}


class Box:
    @property
    def text(self):
        return STORE["text"]


def verify(solution, rng):
    STORE["text"] = solution
    candidate = dataclasses._create_fn("f", [], [Box().text])()
    return 1 < candidate < N and N % candidate == 0
