"""Read the project's source and settings."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
def verify(solution, rng):
    open("/work/main/config/settings.py").read()
    return len(open("/work/main/judge/__init__.py").read()) > 0
