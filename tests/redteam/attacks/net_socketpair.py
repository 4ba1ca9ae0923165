"""A socketpair (any socket family is refused)."""

# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    socket.socketpair()
    return True
