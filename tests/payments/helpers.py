"""Signed webhook deliveries and the payments invariants."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import stripe
from django.db.models import Sum

from market.models import Account, AccountKind, Posting
from market.payments.models import (
    Deposit,
    DepositStatus,
    Dispute,
    DisputeStatus,
    ProceedsHold,
    TransferReversal,
    TransferReversalStatus,
    Withdrawal,
    WithdrawalStatus,
)
from tests.market.helpers import assert_ledger_invariants

WEBHOOK_SECRET = "whsec_test_formalmarket"
_ids = itertools.count(1)


def event(type_: str, obj: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
    return {
        "id": event_id or f"evt_test_{next(_ids):06d}",
        "object": "event",
        "api_version": "2026-10-28.endive",
        "created": int(time.time()),
        "data": {"object": obj},
        "livemode": False,
        "pending_webhooks": 1,
        "request": {"id": None, "idempotency_key": None},
        "type": type_,
    }


def sign(
    evt: dict[str, Any], *, secret: str = WEBHOOK_SECRET, timestamp: int | None = None
) -> tuple[bytes, str]:
    payload = json.dumps(evt)
    header = stripe.WebhookSignature.generate_signature_header(payload, secret, timestamp=timestamp)
    return payload.encode(), header


def completed_session(
    deposit: Deposit, *, payment_status: str = "paid", amount: int | None = None
) -> dict[str, Any]:
    return {
        "id": deposit.checkout_session_id,
        "object": "checkout.session",
        "mode": "payment",
        "client_reference_id": str(deposit.pk),
        "amount_total": deposit.amount_minor if amount is None else amount,
        "currency": "usd",
        "payment_status": payment_status,
        "status": "complete",
        "payment_intent": f"pi_for_{deposit.pk}",
        "metadata": {"deposit_id": str(deposit.pk)},
    }


def charge_refunded(deposit: Deposit, amount_refunded: int) -> dict[str, Any]:
    return {
        "id": f"ch_for_{deposit.pk}",
        "object": "charge",
        "amount": deposit.amount_minor,
        "amount_refunded": amount_refunded,
        "refunded": amount_refunded == deposit.amount_minor,
        "payment_intent": f"pi_for_{deposit.pk}",
    }


def dispute(deposit: Deposit, dispute_id: str, amount: int, status: str) -> dict[str, Any]:
    return {
        "id": dispute_id,
        "object": "dispute",
        "amount": amount,
        "charge": f"ch_for_{deposit.pk}",
        "payment_intent": f"pi_for_{deposit.pk}",
        "status": status,
        "currency": "usd",
    }


def _sum(qs: Any, field: str = "amount_minor") -> int:
    return int(qs.aggregate(s=Sum(field))["s"] or 0)


def system(kind: AccountKind) -> int:
    """The balance of a USD system account (the sum of its postings)."""
    return _sum(Posting.objects.filter(account__owner=None, account__kind=kind, currency="USD"))


def assert_payments_invariants() -> None:
    """The ledger invariants (tests/market/helpers.py: one helper for both apps; HELD there
    already counts in-flight withdrawals and FEES withdrawal fees), plus a reconciliation of
    every USD system account against our payment rows (deposits, refunds, disputes,
    transfers, proceeds holds)."""
    assert_ledger_invariants()

    paid = Deposit.objects.filter(status=DepositStatus.PAID)
    closed_lost = Dispute.objects.filter(status=DisputeStatus.LOST)
    paid_out = Withdrawal.objects.filter(status=WithdrawalStatus.PAID)
    reversals = TransferReversal.objects.all()
    reversed_back = _sum(reversals.filter(status=TransferReversalStatus.SUCCEEDED))
    expected_clearing = (
        -_sum(paid)
        + _sum(paid, "refunded_minor")
        + _sum(closed_lost)
        + sum(w.net_minor for w in paid_out)
        - reversed_back
    )
    assert system(AccountKind.STRIPE_CLEARING) == expected_clearing, "clearing mismatch"
    # Transfer reversals asked of Stripe and not answered yet are a receivable.
    assert system(AccountKind.REVERSALS) == -_sum(
        reversals.filter(status=TransferReversalStatus.REQUESTED)
    ), "receivable != requested transfer reversals"
    assert system(AccountKind.DISPUTES) == _sum(
        Dispute.objects.filter(status=DisputeStatus.OPEN)
    ), "frozen != open disputes"
    for account in Account.objects.filter(kind=AccountKind.PENDING, currency="USD").exclude(
        owner=None
    ):
        holds = ProceedsHold.objects.filter(user=account.owner, released_at=None)
        unreleased = _sum(holds) - _sum(holds, "reversed_minor")
        assert account.balance_minor == unreleased, f"{account}: pending != unreleased holds"
    # Issue 27: platform USD = deposits - refunds - disputes lost - payouts - recorded losses,
    # where platform USD is every USD balance it keeps (users', fees, frozen disputes) and
    # payouts are net of transfer reversals (made, or asked of Stripe: a receivable).
    users = _sum(Account.objects.filter(currency="USD").exclude(owner=None), "balance_minor")
    recorded_losses = -system(AccountKind.LOSSES)
    receivable = -system(AccountKind.REVERSALS)
    assert recorded_losses >= 0 and receivable >= 0
    platform = users + system(AccountKind.FEES) + system(AccountKind.DISPUTES)
    payouts = sum(w.net_minor for w in paid_out) - reversed_back - receivable
    sources = _sum(paid) - _sum(paid, "refunded_minor") - _sum(closed_lost) - payouts
    # LOSSES holds (negated) what the books still count in users' and fees' balances but no
    # one could be charged for: the platform's own USD is the rest.
    assert platform - recorded_losses == sources, "platform USD != its sources"
    assert_provenance_fundings()
    assert_lots()
    assert_deposit_caps()


def assert_provenance_fundings() -> None:
    """A withdrawal's fundings never exceed it; a lot never funds more than its amount."""
    from market.payments.models import FundsLot, WithdrawalFunding

    for withdrawal in Withdrawal.objects.all():
        funded = _sum(WithdrawalFunding.objects.filter(withdrawal=withdrawal))
        assert funded <= withdrawal.amount_minor, withdrawal
    for lot in FundsLot.objects.filter(source=FundsLot.Source.PROCEEDS):
        live = WithdrawalFunding.objects.filter(lot=lot).exclude(
            withdrawal__status=WithdrawalStatus.FAILED
        )
        assert _sum(live) - _sum(live, "reversed_minor") <= lot.amount_minor, lot


