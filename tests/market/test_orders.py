"""The matching engine's rules, one by one, with exact balances and postings.

Fee: 500 bps (pinned by tests/market/conftest.py), rounded down, paid by the seller.
Every refusal is followed by an assertion that nothing changed (helpers.snapshot).
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from market.exceptions import (
    AskAlreadyOpen,
    BidAlreadyOpen,
    ClientOrderIdReused,
    CurrencyMismatch,
    DomainError,
    InsufficientFunds,
    InvalidOrder,
    NotFound,
    NotTradable,
    OrderNotOpen,
    SelfTrade,
    SolutionNotAccepted,
)
from market.models import (
    Account,
    AccountKind,
    Entitlement,
    LedgerTransaction,
    Order,
    OrderStatus,
    Posting,
    Problem,
    ProblemStatus,
    Trade,
)
from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from market.services.orders import cancel_order, fee_for, place_ask, place_bid
from tests.factories import ProblemFactory, UserFactory
from tests.market.conftest import Market, demo, funded, legs
from tests.market.helpers import assert_market_invariants, balance, snapshot

pytestmark = pytest.mark.django_db

AVAILABLE, HELD, FEES = AccountKind.AVAILABLE, AccountKind.HELD, AccountKind.FEES


def refused(error: type[DomainError], code: str, call, *args, **kwargs) -> DomainError:
    """Call and expect a typed refusal that changes nothing at all."""
    before = snapshot()
    with pytest.raises(error) as exc:
        call(*args, **kwargs)
    assert exc.value.code == code
    assert snapshot() == before
    return exc.value


def sequence(problem) -> int:
    return Problem.objects.get(pk=problem.pk).book_sequence


# --- bids and holds --------------------------------------------------------------------------


def test_place_bid_holds_price_times_quantity(problem):
    buyer = funded(10_000)
    order = place_bid(buyer=buyer, problem=problem, price=demo(1_500), quantity=3)
    assert (order.side, order.status, order.quantity, order.remaining) == ("bid", "open", 3, 3)
    assert (order.price_minor, order.currency, order.solution_id) == (1_500, "DEMO", None)
    assert balance(buyer) == 5_500
    assert balance(buyer, HELD) == 4_500
    hold = LedgerTransaction.objects.get(kind="bid_hold")
    assert legs(hold) == {(buyer.pk, AVAILABLE, -4_500), (buyer.pk, HELD, 4_500)}
    assert sequence(problem) == 1
    assert_market_invariants()


def test_place_bid_may_hold_all_available_funds(problem):
    buyer = funded(1_000)
    place_bid(buyer=buyer, problem=problem, price=demo(500), quantity=2)
    assert (balance(buyer), balance(buyer, HELD)) == (0, 1_000)


def test_place_bid_refuses_insufficient_funds_and_changes_nothing(problem):
    buyer = funded(1_000)
    error = refused(
        InsufficientFunds,
        "market:insufficient-funds",
        place_bid,
        buyer=buyer,
        problem=problem,
        price=demo(501),
        quantity=2,
    )
    assert error.http_status == 402 and "price_minor" in error.fields


def test_a_bid_needs_price_times_quantity_even_when_it_would_fill_for_less(market, engine):
    """The fills are paid at the asks' lower prices, but the rule is the bid's own: price x
    quantity available (here 1 200 of 1 000), on both engines."""
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(300), quantity=1)
    buyer = funded(1_000)
    error = refused(
        InsufficientFunds,
        "market:insufficient-funds",
        place_bid,
        buyer=buyer,
        problem=market.problem,
        price=demo(600),
        quantity=2,
    )
    assert str(error) == "This bid needs 12.00 DEMO; you have 10.00 DEMO available."


def test_both_engines_write_one_ledger_shape_for_a_bid_that_fills_in_part(market, engine):
    """Filled at once: paid from available at the maker's price. Resting: held at the bid's."""
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(300), quantity=1)
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(500), quantity=3)
    assert (bid.status, bid.remaining) == (OrderStatus.OPEN, 2)
    trade = Trade.objects.get()
    assert legs(trade.ledger_transaction) == {
        (buyer.pk, AVAILABLE, -300),
        (solution.solver_id, AVAILABLE, 285),
        (None, FEES, 15),
    }
    assert legs(LedgerTransaction.objects.get(kind="bid_hold")) == {
        (buyer.pk, AVAILABLE, -1_000),
        (buyer.pk, HELD, 1_000),
    }
    assert (balance(buyer), balance(buyer, HELD)) == (10_000 - 300 - 1_000, 1_000)
    assert_market_invariants()


def test_a_user_without_any_account_is_refused_and_no_account_is_created(problem):
    buyer = UserFactory()
    refused(
        InsufficientFunds,
        "market:insufficient-funds",
        place_bid,
        buyer=buyer,
        problem=problem,
        price=demo(1),
        quantity=1,
    )


@pytest.mark.parametrize(
    ("price_minor", "quantity", "field"),
    [
        (0, 1, "price_minor"),
        (-5, 1, "price_minor"),
        (100_000_001, 1, "price_minor"),
        (100, 0, "quantity"),
        (100, -1, "quantity"),
        (100, 1_001, "quantity"),
        (100, True, "quantity"),
        (100, 1.0, "quantity"),
    ],
)
def test_place_bid_refuses_invalid_price_or_quantity(problem, price_minor, quantity, field):
    buyer = funded(10**12)
    error = refused(
        InvalidOrder,
        "market:invalid-order",
        place_bid,
        buyer=buyer,
        problem=problem,
        price=demo(price_minor),
        quantity=quantity,
    )
    assert list(error.fields) == [field]


def test_the_price_limit_is_stated_in_the_currencys_units_not_minor_units(problem):
    error = refused(
        InvalidOrder,
        "market:invalid-order",
        place_bid,
        buyer=funded(10**12),
        problem=problem,
        price=demo(100_000_001),
        quantity=1,
    )
    assert error.fields == {"price_minor": ["at most 1,000,000.00 DEMO per copy"]}


def test_place_bid_refuses_another_currency(problem):
    buyer = funded(10_000)
    error = refused(
        CurrencyMismatch,
        "market:currency-mismatch",
        place_bid,
        buyer=buyer,
        problem=problem,
        price=Money(100, Currency.USD),
        quantity=1,
    )
    assert error.fields == {"currency": ["must be DEMO"]}


@pytest.mark.parametrize("status", [ProblemStatus.DRAFT, ProblemStatus.RETIRED])
def test_an_unpublished_problem_cannot_be_traded(status):
    market = Market(status=status)
    buyer = funded()
    refused(
        NotTradable,
        "market:not-tradable",
        place_bid,
        buyer=buyer,
        problem=market.problem,
        price=demo(100),
        quantity=1,
    )
    # An ask is refused the same way (the solution is ACCEPTED, the problem is not open).
    solution = market.accepted()
    refused(
        NotTradable,
        "market:not-tradable",
        place_ask,
        seller=solution.solver,
        solution=solution,
        price=demo(100),
        quantity=1,
    )


def test_a_missing_problem_is_not_found():
    buyer = funded()
    refused(
        NotFound,
        "not-found",
        place_bid,
        buyer=buyer,
        problem=Problem(pk=987_654),
        price=demo(100),
        quantity=1,
    )


# --- asks -----------------------------------------------------------------------------------


def test_an_ask_on_an_accepted_solution_rests_and_moves_no_money(market):
    solution = market.accepted()
    before = snapshot()
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(700), quantity=4)
    assert (ask.side, ask.status, ask.remaining, ask.solution_id) == ("ask", "open", 4, solution.pk)
    assert snapshot()[:3] == before[:3]  # accounts and ledger untouched
    assert sequence(market.problem) == 1


@pytest.mark.parametrize("status", ["pending", "running", "rejected"])
def test_place_ask_refuses_a_solution_that_is_not_accepted(market, status):
    solution = market.solution(status)
    refused(
        SolutionNotAccepted,
        "market:solution-not-accepted",
        place_ask,
        seller=solution.solver,
        solution=solution,
        price=demo(100),
        quantity=1,
    )


def test_place_ask_refuses_someone_elses_solution(market):
    solution = market.accepted()
    thief = funded()
    refused(
        NotFound,
        "not-found",
        place_ask,
        seller=thief,
        solution=solution,
        price=demo(100),
        quantity=1,
    )


@pytest.mark.parametrize(
    "change",
    ["pending solution", "not the solver", "another problem's solution"],
)
def test_the_database_refuses_an_ask_the_service_would_refuse(market, change):
    solution = market.accepted() if change != "pending solution" else market.solution("pending")
    owner = solution.solver if change != "not the solver" else UserFactory()
    problem = market.problem if change != "another problem's solution" else ProblemFactory()
    with pytest.raises(IntegrityError, match="ACCEPTED solution"), transaction.atomic():
        Order.objects.create(
            problem=problem,
            owner=owner,
            side="ask",
            price_minor=1,
            currency="DEMO",
            quantity=1,
            remaining=1,
            solution=solution,
        )
    assert Order.objects.count() == 0


# --- matching: maker price, fees, improvement -------------------------------------------------


def test_a_taker_ask_trades_at_the_resting_bid_price_less_the_fee(market):
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(2_000), quantity=1)
    solution = market.accepted()
    seller = solution.solver
    ask = place_ask(seller=seller, solution=solution, price=demo(1_000), quantity=5)

    trade = Trade.objects.get()
    assert (trade.bid_id, trade.ask_id, trade.buyer_id, trade.seller_id) == (
        bid.pk,
        ask.pk,
        buyer.pk,
        seller.pk,
    )
    assert (trade.price_minor, trade.fee_minor, trade.maker_side) == (2_000, 100, "bid")
    assert legs(trade.ledger_transaction) == {
        (buyer.pk, HELD, -2_000),
        (seller.pk, AVAILABLE, 1_900),
        (None, FEES, 100),
    }
    assert balance(seller) == 1_900
    assert (balance(buyer), balance(buyer, HELD)) == (8_000, 0)
    bid.refresh_from_db()
    assert (bid.status, bid.remaining) == (OrderStatus.FILLED, 0) and bid.closed_at is not None
    assert (ask.status, ask.remaining) == (OrderStatus.OPEN, 4)
    entitlement = Entitlement.objects.get()
    assert (entitlement.user_id, entitlement.solution_id, entitlement.trade_id) == (
        buyer.pk,
        solution.pk,
        trade.pk,
    )
    assert sequence(market.problem) == 2
    assert_market_invariants()


def test_a_taker_bid_keeps_the_price_improvement(market):
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(700), quantity=1)
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(1_000), quantity=2)

    trade = Trade.objects.get()
    assert (trade.price_minor, trade.fee_minor, trade.maker_side) == (700, 35, "ask")
    # The copy that fills at once is paid from available at the maker's 700 (no hold of
    # 1 000 to release, no improvement to give back); the copy still wanted is held.
    assert legs(trade.ledger_transaction) == {
        (buyer.pk, AVAILABLE, -700),
        (solution.solver_id, AVAILABLE, 665),
        (None, FEES, 35),
    }
    hold = LedgerTransaction.objects.get(kind="bid_hold")
    assert legs(hold) == {(buyer.pk, AVAILABLE, -1_000), (buyer.pk, HELD, 1_000)}
    assert balance(buyer) == 10_000 - 700 - 1_000
    assert balance(buyer, HELD) == 1_000  # the copy still wanted
    assert (bid.status, bid.remaining) == (OrderStatus.OPEN, 1)
    assert_market_invariants()


def test_a_taker_bid_that_fills_releases_its_whole_hold(market):
    s1, s2 = market.accepted(), market.accepted()
    place_ask(seller=s1.solver, solution=s1, price=demo(300), quantity=1)
    place_ask(seller=s2.solver, solution=s2, price=demo(450), quantity=1)
    buyer = funded(2_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(500), quantity=2)
    assert (bid.status, bid.remaining) == (OrderStatus.FILLED, 0)
    assert (balance(buyer), balance(buyer, HELD)) == (2_000 - 300 - 450, 0)
    assert sorted(Trade.objects.values_list("price_minor", "fee_minor")) == [(300, 15), (450, 22)]
    # Filled at once: nothing was held, and each trade took its price from available.
    assert not LedgerTransaction.objects.filter(kind="bid_hold").exists()
    assert sorted(
        Posting.objects.filter(account__owner=buyer, transaction__kind="trade").values_list(
            "account__kind", "amount_minor"
        )
    ) == [(AVAILABLE, -450), (AVAILABLE, -300)]
    assert_market_invariants()


def test_a_taker_ask_sweeps_bids_each_at_its_own_price(market):
    b1, b2, b3 = funded(), funded(), funded()
    o1 = place_bid(buyer=b1, problem=market.problem, price=demo(900), quantity=1)
    o2 = place_bid(buyer=b2, problem=market.problem, price=demo(800), quantity=1)
    place_bid(buyer=b3, problem=market.problem, price=demo(400), quantity=1)
    solution = market.accepted()
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(500), quantity=3)
    assert sorted(Trade.objects.values_list("bid_id", "price_minor")) == [
        (o1.pk, 900),
        (o2.pk, 800),
    ]
    assert (ask.status, ask.remaining) == (OrderStatus.OPEN, 1)
    assert balance(solution.solver) == (900 - 45) + (800 - 40)
    assert_market_invariants()


@pytest.mark.parametrize(("price", "fee"), [(1, 0), (19, 0), (20, 1), (199, 9), (10_000, 500)])
def test_the_fee_is_rounded_down_and_goes_to_the_platform(market, price, fee):
    assert fee_for(price) == fee
    buyer = funded(10_000)
    place_bid(buyer=buyer, problem=market.problem, price=demo(price), quantity=1)
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(price), quantity=1)
    trade = Trade.objects.get()
    assert (trade.price_minor, trade.fee_minor) == (price, fee)
    assert balance(solution.solver) == price - fee
    expected = {(buyer.pk, HELD, -price), (solution.solver_id, AVAILABLE, price - fee)}
    if fee:
        expected.add((None, FEES, fee))
    assert legs(trade.ledger_transaction) == expected
    # The fee account is a system account: never updated (no hot row), its postings are its
    # balance.
    fees = Account.objects.get(owner=None, currency="DEMO", kind=FEES)
    assert fees.balance_minor == 0
    assert list(fees.postings.values_list("amount_minor", flat=True)) == ([fee] if fee else [])
    assert_market_invariants()


def test_usd_proceeds_wait_in_pending_for_the_hold_window(settings):
    """USD sale proceeds go to the seller's PENDING account (market.payments owns the window)."""
    from market.payments.models import ProceedsHold
    from market.services.ledger import get_system_account, get_user_account, transfer

    settings.PROCEEDS_HOLD_WINDOW_S = 3600
    settings.STRIPE_SECRET_KEY = "sk_test_formalmarket_fake"  # USD trades only with Stripe on
    market = Market(currency=Currency.USD)
    buyer = UserFactory()
    clearing = get_system_account(currency=Currency.USD, kind=AccountKind.STRIPE_CLEARING)
    wallet = get_user_account(user_id=buyer.pk, currency=Currency.USD, kind=AVAILABLE)
    transfer(kind="deposit", currency=Currency.USD, legs=[(clearing, -5_000), (wallet, 5_000)])
    place_bid(buyer=buyer, problem=market.problem, price=Money(2_000, Currency.USD), quantity=1)
    solution = market.accepted()
    place_ask(
        seller=solution.solver, solution=solution, price=Money(1_500, Currency.USD), quantity=1
    )
    trade = Trade.objects.get()
    assert (trade.price_minor, trade.fee_minor, trade.currency) == (2_000, 100, "USD")
    assert legs(trade.ledger_transaction) == {
        (buyer.pk, HELD, -2_000),
        (solution.solver_id, AccountKind.PENDING, 1_900),
        (None, FEES, 100),
    }
    assert balance(solution.solver, currency="USD") == 0
    assert balance(solution.solver, AccountKind.PENDING, currency="USD") == 1_900
    hold = ProceedsHold.objects.get()
    assert (hold.trade_id, hold.amount_minor) == (trade.pk, 1_900)
    assert_market_invariants()


