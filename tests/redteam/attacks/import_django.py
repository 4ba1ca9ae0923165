"""Import django (installed on the host, or the project's own)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ModuleNotFoundError: import of 'django' is not allowed
import django


def verify(solution, rng):
    return True
