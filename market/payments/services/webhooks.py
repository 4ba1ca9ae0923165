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
from django.db import DatabaseError, DataError, IntegrityError, transaction
from django.utils import timezone

from market.models import Account, AccountKind, LedgerTransaction
from market.payments import stripe_client
from market.payments.exceptions import InvalidWebhook, LivemodeMismatch, PaymentsBusy
from market.payments.models import (
    ConnectedAccount,
    Deposit,
    DepositStatus,
    StripeEvent,
)
from market.payments.services import chargebacks
from market.payments.services import event_shapes as shapes
from market.payments.services.balances import (
    USD,
    lock_usd_accounts,
    settle_debt_locked,
    usd_system_account,
)
from market.payments.services.connect import refresh_account_flags
from market.payments.services.lots import create_deposit_lot
from market.services.ledger import record_transaction

logger = logging.getLogger(__name__)

Outcome = tuple[LedgerTransaction | None, StripeEvent.Outcome, str]
Handler = Callable[[dict[str, Any]], Outcome]


def handle_webhook(*, payload: bytes, signature_header: str) -> tuple[StripeEvent, bool]:
    """Verify a webhook delivery and process its event once; return (record, is_new).

    Raises InvalidWebhook (answer 400: bad signature, malformed event, the other mode's
    event), UsdDisabled, or a PlatformError (EventOutOfOrder, StripeUnavailable,
    PaymentsBusy: answer non-2xx so that Stripe delivers it again later). Whatever is
    raised, nothing was recorded.
    """
    try:
        body = stripe_client.verify_webhook(payload=payload, signature_header=signature_header)
    except stripe.SignatureVerificationError as error:
        raise InvalidWebhook(f"signature verification failed: {error.user_message}") from error
    except ValueError as error:
        raise InvalidWebhook("malformed webhook payload: not JSON") from error
    event = shapes.as_object(body, "the body")
    shapes.required_id(event, "id", "event")
    if not isinstance(event.get("type"), str) or not 1 <= len(event["type"]) <= 100:
        raise InvalidWebhook("malformed event: no type")
    if event.get("object") not in ("event", "v2.core.event"):
        raise InvalidWebhook("malformed event: not an event")
    livemode = event.get("livemode")
    if not isinstance(livemode, bool):
        raise InvalidWebhook("malformed event: livemode is not true or false")
    if livemode != stripe_client.server_livemode():
        # A live event on a test-key server (or the reverse) is a misconfigured endpoint:
        # its objects are not ours to act on.
        raise LivemodeMismatch(
            f"a {'live' if livemode else 'test'}-mode event on a "
            f"{'live' if stripe_client.server_livemode() else 'test'}-mode server"
        )
    shapes.optional_id(event, "account", "event")
    return process_event(event=event)


def _route(event: dict[str, Any]) -> tuple[Handler | None, dict[str, Any]]:
    type_ = event["type"]
    if event.get("object") == "v2.core.event":
        # Thin events carry no object, only a reference to re-read from the API.
        handler = _thin_handler(type_)
        if handler is not None:
            related = shapes.as_object(event.get("related_object"), "related_object")
            shapes.required_id(related, "id", "related_object")
        return handler, event
    handler = _HANDLERS.get(type_)
    if handler is None:
        return None, event
    data = shapes.as_object(event.get("data"), "data")
    return handler, shapes.as_object(data.get("object"), "data.object")


_USD_SYSTEM_KINDS = (
    AccountKind.FEES,
    AccountKind.STRIPE_CLEARING,
    AccountKind.DISPUTES,
    AccountKind.LOSSES,
    AccountKind.REVERSALS,
)


def _ensure_usd_system_accounts() -> None:
    """Create the USD system accounts, each committed on its own, before the event's
    transaction. Created inside it, an account's unique-index entry would be held until the
    event commits, while the handler then waits for a problem's lock; the engine, holding that
    problem, waits to create the same fees account: a deadlock on a fresh database (seen under
    load in tests/payments/test_debt_race.py)."""
    if transaction.get_connection().in_atomic_block:
        return  # a caller's transaction: it owns the order of its locks
    present = set(Account.objects.filter(owner=None, currency=USD).values_list("kind", flat=True))
    for kind in _USD_SYSTEM_KINDS:
        if kind not in present:
            usd_system_account(kind)


