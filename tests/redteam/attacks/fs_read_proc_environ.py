"""Read the environment of pid 1 and of the parent through /proc."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
import os


def verify(solution, rng):
    open(f"/proc/{os.getppid()}/environ", "rb").read()
    return len(open("/proc/1/environ", "rb").read()) > 0