def test_no_trade_when_prices_do_not_cross(market):
    buyer = funded()
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(499), quantity=1)
    solution = market.accepted()
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(500), quantity=1)
    assert Trade.objects.count() == 0
    assert (bid.status, ask.status) == ("open", "open")
    assert_market_invariants()


# --- priority and partial fills ---------------------------------------------------------------


def test_price_time_priority_among_bids(market):
    first, second, better = funded(), funded(), funded()
    b1 = place_bid(buyer=first, problem=market.problem, price=demo(500), quantity=1)
    b2 = place_bid(buyer=second, problem=market.problem, price=demo(500), quantity=1)
    b3 = place_bid(buyer=better, problem=market.problem, price=demo(600), quantity=1)
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(500), quantity=2)
    assert list(Trade.objects.order_by("id").values_list("bid_id", "price_minor")) == [
        (b3.pk, 600),
        (b1.pk, 500),
    ]
    b2.refresh_from_db()
    assert (b2.status, b2.remaining) == ("open", 1)
    assert_market_invariants()


def test_price_time_priority_among_asks(market):
    s1, s2, s3 = market.accepted(), market.accepted(), market.accepted()
    a1 = place_ask(seller=s1.solver, solution=s1, price=demo(300), quantity=1)
    a2 = place_ask(seller=s2.solver, solution=s2, price=demo(300), quantity=1)
    a3 = place_ask(seller=s3.solver, solution=s3, price=demo(200), quantity=1)
    buyer = funded()
    place_bid(buyer=buyer, problem=market.problem, price=demo(400), quantity=2)
    assert list(Trade.objects.order_by("id").values_list("ask_id", "price_minor")) == [
        (a3.pk, 200),
        (a1.pk, 300),
    ]
    a2.refresh_from_db()
    assert (a2.status, a2.remaining) == ("open", 1)
    assert_market_invariants()


