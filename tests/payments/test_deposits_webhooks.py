"""Deposits: a Checkout Session through the fake transport, credited only by a verified,
once-only webhook."""

from __future__ import annotations

import time

import pytest
import stripe

from market.exceptions import PlatformError
from market.models import AccountKind, LedgerTransaction
from market.payments.exceptions import (
    EventOutOfOrder,
    IdempotencyKeyReused,
    InvalidAmount,
    InvalidWebhook,
    StripeRefused,
    StripeUnavailable,
)
from market.payments.models import Deposit, DepositStatus, StripeEvent
from market.payments.services.deposits import create_deposit_session
from market.payments.services.webhooks import handle_webhook
from tests.factories import UserFactory
from tests.market.helpers import balance, snapshot
from tests.payments import fakes
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    event,
    sign,
)

pytestmark = pytest.mark.django_db

SUCCESS, CANCEL = "https://market.test/ok?s={CHECKOUT_SESSION_ID}", "https://market.test/no"


def open_deposit(fake, user, amount=2_500, session_id="cs_test_1", key=None) -> Deposit:
    fake.answer("POST", "/v1/checkout/sessions", 200, fakes.checkout_session(session_id))
    return create_deposit_session(
        user=user, amount_minor=amount, success_url=SUCCESS, cancel_url=CANCEL, idempotency_key=key
    )


def deliver(evt, **kwargs):
    payload, header = sign(evt, **kwargs)
    return handle_webhook(payload=payload, signature_header=header)


def test_create_deposit_session_sends_amount_reference_and_our_idempotency_key(fake_stripe):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user, amount=2_500)

    assert deposit.status == DepositStatus.OPEN
    assert deposit.checkout_session_id == "cs_test_1"
    assert deposit.checkout_url == "https://checkout.stripe.com/c/pay/cs_test_1"
    [sent] = fake_stripe.requests
    assert sent.method == "POST" and sent.path == "/v1/checkout/sessions"
    assert sent.idempotency_key == f"deposit-{deposit.pk}"
    assert sent.headers["Authorization"] == "Bearer sk_test_formalmarket_fake"
    form = sent.form
    assert form["mode"] == "payment"
    assert form["line_items[0][price_data][unit_amount]"] == "2500"
    assert form["line_items[0][price_data][currency]"] == "usd"
    assert form["line_items[0][quantity]"] == "1"
    assert form["client_reference_id"] == str(deposit.pk)
    assert form["metadata[deposit_id]"] == str(deposit.pk)
    assert form["success_url"] == SUCCESS
    # Nothing is credited by creating a session.
    assert balance(user, currency="USD") == 0
    assert LedgerTransaction.objects.count() == 0


def test_deposit_replay_with_same_key_returns_same_deposit_without_calling_stripe(fake_stripe):
    user = UserFactory()
    first = open_deposit(fake_stripe, user, key="k-1")
    again = create_deposit_session(
        user=user, amount_minor=2_500, success_url=SUCCESS, cancel_url=CANCEL, idempotency_key="k-1"
    )
    assert again.pk == first.pk
    assert len(fake_stripe.requests) == 1
    with pytest.raises(IdempotencyKeyReused):
        create_deposit_session(
            user=user,
            amount_minor=999,
            success_url=SUCCESS,
            cancel_url=CANCEL,
            idempotency_key="k-1",
        )
    assert Deposit.objects.count() == 1


@pytest.mark.parametrize("amount", [0, 499, 100_001, "25"])
def test_deposit_amount_outside_policy_is_refused_before_stripe(fake_stripe, amount):
    with pytest.raises(InvalidAmount):
        create_deposit_session(
            user=UserFactory(), amount_minor=amount, success_url=SUCCESS, cancel_url=CANCEL
        )
    assert fake_stripe.requests == []
    assert Deposit.objects.count() == 0


def test_card_error_on_session_creation_is_refused_and_nothing_is_credited(fake_stripe):
    user = UserFactory()
    fake_stripe.answer(
        "POST",
        "/v1/checkout/sessions",
        402,
        fakes.error(402, "card_error", "card_declined", "Your card was declined."),
    )
    before = snapshot()
    with pytest.raises(StripeRefused) as caught:
        create_deposit_session(
            user=user, amount_minor=2_500, success_url=SUCCESS, cancel_url=CANCEL
        )
    assert caught.value.stripe_code == "card_declined"
    assert snapshot() == before
    assert Deposit.objects.count() == 0  # nothing is written when a deposit cannot start


