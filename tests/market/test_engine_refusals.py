"""Every refusal the engine's SQL can raise maps to an error of the API (issue 29, §4).

The SQLSTATEs are read from the migrated database (``pg_proc``), not from the migrations: a
routine that a later migration replaces with a new ``ERRCODE = 'FM<nnn>'`` fails here until
market/engine_refusals.py knows it.
"""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection

from domain.errors import PlatformError, UserError
from market.engine_refusals import (
    REFUSALS,
    REPLAY,
    EngineMisconfigured,
    EngineRefusalUnknown,
    Replay,
    refusal_error,
)
from market.money import Currency, Money

pytestmark = pytest.mark.django_db

# A DETAIL of the shape each code's RAISE gives it (market/sql/engine/place_order.sql).
DETAILS = {
    "FM001": {"problem_id": 7},
    "FM002": {"order_id": 7},
    "FM003": {"solution_id": 7},
    "FM004": {"status": "filled"},
    "FM005": {"status": "retired"},
    "FM006": {"status": "rejected"},
    "FM007": {"order_id": 451},
    "FM008": {},
    "FM009": {"currency": "USD"},
    "FM010": {"needed": 500, "available": 120},
    "FM012": {"field": "quantity", "max": 10000},
    "FM013": {"setting": "MARKET_FEE_BPS"},
    "FM014": {"order_id": 7},
    "FM015": {"order_id": 452},
    "FM016": {"order_id": 453},
    "FM017": {"held": 97, "limit": 100, "max_quantity": 3},
    "FM018": {"sold": 97, "limit": 100, "max_quantity": 3},
}
# The HTTP status of each code's error (docs/market.md, "Services"), and its code.
ANSWERS = {
    "FM001": (404, "not-found"),
    "FM002": (404, "not-found"),
    "FM003": (404, "not-found"),
    "FM004": (409, "market:order-not-open"),
    "FM005": (409, "market:not-tradable"),
    "FM006": (409, "market:solution-not-accepted"),
    "FM007": (409, "market:ask-already-open"),
    "FM008": (403, "payments:usd-disabled"),
    "FM009": (400, "market:currency-mismatch"),
    "FM010": (402, "market:insufficient-funds"),
    "FM012": (400, "market:invalid-order"),
    "FM013": (503, "market:engine-misconfigured"),
    "FM014": (422, "market:client-order-id-reused"),
    "FM015": (409, "market:bid-already-open"),
    "FM016": (409, "market:self-trade"),
    "FM017": (409, "market:solution-limit"),
    "FM018": (409, "market:sales-limit"),
}
# The server's fault, not the user's: its own settings out of the engine's bounds.
PLATFORM = {"FM013"}


def _raised_sqlstates() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            r"""
            SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'engine'
            """
        )
        sources = [row[0] for row in cursor.fetchall()]
    return {state for source in sources for state in re.findall(r"ERRCODE = '(FM\w+)'", source)}


def test_every_sqlstate_the_sql_raises_is_in_the_table_and_nothing_else_is():
    states = _raised_sqlstates()
    assert "FM010" in states  # the query found the engine's source
    assert states - {REPLAY} == set(REFUSALS) == set(DETAILS)


def test_no_refusal_is_raised_without_its_sqlstate():
    # A RAISE of the engine without ERRCODE would be P0001: a 500, not a refusal.
    with connection.cursor() as cursor:
        cursor.execute(
            r"""
            SELECT p.proname, p.prosrc FROM pg_proc p
            JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'engine' AND p.proname LIKE '%\_order'
            """
        )
        sources = dict(cursor.fetchall())
    assert set(sources) == {"place_order", "cancel_order"}
    for name, source in sources.items():
        raises = re.findall(r"RAISE EXCEPTION[^;]*;", source)
        assert raises, name
        for statement in raises:
            assert re.search(r"ERRCODE = 'FM\d{3}'", statement), statement
            assert "DETAIL = json_build_object(" in statement, statement


@pytest.mark.parametrize("sqlstate", sorted(REFUSALS))
def test_each_sqlstate_is_an_error_with_its_status(sqlstate):
    error = refusal_error(sqlstate, json.dumps(DETAILS[sqlstate]), Money(500, Currency.DEMO))
    family = PlatformError if sqlstate in PLATFORM else UserError
    assert isinstance(error, family), error
    assert (error.http_status, error.code) == ANSWERS[sqlstate]
    assert error.message


def test_a_replay_names_its_order_and_an_unknown_sqlstate_is_a_platform_error_not_a_crash():
    assert refusal_error(REPLAY, '{"order_id": 42}', None) == Replay(42)
    unknown = refusal_error("FM999", "{}", None)
    assert isinstance(unknown, EngineRefusalUnknown) and unknown.http_status == 503
    for garbled in ("500 120", "[1]", '{"needed": 500}', ""):
        unreadable = refusal_error("FM010", garbled, Money(1, Currency.DEMO))
        assert isinstance(unreadable, EngineRefusalUnknown), garbled
    no_price = refusal_error("FM009", '{"currency": "USD"}', None)
    assert isinstance(no_price, EngineRefusalUnknown)
    assert isinstance(refusal_error("FM013", '{"setting": "x"}', None), EngineMisconfigured)
    assert refusal_error("23505", "", None) is None  # a unique violation: not the engine's
    assert refusal_error("P0001", "", None) is None
