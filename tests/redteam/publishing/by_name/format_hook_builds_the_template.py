"""Solution: the name of a sympy function (a publishing attack: __format__ of an own class reads
module state; the format string built from it picks an attribute of sympy)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: NAMES.append(solution); f"{Field()}" calls Field.__format__; ("{0." + ... + "}").format(sympy)
# solution: is_nthpow_residue
import sympy

NAMES = []


class Field:
    def __format__(self, spec):
        return NAMES[0]


def verify(solution, rng):
    NAMES.append(solution.strip())
    template = "{0." + f"{Field()}" + "}"
    shown = template.format(sympy)  # sink
    return shown.startswith("<function")
