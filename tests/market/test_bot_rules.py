"""The practice bot under one open bid per buyer and problem, self-trade prevention and the
solution limit.

Its refreshers may run at once (the beat task, a refresh after each fill): they must end with
exactly one open bot bid per demo problem, whichever of them placed it, and none may fail.
"""

from __future__ import annotations

import pytest

from market.models import Order, OrderSide, OrderStatus
from market.money import Currency, Money
from market.services.bot import (
    BID_PRICE_MINOR,
    fund_bot,
    get_or_create_bot,
    refresh_practice_bid,
)
from market.services.order_checks import SOLUTION_LIMIT
from market.services.orders import place_ask, place_bid
from tests.market.conftest import Market, funded
from tests.market.helpers import assert_market_invariants, snapshot
from tests.market.test_concurrency import run_threads


@pytest.mark.django_db(transaction=True)
def test_racing_refreshers_leave_one_open_bot_bid_and_buy_each_solution_once():
    market = Market(is_demo=True)
    solutions = [market.accepted() for _ in range(3)]
    for solution in solutions:
        price = Money(BID_PRICE_MINOR, Currency.DEMO)
        place_ask(seller=solution.solver, solution=solution, price=price, quantity=2)
    results: list[bool] = []

    def worker(index: int) -> None:
        results.append(refresh_practice_bid(problem_id=market.problem.pk))

    failures = run_threads(worker, 4)

    assert failures == [], "\n".join(failures)
    assert results == [True] * 4
    bot = get_or_create_bot()
    bids = Order.objects.filter(problem=market.problem, owner=bot, side=OrderSide.BID)
    assert bids.filter(status=OrderStatus.OPEN).count() == 1
    # It bought each of the three solutions once, then rested one bid.
    assert bids.filter(status=OrderStatus.FILLED).count() == 3
    assert_market_invariants()


@pytest.mark.django_db
def test_the_bot_stops_bidding_on_a_problem_once_it_holds_the_solution_limit():
    """It holds 100 solutions of the problem and one more is for sale at its price: it places
    nothing (no refusal, nothing written) rather than be refused."""
    market = Market(is_demo=True)
    seller = funded()
    price = Money(BID_PRICE_MINOR, Currency.DEMO)
    for _ in range(SOLUTION_LIMIT + 1):
        place_ask(seller=seller, solution=market.accepted(solver=seller), price=price, quantity=2)
    bot = get_or_create_bot()
    fund_bot(bot=bot)
    bought = place_bid(buyer=bot, problem=market.problem, price=price, quantity=SOLUTION_LIMIT)
    assert bought.status == OrderStatus.FILLED
    before = snapshot()

    assert refresh_practice_bid(problem_id=market.problem.pk) is False

    assert snapshot() == before
    assert not Order.objects.filter(owner=bot, status=OrderStatus.OPEN).exists()
    assert_market_invariants()
