"""The transfer task on a real Celery worker (Redis broker), enqueued after commit."""

from __future__ import annotations

import pytest

from market.models import AccountKind
from market.payments.models import (
    ConnectedAccount,
    Withdrawal,
    WithdrawalStatus,
)
from market.payments.services.withdrawals import request_withdrawal
from tests.factories import UserFactory
from tests.market.helpers import balance
from tests.payments import fakes
from tests.payments.helpers import assert_payments_invariants, earn_proceeds
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for_status(withdrawal_id: int, timeout_s: float = 30.0) -> Withdrawal:
    return wait_until(
        lambda: (
            Withdrawal.objects.exclude(status=WithdrawalStatus.REQUESTED)
            .filter(pk=withdrawal_id)
            .first()
        ),
        f"withdrawal {withdrawal_id} to leave REQUESTED",
        timeout=timeout_s,
    )


def funded_seller(amount: int):
    user = UserFactory()
    # Withdrawals pay out sale proceeds only (deposits go back as refunds).
    earn_proceeds(user, amount)
    ConnectedAccount.objects.create(
        user=user, stripe_account_id=f"acct_{user.pk}", payouts_enabled=True
    )
    return user


def test_worker_sends_the_transfer_after_commit(celery_worker, fake_stripe):
    user = funded_seller(10_000)
    fake_stripe.answer("POST", "/v1/transfers", 200, fakes.transfer("tr_w", 4_975, "acct"))

    withdrawal = request_withdrawal(user=user, amount_minor=5_000)
    done = wait_for_status(withdrawal.pk)

    assert done.status == WithdrawalStatus.PAID and done.transfer_id == "tr_w"
    [sent] = fake_stripe.requests
    assert sent.idempotency_key == f"payout-{withdrawal.pk}" and sent.form["amount"] == "4975"
    assert balance(user, AccountKind.HELD, currency="USD") == 0
    assert_payments_invariants()


def test_worker_retries_a_500_with_the_same_key_then_pays(celery_worker, fake_stripe):
    user = funded_seller(10_000)
    fake_stripe.answer("POST", "/v1/transfers", 500, fakes.error(500, "api_error", None, "boom"))
    fake_stripe.answer("GET", "/v1/transfers", 200, {"object": "list", "data": []})
    fake_stripe.answer("POST", "/v1/transfers", 200, fakes.transfer("tr_r", 2_975, "acct"))

    withdrawal = request_withdrawal(user=user, amount_minor=3_000)
    done = wait_for_status(withdrawal.pk)

    assert done.status == WithdrawalStatus.PAID and done.attempts == 2
    posts = fake_stripe.requests_to("POST", "/v1/transfers")
    assert [r.idempotency_key for r in posts] == [f"payout-{withdrawal.pk}"] * 2
    # The retry looked for an earlier transfer before creating one.
    assert len(fake_stripe.requests_to("GET", "/v1/transfers")) == 1
    assert balance(user, currency="USD") == 7_000
    assert_payments_invariants()


def test_worker_releases_funds_when_the_transfer_is_refused(celery_worker, fake_stripe):
    user = funded_seller(10_000)
    fake_stripe.answer(
        "POST",
        "/v1/transfers",
        400,
        fakes.error(400, "invalid_request_error", "account_invalid", "No such destination"),
    )
    withdrawal = request_withdrawal(user=user, amount_minor=3_000)
    done = wait_for_status(withdrawal.pk)
    assert done.status == WithdrawalStatus.FAILED and done.failure_code == "account_invalid"
    assert balance(user, currency="USD") == 10_000
    assert balance(user, AccountKind.HELD, currency="USD") == 0
    assert_payments_invariants()


def test_worker_sends_a_users_refund_after_commit_and_retries_a_500(celery_worker, fake_stripe):
    from market.payments.models import Deposit, DepositRefund, DepositStatus, RefundStatus
    from market.payments.services.refunds import request_deposit_refund
    from market.payments.services.webhooks import handle_webhook
    from tests.payments.helpers import completed_session, event, sign

    user = UserFactory()
    deposit = Deposit.objects.create(
        user=user, amount_minor=4_000, checkout_session_id="cs_wk_r", status=DepositStatus.OPEN
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    handle_webhook(payload=payload, signature_header=header)
    deposit.refresh_from_db()
    fake_stripe.answer("POST", "/v1/refunds", 500, fakes.error(500, "api_error", None, "boom"))
    fake_stripe.answer("GET", "/v1/refunds", 200, {"object": "list", "data": []})
    fake_stripe.answer(
        "POST",
        "/v1/refunds",
        200,
        {"id": "re_wk", "object": "refund", "amount": 1_500, "status": "pending"},
    )

    refund = request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=1_500)
    wait_until(
        lambda: DepositRefund.objects.get(pk=refund.pk).status != RefundStatus.REQUESTED,
        "the refund to leave REQUESTED",
        timeout=30,
    )

    done = DepositRefund.objects.get(pk=refund.pk)
    assert done.status == RefundStatus.SUCCEEDED and done.stripe_refund_id == "re_wk"
    posts = fake_stripe.requests_to("POST", "/v1/refunds")
    assert [r.idempotency_key for r in posts] == [f"deposit-refund-{refund.pk}"] * 2
    assert balance(user, currency="USD") == 2_500
    assert_payments_invariants()


def test_worker_asks_a_paid_out_transfer_back_after_the_refund_commits(celery_worker, fake_stripe):
    from market.payments.models import TransferReversal, TransferReversalStatus
    from market.payments.services.proceeds import release_matured_proceeds
    from tests.payments.helpers import charge_refunded, event
    from tests.payments.test_provenance import after_window, deliver, paid_deposit, sell_to

    seller = UserFactory()
    ConnectedAccount.objects.create(
        user=seller, stripe_account_id=f"acct_{seller.pk}", payouts_enabled=True
    )
    deposit = paid_deposit(UserFactory(), 10_000)
    sell_to(deposit.user, seller, 10_000)
    release_matured_proceeds(now=after_window())
    fake_stripe.answer("POST", "/v1/transfers", 200, fakes.transfer("tr_rv", 9_475, "acct"))
    withdrawal = request_withdrawal(user=seller, amount_minor=9_500)
    assert wait_for_status(withdrawal.pk).status == WithdrawalStatus.PAID
    path = "/v1/transfers/tr_rv/reversals"
    fake_stripe.answer(
        "POST",
        path,
        200,
        {"id": "trr_w", "object": "transfer_reversal", "amount": 9_475, "currency": "usd"},
    )

    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    done = wait_until(
        lambda: TransferReversal.objects.filter(status=TransferReversalStatus.SUCCEEDED).first(),
        "the transfer reversal to be made",
    )

    assert done.amount_minor == 9_475 and done.stripe_reversal_id == "trr_w"
    [sent] = fake_stripe.requests_to("POST", path)
    assert sent.idempotency_key == f"transfer-reversal-{done.pk}"
    assert_payments_invariants()
