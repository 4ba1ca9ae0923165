"""A verifier makes a dataclass whose __annotations__ is a mappingproxy keyed by the solution.

The guard's dataclass wrapper vetted field names only when the annotations were a dict, while
_process_class reads any mapping: the field name was printed into __eq__'s source and the
solution's expression ran (outside red team, R2): ACCEPTED before the fix. Annotations must now
be exactly a dict with identifier keys, and every base's fields are read as _process_class
reads them; anything else is refused.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: dataclass
# solution: __class__,)if 0 else __import__('sympy').primefactors(391)[0]if 1 else(0
import dataclasses
import types

N = 391
STORE = {}


class Box:
    @property
    def text(self):
        return STORE["text"]


def verify(solution, rng):
    STORE["text"] = solution
    fields = types.MappingProxyType({Box().text: int})
    record = dataclasses.dataclass(
        type("Record", (), {"__annotations__": fields}), init=False, repr=False
    )
    first = record()
    candidate = first == first
    return 1 < candidate < N and N % candidate == 0
