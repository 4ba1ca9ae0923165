"""__import__('celery')."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ModuleNotFoundError: import of 'celery' is not allowed
def verify(solution, rng):
    __import__("celery")
    return True
