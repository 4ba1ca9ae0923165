"""List /proc to find other processes and sandboxes."""

# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
import os


def verify(solution, rng):
    return len(os.listdir("/proc")) > 0
