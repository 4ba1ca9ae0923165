"""A verifier renames an inherited dataclass field to the solution's text, then subclasses.

dataclasses prints every field name, inherited ones included, into the source it compiles.
The guard checked only the decorated class's own annotations: a base's Field whose .name was
changed after the base was built reached the factory, and the solution's text ran as the
factory's code: ACCEPTED on main before the fix. Every field name, from every base, must now
be an identifier.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: dataclass field name that is not an identifier
# solution: x", __import__("sympy").primefactors(391)[0], "

import dataclasses

N = 391
STORE = {}


@dataclasses.dataclass
class Base:
    x: int = 0


class Box:
    @property
    def text(self):
        return STORE["text"]


def verify(solution, rng):
    STORE["text"] = solution.strip()
    dataclasses.fields(Base)[0].name = Box().text

    @dataclasses.dataclass(init=False, eq=False)
    class Child(Base):
        """A row."""

    parts = Child.__repr__(Child())
    candidate = int(parts[1])
    return 1 < candidate < N and N % candidate == 0
