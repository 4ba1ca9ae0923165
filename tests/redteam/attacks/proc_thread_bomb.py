"""Thousands of threads (the pids cgroup caps tasks)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: can't start new thread
import threading
import time


def verify(solution, rng):
    threads = []
    for _ in range(5000):
        thread = threading.Thread(target=time.sleep, args=(30,), daemon=True)
        thread.start()
        threads.append(thread)
    return True
