"""A session that planned on an empty market keeps probing indexes as the market grows.

The engine's statements are planned once per session (generic plans, migration 0006), and
PostgreSQL's foreign-key checks keep their plans per session too. Planned while the market
had no trades (statistics taken on empty tables, as on a new deployment or a server without
autovacuum), they scanned market_entitlement for every crossing order the book's cursor
read and market_trade at every COMMIT, so a placement's cost grew with the market's history
(migration 0010). Here the statistics are taken on an empty market, the session then trades
in autocommit, as deployed (``CALL engine.place_order_durable``, the checks at its COMMIT),
and every statement the last placement executed, the foreign-key checks included, is read
from auto_explain: none may scan a table that grows with the market.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection

from market.models import Trade
from tests.market.conftest import Market, demo, funded

# Statistics taken on tables as a new deployment has them: truncated, without dead rows.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("truncated_tables")]

# Tables that grow with every placement or trade (or with the users and their solutions).
GROWING = (
    "market_order",
    "market_trade",
    "market_entitlement",
    "market_posting",
    "market_ledgertransaction",
    "market_account",
    "market_solution",
    "activity_event",
    "auth_user",
)
TRADES_BEFORE = 8  # more than the 5 custom plans PostgreSQL makes before a generic one


def _scans(plans: list[str]) -> list[str]:
    pattern = re.compile(r"Seq Scan on (\w+)")
    return [
        line.strip()
        for plan in plans
        for line in plan.splitlines()
        if (found := pattern.search(line)) and found.group(1) in GROWING
    ]


def test_a_session_planned_on_an_empty_market_probes_indexes_as_it_trades(nested_plans):
    from market.services.orders import place_ask, place_bid

    market = Market()
    solutions = [market.accepted() for _ in range(TRADES_BEFORE + 2)]
    for i, solution in enumerate(solutions):
        place_ask(seller=solution.solver, solution=solution, price=demo(100 + i), quantity=1)
    buyers = [funded(10_000) for _ in range(TRADES_BEFORE + 1)]
    assert not Trade.objects.exists()
    with connection.cursor() as cursor:
        # Statistics of a market before its first trade; ANALYZE also invalidates every plan
        # this session made before, so the engine plans again on these statistics.
        cursor.execute(
            "ANALYZE market_order, market_trade, market_entitlement, market_posting, "
            "market_ledgertransaction, market_account, market_solution, activity_event"
        )
    for buyer in buyers[:-1]:
        place_bid(buyer=buyer, problem=market.problem, price=demo(500), quantity=1)
    assert Trade.objects.count() == TRADES_BEFORE

    nested_plans.clear()
    order = place_bid(buyer=buyers[-1], problem=market.problem, price=demo(500), quantity=1)

    assert order.status == "filled"
    executed = "\n".join(nested_plans)
    # The plans read are the real ones: the book's cursor and the checks at COMMIT.
    assert "order_book_asks" in executed, executed
    assert "FOR KEY SHARE" in executed, executed
    assert _scans(nested_plans) == [], executed
