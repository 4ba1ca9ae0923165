"""Money Stripe takes back from a deposit: refunds (``charge.refunded``) and disputes.

Rules (docs/payments.md, "Refunds and disputes", "Takings"):
- a taking follows the deposit's provenance (market.payments.services.provenance): its own
  unspent lot, the sellers' pending proceeds it funded, the buyer's other funds, then a
  platform loss;
- every event is checked against what we recorded (the deposit of its payment, the dispute's
  deposit, amount, currency; livemode is checked for every event by the webhook): a conflict
  is a 400 and changes nothing;
- dispute statuses are Stripe's, exactly; a dispute closed for us re-applies the refunds that
  arrived while it was open;
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
from market.payments.exceptions import EventOutOfOrder, InvalidWebhook
from market.payments.models import (
    STRIPE_DISPUTE_CLOSED_STATUSES,
    STRIPE_DISPUTE_OPEN_STATUSES,
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
    debit_or_debt_legs,
    lock_usd_accounts,
    usd_system_account,
)
from market.payments.services.buckets import deposit_room_minor
from market.payments.services.debtors import (
    cancel_open_usd_bids,
    lock_problems_of_open_usd_bids,
)
from market.payments.services.dispute_outcomes import give_back, settle_lost
from market.payments.services.provenance import take_back
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
            Deposit.objects.select_for_update(no_key=True)
            .filter(payment_intent_id=payment_intent_id)
            .first()
        )
    if deposit is None or deposit.status != DepositStatus.PAID:
        # Stripe does not order deliveries: the payment's checkout.session.completed may be
        # still on its way. Refuse without recording the event, so Stripe sends it again.
        raise EventOutOfOrder(f"{what} for payment {payment_intent_id!r}, not yet credited")
    return deposit


def _check_currency(obj: dict[str, Any], what: str) -> None:
    currency = shapes.optional_str(obj, "currency", what)
    if currency and currency.lower() != "usd":
        # Deposits are USD only: an amount in another currency is not ours to apply (M5).
        raise InvalidWebhook(f"the {what}'s currency {currency!r} is not the deposit's (usd)")


def apply_stripe_refunds_locked(
    deposit: Deposit, *, locked_problem_ids: set[int] | None = None
) -> LedgerTransaction | None:
    """Post what Stripe refunded of ``deposit`` beyond what our ledger already gave back.

    Refunds the user asked for count from their request on (``refunded_minor``); one still
    in flight that Stripe has not made yet may hide an outside refund for a while: it is
    posted when that request closes (market.payments.services.refunds calls this again).
    A refund Stripe made while a dispute froze the deposit is posted when the dispute closes
    for us (the room comes back then). Precondition: ``deposit`` is locked in the current
    transaction.
    """
    due = min(deposit.stripe_refunded_minor - deposit.refunded_minor, deposit_room_minor(deposit))
    if due <= 0:
        return None
    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    total = deposit.refunded_minor + due
    taking = take_back(
        deposit=deposit,
        amount_minor=due,
        to=clearing,
        kind=LedgerTransaction.Kind.REFUND,
        memo=f"refund of deposit {deposit.pk} made at Stripe",
        # No ledger key: the deposit row lock and refunded_minor make this exactly-once, and
        # one total can recur after a refused user refund is reversed.
        idempotency_key=None,
        reason=f"the buyer's payment (deposit {deposit.pk}) was refunded",
    )
    deposit.refunded_minor = total
    deposit.save(update_fields=["refunded_minor"])
    return taking.txn


def on_charge_refunded(charge: dict[str, Any]) -> Outcome:
    payment_intent = shapes.optional_id(charge, "payment_intent", "charge")
    reported = shapes.amount(charge, "amount_refunded", "charge")
    _check_currency(charge, "charge")
    deposit = lock_deposit_for_payment(payment_intent, "a refund")
    charged = charge.get("amount")
    if charged is not None and shapes.amount(charge, "amount", "charge") != deposit.amount_minor:
        raise InvalidWebhook(f"the charge's amount is not deposit {deposit.pk}'s")
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
        detail = f"refund of {reported} already applied or frozen by a dispute" + (
            f" ({in_flight} requested by the user in flight)" if in_flight else ""
        )
        return None, StripeEvent.Outcome.IGNORED, detail
    amount = deposit.refunded_minor - before
    return txn, StripeEvent.Outcome.PROCESSED, f"deposit {deposit.pk} refunded {amount}"


def _read_dispute(
    dispute: dict[str, Any], statuses: tuple[str, ...]
) -> tuple[str, str | None, int, str]:
    dispute_id = shapes.required_id(dispute, "id", "dispute")
    payment_intent = shapes.optional_id(dispute, "payment_intent", "dispute")
    disputed = shapes.amount(dispute, "amount", "dispute")
    status = shapes.optional_str(dispute, "status", "dispute")
    if status not in statuses:
        raise InvalidWebhook(f"dispute status {status!r} is not one of {', '.join(statuses)}")
    _check_currency(dispute, "dispute")
    return dispute_id, payment_intent, disputed, status


def _check_against_record(record: Dispute, deposit: Deposit, disputed: int) -> None:
    """The dispute's deposit and amount are what we recorded (M4): never another user's."""
    if record.deposit_id != deposit.pk:
        raise InvalidWebhook(
            f"dispute {record.dispute_id} is recorded on deposit {record.deposit_id}, "
            f"not on the event's payment"
        )
    if record.stripe_amount_minor and disputed != record.stripe_amount_minor:
        raise InvalidWebhook(
            f"dispute {record.dispute_id}'s amount {disputed} is not the recorded "
            f"{record.stripe_amount_minor}"
        )


def on_dispute_created(dispute: dict[str, Any]) -> Outcome:
    dispute_id, payment_intent, disputed, status = _read_dispute(
        dispute, STRIPE_DISPUTE_OPEN_STATUSES
    )
    deposit = lock_deposit_for_payment(payment_intent, "a dispute")
    existing = Dispute.objects.filter(dispute_id=dispute_id).first()
    if existing is not None:
        _check_against_record(existing, deposit, disputed)
        return None, StripeEvent.Outcome.IGNORED, "dispute already recorded"
    amount = min(disputed, deposit_room_minor(deposit))
    record = Dispute.objects.create(
        dispute_id=dispute_id,
        deposit=deposit,
        amount_minor=max(amount, 0),
        status=DisputeStatus.OPEN,
        stripe_status=status,
        stripe_amount_minor=disputed,
    )
    if amount <= 0:
        # A second taking past the deposit's cap: recorded (there is something to
        # reconcile), nothing moves (M6).
        return (
            None,
            StripeEvent.Outcome.PROCESSED,
            (f"dispute recorded on deposit {deposit.pk}; nothing left under its cap"),
        )
    taking = take_back(
        deposit=deposit,
        amount_minor=amount,
        to=usd_system_account(AccountKind.DISPUTES),
        kind=LedgerTransaction.Kind.DISPUTE,
        memo=f"dispute {dispute_id} on deposit {deposit.pk}: frozen",
        idempotency_key=f"dispute-freeze-{dispute_id}",
        dispute=record,
        final=False,
        reason=f"the buyer's payment (deposit {deposit.pk}) is disputed",
    )
    _store_taking(record, taking)
    record.freeze_transaction = taking.txn
    record.save()
    return (
        taking.txn,
        StripeEvent.Outcome.PROCESSED,
        (f"dispute froze {amount} of deposit {deposit.pk}"),
    )


def _store_taking(record: Dispute, taking: Any) -> None:
    record.from_lot_minor = taking.from_lot
    record.from_proceeds_minor = taking.from_proceeds
    record.from_buyer_minor = taking.from_buyer
    record.loss_minor = taking.loss


def on_dispute_closed(dispute: dict[str, Any]) -> Outcome:
    dispute_id, payment_intent, disputed, status = _read_dispute(
        dispute, STRIPE_DISPUTE_CLOSED_STATUSES
    )
    lost = status == "lost"
    deposit = lock_deposit_for_payment(payment_intent, "a dispute")
    record = Dispute.objects.select_for_update().filter(dispute_id=dispute_id).first()
    if record is not None:
        _check_against_record(record, deposit, disputed)
        if record.status != DisputeStatus.OPEN:
            return None, StripeEvent.Outcome.IGNORED, f"dispute already {record.status}"
    # System accounts first: creating one while holding user-account locks could deadlock
    # with the engine, which gets the fee account before it locks user accounts.
    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    frozen = usd_system_account(AccountKind.DISPUTES) if record is not None else None
    key = f"dispute-close-{dispute_id}"
    memo = f"dispute {dispute_id} on deposit {deposit.pk}: {status}"
    txn: LedgerTransaction | None = None
    if record is None:
        # Closed before its "created" arrived: a lost dispute takes the money now, a won one
        # never moved any; the late "created" then finds the closed record and does nothing.
        amount = min(disputed, deposit_room_minor(deposit))
        record = Dispute.objects.create(
            dispute_id=dispute_id,
            deposit=deposit,
            amount_minor=max(amount, 0) if lost else 0,
            status=DisputeStatus.OPEN,
            stripe_status=status,
            stripe_amount_minor=disputed,
        )
        if lost and amount > 0:
            taking = take_back(
                deposit=deposit,
                amount_minor=amount,
                to=clearing,
                kind=LedgerTransaction.Kind.DISPUTE,
                memo=memo,
                idempotency_key=key,
                dispute=record,
                final=True,
                reason=f"a dispute of the buyer's payment (deposit {deposit.pk}) was lost",
            )
            _store_taking(record, taking)
            txn = taking.txn
    elif lost:
        assert frozen is not None
        if record.amount_minor:
            txn = record_transaction(
                kind=LedgerTransaction.Kind.DISPUTE,
                currency=USD,
                legs=[(frozen, -record.amount_minor), (clearing, record.amount_minor)],
                locked={},
                memo=memo,
                idempotency_key=key,
            )
        settle_lost(record)
    elif record.amount_minor:
        assert frozen is not None
        give_back(dispute=record, source=frozen, memo=memo, idempotency_key=key)
        txn = record_transaction_for_key(key)
    record.status = DisputeStatus.LOST if lost else DisputeStatus.WON
    record.stripe_status = status
    record.close_transaction = txn
    record.closed_at = timezone.now()
    record.save()
    if not lost:
        # Refunds Stripe made while the dispute froze the deposit were not posted (no room);
        # now that the frozen part is back, post them (M2).
        refund_txn = apply_stripe_refunds_locked(deposit)
        if refund_txn is not None:
            memo += "; refunds made meanwhile applied"
    return txn, StripeEvent.Outcome.PROCESSED, memo


def record_transaction_for_key(key: str) -> LedgerTransaction:
    return LedgerTransaction.objects.get(idempotency_key=key)
