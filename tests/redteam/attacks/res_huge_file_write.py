"""Fill a file system (RLIMIT_FSIZE 0 and read-only)."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
def verify(solution, rng):
    with open("/dev/null", "wb") as sink:
        sink.write(b"x" * 1000)
    with open("/judge/fill", "wb") as handle:
        handle.write(b"x" * (1 << 30))
    return True