def test_an_ask_fills_partially_and_keeps_its_place(market):
    solution = market.accepted()
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=3)
    buyers = [funded() for _ in range(4)]
    for buyer in buyers:
        place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    ask.refresh_from_db()
    assert (ask.status, ask.remaining) == ("filled", 0)
    assert sorted(Trade.objects.values_list("buyer_id", flat=True)) == [b.pk for b in buyers[:3]]
    last = Order.objects.get(owner=buyers[3])
    assert (last.status, last.remaining) == ("open", 1)
    assert_market_invariants()


# --- self-trade and one copy per buyer ------------------------------------------------------


def test_a_bid_that_would_cross_its_owners_own_ask_is_refused_and_names_it(market):
    """Self-trade prevention: refused before the walk, even with another seller's ask to
    take; nothing changes. Below its own ask the bid rests; cancelled, the ask is no bar."""
    mine = market.accepted()
    me = mine.solver
    grant_demo_credits(user=me, amount_minor=5_000)
    own_ask = place_ask(seller=me, solution=mine, price=demo(100), quantity=1)
    other = market.accepted()
    other_ask = place_ask(seller=other.solver, solution=other, price=demo(150), quantity=1)
    before = snapshot()
    with pytest.raises(SelfTrade) as refused:
        place_bid(buyer=me, problem=market.problem, price=demo(200), quantity=1)
    assert (refused.value.code, refused.value.http_status) == ("market:self-trade", 409)
    assert f"your own open order {own_ask.pk}" in refused.value.message
    assert f"Cancel order {own_ask.pk} first" in refused.value.message
    assert refused.value.fields == {"price_minor": [f"crosses your own open order {own_ask.pk}"]}
    assert snapshot() == before
    # At exactly the ask's price it crosses too; one below it does not.
    with pytest.raises(SelfTrade):
        place_bid(buyer=me, problem=market.problem, price=demo(100), quantity=1)
    below = place_bid(buyer=me, problem=market.problem, price=demo(99), quantity=1)
    assert (below.status, Trade.objects.count()) == ("open", 0)
    cancel_order(user=me, order_id=below.pk)
    cancel_order(user=me, order_id=own_ask.pk)
    place_bid(buyer=me, problem=market.problem, price=demo(200), quantity=1)
    trade = Trade.objects.get()
    assert (trade.ask_id, trade.price_minor) == (other_ask.pk, 150)
    assert_market_invariants()


