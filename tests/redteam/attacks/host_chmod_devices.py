"""chmod 000 on the sandbox's device nodes (as host root it changed the host's /dev/null)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os


def verify(solution, rng):
    changed = []
    for device in ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"):
        try:
            os.chmod(device, 0)
            changed.append(device)
        except OSError as error:
            last = error
    if changed:
        return True
    raise last
