"""Read /etc/passwd."""


# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
def verify(solution, rng):
    return len(open("/etc/passwd").read()) > 0
