"""Import celery (installed on the host, or the project's own)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ModuleNotFoundError: import of 'celery' is not allowed
import celery


def verify(solution, rng):
    return True
