"""List the project's virtualenv (django, stripe...)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
import os


def verify(solution, rng):
    return "django" in os.listdir("{{HOST_SITE_PACKAGES}}")