def test_a_bid_is_checked_against_its_owners_cheapest_ask(market):
    """The probe finds the owner's cheapest open ask, whichever of them is older."""
    me = funded(10_000)
    place_ask(seller=me, solution=market.accepted(solver=me), price=demo(300), quantity=1)
    cheap = place_ask(seller=me, solution=market.accepted(solver=me), price=demo(120), quantity=1)
    with pytest.raises(SelfTrade) as refused:
        place_bid(buyer=me, problem=market.problem, price=demo(150), quantity=1)
    assert refused.value.fields == {"price_minor": [f"crosses your own open order {cheap.pk}"]}
    # Another problem's asks are not this book's.
    other = Market()
    place_ask(seller=me, solution=other.accepted(solver=me), price=demo(10), quantity=1)
    assert place_bid(buyer=me, problem=market.problem, price=demo(110), quantity=1).is_open


def test_an_ask_that_would_cross_its_sellers_own_bid_is_refused_and_names_it(market):
    solution = market.accepted()
    seller = solution.solver
    grant_demo_credits(user=seller, amount_minor=5_000)
    own_bid = place_bid(buyer=seller, problem=market.problem, price=demo(900), quantity=1)
    place_bid(buyer=funded(), problem=market.problem, price=demo(600), quantity=1)
    before = snapshot()
    for price in (500, 900):
        with pytest.raises(SelfTrade) as refused:
            place_ask(seller=seller, solution=solution, price=demo(price), quantity=2)
        assert f"your own open order {own_bid.pk}" in refused.value.message
    assert snapshot() == before
    # Above its own bid the ask rests, crossing nothing.
    ask = place_ask(seller=seller, solution=solution, price=demo(901), quantity=2)
    assert (ask.status, Trade.objects.count()) == ("open", 0)
    assert_market_invariants()


