"""A thread that keeps printing ACCEPTED while and after verify returns False."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import os
import threading


def forge():
    while True:
        for fd in (1, 2):
            try:
                os.write(fd, b"ACCEPTED\n")
            except OSError:
                pass


def verify(solution, rng):
    threading.Thread(target=forge, daemon=True).start()
    return False
