"""Issue 29 (found sound by a review): the engine's schema seen from a second role.

docs/market.md ("Engine SQL hardening") says a runtime role other than the migrating one
needs USAGE on ``engine`` and EXECUTE on its routines to call the engine, and that the
triggers fire whatever the privilege. Held here with a role of the test's own: without any
right on ``engine``, its direct call is refused, and a trigger function of ``engine`` still
runs on its writes (the ledger's append-only trigger refuses the UPDATE by its own message).
"""

from __future__ import annotations

import uuid

import psycopg
import pytest
from django.db import connection

from tests.market.conftest import funded

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_role_without_rights_on_engine_cannot_call_it_but_its_triggers_fire():
    funded()  # a deposit: a ledger transaction row for the row trigger
    role = f"review_{uuid.uuid4().hex[:8]}"
    d = connection.settings_dict
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'review'")
        cursor.execute(f"GRANT SELECT, UPDATE ON market_ledgertransaction TO {role}")
    try:
        with psycopg.connect(
            dbname=d["NAME"],
            user=role,
            password="review",
            host=d["HOST"] or "127.0.0.1",
            port=d["PORT"] or 5432,
            autocommit=True,
        ) as other:
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="schema engine"):
                other.execute("SELECT engine.fees_account('demo')")
            # A trigger's function is not looked up by name when it fires.
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                other.execute("UPDATE market_ledgertransaction SET id = id")
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"REVOKE ALL ON market_ledgertransaction FROM {role}")
            cursor.execute(f"DROP ROLE {role}")
