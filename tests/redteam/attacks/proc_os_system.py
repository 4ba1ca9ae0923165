"""os.system (which returns -1 instead of raising when fork fails)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: os.system
import os


def verify(solution, rng):
    status = os.system("touch /tmp/redteam_pwned")
    return status != -1
