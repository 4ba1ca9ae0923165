"""sys.exit(0) in place of returning."""

# expect: REJECTED RUNTIME_ERROR
# detail: SystemExit
import sys


def verify(solution, rng):
    raise SystemExit(0)
