"""Patch the harness's frame writer from inside verify so that its rejection becomes 'A'."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: forged the judge's result channel
import sys


def verify(solution, rng):
    main = sys.modules["__main__"]
    for name in dir(main):
        obj = getattr(main, name)
        if callable(obj) and name.startswith("_write"):
            original = obj
            setattr(main, name, lambda payload: original(b"A"))
    return False