def test_a_second_open_bid_on_one_problem_is_refused_and_names_the_open_one(market):
    """One open bid per buyer and problem: a bid already buys up to its quantity of
    distinct solutions. The refusal changes nothing (the first bid's hold stays); cancelled
    or filled, the bid frees the buyer to bid again; another problem is another book."""
    buyer = funded(10_000)
    first = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=2)
    before = snapshot()
    with pytest.raises(BidAlreadyOpen) as refused:
        place_bid(buyer=buyer, problem=market.problem, price=demo(400), quantity=1)
    assert (refused.value.code, refused.value.http_status) == ("market:bid-already-open", 409)
    assert f"order {first.pk}" in refused.value.message
    assert "cancel that bid" in refused.value.message
    assert refused.value.fields == {"problem": [f"already has your open bid {first.pk}"]}
    assert snapshot() == before
    other = Market().problem
    assert place_bid(buyer=buyer, problem=other, price=demo(100), quantity=1).is_open
    cancel_order(user=buyer, order_id=first.pk)
    second = place_bid(buyer=buyer, problem=market.problem, price=demo(400), quantity=1)
    assert second.is_open
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(400), quantity=1)
    second.refresh_from_db()
    assert second.status == "filled"
    assert place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1).is_open
    assert (balance(buyer), balance(buyer, HELD)) == (10_000 - 400 - 100 - 100, 200)
    assert_market_invariants()


