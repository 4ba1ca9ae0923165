"""One user story end to end, with the invariants checked after every step: a buyer deposits
through Checkout, buys a USD solution, the seller's proceeds wait out the hold window, the
seller onboards with Connect and withdraws, and the buyer's card payment is partly refunded."""

from __future__ import annotations

import pytest

from market.models import AccountKind
from market.money import Currency, Money
from market.payments.models import ProceedsHold, WithdrawalStatus
from market.payments.services.connect import refresh_connected_account, start_connect_onboarding
from market.payments.services.deposits import create_deposit_session
from market.payments.services.proceeds import release_matured_proceeds
from market.payments.services.webhooks import handle_webhook
from market.payments.services.withdrawals import request_withdrawal, send_withdrawal_transfer
from market.services.orders import fee_for, place_ask, place_bid
from tests.factories import ProblemFactory, UserFactory, accepted_solution
from tests.market.helpers import balance
from tests.payments import fakes
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    event,
    sign,
)

pytestmark = pytest.mark.django_db


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def deliver(evt):
    payload, header = sign(evt)
    return handle_webhook(payload=payload, signature_header=header)


def test_deposit_trade_hold_onboard_withdraw_refund(fake_stripe, settings):
    settings.PROCEEDS_HOLD_WINDOW_S = 86_400
    problem = ProblemFactory(currency=Currency.USD)
    buyer = UserFactory()
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    seller = solution.solver

    # 1. Deposit $50 through Checkout; credited by the webhook only.
    fake_stripe.answer("POST", "/v1/checkout/sessions", 200, fakes.checkout_session("cs_life"))
    deposit = create_deposit_session(
        user=buyer, amount_minor=5_000, success_url="https://m/ok", cancel_url="https://m/no"
    )
    assert usd(buyer) == 0
    deliver(event("checkout.session.completed", completed_session(deposit)))
    assert usd(buyer) == 5_000
    assert_payments_invariants()

    # 2. Trade at $30: the seller's $28.50 waits in PENDING.
    place_ask(seller=seller, solution=solution, price=Money(3_000, Currency.USD), quantity=5)
    place_bid(buyer=buyer, problem=problem, price=Money(3_000, Currency.USD), quantity=1)
    net = 3_000 - fee_for(3_000)
    assert usd(buyer) == 2_000 and usd(seller, AccountKind.PENDING) == net and usd(seller) == 0
    assert_payments_invariants()

    # 3. Onboard with Connect.
    fake_stripe.answer(
        "POST",
        "/v2/core/accounts",
        200,
        fakes.v2_account("acct_life", transfers_status="pending", due="currently_due"),
    )
    fake_stripe.answer("POST", "/v2/core/account_links", 200, fakes.account_link("acct_life"))
    start_connect_onboarding(user=seller, refresh_url="https://m/r", return_url="https://m/d")
    fake_stripe.answer(
        "GET",
        "/v2/core/accounts/acct_life",
        200,
        fakes.v2_account("acct_life", transfers_status="active", due=None),
    )
    assert refresh_connected_account(user=seller).payouts_enabled

    # 4. After the window, withdraw everything; Stripe confirms the transfer.
    release_matured_proceeds(now=ProceedsHold.objects.get().available_at)
    assert usd(seller) == net
    withdrawal = request_withdrawal(user=seller, amount_minor=net)
    assert_payments_invariants()
    fake_stripe.answer(
        "POST", "/v1/transfers", 200, fakes.transfer("tr_life", net - 25, "acct_life")
    )
    assert send_withdrawal_transfer(withdrawal_id=withdrawal.pk).status == WithdrawalStatus.PAID
    assert usd(seller) == 0 and usd(seller, AccountKind.HELD) == 0
    transfer = fake_stripe.requests_to("POST", "/v1/transfers")[0]
    assert transfer.form["amount"] == str(net - 25)
    assert transfer.idempotency_key == f"payout-{withdrawal.pk}"
    assert_payments_invariants()

    # 5. The buyer's $50 is refunded: $20 from available; the $30 it paid for was already
    # paid out to the seller: what Stripe transferred ($28.25) is asked back by a transfer
    # reversal, and the two fees ($1.50 + $0.25) are the platform's recorded loss, not a gap.
    deliver(event("charge.refunded", charge_refunded(deposit, 5_000)))
    assert usd(buyer) == 0 and usd(buyer, AccountKind.DEBT) == 0
    from market.models import Posting
    from market.payments.models import TransferReversal

    assert TransferReversal.objects.get().amount_minor == net - 25
    losses = Posting.objects.filter(account__owner=None, account__kind=AccountKind.LOSSES)
    assert -sum(losses.values_list("amount_minor", flat=True)) == 3_000 - (net - 25)
    assert_payments_invariants()
