"""Connect onboarding (Accounts v2) and withdrawals by transfer, through the fake transport."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from market.exceptions import InsufficientFunds
from market.models import AccountKind, LedgerTransaction
from market.payments.exceptions import (
    ConnectAccountMissing,
    IdempotencyKeyReused,
    InvalidAmount,
    InvalidWebhook,
    PayoutsNotEnabled,
    StripeUnavailable,
)
from market.payments.models import (
    ConnectedAccount,
    Deposit,
    DepositStatus,
    Withdrawal,
    WithdrawalStatus,
)
from market.payments.services.connect import (
    refresh_connected_account,
    start_connect_onboarding,
)
from market.payments.services.webhooks import handle_webhook
from market.payments.services.withdrawals import (
    list_stuck_withdrawal_ids,
    payout_fee_for,
    request_withdrawal,
    send_withdrawal_transfer,
)
from market.payments.tasks import send_withdrawal_transfer_task
from tests.factories import UserFactory
from tests.market.helpers import balance, snapshot
from tests.payments import fakes
from tests.payments.helpers import (
    assert_payments_invariants,
    completed_session,
    earn_proceeds,
    event,
    sign,
)

pytestmark = pytest.mark.django_db

REFRESH, RETURN = "https://market.test/payments/connect/refresh/", "https://market.test/r/"


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def fund(user, amount):
    deposit = Deposit.objects.create(
        user=user,
        amount_minor=amount,
        checkout_session_id=f"cs_w_{user.pk}_{amount}",
        status=DepositStatus.OPEN,
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    handle_webhook(payload=payload, signature_header=header)
    assert usd(user) == amount


def seller(fake, *, enabled=True, funds=10_000):
    user = UserFactory()
    ConnectedAccount.objects.create(
        user=user,
        stripe_account_id=f"acct_{user.pk}",
        payouts_enabled=enabled,
        details_submitted=enabled,
    )
    if funds:
        # Withdrawals pay out sale proceeds only (deposits go back as refunds).
        earn_proceeds(user, funds)
        assert usd(user) == funds
    return user


def test_onboarding_creates_a_v2_recipient_account_and_a_single_use_link(fake_stripe):
    user = UserFactory(email="seller@example.test")
    fake_stripe.answer(
        "POST",
        "/v2/core/accounts",
        200,
        fakes.v2_account("acct_new", transfers_status="restricted", due="currently_due"),
    )
    fake_stripe.answer("POST", "/v2/core/account_links", 200, fakes.account_link("acct_new"))

    url = start_connect_onboarding(user=user, refresh_url=REFRESH, return_url=RETURN)

    assert url == "https://accounts.stripe.com/r/acct_new#alu_test"
    create, link = fake_stripe.requests
    assert create.path == "/v2/core/accounts"
    assert create.idempotency_key == f"connect-account-{user.pk}"
    body = create.json
    assert body["configuration"] == {
        "recipient": {"capabilities": {"stripe_balance": {"stripe_transfers": {"requested": True}}}}
    }
    assert body["dashboard"] == "express"
    assert body["defaults"]["responsibilities"] == {
        "fees_collector": "application",
        "losses_collector": "application",
    }
    assert body["identity"] == {"country": "us"}
    assert body["contact_email"] == "seller@example.test"
    assert "type" not in body  # no legacy account type
    # The API version the request shapes were checked against (see docs/payments.md).
    assert link.headers["Stripe-Version"] == create.headers["Stripe-Version"] == "2026-10-28.endive"
    assert link.json == {
        "account": "acct_new",
        "use_case": {
            "type": "account_onboarding",
            "account_onboarding": {
                "refresh_url": REFRESH,
                "return_url": RETURN,
            },
        },
    }
    account = ConnectedAccount.objects.get(user=user)
    assert account.stripe_account_id == "acct_new"
    assert (account.charges_enabled, account.payouts_enabled, account.details_submitted) == (
        False,
        False,
        False,
    )

    # A second onboarding reuses the account: only a new link is made.
    fake_stripe.answer("POST", "/v2/core/account_links", 200, fakes.account_link("acct_new"))
    start_connect_onboarding(user=user, refresh_url=REFRESH, return_url=RETURN)
    assert [r.path for r in fake_stripe.requests[2:]] == ["/v2/core/account_links"]
    assert ConnectedAccount.objects.count() == 1


def test_return_from_onboarding_refreshes_the_flags(fake_stripe):
    user = seller(fake_stripe, enabled=False, funds=0)
    fake_stripe.answer(
        "GET",
        f"/v2/core/accounts/acct_{user.pk}",
        200,
        fakes.v2_account(f"acct_{user.pk}", transfers_status="active", due=None),
    )
    account = refresh_connected_account(user=user)
    assert account.payouts_enabled and account.details_submitted and not account.charges_enabled
    [sent] = fake_stripe.requests
    assert sent.method == "GET"
    assert sorted(v for k, v in parse_qsl(sent.query)) == [
        "configuration.merchant",
        "configuration.recipient",
        "requirements",
    ]


def test_account_updated_webhook_refreshes_the_flags(fake_stripe):
    user = seller(fake_stripe, enabled=False, funds=0)
    obj = {
        "id": f"acct_{user.pk}",
        "object": "account",
        "charges_enabled": False,
        "payouts_enabled": True,
        "details_submitted": True,
    }
    payload, header = sign(event("account.updated", obj))
    handle_webhook(payload=payload, signature_header=header)
    account = ConnectedAccount.objects.get(user=user)
    assert account.payouts_enabled and account.details_submitted


def test_withdrawal_holds_then_transfer_pays_net_with_our_idempotency_key(
    fake_stripe, django_capture_on_commit_callbacks
):
    user = seller(fake_stripe, funds=10_000)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        withdrawal = request_withdrawal(user=user, amount_minor=5_000)
    assert len(callbacks) == 1  # the transfer task, after commit
    fee = payout_fee_for(5_000)
    assert fee == 25
    assert withdrawal.status == WithdrawalStatus.REQUESTED
    assert usd(user) == 5_000 and usd(user, AccountKind.HELD) == 5_000
    assert_payments_invariants()

    fake_stripe.answer(
        "POST", "/v1/transfers", 200, fakes.transfer("tr_1", 5_000 - fee, f"acct_{user.pk}")
    )
    done = send_withdrawal_transfer(withdrawal_id=withdrawal.pk)

    [sent] = fake_stripe.requests
    assert sent.idempotency_key == f"payout-{withdrawal.pk}"
    assert sent.form["amount"] == str(5_000 - fee)
    assert sent.form["currency"] == "usd"
    assert sent.form["destination"] == f"acct_{user.pk}"
    assert sent.form["transfer_group"] == f"withdrawal-{withdrawal.pk}"
    assert done.status == WithdrawalStatus.PAID and done.transfer_id == "tr_1"
    assert usd(user) == 5_000 and usd(user, AccountKind.HELD) == 0
    assert_payments_invariants()

    # Running the task again (a redelivered message) sends nothing.
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    assert len(fake_stripe.requests) == 1


def test_transfer_failure_releases_the_held_funds(fake_stripe):
    user = seller(fake_stripe, funds=10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=4_000)
    fake_stripe.answer(
        "POST",
        "/v1/transfers",
        400,
        fakes.error(
            400,
            "invalid_request_error",
            "balance_insufficient",
            "You have insufficient available funds in your Stripe account.",
        ),
    )
    done = send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    assert done.status == WithdrawalStatus.FAILED
    assert done.failure_code == "balance_insufficient"
    assert usd(user) == 10_000 and usd(user, AccountKind.HELD) == 0
    assert LedgerTransaction.objects.filter(kind="withdrawal_release").count() == 1
    assert_payments_invariants()


def test_api_500_keeps_funds_held_and_the_retry_uses_the_same_key(fake_stripe):
    user = seller(fake_stripe, funds=10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=4_000)
    fake_stripe.answer("POST", "/v1/transfers", 500, fakes.error(500, "api_error", None, "boom"))
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    withdrawal.refresh_from_db()
    assert withdrawal.status == WithdrawalStatus.REQUESTED
    assert usd(user) == 6_000 and usd(user, AccountKind.HELD) == 4_000
    assert_payments_invariants()

    # The retry first looks for a transfer the first attempt may have made (none here).
    fake_stripe.answer("GET", "/v1/transfers", 200, {"object": "list", "data": []})
    fake_stripe.answer(
        "POST", "/v1/transfers", 200, fakes.transfer("tr_2", 3_975, f"acct_{user.pk}")
    )
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    keys = [r.idempotency_key for r in fake_stripe.requests_to("POST", "/v1/transfers")]
    assert keys == [f"payout-{withdrawal.pk}", f"payout-{withdrawal.pk}"]
    assert len(fake_stripe.requests_to("GET", "/v1/transfers")) == 1
    withdrawal.refresh_from_db()
    assert withdrawal.status == WithdrawalStatus.PAID and withdrawal.attempts == 2
    assert usd(user, AccountKind.HELD) == 0
    assert_payments_invariants()


def test_task_raises_for_celery_retry_on_temporary_failure(fake_stripe):
    user = seller(fake_stripe, funds=10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=4_000)
    fake_stripe.answer("POST", "/v1/transfers", 503, fakes.error(503, "api_error", None, "busy"))
    assert StripeUnavailable in send_withdrawal_transfer_task.autoretry_for
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer_task.run(withdrawal_id=withdrawal.pk)


def test_refusals_change_nothing(fake_stripe, settings):
    no_account = UserFactory()
    fund(no_account, 5_000)
    not_ready = seller(fake_stripe, enabled=False, funds=5_000)
    ready = seller(fake_stripe, funds=5_000)
    before = snapshot()
    with pytest.raises(ConnectAccountMissing):
        request_withdrawal(user=no_account, amount_minor=2_000)
    with pytest.raises(PayoutsNotEnabled):
        request_withdrawal(user=not_ready, amount_minor=2_000)
    with pytest.raises(InvalidAmount):
        request_withdrawal(user=ready, amount_minor=settings.PAYOUT_MIN_MINOR - 1)
    with pytest.raises(InsufficientFunds):
        request_withdrawal(user=ready, amount_minor=5_001)
    assert snapshot() == before
    assert Withdrawal.objects.count() == 0
    assert fake_stripe.requests == []


def test_withdrawal_idempotency_key(fake_stripe):
    user = seller(fake_stripe, funds=10_000)
    first = request_withdrawal(user=user, amount_minor=2_000, idempotency_key="w-1")
    again = request_withdrawal(user=user, amount_minor=2_000, idempotency_key="w-1")
    assert again.pk == first.pk and usd(user) == 8_000
    with pytest.raises(IdempotencyKeyReused):
        request_withdrawal(user=user, amount_minor=3_000, idempotency_key="w-1")
    assert Withdrawal.objects.count() == 1


def test_fee_policy_from_settings(fake_stripe, settings):
    settings.PAYOUT_FEE_FIXED_MINOR = 30
    settings.PAYOUT_FEE_BPS = 100  # 1 %
    user = seller(fake_stripe, funds=10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=10_000)
    assert withdrawal.fee_minor == 130 and withdrawal.net_minor == 9_870
    fake_stripe.answer("POST", "/v1/transfers", 200, fakes.transfer("tr_3", 9_870, "acct"))
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    assert fake_stripe.requests[0].form["amount"] == "9870"
    assert usd(user) == 0
    assert_payments_invariants()


def test_stuck_withdrawals_are_listed_for_retry(fake_stripe, settings):
    settings.PAYOUT_STUCK_AFTER_S = 0
    user = seller(fake_stripe, funds=10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=2_000)
    assert list_stuck_withdrawal_ids() == [withdrawal.pk]


def test_withdrawal_repays_debt_first(fake_stripe):
    from django.db import transaction

    from market.models import Account
    from market.services.ledger import lock_accounts, record_transaction

    user = seller(fake_stripe, funds=10_000)
    # A debt of 3 000 from an earlier dispute, recorded as the webhook would.
    with transaction.atomic():
        from market.payments.services.balances import usd_account, usd_system_account

        debt = usd_account(user.pk, AccountKind.DEBT)
        locked = lock_accounts([debt])
        record_transaction(
            kind="dispute",
            currency="USD",
            locked=locked,
            legs=[(debt, -3_000), (usd_system_account(AccountKind.STRIPE_CLEARING), 3_000)],
        )
    with pytest.raises(InsufficientFunds):
        request_withdrawal(user=user, amount_minor=8_000)
    assert usd(user) == 10_000 and usd(user, AccountKind.DEBT) == -3_000  # refusal rolled back
    request_withdrawal(user=user, amount_minor=7_000)
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert (
        Account.objects.get(owner=user, currency="USD", kind=AccountKind.HELD).balance_minor
        == 7_000
    )


def test_v2_thin_account_event_rereads_the_account(fake_stripe):
    user = seller(fake_stripe, enabled=False, funds=0)
    thin = {
        "id": "evt_thin_1",
        "object": "v2.core.event",
        "type": "v2.core.account[configuration.recipient].capability_status_updated",
        "created": "2026-11-30T11:00:00.000Z",
        "livemode": False,
        "related_object": {
            "id": f"acct_{user.pk}",
            "type": "v2.core.account",
            "url": f"/v2/core/accounts/acct_{user.pk}",
        },
    }
    fake_stripe.answer(
        "GET",
        f"/v2/core/accounts/acct_{user.pk}",
        200,
        fakes.v2_account(f"acct_{user.pk}", transfers_status="active", due=None),
    )
    payload, header = sign(thin)
    record, is_new = handle_webhook(payload=payload, signature_header=header)
    assert is_new and record.outcome == "processed"
    account = ConnectedAccount.objects.get(user=user)
    assert account.payouts_enabled and account.details_submitted
    # A tampered thin event is refused like any other.
    with pytest.raises(InvalidWebhook):
        handle_webhook(
            payload=payload.replace(b"evt_thin_1", b"evt_thin_2"), signature_header=header
        )
