"""importlib.import_module('django.conf')."""

# expect: REJECTED RUNTIME_ERROR
# detail: ImportError: import of 'django' is not allowed
import importlib


def verify(solution, rng):
    importlib.import_module("django.conf")
    return True
