"""Solution: the name of a sympy function (a publishing attack: a class attribute is the same
dict as a module global the solution was stored into; pydoc.locate picks the function)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: TABLE["k"] = solution; Config.table is TABLE; pydoc.locate("sympy." + Config.table["k"])
# solution: primefactors
import pydoc

TABLE = {}


class Config:
    table = TABLE


def verify(solution, rng):
    TABLE["k"] = solution.strip()
    function = pydoc.locate("sympy." + Config.table["k"])  # sink
    return function(391) == [17, 23]
