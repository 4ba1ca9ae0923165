"""Stripe webhook events: verified, then processed exactly once.

The event id is inserted into a unique column in the same database transaction as the ledger
posting it causes: a duplicate (a retry, a replay, or the same event delivered twice at once)
either sees the committed row or blocks on the unique index until the first delivery commits,
then fails its insert and is answered 200 without touching money. The objects an event
changes (deposit, dispute) are locked before their state is read, so events about the same
payment arriving in any order, or at once, apply each movement once.

Sign convention (market.models.ledger): STRIPE_CLEARING mirrors the money Stripe holds for
us, negated: a deposit takes it down, a refund, a lost dispute or a payout brings it back up.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import stripe
from django.db import IntegrityError, transaction
from django.utils import timezone

from market.models import AccountKind, LedgerTransaction
from market.payments import stripe_client
from market.payments.exceptions import EventOutOfOrder, InvalidWebhook
from market.payments.models import (
    ConnectedAccount,
    Deposit,
    DepositStatus,
    Dispute,
    DisputeStatus,
    StripeEvent,
)
from market.payments.services.balances import (
    USD,
    debit_or_debt_legs,
    lock_usd_accounts,
    settle_debt_locked,
    usd_system_account,
)
from market.payments.services.connect import refresh_account_flags
from market.services.ledger import record_transaction

logger = logging.getLogger(__name__)

Outcome = tuple[LedgerTransaction | None, StripeEvent.Outcome, str]
Handler = Callable[[dict[str, Any]], Outcome]


def handle_webhook(*, payload: bytes, signature_header: str) -> tuple[StripeEvent, bool]:
    """Verify a webhook delivery and process its event once; return (record, is_new).

    Raises InvalidWebhook (answer 400), UsdDisabled, or EventOutOfOrder (answer non-2xx so
    that Stripe delivers it again later; nothing was recorded).
    """
    try:
        event = stripe_client.verify_webhook(payload=payload, signature_header=signature_header)
    except stripe.SignatureVerificationError as error:
        raise InvalidWebhook(f"signature verification failed: {error.user_message}") from error
    except ValueError as error:
        raise InvalidWebhook(f"malformed webhook payload: {error}") from error
    if not isinstance(event, dict) or not isinstance(event.get("id"), str):
        raise InvalidWebhook("malformed webhook payload: no event id")
    return process_event(event=event)


def process_event(*, event: dict[str, Any]) -> tuple[StripeEvent, bool]:
    """Apply a verified event exactly once; return (its record, whether this call applied it)."""
    event_id = event["id"]
    existing = StripeEvent.objects.filter(event_id=event_id).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            record = StripeEvent.objects.create(
                event_id=event_id,
                type=str(event.get("type", ""))[:100],
                livemode=bool(event.get("livemode", False)),
                outcome=StripeEvent.Outcome.IGNORED,
            )
            if event.get("object") == "v2.core.event":
                # Thin events carry no object, only a reference to re-read from the API.
                handler, payload = _THIN_HANDLERS.get(record.type.split("[")[0]), event
            else:
                handler, payload = _HANDLERS.get(record.type), event["data"]["object"]
            if handler is None:
                txn, outcome, detail = None, StripeEvent.Outcome.IGNORED, "event type not used"
            elif event.get("account") and handler not in _CONNECT_HANDLERS:
                # An event of a connected account's own objects (a Connect endpoint): its
                # Checkout Sessions, charges and disputes are not payments to us, even if they
                # carry a client_reference_id equal to one of our deposits.
                txn, outcome = None, StripeEvent.Outcome.IGNORED
                detail = f"event of connected account {event.get('account')}: not our payment"
            else:
                txn, outcome, detail = handler(payload)
            record.ledger_transaction = txn
            record.outcome = outcome
            record.detail = detail[:200]
            record.save(update_fields=["ledger_transaction", "outcome", "detail"])
    except IntegrityError:
        # A concurrent delivery of the same event committed first.
        existing = StripeEvent.objects.filter(event_id=event_id).first()
        if existing is None:
            raise
        return existing, False
    logger.info("stripe event %s %s: %s %s", event_id, record.type, outcome, detail)
    return record, True


# --- Checkout -------------------------------------------------------------------------------


def _lock_deposit_for_session(session: dict[str, Any]) -> Deposit | None:
    deposit = Deposit.objects.select_for_update().filter(checkout_session_id=session["id"]).first()
    if deposit is not None:
        return deposit
    # The webhook can beat our own write of the session id: fall back to our reference.
    reference = str(session.get("client_reference_id") or "")
    if not reference.isdigit():
        return None
    deposit = Deposit.objects.select_for_update().filter(pk=int(reference)).first()
    if deposit is None or deposit.checkout_session_id not in (None, session["id"]):
        return None
    return deposit


def _on_checkout_paid(session: dict[str, Any]) -> Outcome:
    ignored = StripeEvent.Outcome.IGNORED
    if session.get("mode") != "payment":
        return None, ignored, "not a payment session"
    deposit = _lock_deposit_for_session(session)
    if deposit is None:
        return None, ignored, "no deposit of ours for this session"
    if deposit.status == DepositStatus.PAID:
        return None, ignored, f"deposit {deposit.pk} already credited"
    if session.get("payment_status") not in ("paid", "no_payment_required"):
        return None, ignored, "payment not settled yet (async payment method)"
    amount, currency = session.get("amount_total"), str(session.get("currency", "")).lower()
    if amount != deposit.amount_minor or currency != "usd":
        logger.error(
            "deposit %s: Stripe session %s paid %s %s, expected %s usd; not credited",
            deposit.pk,
            session["id"],
            amount,
            currency,
            deposit.amount_minor,
        )
        return None, ignored, f"amount mismatch: {amount} {currency}"

    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    accounts, locked = lock_usd_accounts(deposit.user_id, AccountKind.AVAILABLE, AccountKind.DEBT)
    txn = record_transaction(
        kind=LedgerTransaction.Kind.DEPOSIT,
        currency=USD,
        # The verified event's amount equals ours (checked above); post ours, an int.
        legs=[
            (clearing, -deposit.amount_minor),
            (accounts[AccountKind.AVAILABLE], deposit.amount_minor),
        ],
        locked=locked,
        memo=f"deposit {deposit.pk} (Checkout {session['id']})",
        idempotency_key=f"deposit-{deposit.pk}",
    )
    settle_debt_locked(user_id=deposit.user_id, accounts=accounts, locked=locked)
    deposit.status = DepositStatus.PAID
    deposit.paid_at = timezone.now()
    deposit.checkout_session_id = session["id"]
    deposit.payment_intent_id = session.get("payment_intent") or None
    deposit.ledger_transaction = txn
    deposit.save(
        update_fields=[
            "status",
            "paid_at",
            "checkout_session_id",
            "payment_intent_id",
            "ledger_transaction",
        ]
    )
    return txn, StripeEvent.Outcome.PROCESSED, f"deposit {deposit.pk} credited {amount}"


def _close_unpaid(session: dict[str, Any], status: DepositStatus) -> Outcome:
    ignored = StripeEvent.Outcome.IGNORED
    deposit = _lock_deposit_for_session(session)
    if deposit is None:
        return None, ignored, "no deposit of ours for this session"
    if deposit.status not in (DepositStatus.CREATED, DepositStatus.OPEN):
        return None, ignored, f"deposit {deposit.pk} is already {deposit.status}"
    deposit.status = status
    deposit.save(update_fields=["status"])
    return None, StripeEvent.Outcome.PROCESSED, f"deposit {deposit.pk} {status}"


def _on_checkout_expired(session: dict[str, Any]) -> Outcome:
    return _close_unpaid(session, DepositStatus.EXPIRED)


def _on_checkout_failed(session: dict[str, Any]) -> Outcome:
    return _close_unpaid(session, DepositStatus.FAILED)


# --- Refunds and disputes -------------------------------------------------------------------


def _lock_deposit_for_payment(payment_intent_id: object, what: str) -> Deposit:
    deposit = None
    if isinstance(payment_intent_id, str) and payment_intent_id:
        deposit = (
            Deposit.objects.select_for_update().filter(payment_intent_id=payment_intent_id).first()
        )
    if deposit is None or deposit.status != DepositStatus.PAID:
        # Stripe does not order deliveries: the payment's checkout.session.completed may be
        # still on its way. Refuse without recording the event, so Stripe sends it again.
        raise EventOutOfOrder(f"{what} for payment {payment_intent_id!r}, not yet credited")
    return deposit


def _on_charge_refunded(charge: dict[str, Any]) -> Outcome:
    deposit = _lock_deposit_for_payment(charge.get("payment_intent"), "a refund")
    # amount_refunded is cumulative: an older event (smaller total) arriving late is a no-op.
    refunded_total = min(int(charge.get("amount_refunded") or 0), deposit.amount_minor)
    amount = refunded_total - deposit.refunded_minor
    if amount <= 0:
        return None, StripeEvent.Outcome.IGNORED, f"refund of {refunded_total} already applied"
    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    accounts, locked = lock_usd_accounts(deposit.user_id, AccountKind.AVAILABLE, AccountKind.DEBT)
    legs = debit_or_debt_legs(accounts=accounts, locked=locked, amount_minor=amount)
    txn = record_transaction(
        kind=LedgerTransaction.Kind.REFUND,
        currency=USD,
        legs=[*legs, (clearing, amount)],
        locked=locked,
        memo=f"refund of deposit {deposit.pk} (charge {charge.get('id')})",
        idempotency_key=f"refund-{deposit.pk}-{refunded_total}",
    )
    deposit.refunded_minor = refunded_total
    deposit.save(update_fields=["refunded_minor"])
    return txn, StripeEvent.Outcome.PROCESSED, f"deposit {deposit.pk} refunded {amount}"


def _on_dispute_created(dispute: dict[str, Any]) -> Outcome:
    deposit = _lock_deposit_for_payment(dispute.get("payment_intent"), "a dispute")
    if Dispute.objects.filter(dispute_id=dispute["id"]).exists():
        return None, StripeEvent.Outcome.IGNORED, "dispute already recorded"
    amount = min(int(dispute.get("amount") or 0), deposit.amount_minor)
    if amount <= 0:
        return None, StripeEvent.Outcome.IGNORED, "dispute without an amount"
    frozen = usd_system_account(AccountKind.DISPUTES)
    accounts, locked = lock_usd_accounts(deposit.user_id, AccountKind.AVAILABLE, AccountKind.DEBT)
    legs = debit_or_debt_legs(accounts=accounts, locked=locked, amount_minor=amount)
    txn = record_transaction(
        kind=LedgerTransaction.Kind.DISPUTE,
        currency=USD,
        legs=[*legs, (frozen, amount)],
        locked=locked,
        memo=f"dispute {dispute['id']} on deposit {deposit.pk}: frozen",
        idempotency_key=f"dispute-freeze-{dispute['id']}",
    )
    Dispute.objects.create(
        dispute_id=dispute["id"],
        deposit=deposit,
        amount_minor=amount,
        status=DisputeStatus.OPEN,
        freeze_transaction=txn,
    )
    return txn, StripeEvent.Outcome.PROCESSED, f"dispute froze {amount} of deposit {deposit.pk}"


def _on_dispute_closed(dispute: dict[str, Any]) -> Outcome:
    deposit = _lock_deposit_for_payment(dispute.get("payment_intent"), "a dispute")
    lost = dispute.get("status") == "lost"
    record = Dispute.objects.select_for_update().filter(dispute_id=dispute["id"]).first()
    if record is not None and record.status != DisputeStatus.OPEN:
        return None, StripeEvent.Outcome.IGNORED, f"dispute already {record.status}"
    # System accounts first: creating one while holding user-account locks could deadlock
    # with the engine, which gets the fee account before it locks user accounts.
    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    frozen = usd_system_account(AccountKind.DISPUTES) if record is not None else None
    accounts, locked = lock_usd_accounts(deposit.user_id, AccountKind.AVAILABLE, AccountKind.DEBT)
    key = f"dispute-close-{dispute['id']}"
    memo = f"dispute {dispute['id']} on deposit {deposit.pk}: {'lost' if lost else 'won'}"
    txn: LedgerTransaction | None = None
    if record is None:
        # Closed before its "created" arrived: a lost dispute takes the money now, a won one
        # never moved any; the late "created" then finds the closed record and does nothing.
        amount = min(int(dispute.get("amount") or 0), deposit.amount_minor)
        if lost and amount > 0:
            legs = debit_or_debt_legs(accounts=accounts, locked=locked, amount_minor=amount)
            txn = record_transaction(
                kind=LedgerTransaction.Kind.DISPUTE,
                currency=USD,
                legs=[*legs, (clearing, amount)],
                locked=locked,
                memo=memo,
                idempotency_key=key,
            )
        record = Dispute(dispute_id=dispute["id"], deposit=deposit, amount_minor=max(amount, 1))
    else:
        assert frozen is not None
        back_to = clearing if lost else accounts[AccountKind.AVAILABLE]
        txn = record_transaction(
            kind=LedgerTransaction.Kind.DISPUTE,
            currency=USD,
            legs=[(frozen, -record.amount_minor), (back_to, record.amount_minor)],
            locked=locked,
            memo=memo,
            idempotency_key=key,
        )
        if not lost:
            settle_debt_locked(user_id=deposit.user_id, accounts=accounts, locked=locked)
    record.status = DisputeStatus.LOST if lost else DisputeStatus.WON
    record.close_transaction = txn
    record.closed_at = timezone.now()
    if record.pk is None:
        record.save(force_insert=True)
    else:
        record.save(update_fields=["status", "close_transaction", "closed_at"])
    return txn, StripeEvent.Outcome.PROCESSED, memo


# --- Connect --------------------------------------------------------------------------------


def _on_account_updated(account: dict[str, Any]) -> Outcome:
    updated = ConnectedAccount.objects.filter(stripe_account_id=account.get("id")).update(
        charges_enabled=bool(account.get("charges_enabled")),
        payouts_enabled=bool(account.get("payouts_enabled")),
        details_submitted=bool(account.get("details_submitted")),
        refreshed_at=timezone.now(),
    )
    if not updated:
        return None, StripeEvent.Outcome.IGNORED, "not a connected account of ours"
    return None, StripeEvent.Outcome.PROCESSED, f"account {account.get('id')} refreshed"


def _on_v2_account_event(thin_event: dict[str, Any]) -> Outcome:
    """Any v2.core.account[...] notification: re-read the account and store its flags."""
    account_id = (thin_event.get("related_object") or {}).get("id")
    connected = ConnectedAccount.objects.filter(stripe_account_id=account_id).first()
    if connected is None:
        return None, StripeEvent.Outcome.IGNORED, "not a connected account of ours"
    # Raises StripeUnavailable when Stripe cannot answer: nothing is recorded, Stripe retries.
    refresh_account_flags(connected=connected)
    return None, StripeEvent.Outcome.PROCESSED, f"account {account_id} re-read"


_THIN_HANDLERS: dict[str, Handler] = {
    "v2.core.account": _on_v2_account_event,
}

_HANDLERS: dict[str, Handler] = {
    "checkout.session.completed": _on_checkout_paid,
    "checkout.session.async_payment_succeeded": _on_checkout_paid,
    "checkout.session.async_payment_failed": _on_checkout_failed,
    "checkout.session.expired": _on_checkout_expired,
    "charge.refunded": _on_charge_refunded,
    "charge.dispute.created": _on_dispute_created,
    "charge.dispute.closed": _on_dispute_closed,
    "account.updated": _on_account_updated,
}
# The only handlers that take events about connected accounts (``event.account`` set).
_CONNECT_HANDLERS: tuple[Handler, ...] = (_on_account_updated, _on_v2_account_event)
HANDLED_EVENT_TYPES = tuple(_HANDLERS)
