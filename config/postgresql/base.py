"""Django's PostgreSQL backend, with a health check that costs no round trip when the
connection is idle and nothing has arrived on it.

Django's ``CONN_HEALTH_CHECKS`` runs ``SELECT 1`` before the first query of every request (and
of every Celery task, config/celery.py) on a kept connection: a round trip, a backend's parse
and execute, and psycopg's Python around it, for each request (issue 29: 2 of a placement and
cancel's 11 statements). A connection that idles between requests receives nothing unless
something happened to it: the server ending it (a restart, ``pg_terminate_backend``, an idle
timeout) writes an error and closes the socket, so the socket turns readable. So: if libpq
says the connection is fine and idle and its socket has nothing to read, it is kept without a
query; otherwise Django's own check runs (``SELECT 1``, and a broken connection is closed and
replaced by a new one before the request's first query). A connection after a query error is
still checked by ``SELECT 1`` at the request's end (Django's ``close_if_unusable_or_obsolete``,
unchanged).
"""

from __future__ import annotations

import select

import psycopg
from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            not self.pool
            and self.health_check_enabled
            and not self.health_check_done
            and self.connection is not None
            and is_idle_and_quiet(self.connection)
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()


def is_idle_and_quiet(connection: psycopg.Connection[object]) -> bool:
    """True when ``connection`` is open, outside a transaction, and its socket has nothing
    to read: nothing can have told it that it ended. False means "ask the server"."""
    if connection.closed or connection.broken:
        return False
    pgconn = connection.pgconn
    if pgconn.status != psycopg.pq.ConnStatus.OK:
        return False
    if pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        return False
    poller = select.poll()
    poller.register(pgconn.socket, select.POLLIN | select.POLLPRI)
    return not poller.poll(0)
