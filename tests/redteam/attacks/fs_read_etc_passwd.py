"""Read /etc/passwd."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
def verify(solution, rng):
    return len(open("/etc/passwd").read()) > 0
