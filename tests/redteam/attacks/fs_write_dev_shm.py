"""Write a file in /dev/shm."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Read-only file system
def verify(solution, rng):
    with open("/dev/shm/redteam_pwned", "w") as handle:
        handle.write("pwned")
    return True
