"""DNS resolution of a public name."""

# expect: REJECTED RUNTIME_ERROR
import socket


def verify(solution, rng):
    socket.getaddrinfo("example.com", 80)
    return True
