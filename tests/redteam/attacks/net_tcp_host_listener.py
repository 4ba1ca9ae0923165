"""TCP to a listener the test opens on the host's loopback."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    connection = socket.create_connection(("127.0.0.1", {{TCP_PORT}}), timeout=2)
    connection.sendall(b"leak")
    return True
