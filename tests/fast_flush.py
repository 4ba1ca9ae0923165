"""Emptying the database after a transactional test, in milliseconds instead of seconds.

Django's ``TransactionTestCase`` ends each test with ``manage.py flush``: one TRUNCATE of all
46 tables (a new file for each table, index and TOAST relation) and then the ``post_migrate``
signal, which creates the 43 content types and 172 permissions again. On this 2-core machine
that is 0.5-2 s per test (1 s + 1 s at load 17), for every transactional test of the suite.

Here the same tables are emptied with DELETE, under ``session_replication_role = replica``
so that neither the foreign keys (ordinary triggers) nor the ledger's append-only triggers
(market_posting, market_ledgertransaction) fire: the order of the tables does not matter and
the append-only rows go as TRUNCATE takes them. Content types and permissions, which only
``post_migrate`` writes, are kept instead of being deleted and created again; the signal is
not sent. The state the next test sees is the one ``flush`` leaves: every model table empty
but those two, which hold the full set ``post_migrate`` makes. Sequences are not reset by
either (``reset_sequences=False``).

One difference remains: DELETE leaves the emptied tables' pages (dead rows) until autovacuum,
where TRUNCATE leaves none. The planner sees the size; a test about the plans made on a new,
empty deployment (tests/market/test_stale_statistics.py) asks for the ``truncated_tables``
fixture (tests/conftest.py), which truncates them before it starts (:func:`truncate`).

Django's flush is used as before when any of this does not hold: a test with
``available_apps`` or ``serialized_rollback``, a database user that may not set
``session_replication_role`` (not a superuser, e.g. a CI's own DATABASE_URL), or content types
or permissions that a test changed (their counts differ from those ``post_migrate`` made).
"""

from __future__ import annotations

from django.core.management import call_command
from django.db import connections, transaction
from django.db.backends.utils import CursorWrapper
from django.test import TransactionTestCase

KEPT = ("django_content_type", "auth_permission")

_django_fixture_teardown = TransactionTestCase._fixture_teardown
# Per database alias: the counts of the KEPT tables right after a full flush.
_kept_counts: dict[str, tuple[int, ...]] = {}


def _counts(cursor: CursorWrapper) -> tuple[int, ...]:
    counts = []
    for table in KEPT:
        cursor.execute(f"SELECT count(*) FROM {table}")
        counts.append(cursor.fetchone()[0])
    return tuple(counts)


def _may_replicate(cursor: CursorWrapper) -> bool:
    # Setting session_replication_role takes a superuser (the private stack's "postgres").
    cursor.execute("SELECT current_setting('is_superuser')")
    return bool(cursor.fetchone()[0] == "on")


def _empty(alias: str) -> bool:
    """Delete every model table's rows but the KEPT ones; False (nothing done) when the
    fast way does not apply to this database."""
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return False
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        if not _may_replicate(cursor) or _counts(cursor) != _kept_counts.get(alias):
            return False
        cursor.execute("SET LOCAL session_replication_role = replica")
        quote = connection.ops.quote_name
        cursor.execute(
            "".join(f"DELETE FROM {quote(table)};" for table in tables if table not in KEPT)
        )
    return True


def truncate(alias: str = "default") -> None:
    """TRUNCATE every model table but the KEPT ones (no CASCADE needed: the kept tables
    reference only each other)."""
    connection = connections[alias]
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE " + ", ".join(quote(table) for table in tables if table not in KEPT)
        )


def _fixture_teardown(self: TransactionTestCase) -> None:
    if self.available_apps is not None or self.serialized_rollback:
        _django_fixture_teardown(self)
        return
    for alias in self._databases_names(include_mirrors=False):
        if _empty(alias):
            continue
        # Django's flush, with the arguments its _fixture_teardown passes in this case; then
        # the counts of what post_migrate made, which the fast way keeps from now on.
        call_command(
            "flush",
            verbosity=0,
            interactive=False,
            database=alias,
            reset_sequences=False,
            allow_cascade=False,
            inhibit_post_migrate=False,
        )
        with connections[alias].cursor() as cursor:
            _kept_counts[alias] = _counts(cursor)


def install() -> None:
    """Use the fast emptying for every TransactionTestCase (pytest-django's transactional_db)."""
    TransactionTestCase._fixture_teardown = _fixture_teardown  # type: ignore[method-assign]
