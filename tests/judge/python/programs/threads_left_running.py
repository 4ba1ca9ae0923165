"""A thread still running after verify returns does not change the verdict."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# solution: yes
import threading
import time


def spin():
    while True:
        time.sleep(0.001)


def verify(solution, rng):
    threading.Thread(target=spin, daemon=False).start()
    return solution == "yes"
