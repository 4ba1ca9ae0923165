"""The host's PostgreSQL unix socket."""

# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect("/var/run/postgresql/.s.PGSQL.5432")
    return True
