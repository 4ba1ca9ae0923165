"""The web's kept database connection is checked before each request without a round trip,
and a connection the server ended is still replaced before the request's first query.

config/postgresql: an idle connection whose socket has nothing to read is kept as it is; one
the server ended (here ``pg_terminate_backend``, as a PostgreSQL restart does to every
connection) has a readable socket, so Django's ``SELECT 1`` runs, fails, and the connection is
replaced. The requests go through Django's WSGI handler, whose ``request_started`` runs the
checks as gunicorn's requests do (the test client turns them off).
"""

from __future__ import annotations

import io

import psycopg
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection

from config.postgresql.base import is_idle_and_quiet
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def _get(path: str) -> int:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "testserver",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
    }
    status: list[str] = []
    chunks = WSGIHandler()(environ, lambda line, headers, exc_info=None: status.append(line))
    try:
        b"".join(chunks)
    finally:
        chunks.close()  # request_finished, as a server sends it
    return int(status[0].split()[0])


def _other_connection() -> psycopg.Connection[tuple[object, ...]]:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return psycopg.connect(**params, autocommit=True)


def _last_query(pid: int) -> str:
    with _other_connection() as other:
        row = other.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()
    assert row is not None
    return str(row[0])


def test_a_kept_idle_connection_is_reused_without_a_query():
    assert _get("/api/v1/problems/") == 200
    kept = connection.connection
    pid = kept.info.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT 4242 AS marker")

    connection.health_check_done = False  # as at the start of the next request
    connection.close_if_health_check_failed()

    assert connection.connection is kept
    assert _last_query(pid) == "SELECT 4242 AS marker"  # no SELECT 1 was sent
    assert _get("/api/v1/problems/") == 200
    assert connection.connection is kept


def test_a_connection_the_server_ended_is_replaced_before_the_next_request():
    assert _get("/api/v1/problems/") == 200
    ended = connection.connection
    pid = ended.info.backend_pid
    with _other_connection() as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
    # The server's goodbye (an error, then the socket's end) arrives on the idle connection.
    wait_until(lambda: not is_idle_and_quiet(ended), "the ended connection to turn readable")

    assert _get("/api/v1/problems/") == 200  # not a 500: the check replaced it

    assert connection.connection is not ended
    assert connection.connection.info.backend_pid != pid


def test_a_connection_inside_a_transaction_is_not_taken_for_idle():
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("BEGIN")
        assert not is_idle_and_quiet(connection.connection)
        cursor.execute("ROLLBACK")
    assert is_idle_and_quiet(connection.connection)
