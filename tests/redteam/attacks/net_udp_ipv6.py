"""A UDP packet over IPv6 loopback."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b"leak", ("::1", 53))
    return True
