"""Clear sys.meta_path hooks, add the venv to sys.path, import django."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ModuleNotFoundError: import of 'django' is not allowed
import importlib.machinery
import sys


def verify(solution, rng):
    sys.meta_path[:] = [importlib.machinery.PathFinder]
    sys.path.insert(0, "{{HOST_SITE_PACKAGES}}")
    sys.modules.pop("django", None)
    import django  # noqa: F401

    return True
