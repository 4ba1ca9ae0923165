"""TCP to the host's Redis on [::1]:6379."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    socket.create_connection(("::1", 6379), timeout=2).close()
    return True
