"""Inject keystrokes into a terminal with TIOCSTI."""

# expect: REJECTED RUNTIME_ERROR
import fcntl
import termios


def verify(solution, rng):
    for fd in (0, 1, 2):
        fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    return True
