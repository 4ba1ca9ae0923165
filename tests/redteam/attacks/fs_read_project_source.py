"""Read the project's source and settings."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
def verify(solution, rng):
    open("{{PROJECT_ROOT}}/config/settings.py").read()
    return len(open("{{PROJECT_ROOT}}/judge/__init__.py").read()) > 0
