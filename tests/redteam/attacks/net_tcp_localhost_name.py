"""TCP to localhost by name (needs /etc/hosts and a socket)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
import socket


def verify(solution, rng):
    socket.create_connection(("localhost", 6379), timeout=2).close()
    return True
