"""The engine's SQL re-checks its arguments whatever the caller checked (issue 29, §4).

``engine.place_order`` is called here directly (inside the test's transaction, as
``orders.py`` calls it in a caller's atomic block), bypassing the Python validation: the
order's own fields out of the engine's bounds are the user's ``market:invalid-order``
(SQLSTATE FM012), the policy passed from the settings out of its bounds is the platform's
``market:engine-misconfigured`` (FM013, a 503). Either way nothing is written, not even the
bump of the book's sequence.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from market.engine_refusals import EngineMisconfigured
from market.exceptions import InvalidOrder, SalesLimit
from market.models import LedgerTransaction, Order
from market.money import Currency
from market.services.engine_calls import call_engine
from market.services.orders import DEBT_CURRENCY
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants

pytestmark = pytest.mark.django_db

GOOD = {
    "side": "bid",
    "price": 300,
    "quantity": 1,
    "fee_bps": 500,
    "proceeds_kind": "available",
    "hold_window": None,
    "usd_allowed": False,
}


def _place(owner, problem, **changes: object):
    args = {**GOOD, **changes}
    params = [
        owner.pk,
        problem.pk,
        args["side"],
        args["price"],
        str(Currency.DEMO),
        args["quantity"],
        args.get("solution"),
        None,
        args["usd_allowed"],
        args["fee_bps"],
        args["proceeds_kind"],
        args["hold_window"],
        str(DEBT_CURRENCY),
    ]
    return call_engine("engine.place_order", params, price=demo(300))


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [
        ({"side": "buy"}, "side", "must be bid or ask"),
        ({"quantity": 0}, "quantity", "must be from 1 to 10000"),
        ({"quantity": 10_001}, "quantity", "must be from 1 to 10000"),
        ({"price": 0}, "price_minor", "must be from 1 to 1000000000000"),
        ({"price": -5}, "price_minor", "must be from 1 to 1000000000000"),
        ({"price": 10**12 + 1}, "price_minor", "must be from 1 to 1000000000000"),
    ],
)
def test_an_order_out_of_the_engines_bounds_is_the_users_invalid_order(changes, field, reason):
    market = Market()
    buyer = funded(10**15)
    market.problem.refresh_from_db()
    sequence, orders, transactions = (
        market.problem.book_sequence,
        Order.objects.count(),
        LedgerTransaction.objects.count(),
    )
    with pytest.raises(InvalidOrder) as refused:
        _place(buyer, market.problem, **changes)
    assert refused.value.fields == {field: [reason]}
    market.problem.refresh_from_db()
    assert market.problem.book_sequence == sequence
    assert (Order.objects.count(), LedgerTransaction.objects.count()) == (orders, transactions)
    assert_market_invariants()


@pytest.mark.parametrize(
    ("changes", "setting"),
    [
        ({"fee_bps": -1}, "MARKET_FEE_BPS"),
        ({"fee_bps": 10_001}, "MARKET_FEE_BPS"),
        ({"proceeds_kind": "held"}, "proceeds account kind"),
        ({"proceeds_kind": "fees"}, "proceeds account kind"),
        ({"hold_window": timedelta(seconds=-1)}, "PROCEEDS_HOLD_WINDOW_S"),
        ({"hold_window": timedelta(days=367)}, "PROCEEDS_HOLD_WINDOW_S"),
        ({"usd_allowed": None}, "USD switch"),
    ],
)
def test_a_policy_out_of_the_engines_bounds_is_a_platform_error(changes, setting):
    market = Market()
    buyer = funded(10_000)
    with pytest.raises(EngineMisconfigured) as refused:
        _place(buyer, market.problem, **changes)
    assert refused.value.http_status == 503 and setting in refused.value.message
    assert not Order.objects.filter(owner=buyer).exists()


@pytest.mark.parametrize(
    "changes",
    [
        {"quantity": 100},  # a bid's quantity is bounded by the solution limit too (FM017)
        {"fee_bps": 0},
        {"fee_bps": 10_000},
        {"hold_window": timedelta(0)},
        {"hold_window": timedelta(days=366)},
        {"proceeds_kind": "pending"},
    ],
)
def test_the_bounds_themselves_are_allowed(changes):
    market = Market()
    buyer = funded(10_000 * 300)
    row = _place(buyer, market.problem, **changes)
    order = Order.objects.get(pk=row[0])
    assert (order.owner_id, order.remaining) == (buyer.pk, changes.get("quantity", 1))
    assert_market_invariants()


def test_an_asks_copies_are_bounded_by_the_sales_limit_in_the_engine_too():
    """An ask for 100 copies of a solution never sold is placed; for 101, or the engine's own
    bound of 10 000, it is refused by the engine (FM018) with nothing written."""
    market = Market()
    seller = funded()
    solution = market.accepted(solver=seller)
    for quantity in (101, 10_000):
        with pytest.raises(SalesLimit) as refused:
            _place(seller, market.problem, side="ask", quantity=quantity, solution=solution.pk)
        assert refused.value.fields == {"quantity": ["must be at most 100"]}
    assert not Order.objects.filter(owner=seller).exists()
    row = _place(seller, market.problem, side="ask", quantity=100, solution=solution.pk)
    order = Order.objects.get(pk=row[0])
    assert (order.side, order.remaining, order.solution_id) == ("ask", 100, solution.pk)
