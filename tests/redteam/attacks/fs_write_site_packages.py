"""Plant a module in the libraries' folder."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Read-only file system
import numpy


def verify(solution, rng):
    open(numpy.__file__.rsplit("/", 1)[0] + "/redteam_pwned.py", "w").write("pwned")
    return True
