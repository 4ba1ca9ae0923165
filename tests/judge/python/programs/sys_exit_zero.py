"""sys.exit(0) inside verify is a rejection, not a success."""
# expect: REJECTED RUNTIME_ERROR
# detail: SystemExit: 0
import sys


def verify(solution, rng):
    sys.exit(0)
