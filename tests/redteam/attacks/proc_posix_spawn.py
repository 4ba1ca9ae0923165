"""posix_spawn (vfork/clone under the hood)."""

# expect: REJECTED RUNTIME_ERROR
import os
import sys


def verify(solution, rng):
    os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], {})
    return True
