"""The host's PostgreSQL unix socket."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import socket


def verify(solution, rng):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect("/var/run/postgresql/.s.PGSQL.5432")
    return True
