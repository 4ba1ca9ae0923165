"""A crash of the interpreter is a runtime error, not a judge error."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: SIGSEGV
import ctypes

ctypes.string_at(0)


def verify(solution, rng):
    return True
