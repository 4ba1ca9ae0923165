"""sys.exit(0) in place of returning."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: SystemExit
import sys


def verify(solution, rng):
    raise SystemExit(0)
