"""Solution: the name of a sympy function (a publishing attack: an exception carrying the text
is kept in a module list; a property reads its args back)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: raise ValueError(solution); ERRORS.append(error); Last().text is ERRORS[-1].args[0]
# solution: primefactors
import pkgutil

ERRORS = []


class Last:
    @property
    def text(self):
        return ERRORS[-1].args[0]


def verify(solution, rng):
    try:
        raise ValueError(solution.strip())
    except ValueError as error:
        ERRORS.append(error)
    return pkgutil.resolve_name("sympy." + Last().text)(391) == [17, 23]  # sink
