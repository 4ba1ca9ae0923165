"""Migration 0017's data step: a buyer with several open bids on one problem keeps the oldest.

Before 0017 a buyer could rest several bids on one problem. The migration cancels all but the
oldest of each buyer's open bids on a problem through the engine's own ``market_cancel_order``
(``engine.cancel_order`` since 0020; bids hold money: each cancel releases exactly that bid's
remaining hold, with balanced postings, and bumps the book's sequence), before the partial
unique index is created. Here the index is dropped inside the test's transaction (rolled back
with it) to write such a book again, each extra bid with the hold a pre-0017 engine would have
taken.
"""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from market.models import AccountKind, LedgerTransaction, Order, OrderStatus, Problem
from market.money import Currency
from market.services.ledger import get_user_accounts, transfer
from market.services.orders import place_ask, place_bid
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants, balance

pytestmark = pytest.mark.django_db

migration = importlib.import_module("market.migrations.0017_self_trade_and_one_bid")


def _bid(buyer, problem, price: int, quantity: int) -> Order:
    """An open bid written as a pre-0017 engine would have rested it, with its hold."""
    accounts = get_user_accounts(
        keys=[(buyer.pk, AccountKind.AVAILABLE), (buyer.pk, AccountKind.HELD)],
        currency=Currency.DEMO,
    )
    hold = price * quantity
    transfer(
        kind=LedgerTransaction.Kind.BID_HOLD,
        currency=Currency.DEMO,
        legs=[
            (accounts[(buyer.pk, AccountKind.AVAILABLE)], -hold),
            (accounts[(buyer.pk, AccountKind.HELD)], hold),
        ],
    )
    return Order.objects.create(
        problem=problem,
        owner=buyer,
        side="bid",
        price_minor=price,
        currency="DEMO",
        quantity=quantity,
        remaining=quantity,
    )


def _cancel_extra_bids() -> None:
    # The step ran before migration 0020 moved the engine's cancel to engine.cancel_order;
    # on today's schema it calls the cancel by today's name (the same routine, moved).
    step = migration.CANCEL_EXTRA_BIDS
    assert step.count("market_cancel_order(") == 1
    with connection.cursor() as cursor:
        cursor.execute(step.replace("market_cancel_order(", "engine.cancel_order("))


def test_the_oldest_open_bid_of_each_buyer_and_problem_stays_and_the_others_are_released(
    market,
):
    buyer, alone = funded(10_000), funded(10_000)
    elsewhere = Market().problem
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX order_one_open_bid_per_buyer")
    oldest = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=2)
    higher, later = _bid(buyer, market.problem, 300, 1), _bid(buyer, market.problem, 50, 3)
    other_book = place_bid(buyer=buyer, problem=elsewhere, price=demo(40), quantity=1)
    only = place_bid(buyer=alone, problem=market.problem, price=demo(70), quantity=1)
    sequence = Problem.objects.get(pk=market.problem.pk).book_sequence
    assert balance(buyer, AccountKind.HELD) == 200 + 300 + 150 + 40
    releases = LedgerTransaction.objects.filter(kind="bid_release").count()

    _cancel_extra_bids()

    status = dict(Order.objects.values_list("pk", "status"))
    assert status[oldest.pk] == status[other_book.pk] == status[only.pk] == OrderStatus.OPEN
    assert status[higher.pk] == status[later.pk] == OrderStatus.CANCELLED
    assert Order.objects.get(pk=later.pk).closed_at is not None
    # Each cancelled bid released exactly its hold, through one balanced transaction each.
    assert (balance(buyer), balance(buyer, AccountKind.HELD)) == (10_000 - 240, 240)
    assert LedgerTransaction.objects.filter(kind="bid_release").count() == releases + 2
    assert Problem.objects.get(pk=market.problem.pk).book_sequence == sequence + 2
    assert_market_invariants()
    # The book that is left trades as usual: the oldest bid is the buyer's one bid.
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(60), quantity=2)
    assert Order.objects.get(pk=oldest.pk).remaining == 1
    assert Order.objects.get(pk=only.pk).status == OrderStatus.FILLED
    assert_market_invariants()


def test_a_book_with_one_bid_per_buyer_is_left_as_it_is(market):
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    sequence = Problem.objects.get(pk=market.problem.pk).book_sequence
    _cancel_extra_bids()
    assert Order.objects.get(pk=bid.pk).status == OrderStatus.OPEN
    assert Problem.objects.get(pk=market.problem.pk).book_sequence == sequence
    assert balance(buyer, AccountKind.HELD) == 100
