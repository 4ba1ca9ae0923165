"""TCP to the host's PostgreSQL on 127.0.0.1:5432."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    socket.create_connection(("127.0.0.1", 5432), timeout=2).close()
    return True
