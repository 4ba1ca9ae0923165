"""TCP to the host's Redis on 127.0.0.1:6379."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    connection = socket.create_connection(("127.0.0.1", 6379), timeout=2)
    connection.sendall(b"PING\r\n")
    return connection.recv(10).startswith(b"+PONG")
