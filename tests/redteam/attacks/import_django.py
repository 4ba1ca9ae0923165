"""Import django (installed on the host, or the project's own)."""

# expect: REJECTED RUNTIME_ERROR
# detail: ImportError: import of 'django' is not allowed
import django


def verify(solution, rng):
    return True
