"""An abstract unix socket (not scoped by the filesystem)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect("\0formalmarket-redteam")
    return True
