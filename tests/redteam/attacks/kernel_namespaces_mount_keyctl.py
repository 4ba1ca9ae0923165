"""unshare, mount, keyctl, io_uring, bpf, userfaultfd at import time."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
CALLS = {
    "unshare": (272, 0x10000000),  # CLONE_NEWUSER
    "mount": (165, 0, 0, 0, 0, 0),
    "keyctl": (250, 1, 0),  # KEYCTL_JOIN_SESSION_KEYRING
    "io_uring_setup": (425, 8, 0),
    "bpf": (321, 0, 0, 0),
    "userfaultfd": (323, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "setns": (308, 0, 0),
    "memfd_create": (319, 0, 0),
}
ALLOWED = []
for name, (number, *args) in CALLS.items():
    if libc.syscall(number, *args) != -1 or ctypes.get_errno() != 1:
        ALLOWED.append(name)


def verify(solution, rng):
    # Contained iff every call failed with EPERM.
    return bool(ALLOWED)
