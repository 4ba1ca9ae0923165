"""Write a file in /tmp."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
def verify(solution, rng):
    with open("/tmp/redteam_pwned", "w") as handle:
        handle.write("pwned")
    return True
