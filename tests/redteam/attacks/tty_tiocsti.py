"""Inject keystrokes into a terminal with TIOCSTI."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
import fcntl
import termios


def verify(solution, rng):
    for fd in (0, 1, 2):
        fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    return True