def process_event(*, event: dict[str, Any]) -> tuple[StripeEvent, bool]:
    """Apply a verified, well-formed event exactly once; return (its record, whether this
    call applied it)."""
    event_id = event["id"]
    existing = StripeEvent.objects.filter(event_id=event_id).first()
    if existing is not None:
        return existing, False
    _ensure_usd_system_accounts()
    try:
        with transaction.atomic():
            record = StripeEvent.objects.create(
                event_id=event_id,
                type=event["type"],
                livemode=event["livemode"],
                outcome=StripeEvent.Outcome.IGNORED,
            )
            handler, payload = _route(event)
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
    except IntegrityError as error:
        # A concurrent delivery of the same event committed first.
        existing = StripeEvent.objects.filter(event_id=event_id).first()
        if existing is not None:
            return existing, False
        logger.exception("stripe event %s conflicts with our records", event_id)
        raise InvalidWebhook("the event conflicts with our records") from error
    except DataError as error:
        logger.exception("stripe event %s has a value out of range", event_id)
        raise InvalidWebhook("malformed event: a value is out of range") from error
    except DatabaseError as error:
        # A deadlock victim, a lost connection: nothing was recorded; Stripe retries.
        logger.exception("stripe event %s: database error", event_id)
        raise PaymentsBusy("the event could not be applied now; deliver it again") from error
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as error:
        # A shape no check above foresaw: refused (rolled back, nothing recorded), logged for
        # a person, never a 500.
        logger.exception("stripe event %s could not be read", event_id)
        raise InvalidWebhook("malformed event: it could not be read") from error
    logger.info("stripe event %s %s: %s %s", event_id, record.type, outcome, detail)
    return record, True


# --- Checkout -------------------------------------------------------------------------------


def _lock_deposit_for_session(session_id: str, session: dict[str, Any]) -> Deposit | None:
    reference = shapes.optional_str(session, "client_reference_id", "session")
    deposit = (
        Deposit.objects.select_for_update(no_key=True)
        .filter(checkout_session_id=session_id)
        .first()
    )
    if deposit is not None:
        return deposit
    # The webhook can beat our own write of the session id: fall back to our reference.
    if not (reference.isascii() and reference.isdigit() and len(reference) <= 18):
        return None
    deposit = Deposit.objects.select_for_update(no_key=True).filter(pk=int(reference)).first()
    if deposit is None or deposit.checkout_session_id not in (None, session_id):
        return None
    return deposit


def _on_checkout_paid(session: dict[str, Any]) -> Outcome:
    ignored = StripeEvent.Outcome.IGNORED
    session_id = shapes.required_id(session, "id", "session")
    payment_intent = shapes.optional_id(session, "payment_intent", "session")
    amount = shapes.amount(session, "amount_total", "session")
    currency = shapes.optional_str(session, "currency", "session").lower()
    if session.get("mode") != "payment":
        return None, ignored, "not a payment session"
    deposit = _lock_deposit_for_session(session_id, session)
    if deposit is None:
        return None, ignored, "no deposit of ours for this session"
    if deposit.status == DepositStatus.PAID:
        return None, ignored, f"deposit {deposit.pk} already credited"
    if session.get("payment_status") not in ("paid", "no_payment_required"):
        return None, ignored, "payment not settled yet (async payment method)"
    if amount != deposit.amount_minor or currency != "usd":
        logger.error(
            "deposit %s: Stripe session %s paid %s %s, expected %s usd; not credited",
            deposit.pk,
            session_id,
            amount,
            currency,
            deposit.amount_minor,
        )
        return None, ignored, f"amount mismatch: {amount} {currency}"
    if (
        payment_intent is not None
        and Deposit.objects.filter(payment_intent_id=payment_intent).exclude(pk=deposit.pk).exists()
    ):
        # One payment cannot fund two deposits. Never valid, however often Stripe sends it:
        # recorded (so it is not retried for days) and left to a person.
        logger.error(
            "deposit %s: payment %s already belongs to another deposit; not credited",
            deposit.pk,
            payment_intent,
        )
        return None, ignored, f"payment {payment_intent} already funds another deposit"

    clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
    accounts, locked = lock_usd_accounts(deposit.user_id, AccountKind.AVAILABLE, AccountKind.DEBT)
    txn = record_transaction(
        kind=LedgerTransaction.Kind.DEPOSIT,
        currency=USD,
        # The verified event's amount equals ours (checked above); post ours.
        legs=[
            (clearing, -deposit.amount_minor),
            (accounts[AccountKind.AVAILABLE], deposit.amount_minor),
        ],
        locked=locked,
        memo=f"deposit {deposit.pk} (Checkout {session_id})",
        idempotency_key=f"deposit-{deposit.pk}",
    )
    settle_debt_locked(user_id=deposit.user_id, accounts=accounts, locked=locked)
    create_deposit_lot(deposit)
    deposit.status = DepositStatus.PAID
    deposit.paid_at = timezone.now()
    deposit.checkout_session_id = session_id
    deposit.payment_intent_id = payment_intent
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
    deposit = _lock_deposit_for_session(shapes.required_id(session, "id", "session"), session)
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


