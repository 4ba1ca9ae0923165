"""Import redis (installed on the host, or the project's own)."""

# expect: REJECTED RUNTIME_ERROR
# detail: ImportError: import of 'redis' is not allowed
import redis


def verify(solution, rng):
    return True