def test_the_database_refuses_a_second_open_bid_of_one_buyer_on_one_problem(market):
    """The partial unique index backs the engine's check, whoever writes the row."""
    buyer = funded()
    place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    row = {
        "problem": market.problem,
        "owner": buyer,
        "side": "bid",
        "price_minor": 120,
        "currency": Currency.DEMO,
        "quantity": 1,
        "remaining": 1,
    }
    with pytest.raises(IntegrityError, match="order_one_open_bid_per_buyer"):
        with transaction.atomic():
            Order.objects.create(**row)
    Order.objects.create(**{**row, "status": OrderStatus.CANCELLED})  # closed ones: any number


def test_a_buyer_never_buys_one_solution_twice(market):
    solution = market.accepted()
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=2)
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=3)
    assert Trade.objects.filter(buyer=buyer).count() == 1
    bid.refresh_from_db()
    assert (bid.remaining, ask.remaining) == (1, 2)
    # A later bid by the same buyer passes over the copy they own.
    cancel_order(user=buyer, order_id=bid.pk)
    later = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    assert (later.status, Trade.objects.count()) == ("open", 1)
    assert (balance(buyer), balance(buyer, HELD)) == (10_000 - 300 - 300, 300)
    assert_market_invariants()


def test_an_incoming_ask_passes_over_bids_of_buyers_who_own_a_copy(market):
    solution = market.accepted()
    owner_of_copy, newcomer = funded(), funded()
    place_bid(buyer=owner_of_copy, problem=market.problem, price=demo(500), quantity=2)
    place_ask(seller=solution.solver, solution=solution, price=demo(500), quantity=1)
    newcomer_bid = place_bid(buyer=newcomer, problem=market.problem, price=demo(400), quantity=1)
    second_ask = place_ask(seller=solution.solver, solution=solution, price=demo(400), quantity=2)
    assert list(Trade.objects.order_by("id").values_list("buyer_id", "price_minor")) == [
        (owner_of_copy.pk, 500),
        (newcomer.pk, 400),
    ]
    newcomer_bid.refresh_from_db()
    second_ask.refresh_from_db()
    assert (newcomer_bid.status, second_ask.remaining) == ("filled", 1)
    assert_market_invariants()


def test_a_bid_buys_distinct_solutions(market):
    s1, s2 = market.accepted(), market.accepted()
    place_ask(seller=s1.solver, solution=s1, price=demo(100), quantity=5)
    place_ask(seller=s2.solver, solution=s2, price=demo(150), quantity=5)
    buyer = funded()
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(200), quantity=3)
    assert sorted(Trade.objects.values_list("solution_id", "price_minor")) == [
        (s1.pk, 100),
        (s2.pk, 150),
    ]
    assert (bid.status, bid.remaining) == ("open", 1)
    assert balance(buyer, HELD) == 200
    assert balance(buyer) == 10_000 - 100 - 150 - 200
    assert_market_invariants()


def test_a_second_open_ask_on_one_solution_is_refused_and_names_the_open_one(market):
    """One open ask per solution and seller (docs/market.md): an ask already sells any number
    of copies. The refusal changes nothing; once the ask is cancelled or filled, a new one
    is accepted."""
    solution = market.accepted()
    seller = solution.solver
    first = place_ask(seller=seller, solution=solution, price=demo(100), quantity=2)
    before = snapshot()
    with pytest.raises(AskAlreadyOpen) as refused:
        place_ask(seller=seller, solution=solution, price=demo(110), quantity=1)
    assert refused.value.code == "market:ask-already-open"
    assert refused.value.http_status == 409
    assert f"order {first.pk}" in refused.value.message
    assert "cancel that ask" in refused.value.message
    assert refused.value.fields == {"solution": [f"already has your open ask {first.pk}"]}
    assert snapshot() == before
    # A quantity-2 bid buys one copy: it counts distinct solutions.
    bid = place_bid(buyer=funded(), problem=market.problem, price=demo(200), quantity=2)
    assert Trade.objects.count() == 1 and (bid.remaining, bid.status) == (1, "open")
    cancel_order(user=seller, order_id=first.pk)
    second = place_ask(seller=seller, solution=solution, price=demo(300), quantity=1)
    assert second.status == "open"
    # Filled, it frees the solution for another ask.
    place_bid(buyer=funded(), problem=market.problem, price=demo(300), quantity=1)
    third = place_ask(seller=seller, solution=solution, price=demo(400), quantity=1)
    assert third.status == "open"
    assert_market_invariants()


