"""DNS resolution of a public name."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
import socket


def verify(solution, rng):
    socket.getaddrinfo("example.com", 80)
    return True
