"""Spin while ignoring SIGXCPU."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED TIME_LIMIT
# time_limit_s: 0.5
import signal


def verify(solution, rng):
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    while True:
        pass
