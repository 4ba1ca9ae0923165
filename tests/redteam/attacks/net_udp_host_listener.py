"""A UDP packet to a listener the test opens on the host's loopback."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.sendto(b"leak", ("127.0.0.1", {{UDP_PORT}}))
    return True
