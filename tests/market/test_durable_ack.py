"""As deployed, a placement releases its book at COMMIT and is answered once it is durable.

Migration 0008: ``CALL market_place_order_durable(...)`` (and ``..._cancel_...``) commits the
placement with ``synchronous_commit = off`` for that transaction only, so the book's lock
is not held through the WAL flush, then writes one WAL record in a second transaction whose
synchronous COMMIT flushes the WAL past the placement's commit before the CALL returns.
These tests run the real procedures on the real server, in autocommit as deployed.
"""

from __future__ import annotations

import pytest
from django.db import connection

from market.exceptions import InsufficientFunds
from market.models import Order, OrderStatus, Trade
from market.money import Currency
from market.services.orders import _ENGINE_SQL, DEBT_CURRENCY, cancel_order, place_ask, place_bid
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants

pytestmark = pytest.mark.django_db(transaction=True)


def _server(sql: str, params: list[object] | None = None) -> tuple[object, ...]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _place_params(owner, problem, price_minor: int, side: str = "bid", solution=None) -> list:
    return [
        owner.pk,
        problem.pk,
        side,
        price_minor,
        str(Currency.DEMO),
        1,
        solution,
        None,
        False,
        500,
        "available",
        None,
        str(DEBT_CURRENCY),
    ]


def test_the_answer_comes_after_the_wal_is_flushed_past_the_placements_commit():
    market = Market()
    buyer = funded(10_000)
    assert connection.get_autocommit() and not connection.in_atomic_block
    (before,) = _server("SELECT pg_current_wal_insert_lsn()")
    row = _server(_ENGINE_SQL["market_place_order"][1], _place_params(buyer, market.problem, 300))
    order_id, durable_lsn = row[0], row[-1]
    # Read at once, on the same connection: nothing else has run in between.
    after_call, flushed_past, committed = _server(
        "SELECT %s::pg_lsn > %s::pg_lsn, pg_current_wal_flush_lsn() >= %s::pg_lsn, "
        "pg_xact_status(o.xmin::text::xid8) FROM market_order o WHERE o.id = %s",
        [durable_lsn, before, durable_lsn, order_id],
    )
    # The flush barrier was written after the call began (so after the placement's commit
    # record, which its transaction wrote first), and the WAL was on disk up to it when the
    # call returned.
    assert after_call and flushed_past, (before, durable_lsn)
    assert committed == "committed"
    assert Order.objects.get(pk=order_id).status == OrderStatus.OPEN
    assert_market_invariants()


def test_the_session_commits_synchronously_again_after_each_call():
    # synchronous_commit = off is local to the placement's transaction: the connection's next
    # write (a withdrawal, say) must not inherit it, whether the call succeeded or refused.
    market = Market()
    buyer, poor = funded(10_000), funded(10)
    (setting,) = _server("SHOW synchronous_commit")
    assert setting == "on"
    order = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    assert _server("SHOW synchronous_commit") == ("on",)
    cancel_order(user=buyer, order_id=order.pk)
    assert _server("SHOW synchronous_commit") == ("on",)
    with pytest.raises(InsufficientFunds):
        place_bid(buyer=poor, problem=market.problem, price=demo(300), quantity=1)
    assert _server("SHOW synchronous_commit") == ("on",)
    assert_market_invariants()


def test_a_trade_a_replay_and_a_cancel_through_the_procedures():
    market = Market()
    buyer = funded(10_000)
    seller = market.accepted(solver=funded(1))
    ask = place_ask(seller=seller.solver, solution=seller, price=demo(400), quantity=2)
    first = place_bid(
        buyer=buyer, problem=market.problem, price=demo(500), quantity=2, client_order_id="c-1"
    )
    # One copy bought at the ask's price; the second unit rests (one copy per buyer).
    assert (first.status, first.remaining) == (OrderStatus.OPEN, 1)
    assert Trade.objects.get(buyer=buyer).price_minor == 400
    again = place_bid(
        buyer=buyer, problem=market.problem, price=demo(500), quantity=2, client_order_id="c-1"
    )
    assert again.pk == first.pk and Trade.objects.filter(buyer=buyer).count() == 1
    cancelled = cancel_order(user=buyer, order_id=first.pk)
    assert cancelled.status == OrderStatus.CANCELLED and cancelled.remaining == 1
    assert Order.objects.get(pk=ask.pk).remaining == 1
    assert_market_invariants()


def test_the_procedures_cannot_run_inside_a_callers_transaction():
    # Why orders.py calls the plain function inside an atomic block: a procedure that
    # commits is refused there, and the refusal writes nothing.
    from django.db import transaction
    from django.db.utils import DatabaseError

    market = Market()
    buyer = funded(10_000)
    with pytest.raises(DatabaseError, match="invalid transaction termination"):
        with transaction.atomic():
            _server(_ENGINE_SQL["market_place_order"][1], _place_params(buyer, market.problem, 5))
    assert not Order.objects.filter(owner=buyer).exists()
    with transaction.atomic():
        order = place_bid(buyer=buyer, problem=market.problem, price=demo(5), quantity=1)
    assert Order.objects.get(pk=order.pk).status == OrderStatus.OPEN
    assert_market_invariants()
