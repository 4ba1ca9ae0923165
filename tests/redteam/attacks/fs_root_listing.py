"""The sandbox root holds only the interpreter and the libraries."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import os

HOST_ONLY = {"etc", "home", "tmp", "work", "proc", "sys", "var", "opt", "srv", "mnt", "boot", "run"}


def verify(solution, rng):
    # Contained iff none of the host's top-level folders is visible.
    return bool(HOST_ONLY & set(os.listdir("/")))
