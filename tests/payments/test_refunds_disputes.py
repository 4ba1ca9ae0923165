"""Refunds and disputes move or freeze money without unbalancing the ledger. A taking follows
the deposit's provenance (docs/payments.md, "Takings"): its unspent lot (a debit that leaves
debt cancels the user's open USD bids at once: their holds repay it), then the seller's
pending proceeds it paid for, then the buyer's other funds, then a recorded platform loss."""

from __future__ import annotations

import pytest

from market.models import AccountKind, Order, OrderStatus
from market.money import Currency, Money
from market.payments.models import Deposit, DepositStatus, Dispute, DisputeStatus, StripeEvent
from market.payments.services.webhooks import handle_webhook
from market.services.orders import place_ask, place_bid
from tests.factories import ProblemFactory, UserFactory
from tests.market.conftest import Market
from tests.market.helpers import balance, snapshot
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    dispute,
    event,
    sign,
)

pytestmark = pytest.mark.django_db

_sessions = iter(range(1, 10_000))


def deliver(evt):
    payload, header = sign(evt)
    return handle_webhook(payload=payload, signature_header=header)


def paid_deposit(user, amount) -> Deposit:
    deposit = Deposit.objects.create(
        user=user,
        amount_minor=amount,
        checkout_session_id=f"cs_rd_{next(_sessions)}",
        status=DepositStatus.OPEN,
    )
    deliver(event("checkout.session.completed", completed_session(deposit)))
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.PAID
    return deposit


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def buy_one(user, price: int) -> None:
    """The user buys one solution at ``price`` (a resting ask, then their bid fills it)."""
    market = Market(currency=Currency.USD, is_demo=False)
    seller = UserFactory()
    place_ask(
        seller=seller,
        solution=market.accepted(solver=seller),
        price=Money(price, Currency.USD),
        quantity=1,
    )
    bid = place_bid(
        buyer=user, problem=market.problem, price=Money(price, Currency.USD), quantity=1
    )
    assert bid.status == OrderStatus.FILLED


def test_full_refund_takes_the_deposit_back():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    deliver(event("charge.refunded", charge_refunded(deposit, 3_000)))
    deposit.refresh_from_db()
    assert deposit.refunded_minor == 3_000
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert_payments_invariants()


def test_partial_refunds_are_cumulative_and_a_late_older_event_is_a_no_op():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    first = event("charge.refunded", charge_refunded(deposit, 1_000))
    second = event("charge.refunded", charge_refunded(deposit, 2_500))
    deliver(second)  # out of order: the later total arrives first
    assert usd(user) == 500
    before = snapshot()
    record, is_new = deliver(first)
    assert is_new and record.outcome == StripeEvent.Outcome.IGNORED
    assert snapshot() == before
    assert_payments_invariants()


def test_refund_of_spent_money_takes_the_sale_it_bought_not_a_negative_balance():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    buy_one(user, 1_000)  # spent: the seller has it
    problem = ProblemFactory(currency=Currency.USD)
    bid = place_bid(buyer=user, problem=problem, price=Money(1_000, Currency.USD), quantity=1)
    assert usd(user) == 1_000 and usd(user, AccountKind.HELD) == 1_000

    deliver(event("charge.refunded", charge_refunded(deposit, 3_000)))

    # Provenance (issue 27): the deposit's unspent 2 000 (1 000 available, 1 000 in the open
    # bid, which is cancelled to repay it), then the 1 000 purchase it paid for, taken back
    # from the seller's pending proceeds (and the fee). No debt remains, no loss.
    assert usd(user) == 0
    assert usd(user, AccountKind.DEBT) == 0
    assert usd(user, AccountKind.HELD) == 0
    assert Order.objects.get(pk=bid.pk).status == OrderStatus.CANCELLED
    assert_payments_invariants()

    paid_deposit(user, 2_500)
    assert usd(user) == 2_500 and usd(user, AccountKind.DEBT) == 0
    assert_payments_invariants()


def test_dispute_freezes_then_won_releases():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_1", 3_000, "needs_response")))
    assert usd(user) == 0
    assert Dispute.objects.get().status == DisputeStatus.OPEN
    assert_payments_invariants()

    deliver(event("charge.dispute.closed", dispute(deposit, "dp_1", 3_000, "won")))
    assert usd(user) == 3_000 and usd(user, AccountKind.DEBT) == 0
    assert Dispute.objects.get().status == DisputeStatus.WON
    assert_payments_invariants()


