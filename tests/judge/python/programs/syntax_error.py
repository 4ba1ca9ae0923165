"""Does not compile: a return outside a function is a SyntaxError at compile time."""

# expect: REJECTED RUNTIME_ERROR
# detail: SyntaxError: 'return' outside function
# ruff: noqa
return True


def verify(solution, rng):
    return True