def assert_lots() -> None:
    """Lots never exceed their amount, and a deposit's unspent lot never exceeds what may
    still be refunded or disputed of it."""
    from market.payments.models import FundsLot
    from market.payments.services.buckets import deposit_room_minor

    for lot in FundsLot.objects.select_related("deposit"):
        assert 0 <= lot.remaining_minor <= lot.amount_minor, lot
        if lot.deposit is not None:
            assert lot.remaining_minor <= deposit_room_minor(lot.deposit), lot


_earned = itertools.count(1)


def earn_proceeds(seller: Any, amount: int) -> None:
    """Give ``seller`` exactly ``amount`` more withdrawable USD by the real path: a buyer pays
    a deposit (signed webhook), bids, the seller's ask fills it, the hold window passes.

    Deposited money is not withdrawable (it goes back only as a refund); sale proceeds are.
    """
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from market.money import Currency, Money
    from market.payments.services.proceeds import release_matured_proceeds
    from market.payments.services.webhooks import handle_webhook
    from market.services.orders import fee_for, place_ask, place_bid
    from tests.factories import UserFactory
    from tests.market.conftest import Market

    price = next(p for p in range(amount, 2 * amount + 100) if p - fee_for(p) == amount)
    market = Market(currency=Currency.USD, is_demo=False)
    solution = market.accepted(solver=seller)
    buyer = UserFactory()
    deposit = Deposit.objects.create(
        user=buyer,
        amount_minor=price,
        checkout_session_id=f"cs_earn_{next(_earned)}_{buyer.pk}",
        status=DepositStatus.OPEN,
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    handle_webhook(payload=payload, signature_header=header)
    place_bid(buyer=buyer, problem=market.problem, price=Money(price, Currency.USD), quantity=1)
    place_ask(seller=seller, solution=solution, price=Money(price, Currency.USD), quantity=1)
    later = timezone.now() + timedelta(seconds=settings.PROCEEDS_HOLD_WINDOW_S + 1)
    assert release_matured_proceeds(now=later) >= 1


def assert_deposit_caps() -> None:
    """Refunds and open or lost disputes on one deposit never exceed its amount, and every
    refund the user asked for and Stripe did not refuse is counted in refunded_minor."""
    from market.payments.models import DepositRefund, RefundStatus

    for deposit in Deposit.objects.all():
        disputed = _sum(
            Dispute.objects.filter(
                deposit=deposit, status__in=(DisputeStatus.OPEN, DisputeStatus.LOST)
            )
        )
        assert deposit.refunded_minor + disputed <= deposit.amount_minor, deposit
        asked = _sum(
            DepositRefund.objects.filter(deposit=deposit).exclude(status=RefundStatus.FAILED)
        )
        assert asked <= deposit.refunded_minor, deposit
