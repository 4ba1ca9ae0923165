"""__import__('celery')."""


# expect: REJECTED RUNTIME_ERROR
# detail: ImportError: import of 'celery' is not allowed
def verify(solution, rng):
    __import__("celery")
    return True
