"""The matching engine's rules, one by one, with exact balances."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from market.exceptions import (
    ClientOrderIdReused,
    InsufficientFunds,
    NotTradable,
    SolutionNotAccepted,
)
from market.models import AccountKind, Entitlement, OrderStatus, ProblemStatus, Trade
from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from market.services.orders import cancel_order, place_ask, place_bid
from tests.factories import ProblemFactory, SolutionFactory, UserFactory, accepted_solution
from tests.market.helpers import assert_ledger_invariants, balance, snapshot

pytestmark = pytest.mark.django_db


def demo(minor: int) -> Money:
    return Money(minor, Currency.DEMO)


@pytest.fixture
def problem():
    return ProblemFactory()


def funded(minor: int = 10_000):
    user = UserFactory()
    grant_demo_credits(user=user, amount_minor=minor)
    return user


def test_place_bid_holds_price_times_quantity(problem):
    buyer = funded(10_000)
    order = place_bid(buyer=buyer, problem=problem, price=demo(1_500), quantity=3)
    assert order.status == OrderStatus.OPEN and order.remaining == 3
    assert balance(buyer) == 10_000 - 4_500
    assert balance(buyer, AccountKind.HELD) == 4_500
    assert_ledger_invariants()


def test_place_bid_refuses_insufficient_funds_and_changes_nothing(problem):
    buyer = funded(1_000)
    before = snapshot()
    with pytest.raises(InsufficientFunds) as exc:
        place_bid(buyer=buyer, problem=problem, price=demo(600), quantity=2)
    assert exc.value.code == "market:insufficient-funds"
    assert snapshot() == before


def test_ask_trades_at_resting_bid_price_less_fee(problem):
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=problem, price=demo(2_000), quantity=1)
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(1_000), quantity=5)
    trade = Trade.objects.get()
    assert (trade.price_minor, trade.fee_minor, trade.maker_side) == (2_000, 100, "bid")
    assert balance(solution.solver) == 1_900
    assert balance(buyer) == 8_000 and balance(buyer, AccountKind.HELD) == 0
    bid.refresh_from_db()
    ask.refresh_from_db()
    assert (bid.status, bid.remaining) == (OrderStatus.FILLED, 0)
    assert (ask.status, ask.remaining) == (OrderStatus.OPEN, 4)
    assert Entitlement.objects.filter(user=buyer, solution=solution).count() == 1
    assert_ledger_invariants()


def test_taker_bid_keeps_the_price_improvement(problem):
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    place_ask(seller=solution.solver, solution=solution, price=demo(700), quantity=1)
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=problem, price=demo(1_000), quantity=2)
    trade = Trade.objects.get()
    assert (trade.price_minor, trade.maker_side) == (700, "ask")
    # Paid 700 for the copy; 1 000 stays held for the copy still wanted.
    assert balance(buyer) == 10_000 - 700 - 1_000
    assert balance(buyer, AccountKind.HELD) == 1_000
    bid.refresh_from_db()
    assert (bid.status, bid.remaining) == (OrderStatus.OPEN, 1)
    assert_ledger_invariants()


def test_price_time_priority_among_bids(problem):
    first, second, better = funded(), funded(), funded()
    b1 = place_bid(buyer=first, problem=problem, price=demo(500), quantity=1)
    place_bid(buyer=second, problem=problem, price=demo(500), quantity=1)
    b3 = place_bid(buyer=better, problem=problem, price=demo(600), quantity=1)
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    place_ask(seller=solution.solver, solution=solution, price=demo(500), quantity=2)
    assert sorted(Trade.objects.values_list("bid_id", "price_minor")) == [(b1.pk, 500), (b3.pk, 600)]


def test_a_buyer_never_buys_their_own_solution(problem):
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    seller = solution.solver
    grant_demo_credits(user=seller, amount_minor=5_000)
    place_ask(seller=seller, solution=solution, price=demo(100), quantity=1)
    bid = place_bid(buyer=seller, problem=problem, price=demo(200), quantity=1)
    assert Trade.objects.count() == 0 and bid.status == OrderStatus.OPEN
    assert_ledger_invariants()


def test_a_buyer_never_buys_one_solution_twice(problem):
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    buyer = funded()
    place_bid(buyer=buyer, problem=problem, price=demo(300), quantity=2)
    place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=3)
    assert Trade.objects.filter(buyer=buyer).count() == 1


def test_a_bid_buys_distinct_solutions(problem):
    s1 = accepted_solution(verifier_version__verifier__problem=problem)
    s2 = accepted_solution(verifier_version__verifier__problem=problem, verifier_version=s1.verifier_version)
    place_ask(seller=s1.solver, solution=s1, price=demo(100), quantity=5)
    place_ask(seller=s2.solver, solution=s2, price=demo(150), quantity=5)
    buyer = funded()
    place_bid(buyer=buyer, problem=problem, price=demo(200), quantity=3)
    assert sorted(Trade.objects.values_list("solution_id", "price_minor")) == [(s1.pk, 100), (s2.pk, 150)]
    assert balance(buyer, AccountKind.HELD) == 200


def test_place_ask_refuses_a_rejected_solution(problem):
    solution = SolutionFactory(verifier_version__verifier__problem=problem, status="rejected")
    before = snapshot()
    with pytest.raises(SolutionNotAccepted):
        place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=1)
    assert snapshot() == before


def test_database_refuses_an_ask_on_a_pending_solution(problem):
    from market.models import Order

    solution = SolutionFactory(verifier_version__verifier__problem=problem)
    with pytest.raises(IntegrityError), transaction.atomic():
        Order.objects.create(
            problem=problem, owner=solution.solver, side="ask", price_minor=1, currency="DEMO",
            quantity=1, remaining=1, solution=solution,
        )


def test_cancel_releases_exactly_the_remaining_hold(problem):
    buyer = funded(10_000)
    bid = place_bid(buyer=buyer, problem=problem, price=demo(1_000), quantity=3)
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    place_ask(seller=solution.solver, solution=solution, price=demo(900), quantity=1)
    cancelled = cancel_order(user=buyer, order_id=bid.pk)
    assert cancelled.status == OrderStatus.CANCELLED
    assert balance(buyer) == 9_000 and balance(buyer, AccountKind.HELD) == 0
    assert_ledger_invariants()


def test_draft_problem_cannot_be_traded():
    problem = ProblemFactory(status=ProblemStatus.DRAFT)
    buyer = funded()
    before = snapshot()
    with pytest.raises(NotTradable):
        place_bid(buyer=buyer, problem=problem, price=demo(100), quantity=1)
    assert snapshot() == before


def test_client_order_id_replays_the_first_order(problem):
    buyer = funded(10_000)
    first = place_bid(buyer=buyer, problem=problem, price=demo(100), quantity=1, client_order_id="c-1")
    again = place_bid(buyer=buyer, problem=problem, price=demo(100), quantity=1, client_order_id="c-1")
    assert again.pk == first.pk and balance(buyer) == 9_900
    with pytest.raises(ClientOrderIdReused):
        place_bid(buyer=buyer, problem=problem, price=demo(200), quantity=1, client_order_id="c-1")


def test_ledger_rows_are_append_only(problem):
    funded(100)
    from market.models import Posting

    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        Posting.objects.update(amount_minor=1)


def test_unbalanced_transaction_is_refused_at_commit():
    from market.models import Account, LedgerTransaction, Posting

    user = funded(100)
    account = Account.objects.get(owner=user, kind="available")
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        txn = LedgerTransaction.objects.create(kind="demo_grant", currency="DEMO")
        Posting.objects.create(transaction=txn, account=account, currency="DEMO", amount_minor=5)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
