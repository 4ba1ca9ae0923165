"""Write a file in /tmp."""


# expect: REJECTED RUNTIME_ERROR
def verify(solution, rng):
    with open("/tmp/redteam_pwned", "w") as handle:
        handle.write("pwned")
    return True
