"""A verifier that evals its input; the solution imports os."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to compile
# solution: __import__('os')._exit(0)
def verify(solution, rng):
    return eval(solution) == 4
