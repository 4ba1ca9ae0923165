"""Migration 0020 on a market with data: the engine moves to its schema and trades on.

The test database is taken back to 0019 (the engine as ``public.market_*``); a trade, a
resting ask and an open bid are made there by the pre-0020 engine (the services' own calls,
as deployed, with the old names); then 0020 is applied. The rows, holds and balances are as
they were, the database's routines are the files of ``market/sql/engine/``, the bid placed
before cancels (releasing its hold) and a new bid fills against the ask rested before, both
through ``engine.*``. Going back restores the old names and the old engine trades there. The
fixture migrates forward again whatever happened (DDL commits: these tests run outside a
transaction).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from market.engine_sql import (
    SQL_DIR,
    file_definition,
    file_definitions,
    live_definitions,
    public_routines,
)
from market.models import AccountKind, Order, OrderStatus, Trade
from market.services import engine_calls
from market.services.orders import cancel_order, place_ask, place_bid
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants, balance

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("market", "0019_solution_limit")
ENGINE = ("market", "0020_engine_schema")
PLACE_ORDER_0020 = SQL_DIR.parents[1] / "migrations" / "sql" / "0021_place_order_before.sql"


def _migrate(*targets: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(list(targets or executor.loader.graph.leaf_nodes()))


def _namespaces() -> dict[str, str]:
    """Where each routine the services call lives, by its name: {"place_order": "engine"}."""
    with connection.cursor() as cursor:
        cursor.execute(
            r"""
            SELECT p.proname, n.nspname FROM pg_proc p
            JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE p.proname ~ '^(market_)?(place|cancel)_order(_durable)?$'
            """
        )
        return dict(cursor.fetchall())


@pytest.fixture
def at_0019(monkeypatch):
    """The database at 0019 and the services calling the engine by its names of then; the
    yielded function undoes the second (the services call ``engine.*`` again)."""
    _migrate(BEFORE)
    try:
        with monkeypatch.context() as old_names:
            for function, statements in engine_calls.ENGINE_SQL.items():
                old = tuple(sql.replace("engine.", "market_") for sql in statements)
                old_names.setitem(engine_calls.ENGINE_SQL, function, old)
            yield old_names.undo
    finally:
        _migrate()


def test_0020_moves_the_engine_of_a_market_with_orders_and_a_trade_and_it_trades_on(at_0019):
    assert _namespaces() == {
        "market_place_order": "public",
        "market_cancel_order": "public",
        "market_place_order_durable": "public",
        "market_cancel_order_durable": "public",
    }
    market = Market()
    seller, buyer, waiting, later = funded(), funded(), funded(), funded()
    solution = market.accepted(solver=seller)
    ask = place_ask(seller=seller, solution=solution, price=demo(300), quantity=2)
    filled = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    resting = place_bid(buyer=waiting, problem=market.problem, price=demo(200), quantity=1)
    before = (
        sorted(Order.objects.values_list("pk", "status", "remaining")),
        list(Trade.objects.values_list("pk", "bid_id", "ask_id", "price_minor")),
        [balance(user) for user in (seller, buyer, waiting)],
        balance(waiting, AccountKind.HELD),
    )
    assert before[0] == [
        (ask.pk, OrderStatus.OPEN, 1),
        (filled.pk, OrderStatus.FILLED, 0),
        (resting.pk, OrderStatus.OPEN, 1),
    ]
    assert before[3] == 200

    _migrate(ENGINE)
    at_0019()  # the services call engine.* again

    after = (
        sorted(Order.objects.values_list("pk", "status", "remaining")),
        list(Trade.objects.values_list("pk", "bid_id", "ask_id", "price_minor")),
        [balance(user) for user in (seller, buyer, waiting)],
        balance(waiting, AccountKind.HELD),
    )
    assert after == before
    assert _namespaces() == {
        "place_order": "engine",
        "cancel_order": "engine",
        "place_order_durable": "engine",
        "cancel_order_durable": "engine",
    }
    with connection.cursor() as cursor:
        assert public_routines(cursor) == []
        live = live_definitions(cursor)
    # The files as of 0020: today's, but place_order's, which 0021 changed (its frozen copy
    # of the text before).
    files = {**file_definitions(), "place_order": file_definition(PLACE_ORDER_0020.read_text())}
    assert sorted(live) == sorted(files)
    assert [name for name in live if live[name] != files[name]] == []
    assert_market_invariants()

    cancelled = cancel_order(user=waiting, order_id=resting.pk)
    bought = place_bid(buyer=later, problem=market.problem, price=demo(300), quantity=1)

    assert cancelled.status == OrderStatus.CANCELLED
    assert (balance(waiting), balance(waiting, AccountKind.HELD)) == (10_000, 0)
    assert bought.status == OrderStatus.FILLED
    assert Order.objects.get(pk=ask.pk).status == OrderStatus.FILLED
    trade = Trade.objects.get(bid=bought)
    assert (trade.ask_id, trade.price_minor, trade.seller_id) == (ask.pk, 300, seller.pk)
    assert balance(later) == 10_000 - 300
    assert Trade.objects.count() == 2
    assert_market_invariants()


def test_0020_backward_restores_the_public_routines_and_the_engine_of_0019_trades(at_0019):
    _migrate(ENGINE)
    _migrate(BEFORE)

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'engine'")
        assert cursor.fetchone() == (0,)
        assert len(public_routines(cursor)) == 16
    assert set(_namespaces().values()) == {"public"}
    market = Market()
    seller, buyer = funded(), funded()
    solution = market.accepted(solver=seller)
    ask = place_ask(seller=seller, solution=solution, price=demo(300), quantity=1)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    assert (bid.status, Order.objects.get(pk=ask.pk).status) == ("filled", "filled")
    assert balance(buyer) == 10_000 - 300
    assert_market_invariants()
