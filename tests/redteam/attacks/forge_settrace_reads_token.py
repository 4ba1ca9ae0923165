"""A trace function installed at import time sees the harness's frames after verify returns
(and read the verdict's token from them). sys.settrace is refused wherever it is called."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: sys.settrace is not allowed in a verifier
import sys


def tracer(frame, event, arg):
    return tracer


sys.settrace(tracer)


def verify(solution, rng):
    return False
