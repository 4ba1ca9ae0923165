"""Write a file in /dev/shm (there is none: /dev holds four device nodes only)."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: No such file or directory
def verify(solution, rng):
    with open("/dev/shm/redteam_pwned", "w") as handle:
        handle.write("pwned")
    return True
