"""Signal by proxy: make the zygote the SIGIO owner of our output pipe, with SIGKILL as the signal.

When the host reads the pipe the kernel "notifies" the owner: before the fix this killed the
zygote and the verdict came back JUDGE_ERROR (retried by the task queue), and the same trick
aimed at the next verdict's pre-forked child broke someone else's verdict. F_SETOWN, F_SETSIG,
F_SETOWN_EX (and the FIOSETOWN/SIOCSPGRP ioctls) are refused by seccomp.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import fcntl
import os
import signal
import time

F_SETSIG = 10


def verify(solution, rng):
    fcntl.fcntl(1, fcntl.F_SETOWN, os.getppid())
    fcntl.fcntl(1, F_SETSIG, signal.SIGKILL)
    fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_ASYNC)
    for _ in range(50):
        os.write(1, b"x" * 4096)
        time.sleep(0.01)
    return True
