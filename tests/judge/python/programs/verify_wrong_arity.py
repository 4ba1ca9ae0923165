"""verify takes one parameter."""
# expect: REJECTED RUNTIME_ERROR
# detail: TypeError


def verify(solution):
    return True
