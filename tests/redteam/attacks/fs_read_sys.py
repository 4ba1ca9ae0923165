"""Read kernel and hardware details from /sys."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
def verify(solution, rng):
    return len(open("/sys/kernel/hostname").read()) > 0
