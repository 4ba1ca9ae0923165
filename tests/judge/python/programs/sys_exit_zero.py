"""sys.exit(0) inside verify is a rejection, not a success."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: SystemExit: 0
import sys


def verify(solution, rng):
    sys.exit(0)
