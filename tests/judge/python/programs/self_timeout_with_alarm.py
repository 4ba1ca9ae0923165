"""A verifier may bound its own search with SIGALRM / setitimer (signals to itself only)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
import signal
import time


class OutOfTime(Exception):
    pass


def _stop(signum, frame):
    raise OutOfTime


def verify(solution, rng):
    signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    try:
        while True:
            time.sleep(0.01)
    except OutOfTime:
        pass
    signal.alarm(0)
    return True
