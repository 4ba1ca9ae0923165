"""Create a symlink (host-side TOCTOU class)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Function not implemented
import os


def verify(solution, rng):
    os.symlink("/etc/passwd", "/dev/redteam_link")
    return True
