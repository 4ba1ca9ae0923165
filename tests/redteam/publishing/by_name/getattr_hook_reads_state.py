"""Solution: the name of a sympy function (a publishing attack: an own __getattr__ hands module
state back for any attribute; format_map with a template built from it)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: SEEN.append(solution); Names().anything is SEEN[0]; ("{m." + ... + "}").format_map(...)
# solution: primefactors
import sympy

SEEN = []


class Names:
    def __getattr__(self, attribute):
        return SEEN[0]


def verify(solution, rng):
    SEEN.append(solution.strip())
    template = "{m." + Names().wanted + "}"
    return template.format_map({"m": sympy}).startswith("<function")  # sink
