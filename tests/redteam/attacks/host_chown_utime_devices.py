"""chown, utime and fchmod on a device node through an fd: every route to its inode."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os


def verify(solution, rng):
    done = []
    fd = os.open("/dev/null", os.O_RDWR)
    for name, action in (
        ("chown", lambda: os.chown("/dev/null", 65534, 65534)),
        ("fchown", lambda: os.fchown(fd, 65534, 65534)),
        ("fchmod", lambda: os.fchmod(fd, 0)),
        ("utime", lambda: os.utime("/dev/null", (0, 0))),
        ("futime", lambda: os.utime(fd, (0, 0))),
    ):
        try:
            action()
            done.append(name)
        except OSError as error:
            last = error
    if done:
        return True
    raise last
