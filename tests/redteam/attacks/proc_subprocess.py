"""subprocess.run."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import subprocess


def verify(solution, rng):
    subprocess.run(["/bin/sh", "-c", "id"], check=True)
    return True
