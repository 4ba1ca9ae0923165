"""Create a file or a folder at the root."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Read-only file system
import os


def verify(solution, rng):
    try:
        os.mkdir("/redteam_pwned")
    except OSError:
        pass
    open("/redteam_pwned.txt", "w").write("pwned")
    return True