def test_declined_card_on_the_checkout_page_credits_nothing_and_the_session_expires(
    fake_stripe,
):
    """Checkout shows the decline to the payer; we only see events, and never credit."""
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user)
    failed = {
        "id": f"pi_for_{deposit.pk}",
        "object": "payment_intent",
        "amount": 2_500,
        "status": "requires_payment_method",
        "last_payment_error": {"type": "card_error", "code": "card_declined"},
        "metadata": {"deposit_id": str(deposit.pk)},
    }
    record, _ = deliver(event("payment_intent.payment_failed", failed))
    assert record.outcome == StripeEvent.Outcome.IGNORED
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.OPEN
    deliver(event("checkout.session.expired", completed_session(deposit, payment_status="unpaid")))
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.EXPIRED
    assert balance(user, currency="USD") == 0
    assert LedgerTransaction.objects.count() == 0
    assert_payments_invariants()


def test_stripe_500_writes_nothing_and_a_replay_starts_afresh(fake_stripe):
    """A deposit that cannot be started writes nothing (no row, no ledger) and the message
    names no host; the same client key then starts a new deposit with its own Stripe key (a
    session Stripe may have made for the lost answer was never shown and expires unused)."""
    user = UserFactory()
    fake_stripe.answer(
        "POST",
        "/v1/checkout/sessions",
        500,
        fakes.error(500, "api_error", None, "boom at api.stripe.com resolver"),
    )
    before = snapshot()
    with pytest.raises(StripeUnavailable) as caught:
        create_deposit_session(
            user=user,
            amount_minor=2_500,
            success_url=SUCCESS,
            cancel_url=CANCEL,
            idempotency_key="k",
        )
    assert isinstance(caught.value, PlatformError)
    assert "stripe.com" not in caught.value.message and "boom" not in caught.value.message
    assert Deposit.objects.count() == 0 and snapshot() == before
    deposit = open_deposit(fake_stripe, user, key="k")
    keys = [r.idempotency_key for r in fake_stripe.requests]
    assert keys == [f"deposit-{deposit.pk - 1}", f"deposit-{deposit.pk}"]
    assert deposit.status == DepositStatus.OPEN
    assert Deposit.objects.count() == 1


def test_library_retries_a_500_with_the_same_key(fake_stripe, settings):
    settings.STRIPE_MAX_NETWORK_RETRIES = 1
    fake_stripe.answer(
        "POST", "/v1/checkout/sessions", 500, fakes.error(500, "api_error", None, "boom")
    )
    deposit = open_deposit(fake_stripe, UserFactory())
    assert [r.idempotency_key for r in fake_stripe.requests] == [f"deposit-{deposit.pk}"] * 2
    assert deposit.status == DepositStatus.OPEN


def test_completed_webhook_credits_the_deposit_once(fake_stripe):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user, amount=2_500)
    evt = event("checkout.session.completed", completed_session(deposit))

    record, is_new = deliver(evt)

    assert is_new and record.outcome == StripeEvent.Outcome.PROCESSED
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.PAID
    assert deposit.payment_intent_id == f"pi_for_{deposit.pk}"
    assert balance(user, currency="USD") == 2_500
    assert record.ledger_transaction == deposit.ledger_transaction
    assert_payments_invariants()

    # Replayed (Stripe retry of the same event): 200, nothing moves.
    before = snapshot()
    record2, is_new2 = deliver(evt)
    assert not is_new2 and record2.pk == record.pk
    assert snapshot() == before
    # A different event for the same session (async_payment_succeeded): nothing moves.
    other, is_new3 = deliver(
        event("checkout.session.async_payment_succeeded", completed_session(deposit))
    )
    assert is_new3 and other.outcome == StripeEvent.Outcome.IGNORED
    assert snapshot() == before
    assert StripeEvent.objects.count() == 2


def test_async_payment_waits_for_async_payment_succeeded(fake_stripe):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user)
    deliver(
        event("checkout.session.completed", completed_session(deposit, payment_status="unpaid"))
    )
    assert balance(user, currency="USD") == 0
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.OPEN
    deliver(event("checkout.session.async_payment_succeeded", completed_session(deposit)))
    assert balance(user, currency="USD") == 2_500
    assert_payments_invariants()


def test_async_payment_failed_marks_failed_and_credits_nothing(fake_stripe):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user)
    deliver(
        event("checkout.session.completed", completed_session(deposit, payment_status="unpaid"))
    )
    deliver(
        event(
            "checkout.session.async_payment_failed",
            completed_session(deposit, payment_status="unpaid"),
        )
    )
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.FAILED
    assert balance(user, currency="USD") == 0
    assert LedgerTransaction.objects.count() == 0