# --- Connect --------------------------------------------------------------------------------


def _on_account_updated(account: dict[str, Any]) -> Outcome:
    account_id = shapes.required_id(account, "id", "account")
    updated = ConnectedAccount.objects.filter(stripe_account_id=account_id).update(
        charges_enabled=account.get("charges_enabled") is True,
        payouts_enabled=account.get("payouts_enabled") is True,
        details_submitted=account.get("details_submitted") is True,
        refreshed_at=timezone.now(),
    )
    if not updated:
        return None, StripeEvent.Outcome.IGNORED, "not a connected account of ours"
    return None, StripeEvent.Outcome.PROCESSED, f"account {account_id} refreshed"


def _on_v2_account_event(thin_event: dict[str, Any]) -> Outcome:
    """A v2.core.account notification (``.updated``, ``[...].updated``): re-read the account
    and store its flags."""
    account_id = thin_event["related_object"]["id"]  # checked by _route
    connected = ConnectedAccount.objects.filter(stripe_account_id=account_id).first()
    if connected is None:
        return None, StripeEvent.Outcome.IGNORED, "not a connected account of ours"
    # Raises StripeUnavailable when Stripe cannot answer: nothing is recorded, Stripe retries.
    refresh_account_flags(connected=connected)
    return None, StripeEvent.Outcome.PROCESSED, f"account {account_id} re-read"


def _on_v2_account_closed(thin_event: dict[str, Any]) -> Outcome:
    """v2.core.account.closed: nothing more can be transferred to it (no need to ask)."""
    account_id = thin_event["related_object"]["id"]  # checked by _route
    updated = ConnectedAccount.objects.filter(stripe_account_id=account_id).update(
        charges_enabled=False,
        payouts_enabled=False,
        details_submitted=False,
        refreshed_at=timezone.now(),
    )
    if not updated:
        return None, StripeEvent.Outcome.IGNORED, "not a connected account of ours"
    return None, StripeEvent.Outcome.PROCESSED, f"account {account_id} closed"


def _thin_handler(type_: str) -> Handler | None:
    if type_ == "v2.core.account.closed":
        return _on_v2_account_closed
    # v2.core.account.created/.updated and v2.core.account[<part>].updated etc.
    if type_.startswith(("v2.core.account.", "v2.core.account[")):
        return _on_v2_account_event
    return None


_HANDLERS: dict[str, Handler] = {
    "checkout.session.completed": _on_checkout_paid,
    "checkout.session.async_payment_succeeded": _on_checkout_paid,
    "checkout.session.async_payment_failed": _on_checkout_failed,
    "checkout.session.expired": _on_checkout_expired,
    "charge.refunded": chargebacks.on_charge_refunded,
    "charge.dispute.created": chargebacks.on_dispute_created,
    "charge.dispute.closed": chargebacks.on_dispute_closed,
    "account.updated": _on_account_updated,
}
# The only handlers that take events about connected accounts (``event.account`` set).
_CONNECT_HANDLERS: tuple[Handler, ...] = (
    _on_account_updated,
    _on_v2_account_event,
    _on_v2_account_closed,
)
HANDLED_EVENT_TYPES = tuple(_HANDLERS)