def test_dispute_lost_sends_the_money_back_and_the_spent_part_comes_from_the_sale():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    buy_one(user, 1_500)
    problem = ProblemFactory(currency=Currency.USD)
    bid = place_bid(buyer=user, problem=problem, price=Money(500, Currency.USD), quantity=1)

    deliver(event("charge.dispute.created", dispute(deposit, "dp_2", 3_000, "needs_response")))
    # The unspent 1 500 (1 000 available, the bid's 500, cancelled), then the 1 500 purchase
    # from the seller's pending proceeds.
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert Order.objects.get(pk=bid.pk).status == OrderStatus.CANCELLED
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_2", 3_000, "lost")))
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert Dispute.objects.get().status == DisputeStatus.LOST
    assert_payments_invariants()

    paid_deposit(user, 2_000)
    assert usd(user) == 2_000 and usd(user, AccountKind.DEBT) == 0
    assert_payments_invariants()


def test_won_dispute_gives_each_part_back():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    buy_one(user, 1_000)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_3", 3_000, "needs_response")))
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_3", 3_000, "won")))
    assert usd(user) == 2_000 and usd(user, AccountKind.DEBT) == 0
    assert_payments_invariants()


def test_dispute_closed_before_created_applies_once():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_4", 1_200, "lost")))
    assert usd(user) == 1_800
    before = snapshot()
    record, _ = deliver(
        event("charge.dispute.created", dispute(deposit, "dp_4", 1_200, "needs_response"))
    )
    assert record.outcome == StripeEvent.Outcome.IGNORED
    assert snapshot() == before
    assert_payments_invariants()


def test_duplicate_dispute_events_freeze_once():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    created = dispute(deposit, "dp_5", 3_000, "needs_response")
    deliver(event("charge.dispute.created", created))
    deliver(event("charge.dispute.created", created))  # a second event id, same dispute
    assert usd(user) == 0
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_5", 3_000, "won")))
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_5", 3_000, "won")))
    assert usd(user) == 3_000
    assert_payments_invariants()


def test_a_dispute_leaving_debt_cancels_every_open_usd_bid_and_keeps_asks_and_demo_bids():
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    buy_one(user, 1_000)
    bids = [
        place_bid(
            buyer=user,
            problem=ProblemFactory(currency=Currency.USD),
            price=Money(price, Currency.USD),
            quantity=1,
        )
        for price in (400, 600)
    ]
    demo = ProblemFactory(currency=Currency.DEMO)
    from market.models import LedgerTransaction
    from market.services.ledger import get_system_account, get_user_accounts, transfer

    mint = get_system_account(currency="DEMO", kind=AccountKind.MINT)
    demo_available = get_user_accounts(keys=[(user.pk, AccountKind.AVAILABLE)], currency="DEMO")[
        (user.pk, AccountKind.AVAILABLE)
    ]
    transfer(
        kind=LedgerTransaction.Kind.DEMO_GRANT,
        currency="DEMO",
        legs=[(mint, -500), (demo_available, 500)],
    )
    demo_bid = place_bid(buyer=user, problem=demo, price=Money(500, Currency.DEMO), quantity=1)
    market = Market(currency=Currency.USD, is_demo=False)
    ask = place_ask(
        seller=user,
        solution=market.accepted(solver=user),
        price=Money(9_000, Currency.USD),
        quantity=1,
    )

    deliver(event("charge.dispute.created", dispute(deposit, "dp_all", 3_000, "needs_response")))

    # The unspent 2 000: 1 000 available, 1 000 in the bids (both cancelled, their holds
    # repay it); the spent 1 000 from the seller's pending proceeds.
    assert [Order.objects.get(pk=b.pk).status for b in bids] == [OrderStatus.CANCELLED] * 2
    assert Order.objects.get(pk=ask.pk).status == OrderStatus.OPEN
    assert Order.objects.get(pk=demo_bid.pk).status == OrderStatus.OPEN
    assert usd(user, AccountKind.DEBT) == 0 and usd(user, AccountKind.HELD) == 0
    assert_payments_invariants()
