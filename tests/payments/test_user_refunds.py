"""A user's refund of unspent deposited USD, through the real ``stripe`` library's Refund API
(at the offline HTTP seam), and how it meets Stripe's own refund and dispute events."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from market.exceptions import NotFound
from market.models import AccountKind
from market.money import Currency, Money
from market.payments.exceptions import NotRefundable, StripeUnavailable
from market.payments.models import Deposit, DepositRefund, DepositStatus, RefundStatus
from market.payments.services.refunds import (
    fail_deposit_refund,
    request_deposit_refund,
    send_deposit_refund,
)
from market.payments.services.webhooks import handle_webhook
from market.services.orders import place_bid
from tests.factories import ProblemFactory, UserFactory
from tests.market.helpers import balance, snapshot
from tests.payments import fakes
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    dispute,
    earn_proceeds,
    event,
    sign,
)

pytestmark = pytest.mark.django_db

_sessions = iter(range(1, 10_000))


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def deliver(evt):
    payload, header = sign(evt)
    return handle_webhook(payload=payload, signature_header=header)


def paid_deposit(user, amount) -> Deposit:
    deposit = Deposit.objects.create(
        user=user,
        amount_minor=amount,
        checkout_session_id=f"cs_ur_{next(_sessions)}",
        status=DepositStatus.OPEN,
    )
    deliver(event("checkout.session.completed", completed_session(deposit)))
    deposit.refresh_from_db()
    return deposit


def stripe_refund(refund: DepositRefund, status: str = "succeeded") -> dict[str, Any]:
    return {
        "id": f"re_{refund.pk}",
        "object": "refund",
        "amount": refund.amount_minor,
        "currency": "usd",
        "status": status,
        "payment_intent": refund.deposit.payment_intent_id,
        "metadata": {"deposit_refund_id": str(refund.pk), "deposit_id": str(refund.deposit_id)},
    }


def test_a_refund_goes_to_the_original_payment_with_our_idempotency_key(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)

    refund = request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=2_000)
    # The money leaves the balance at once; the deposit counts it as refunded.
    assert usd(user) == 3_000
    deposit.refresh_from_db()
    assert deposit.refunded_minor == 2_000
    assert refund.status == RefundStatus.REQUESTED
    assert_payments_invariants()

    fake_stripe.answer("POST", "/v1/refunds", 200, stripe_refund(refund))
    done = send_deposit_refund(refund_id=refund.pk)

    (sent,) = fake_stripe.requests_to("POST", "/v1/refunds")
    assert sent.idempotency_key == f"deposit-refund-{refund.pk}"
    assert sent.form["payment_intent"] == deposit.payment_intent_id
    assert sent.form["amount"] == "2000"
    assert sent.form["metadata[deposit_refund_id]"] == str(refund.pk)
    assert done.status == RefundStatus.SUCCEEDED and done.stripe_refund_id == f"re_{refund.pk}"
    assert usd(user) == 3_000

    # Stripe's own charge.refunded for it, early or late, moves nothing more.
    before = snapshot()
    record, _ = deliver(event("charge.refunded", charge_refunded(deposit, 2_000)))
    assert record.outcome == "ignored" and snapshot() == before
    assert_payments_invariants()


def test_charge_refunded_arriving_before_stripe_answers_is_a_no_op(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    refund = request_deposit_refund(user=user, deposit_id=deposit.pk)  # all of it
    assert refund.amount_minor == 5_000 and usd(user) == 0
    before = snapshot()

    deliver(event("charge.refunded", charge_refunded(deposit, 5_000)))
    assert snapshot() == before

    fake_stripe.answer("POST", "/v1/refunds", 200, stripe_refund(refund))
    assert send_deposit_refund(refund_id=refund.pk).status == RefundStatus.SUCCEEDED
    assert snapshot() == before
    assert_payments_invariants()


def test_a_refused_refund_puts_the_money_back_with_stripes_words_only(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    refund = request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=5_000)
    fake_stripe.answer(
        "POST",
        "/v1/refunds",
        400,
        fakes.error(400, "invalid_request_error", "charge_disputed", ""),
    )

    done = send_deposit_refund(refund_id=refund.pk)

    assert done.status == RefundStatus.FAILED and done.failure_code == "charge_disputed"
    assert done.failure_message == "Stripe refused the request."
    assert usd(user) == 5_000
    deposit.refresh_from_db()
    assert deposit.refunded_minor == 0
    assert_payments_invariants()


def test_a_refund_stripe_reports_failed_puts_the_money_back(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    refund = request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=1_000)
    fake_stripe.answer("POST", "/v1/refunds", 200, stripe_refund(refund, status="failed"))
    assert send_deposit_refund(refund_id=refund.pk).status == RefundStatus.FAILED
    assert usd(user) == 5_000
    assert_payments_invariants()


def test_stripe_500_keeps_the_refund_requested_and_a_retry_finds_the_earlier_refund(
    fake_stripe,
):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    refund = request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=1_000)
    fake_stripe.answer("POST", "/v1/refunds", 500, fakes.error(500, "api_error", None, "boom"))

    with pytest.raises(StripeUnavailable) as caught:
        send_deposit_refund(refund_id=refund.pk)
    assert "boom" not in caught.value.message
    assert DepositRefund.objects.get(pk=refund.pk).status == RefundStatus.REQUESTED
    assert usd(user) == 4_000

    # The answer was lost but Stripe made the refund: the retry finds it, refunds nothing twice.
    fake_stripe.answer(
        "GET",
        "/v1/refunds",
        200,
        {"object": "list", "data": [stripe_refund(refund)], "has_more": False},
    )
    done = send_deposit_refund(refund_id=refund.pk)
    assert done.status == RefundStatus.SUCCEEDED
    assert len(fake_stripe.requests_to("POST", "/v1/refunds")) == 1
    assert usd(user) == 4_000
    assert_payments_invariants()


def test_spent_money_and_proceeds_cannot_be_refunded_and_a_refusal_changes_nothing(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    earn_proceeds(user, 4_000)
    problem = ProblemFactory(currency=Currency.USD)
    place_bid(buyer=user, problem=problem, price=Money(3_000, Currency.USD), quantity=1)
    # Deposit first: 2 000 of the deposit is left; the 4 000 of proceeds are not refundable.
    before = snapshot()

    with pytest.raises(NotRefundable) as caught:
        request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=2_001)
    assert "20.00 USD" in caught.value.message
    with pytest.raises(NotFound):
        request_deposit_refund(user=UserFactory(), deposit_id=deposit.pk)
    assert snapshot() == before and DepositRefund.objects.count() == 0

    refund = request_deposit_refund(user=user, deposit_id=deposit.pk)
    assert refund.amount_minor == 2_000
    assert fake_stripe.requests == []  # sent by the task after commit
    assert_payments_invariants()


def test_refunds_and_disputes_together_never_take_more_than_the_deposit(fake_stripe):
    """A full refund followed by a lost dispute used to take back twice the deposit."""
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    paid_deposit(user, 3_000)  # other money the dispute must not reach
    deliver(event("charge.refunded", charge_refunded(deposit, 3_000)))
    assert usd(user) == 3_000

    deliver(event("charge.dispute.created", dispute(deposit, "dp_twice", 3_000, "needs_response")))
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_twice", 3_000, "lost")))

    assert usd(user) == 3_000 and usd(user, AccountKind.DEBT) == 0
    assert_payments_invariants()


def test_a_user_refund_then_a_dispute_freezes_only_what_is_left(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 3_000)
    paid_deposit(user, 2_000)
    request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=1_000)
    assert usd(user) == 4_000
    with pytest.raises(NotRefundable):
        request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=2_001)

    deliver(event("charge.dispute.created", dispute(deposit, "dp_left", 3_000, "needs_response")))

    assert usd(user) == 2_000  # 2 000 frozen, not 3 000
    with pytest.raises(NotRefundable):
        request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=1)
    assert_payments_invariants()


def test_an_outside_refund_hidden_by_a_refused_request_is_posted_when_it_fails(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    refund = request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=2_000)
    # Meanwhile someone refunds 1 500 in Stripe's dashboard: our total (2 000) hides it.
    deliver(event("charge.refunded", charge_refunded(deposit, 1_500)))
    assert usd(user) == 3_000

    fail_deposit_refund(refund_id=refund.pk, code="x", message="refused")

    assert usd(user) == 3_500  # 2 000 back, then the outside 1 500 taken
    deposit.refresh_from_db()
    assert deposit.refunded_minor == 1_500
    assert_payments_invariants()


def test_the_refund_api_and_its_idempotency_key(fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    client = APIClient()
    client.force_authenticate(user)
    url = f"/payments/api/deposits/{deposit.pk}/refund/"

    first = client.post(url, {"amount_minor": 1_000}, format="json", HTTP_IDEMPOTENCY_KEY="r1")
    again = client.post(url, {"amount_minor": 1_000}, format="json", HTTP_IDEMPOTENCY_KEY="r1")
    too_much = client.post(url, {"amount_minor": 9_000}, format="json")

    assert first.status_code == 201 and first.json()["status"] == "requested"
    assert again.json()["id"] == first.json()["id"]
    assert too_much.status_code == 409
    assert too_much.json()["error"]["code"] == "payments:not-refundable"
    assert usd(user) == 4_000
    listed = client.get("/payments/api/refunds/").json()["results"]
    assert [r["amount_minor"] for r in listed] == [1_000]
    assert_payments_invariants()


def test_the_refund_form(client, fake_stripe):
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    client.force_login(user)

    answer = client.post(
        "/payments/refund/", {"deposit_id": str(deposit.pk), "amount": "12.50"}, follow=True
    )

    assert "Refund of 12.50 USD requested" in answer.content.decode()
    assert usd(user) == 3_750
    bad = client.post("/payments/refund/", {"deposit_id": "x", "amount": ""}, follow=True)
    assert "no such deposit" in bad.content.decode()
    assert usd(user) == 3_750
