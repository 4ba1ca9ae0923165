"""A scipy distribution whose _parse_arg_template is the solution's text.

rv_generic._attach_argparser_methods is a listed factory that execs _parse_arg_template, which a
subclass can make a property returning any text: the solution's module ran as the factory's
code: ACCEPTED on main before the fix. The template must now be exactly what scipy's
_construct_argparser builds for its shapes.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: that is not the code its library generates
# solution: from sympy import primefactors\ndef _parse_args(self, *a, **k): return primefactors(391)[0]\n_parse_args_stats = _parse_args_rvs = _parse_args\n

from scipy import stats

N = 391
STORE = {}


class Answer(stats.rv_continuous):
    @property
    def _parse_arg_template(self):
        return STORE["text"]

    @_parse_arg_template.setter
    def _parse_arg_template(self, value):
        pass


def verify(solution, rng):
    STORE["text"] = solution
    dist = Answer(name="answer")
    candidate = int(dist._parse_args())
    return 1 < candidate < N and N % candidate == 0
