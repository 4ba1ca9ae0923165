"""Import market (installed on the host, or the project's own)."""

# expect: REJECTED RUNTIME_ERROR
# detail: ImportError: import of 'market' is not allowed
import market


def verify(solution, rng):
    return True
