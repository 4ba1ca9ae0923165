"""Read kernel and hardware details from /sys."""


# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
def verify(solution, rng):
    return len(open("/sys/kernel/hostname").read()) > 0
