"""At most 100 solutions of one problem per buyer (market migration 0019; docs/market.md).

A bid is refused when the solutions of the problem its buyer already holds (bought: one trade
each) plus its quantity exceed SOLUTION_LIMIT: ``market:solution-limit`` (409), with how many
more a bid may buy, and nothing changes. Both engines (``engine`` fixture). The migration's
data step cancels, through the engine's own cancel, every open bid that already breaks
held + remaining <= 100.
"""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from market.exceptions import BidAlreadyOpen, SolutionLimit
from market.models import AccountKind, LedgerTransaction, Order, OrderStatus, Problem, Trade
from market.services.order_checks import SOLUTION_LIMIT
from market.services.orders import place_ask, place_bid
from tests.api.conftest import assert_error, client_for
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants, balance, snapshot
from tests.market.test_one_open_bid_migration import _bid as rest_bid_as_before

pytestmark = pytest.mark.django_db

migration = importlib.import_module("market.migrations.0019_solution_limit")


def _asks(market: Market, count: int, *, price: int = 100) -> list[Order]:
    """``count`` open asks of one seller, one solution each, two copies each."""
    seller = funded()
    return [
        place_ask(
            seller=seller, solution=market.accepted(solver=seller), price=demo(price), quantity=2
        )
        for _ in range(count)
    ]


def _holder(market: Market, held: int):
    """A buyer who bought one copy each of ``held`` solutions of the problem."""
    _asks(market, held)
    buyer = funded(1_000_000)
    if held:
        bought = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=held)
        assert bought.status == OrderStatus.FILLED
    return buyer


def _refused(call) -> SolutionLimit:
    before = snapshot()
    with pytest.raises(SolutionLimit) as refused:
        call()
    assert snapshot() == before
    return refused.value


def test_the_limit_is_one_hundred():
    assert SOLUTION_LIMIT == 100  # the engine's SQL says 100 too (its DETAIL is checked below)


def test_a_bid_up_to_the_limit_is_placed_and_one_past_it_is_refused(market, engine):
    buyer = _holder(market, 97)
    bid = lambda quantity: place_bid(  # noqa: E731
        buyer=buyer, problem=market.problem, price=demo(300), quantity=quantity
    )

    error = _refused(lambda: bid(4))  # 97 + 4 = 101

    assert (error.code, error.http_status) == ("market:solution-limit", 409)
    assert error.message == (
        "You hold 97 solutions of this problem; a bid may buy at most 3 more "
        "(limit 100 per buyer and problem)."
    )
    assert error.fields == {"quantity": ["must be at most 3"]}
    placed = bid(3)  # 97 + 3 = 100: the 97 asks it owns are passed over, nothing else crosses
    assert (placed.status, placed.remaining) == (OrderStatus.OPEN, 3)
    with pytest.raises(BidAlreadyOpen):  # one open bid: the limit is counted with it
        bid(1)
    _asks(market, 3)
    placed.refresh_from_db()
    assert placed.status == OrderStatus.FILLED
    assert Trade.objects.filter(buyer=buyer, problem=market.problem).count() == 100
    error = _refused(lambda: bid(1))
    assert error.message == (
        "You hold 100 solutions of this problem, and a buyer may hold at most 100 solutions "
        "of one problem: a bid on it cannot buy any more."
    )
    assert error.fields == {"problem": ["you hold the limit of 100 solutions of this problem"]}
    assert_market_invariants()


def test_a_bid_for_more_than_the_limit_is_refused_before_its_funds_are_checked(market, engine):
    poor = funded(1)
    error = _refused(
        lambda: place_bid(buyer=poor, problem=market.problem, price=demo(100), quantity=101)
    )
    assert error.message == (
        "A bid may buy at most 100 solutions of one problem (limit 100 per buyer and problem)."
    )
    assert error.fields == {"quantity": ["must be at most 100"]}
    rich = funded(10_000)
    assert place_bid(buyer=rich, problem=market.problem, price=demo(100), quantity=100).is_open


def test_only_bought_solutions_of_this_problem_count(market, engine):
    """The buyer's own accepted solutions are no holdings (self-trade prevention keeps the
    walk off their asks), and another problem's purchases are another book's."""
    solver = funded(100_000)
    for _ in range(3):
        market.accepted(solver=solver)
    other = Market()
    _asks(other, 5)
    place_bid(buyer=solver, problem=other.problem, price=demo(100), quantity=5)
    assert Trade.objects.filter(buyer=solver).count() == 5
    bid = place_bid(buyer=solver, problem=market.problem, price=demo(100), quantity=100)
    assert (bid.status, bid.remaining) == (OrderStatus.OPEN, 100)


def test_the_refusal_is_409_with_its_code_over_the_api(market):
    buyer = funded(10_000)
    response = client_for(buyer).post(
        "/api/v1/orders/",
        {
            "side": "bid",
            "problem": market.problem.pk,
            "price_minor": 10,
            "currency": "DEMO",
            "quantity": 101,
        },
        "json",
    )
    error = assert_error(response, 409, "market:solution-limit")
    assert "A bid may buy at most 100 solutions of one problem (limit 100" in error["message"]
    assert error["fields"] == {"quantity": ["must be at most 100"]}


# --- migration 0019's data step ---------------------------------------------------------------


def _cancel_over_limit_bids() -> None:
    # The step ran before migration 0020 moved the engine's cancel to engine.cancel_order;
    # on today's schema it calls the cancel by today's name (the same routine, moved).
    step = migration.CANCEL_OVER_LIMIT_BIDS
    assert step.count("market_cancel_order(") == 1
    with connection.cursor() as cursor:
        cursor.execute(step.replace("market_cancel_order(", "engine.cancel_order("))


def test_the_migration_cancels_the_bids_past_the_limit_and_releases_their_holds(market):
    """Bids written as the engine before 0019 rested them: held + remaining 101 is cancelled
    (its hold released through one balanced transaction each), 100 stays."""
    over, at = _holder(market, 3), _holder(market, 3)
    fresh = funded(100_000)
    over_bid = rest_bid_as_before(over, market.problem, 50, 98)  # 3 + 98
    at_bid = rest_bid_as_before(at, market.problem, 50, 97)  # 3 + 97
    fresh_bid = rest_bid_as_before(fresh, market.problem, 10, 101)  # 0 + 101
    held = {u.pk: balance(u, AccountKind.HELD) for u in (over, at, fresh)}
    available = {u.pk: balance(u) for u in (over, at, fresh)}
    assert held == {over.pk: 4_900, at.pk: 4_850, fresh.pk: 1_010}
    releases = LedgerTransaction.objects.filter(kind="bid_release").count()
    sequence = Problem.objects.get(pk=market.problem.pk).book_sequence

    _cancel_over_limit_bids()

    status = dict(Order.objects.values_list("pk", "status"))
    assert status[over_bid.pk] == status[fresh_bid.pk] == OrderStatus.CANCELLED
    assert status[at_bid.pk] == OrderStatus.OPEN
    for user, released in ((over, 4_900), (fresh, 1_010), (at, 0)):
        assert balance(user, AccountKind.HELD) == held[user.pk] - released
        assert balance(user) == available[user.pk] + released
    assert LedgerTransaction.objects.filter(kind="bid_release").count() == releases + 2
    assert Problem.objects.get(pk=market.problem.pk).book_sequence == sequence + 2
    assert_market_invariants()
    _cancel_over_limit_bids()  # nothing left to cancel
    assert LedgerTransaction.objects.filter(kind="bid_release").count() == releases + 2
