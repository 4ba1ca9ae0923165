"""Secrets in the environment (DATABASE_URL, STRIPE_SECRET_KEY...)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import os

EXPECTED = {
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "PYTHONHASHSEED",
    "LANG",
    "LC_ALL",
    "PATH",
    "HOME",
    "PWD",
}


def verify(solution, rng):
    # Contained iff nothing but the sandbox's fixed variables is present.
    return bool(set(os.environ) - EXPECTED)
