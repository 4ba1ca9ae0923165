"""Every refusal the engine's SQL can raise maps to a user error of the API (issue 29, §4).

The codes are read from the migrated database (``pg_proc``), not from the migrations: a
routine that a later migration replaces with a new ``formalmarket:<code>`` fails here until
market/engine_refusals.py knows the code.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection

from domain.errors import UserError
from market.engine_refusals import (
    PREFIX,
    REFUSALS,
    EngineRefusalUnknown,
    Replay,
    refusal_error,
)
from market.money import Currency, Money

pytestmark = pytest.mark.django_db

# A DETAIL of the shape each code's RAISE gives it (market/migrations/0006_engine_v2.py).
DETAILS = {
    "order-not-open": "filled",
    "not-tradable": "retired",
    "solution-not-accepted": "rejected",
    "currency-mismatch": "USD",
    "insufficient-funds": "500 120",
    "ask-already-open": "451",
    "bid-already-open": "452",
    "self-trade": "453",
}
# The HTTP status of each code's error (docs/market.md, "Services").
STATUS = {
    "no-such-problem": 404,
    "no-such-order": 404,
    "no-such-solution": 404,
    "order-not-open": 409,
    "not-tradable": 409,
    "solution-not-accepted": 409,
    "usd-disabled": 403,
    "currency-mismatch": 400,
    "insufficient-funds": 402,
    "ask-already-open": 409,
    "bid-already-open": 409,
    "self-trade": 409,
}


def _raised_codes() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            r"""
            SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public' AND p.proname LIKE 'market\_%'
            """
        )
        sources = [row[0] for row in cursor.fetchall()]
    return {code for source in sources for code in re.findall(r"'formalmarket:([a-z-]+)'", source)}


def test_every_code_the_sql_raises_is_in_the_table_and_nothing_else_is():
    codes = _raised_codes()
    assert "insufficient-funds" in codes  # the query found the engine's source
    assert codes - {"replay"} == set(REFUSALS)


@pytest.mark.parametrize("code", sorted(REFUSALS))
def test_each_code_is_a_user_error_with_its_status(code):
    error = refusal_error(PREFIX + code, DETAILS.get(code, ""), Money(500, Currency.DEMO))
    assert isinstance(error, UserError), error
    assert error.http_status == STATUS[code]
    assert error.code and error.message


def test_a_replay_names_its_order_and_an_unknown_code_is_a_platform_error_not_a_crash():
    assert refusal_error(PREFIX + "replay", "42", None) == Replay(42)
    unknown = refusal_error(PREFIX + "made-up", "", None)
    assert isinstance(unknown, EngineRefusalUnknown) and unknown.http_status == 503
    unreadable = refusal_error(PREFIX + "insufficient-funds", "garbled", Money(1, Currency.DEMO))
    assert isinstance(unreadable, EngineRefusalUnknown)
    no_price = refusal_error(PREFIX + "currency-mismatch", "USD", None)
    assert isinstance(no_price, EngineRefusalUnknown)
    assert refusal_error("duplicate key value", "", None) is None
