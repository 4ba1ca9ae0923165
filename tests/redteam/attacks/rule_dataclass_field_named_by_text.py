"""A verifier makes a dataclass whose field names are the keys of the solution's JSON.

dataclasses prints every field name into the source it compiles, and it is a listed factory:
on main the solution's text was compiled as the factory's own code (this payload stops at a
SyntaxError; its default expression runs once the text parses). A dataclass field name must
now be an identifier, as make_dataclass already requires, so the factory builds code from
names only.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: dataclass field name that is not an identifier
# solution: {"a=print('pwned') or 1;self.b": 1}
import dataclasses
import json


def verify(solution, rng):
    values = json.loads(solution)
    Record = dataclasses.dataclass(
        type("Record", (), {"__annotations__": dict.fromkeys(values, int)})
    )
    return Record(*values.values()) is not None
