"""threading.settrace: every thread started afterwards installs the trace function."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: threading.settrace/setprofile are not allowed
import threading


def tracer(frame, event, arg):
    return tracer


def verify(solution, rng):
    threading.setprofile(tracer)
    return False