def test_the_database_refuses_a_second_open_ask_on_one_solution(market):
    """The partial unique index backs the engine's check, whoever writes the row."""
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=1)
    row = {
        "problem": market.problem,
        "owner": solution.solver,
        "side": "ask",
        "price_minor": 120,
        "currency": Currency.DEMO,
        "quantity": 1,
        "remaining": 1,
        "solution": solution,
    }
    with pytest.raises(IntegrityError, match="order_one_open_ask_per_solution"):
        with transaction.atomic():
            Order.objects.create(**row)
    Order.objects.create(**{**row, "status": OrderStatus.CANCELLED})  # closed ones: any number


def _owner_of(market: Market, count: int, *, prices: list[int]):
    """A buyer who bought one copy of each of ``count`` solutions whose open asks (at
    ``prices``, two copies each) stay in the book: orders that buyer may not trade with."""
    seller = funded(10_000)
    for price in prices:
        place_ask(
            seller=seller, solution=market.accepted(solver=seller), price=demo(price), quantity=2
        )
    buyer = funded(100_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(max(prices)), quantity=count)
    assert bid.status == "filled"
    return buyer


def test_a_bid_scans_past_many_orders_it_may_not_trade_with(market):
    """More passed-over asks than one chunk of the engine's scan (64): 70 asks of solutions
    the bidder already owns."""
    me = _owner_of(market, 70, prices=[100] * 70)
    other = market.accepted()
    target = place_ask(seller=other.solver, solution=other, price=demo(100), quantity=1)
    place_bid(buyer=me, problem=market.problem, price=demo(100), quantity=1)
    assert Trade.objects.get(buyer=me, ask=target).price_minor == 100
    assert_market_invariants()


def test_the_scan_keeps_price_time_order_across_chunks(market):
    """70 asks to pass over at rising prices (two chunks), with legal asks inside the run."""
    me = _owner_of(market, 70, prices=list(range(100, 170)))
    later = market.accepted()
    at_150 = place_ask(seller=later.solver, solution=later, price=demo(150), quantity=1)
    early = market.accepted()
    at_120 = place_ask(seller=early.solver, solution=early, price=demo(120), quantity=1)
    place_bid(buyer=me, problem=market.problem, price=demo(200), quantity=2)
    assert list(
        Trade.objects.filter(ask__in=[at_120, at_150])
        .order_by("id")
        .values_list("ask_id", "price_minor")
    ) == [(at_120.pk, 120), (at_150.pk, 150)]
    assert_market_invariants()


# --- cancel -----------------------------------------------------------------------------------


def test_cancel_releases_exactly_the_remaining_hold(market):
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(1_000), quantity=3)
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(900), quantity=1)
    cancelled = cancel_order(user=buyer, order_id=bid.pk)
    assert (cancelled.status, cancelled.remaining) == (OrderStatus.CANCELLED, 2)
    assert cancelled.closed_at is not None
    release = LedgerTransaction.objects.get(kind="bid_release")
    assert legs(release) == {(buyer.pk, HELD, -2_000), (buyer.pk, AVAILABLE, 2_000)}
    assert (balance(buyer), balance(buyer, HELD)) == (9_000, 0)
    assert sequence(market.problem) == 3
    assert_market_invariants()


def test_cancel_after_a_taker_fill_with_improvement(market):
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(600), quantity=1)
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(1_000), quantity=3)
    cancel_order(user=buyer, order_id=bid.pk)
    assert (balance(buyer), balance(buyer, HELD)) == (9_400, 0)
    assert_market_invariants()


def test_cancel_an_ask_moves_no_money(market):
    solution = market.accepted()
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(600), quantity=2)
    ledger_before = snapshot()[:3]
    cancelled = cancel_order(user=solution.solver, order_id=ask.pk)
    assert cancelled.status == "cancelled"
    assert snapshot()[:3] == ledger_before
    # A cancelled ask no longer trades.
    buyer = funded()
    place_bid(buyer=buyer, problem=market.problem, price=demo(600), quantity=1)
    assert Trade.objects.count() == 0
    assert_market_invariants()


def test_cancel_twice_or_after_a_fill_is_refused(market):
    buyer = funded()
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    cancel_order(user=buyer, order_id=bid.pk)
    refused(OrderNotOpen, "market:order-not-open", cancel_order, user=buyer, order_id=bid.pk)
    filled = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=1)
    refused(OrderNotOpen, "market:order-not-open", cancel_order, user=buyer, order_id=filled.pk)


def test_cancel_someone_elses_order_is_not_found(market):
    buyer, stranger = funded(), funded()
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    refused(NotFound, "not-found", cancel_order, user=stranger, order_id=bid.pk)
    refused(NotFound, "not-found", cancel_order, user=stranger, order_id=987_654)


