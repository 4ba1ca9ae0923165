"""importlib.import_module('django.conf')."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ModuleNotFoundError: import of 'django' is not allowed
import importlib


def verify(solution, rng):
    importlib.import_module("django.conf")
    return True
