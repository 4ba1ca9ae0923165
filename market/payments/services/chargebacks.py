"""Money Stripe takes back from a deposit: refunds (``charge.refunded``) and disputes.

Rules (docs/payments.md, "Refunds and disputes"):
- refunds and disputes (open or lost) on one deposit together never exceed its amount;
- what the user's available USD cannot cover becomes debt (never a negative balance), and a
  debit that leaves debt cancels the user's open USD bids in the same transaction
  (market.payments.services.debtors), whose released holds repay it;
- lock order: the deposit row, system accounts, the problems of the user's open USD bids,
  then the user's accounts (the engine locks a problem before accounts too).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Sum
from django.utils import timezone

from market.models import Account, AccountKind, LedgerTransaction
from market.payments.exceptions import EventOutOfOrder
from market.payments.models import (
    Deposit,
    DepositRefund,
    DepositStatus,
    Dispute,
    DisputeStatus,
    RefundStatus,
    StripeEvent,
)
from market.payments.services import event_shapes as shapes
from market.payments.services.balances import (
    USD,
    credit_available_locked,
    debit_or_debt_legs,
    lock_usd_accounts,
    usd_system_account,
)
from market.payments.services.buckets import deposit_room_minor
from market.payments.services.debtors import (
    cancel_open_usd_bids,
    lock_problems_of_open_usd_bids,
)
from market.services.ledger import record_transaction

Outcome = tuple[LedgerTransaction | None, StripeEvent.Outcome, str]


def take_from_user(
    *,
    user_id: int,
    amount_minor: int,
    to: Account,
    kind: LedgerTransaction.Kind,
    memo: str,
    idempotency_key: str | None,
    locked_problem_ids: set[int] | None = None,
) -> LedgerTransaction:
    """Take ``amount_minor`` from the user's available USD to ``to`` (the rest as debt); if
    debt remains, cancel their open USD bids.

    Precondition: inside ``transaction.atomic``; ``to`` is a system account fetched before
    this call; either the user's accounts are not locked yet, or ``locked_problem_ids`` are
    the problems locked before them (:func:`lock_problems_of_open_usd_bids`).
    """
    problems = locked_problem_ids
    if problems is None:
        problems = lock_problems_of_open_usd_bids(user_id=user_id)
    accounts, locked = lock_usd_accounts(user_id, AccountKind.AVAILABLE, AccountKind.DEBT)
    legs = debit_or_debt_legs(accounts=accounts, locked=locked, amount_minor=amount_minor)
    txn = record_transaction(
        kind=kind,
        currency=USD,
        legs=[*legs, (to, amount_minor)],
        locked=locked,
        memo=memo,
        idempotency_key=idempotency_key,
    )
    if locked[accounts[AccountKind.DEBT].pk].balance_minor < 0:
        cancel_open_usd_bids(user_id=user_id, locked_problem_ids=problems)
    return txn


def lock_deposit_for_payment(payment_intent_id: str | None, what: str) -> Deposit:
    deposit = None
    if payment_intent_id:
        deposit = (
            Deposit.objects.select_for_update().filter(payment_intent_id=payment_intent_id).first()
        )
    if deposit is None or deposit.status != DepositStatus.PAID:
        # Stripe does not order deliveries: the payment's checkout.session.completed may be
        # still on its way. Refuse without recording the event, so Stripe sends it again.
        raise EventOutOfOrder(f"{what} for payment {payment_intent_id!r}, not yet credited")
    return deposit


def apply_stripe_refunds_locked(
    deposit: Deposit, *, locked_problem_ids: set[int] | None = None
) -> LedgerTransaction | None:
    """Post what Stripe refunded of ``deposit`` beyond what our ledger already gave back.

    Refunds the user asked for count from their request on (``refunded_minor``); one still
    in flight that Stripe has not made yet may hide an outside refund for a while: it is
    posted when that request closes (market.payments.services.refunds calls this again).
    Precondition: ``deposit`` is locked (select_for_update) in the current transaction; see
    :func:`take_from_user` for ``locked_problem_ids``.
    """
    due = min(deposit.stripe_refunded_minor - deposit.refunded_minor, deposit_room_minor(deposit))
    if due <= 0:
        return None
    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    total = deposit.refunded_minor + due
    txn = take_from_user(
        user_id=deposit.user_id,
        amount_minor=due,
        to=clearing,
        kind=LedgerTransaction.Kind.REFUND,
        memo=f"refund of deposit {deposit.pk} made at Stripe",
        # No ledger key: the deposit row lock and refunded_minor make this exactly-once, and
        # one total can recur after a refused user refund is reversed.
        idempotency_key=None,
        locked_problem_ids=locked_problem_ids,
    )
    deposit.refunded_minor = total
    deposit.save(update_fields=["refunded_minor"])
    return txn


def on_charge_refunded(charge: dict[str, Any]) -> Outcome:
    payment_intent = shapes.optional_id(charge, "payment_intent", "charge")
    reported = shapes.amount(charge, "amount_refunded", "charge")
    deposit = lock_deposit_for_payment(payment_intent, "a refund")
    # amount_refunded is cumulative: an older event (smaller total) arriving late is a no-op.
    reported = min(reported, deposit.amount_minor)
    if reported > deposit.stripe_refunded_minor:
        deposit.stripe_refunded_minor = reported
        deposit.save(update_fields=["stripe_refunded_minor"])
    before = deposit.refunded_minor
    txn = apply_stripe_refunds_locked(deposit)
    if txn is None:
        in_flight = DepositRefund.objects.filter(
            deposit=deposit, status=RefundStatus.REQUESTED
        ).aggregate(s=Sum("amount_minor"))["s"]
        detail = f"refund of {reported} already applied" + (
            f" ({in_flight} requested by the user in flight)" if in_flight else ""
        )
        return None, StripeEvent.Outcome.IGNORED, detail
    amount = deposit.refunded_minor - before
    return txn, StripeEvent.Outcome.PROCESSED, f"deposit {deposit.pk} refunded {amount}"


def on_dispute_created(dispute: dict[str, Any]) -> Outcome:
    dispute_id = shapes.required_id(dispute, "id", "dispute")
    payment_intent = shapes.optional_id(dispute, "payment_intent", "dispute")
    disputed = shapes.amount(dispute, "amount", "dispute")
    deposit = lock_deposit_for_payment(payment_intent, "a dispute")
    if Dispute.objects.filter(dispute_id=dispute_id).exists():
        return None, StripeEvent.Outcome.IGNORED, "dispute already recorded"
    amount = min(disputed, deposit_room_minor(deposit))
    if amount <= 0:
        return None, StripeEvent.Outcome.IGNORED, "nothing left of the deposit to dispute"
    txn = take_from_user(
        user_id=deposit.user_id,
        amount_minor=amount,
        to=usd_system_account(AccountKind.DISPUTES),
        kind=LedgerTransaction.Kind.DISPUTE,
        memo=f"dispute {dispute_id} on deposit {deposit.pk}: frozen",
        idempotency_key=f"dispute-freeze-{dispute_id}",
    )
    Dispute.objects.create(
        dispute_id=dispute_id,
        deposit=deposit,
        amount_minor=amount,
        status=DisputeStatus.OPEN,
        freeze_transaction=txn,
    )
    return txn, StripeEvent.Outcome.PROCESSED, f"dispute froze {amount} of deposit {deposit.pk}"


def on_dispute_closed(dispute: dict[str, Any]) -> Outcome:
    dispute_id = shapes.required_id(dispute, "id", "dispute")
    payment_intent = shapes.optional_id(dispute, "payment_intent", "dispute")
    disputed = shapes.amount(dispute, "amount", "dispute")
    lost = shapes.optional_str(dispute, "status", "dispute") == "lost"
    deposit = lock_deposit_for_payment(payment_intent, "a dispute")
    record = Dispute.objects.select_for_update().filter(dispute_id=dispute_id).first()
    if record is not None and record.status != DisputeStatus.OPEN:
        return None, StripeEvent.Outcome.IGNORED, f"dispute already {record.status}"
    # System accounts first: creating one while holding user-account locks could deadlock
    # with the engine, which gets the fee account before it locks user accounts.
    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    key = f"dispute-close-{dispute_id}"
    memo = f"dispute {dispute_id} on deposit {deposit.pk}: {'lost' if lost else 'won'}"
    txn: LedgerTransaction | None = None
    if record is None:
        # Closed before its "created" arrived: a lost dispute takes the money now, a won one
        # never moved any; the late "created" then finds the closed record and does nothing.
        amount = min(disputed, deposit_room_minor(deposit))
        if lost and amount <= 0:
            return None, StripeEvent.Outcome.IGNORED, "nothing left of the deposit to dispute"
        if lost:
            txn = take_from_user(
                user_id=deposit.user_id,
                amount_minor=amount,
                to=clearing,
                kind=LedgerTransaction.Kind.DISPUTE,
                memo=memo,
                idempotency_key=key,
            )
        record = Dispute(dispute_id=dispute_id, deposit=deposit, amount_minor=max(amount, 1))
    elif lost:
        frozen = usd_system_account(AccountKind.DISPUTES)
        txn = record_transaction(
            kind=LedgerTransaction.Kind.DISPUTE,
            currency=USD,
            legs=[(frozen, -record.amount_minor), (clearing, record.amount_minor)],
            locked={},
            memo=memo,
            idempotency_key=key,
        )
    else:
        frozen = usd_system_account(AccountKind.DISPUTES)
        accounts, locked = lock_usd_accounts(
            deposit.user_id, AccountKind.AVAILABLE, AccountKind.DEBT
        )
        txn = credit_available_locked(
            user_id=deposit.user_id,
            kind=LedgerTransaction.Kind.DISPUTE,
            source=frozen,
            amount_minor=record.amount_minor,
            accounts=accounts,
            locked=locked,
            memo=memo,
            idempotency_key=key,
        )
    record.status = DisputeStatus.LOST if lost else DisputeStatus.WON
    record.close_transaction = txn
    record.closed_at = timezone.now()
    if record.pk is None:
        record.save(force_insert=True)
    else:
        record.save(update_fields=["status", "close_transaction", "closed_at"])
    return txn, StripeEvent.Outcome.PROCESSED, memo