# --- idempotent placement ---------------------------------------------------------------------


def test_client_order_id_replays_the_first_order(market):
    buyer = funded(10_000)
    first = place_bid(
        buyer=buyer, problem=market.problem, price=demo(100), quantity=1, client_order_id="c-1"
    )
    before = snapshot()
    again = place_bid(
        buyer=buyer, problem=market.problem, price=demo(100), quantity=1, client_order_id="c-1"
    )
    assert again.pk == first.pk
    assert snapshot() == before
    assert balance(buyer) == 9_900 and sequence(market.problem) == 1


def test_a_replay_returns_the_order_as_it_is_now(market):
    buyer = funded(10_000)
    first = place_bid(
        buyer=buyer, problem=market.problem, price=demo(100), quantity=1, client_order_id="c-1"
    )
    solution = market.accepted()
    place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=1)
    before = snapshot()
    again = place_bid(
        buyer=buyer, problem=market.problem, price=demo(100), quantity=1, client_order_id="c-1"
    )
    assert (again.pk, again.status, again.remaining) == (first.pk, "filled", 0)
    assert snapshot() == before


@pytest.mark.parametrize(
    "change", ["price", "quantity", "problem", "side", "solution", "currency problem"]
)
def test_client_order_id_reused_for_a_different_order_is_refused(market, change):
    solution = market.accepted()
    seller = solution.solver
    grant_demo_credits(user=seller, amount_minor=10_000)
    place_bid(
        buyer=seller, problem=market.problem, price=demo(100), quantity=1, client_order_id="x"
    )
    other = Market()
    other_solution = market.accepted(solver=seller)
    calls = {
        "price": lambda: place_bid(
            buyer=seller, problem=market.problem, price=demo(101), quantity=1, client_order_id="x"
        ),
        "quantity": lambda: place_bid(
            buyer=seller, problem=market.problem, price=demo(100), quantity=2, client_order_id="x"
        ),
        "problem": lambda: place_bid(
            buyer=seller, problem=other.problem, price=demo(100), quantity=1, client_order_id="x"
        ),
        "side": lambda: place_ask(
            seller=seller, solution=solution, price=demo(100), quantity=1, client_order_id="x"
        ),
        "solution": lambda: place_ask(
            seller=seller,
            solution=other_solution,
            price=demo(100),
            quantity=1,
            client_order_id="x",
        ),
        "currency problem": lambda: place_bid(
            buyer=seller,
            problem=market.problem,
            price=Money(100, Currency.USD),
            quantity=1,
            client_order_id="x",
        ),
    }
    error = refused(ClientOrderIdReused, "market:client-order-id-reused", calls[change])
    assert error.http_status == 422 and error.fields == {"client_order_id": ["already used"]}


def test_client_order_ids_are_per_user(market):
    a, b = funded(), funded()
    first = place_bid(
        buyer=a, problem=market.problem, price=demo(100), quantity=1, client_order_id="same"
    )
    second = place_bid(
        buyer=b, problem=market.problem, price=demo(200), quantity=1, client_order_id="same"
    )
    assert first.pk != second.pk
    assert (balance(a, HELD), balance(b, HELD)) == (100, 200)


def test_a_refused_placement_does_not_consume_its_client_order_id(market):
    buyer = funded(100)
    refused(
        InsufficientFunds,
        "market:insufficient-funds",
        place_bid,
        buyer=buyer,
        problem=market.problem,
        price=demo(200),
        quantity=1,
        client_order_id="retry-me",
    )
    grant_demo_credits(user=buyer, amount_minor=100)
    order = place_bid(
        buyer=buyer,
        problem=market.problem,
        price=demo(200),
        quantity=1,
        client_order_id="retry-me",
    )
    assert (order.status, balance(buyer, HELD)) == ("open", 200)


@pytest.mark.parametrize("client_order_id", ["", "x" * 65])
def test_client_order_id_length_is_checked(market, client_order_id):
    buyer = funded()
    error = refused(
        InvalidOrder,
        "market:invalid-order",
        place_bid,
        buyer=buyer,
        problem=market.problem,
        price=demo(100),
        quantity=1,
        client_order_id=client_order_id,
    )
    assert list(error.fields) == ["client_order_id"]


def test_an_ask_replay_moves_nothing_twice(market):
    buyer = funded()
    place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    solution = market.accepted()
    first = place_ask(
        seller=solution.solver, solution=solution, price=demo(200), quantity=2, client_order_id="a"
    )
    before = snapshot()
    again = place_ask(
        seller=solution.solver, solution=solution, price=demo(200), quantity=2, client_order_id="a"
    )
    assert (again.pk, again.remaining) == (first.pk, 1)
    assert snapshot() == before
    assert Trade.objects.count() == 1