def test_expired_session_is_closed_and_a_late_expiry_never_undoes_a_payment(fake_stripe):
    user = UserFactory()
    expired = open_deposit(fake_stripe, user, session_id="cs_a")
    deliver(event("checkout.session.expired", completed_session(expired, payment_status="unpaid")))
    expired.refresh_from_db()
    assert expired.status == DepositStatus.EXPIRED

    paid = open_deposit(fake_stripe, user, session_id="cs_b")
    deliver(event("checkout.session.completed", completed_session(paid)))
    deliver(event("checkout.session.expired", completed_session(paid, payment_status="unpaid")))
    paid.refresh_from_db()
    assert paid.status == DepositStatus.PAID
    assert balance(user, currency="USD") == 2_500
    assert_payments_invariants()


def test_webhook_before_our_session_id_write_is_matched_by_client_reference(fake_stripe):
    user = UserFactory()
    deposit = Deposit.objects.create(user=user, amount_minor=1_000)  # Stripe not answered yet
    session = completed_session(deposit) | {"id": "cs_early"}
    deliver(event("checkout.session.completed", session))
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.PAID and deposit.checkout_session_id == "cs_early"
    assert balance(user, currency="USD") == 1_000


def test_amount_mismatch_is_not_credited(fake_stripe):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user, amount=2_500)
    record, _ = deliver(
        event("checkout.session.completed", completed_session(deposit, amount=9_999))
    )
    assert record.outcome == StripeEvent.Outcome.IGNORED
    assert balance(user, currency="USD") == 0


def test_unknown_event_types_are_recorded_as_ignored():
    record, is_new = deliver(
        event("payment_intent.created", {"id": "pi_x", "object": "payment_intent"})
    )
    assert is_new and record.outcome == StripeEvent.Outcome.IGNORED
    assert LedgerTransaction.objects.count() == 0


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        ("body", "No signatures found matching the expected signature"),
        ("wrong_secret", "No signatures found matching the expected signature"),
        ("stale", "Timestamp outside the tolerance zone"),
        ("missing_header", "No Stripe-Signature header value was provided"),
        ("not_json", "malformed webhook payload"),
    ],
)
def test_bad_deliveries_are_refused_and_change_nothing(fake_stripe, tamper, reason):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user)
    evt = event("checkout.session.completed", completed_session(deposit))
    payload, header = sign(evt)
    if tamper == "body":
        payload = payload.replace(b'"amount_total": 2500', b'"amount_total": 2501')
    elif tamper == "wrong_secret":
        payload, header = sign(evt, secret="whsec_someone_else")
    elif tamper == "stale":
        payload, header = sign(evt, timestamp=int(time.time()) - 301)
    elif tamper == "missing_header":
        header = ""
    elif tamper == "not_json":
        payload = b"not json"
        header = stripe.WebhookSignature.generate_signature_header(
            "not json", "whsec_test_formalmarket"
        )
    before = snapshot()
    with pytest.raises(InvalidWebhook) as caught:
        handle_webhook(payload=payload, signature_header=header)
    assert reason in caught.value.message
    assert snapshot() == before
    assert StripeEvent.objects.count() == 0
    assert balance(user, currency="USD") == 0


def test_signature_within_tolerance_is_accepted(fake_stripe):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user)
    deliver(
        event("checkout.session.completed", completed_session(deposit)),
        timestamp=int(time.time()) - 250,
    )
    assert balance(user, currency="USD") == 2_500


def test_replayed_signature_of_an_old_event_is_refused_even_if_new_to_us(fake_stripe):
    """An attacker who captured a delivery cannot replay it after the tolerance window."""
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user)
    payload, header = sign(
        event("checkout.session.completed", completed_session(deposit)),
        timestamp=int(time.time()) - 3600,
    )
    with pytest.raises(InvalidWebhook):
        handle_webhook(payload=payload, signature_header=header)
    assert balance(user, currency="USD") == 0


def test_refund_arriving_before_completion_is_deferred_then_applied(fake_stripe):
    user = UserFactory()
    deposit = open_deposit(fake_stripe, user, amount=2_500)
    refund = event("charge.refunded", charge_refunded(deposit, 2_500))
    with pytest.raises(EventOutOfOrder):
        deliver(refund)
    assert StripeEvent.objects.count() == 0  # not recorded: Stripe will deliver it again
    deliver(event("checkout.session.completed", completed_session(deposit)))
    deliver(refund)  # Stripe's retry
    assert balance(user, currency="USD") == 0
    assert balance(user, AccountKind.DEBT, currency="USD") == 0
    assert_payments_invariants()
