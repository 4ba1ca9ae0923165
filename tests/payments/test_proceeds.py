"""USD sale proceeds wait in PENDING for the hold window, then become withdrawable."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from market.exceptions import InsufficientFunds
from market.models import AccountKind
from market.money import Currency, Money
from market.payments.models import ConnectedAccount, Deposit, DepositStatus, ProceedsHold
from market.payments.services.proceeds import release_matured_proceeds
from market.payments.services.webhooks import handle_webhook
from market.payments.services.withdrawals import request_withdrawal
from market.payments.tasks import release_matured_proceeds_task
from market.services.accounts import grant_demo_credits
from market.services.orders import fee_for, place_ask, place_bid
from tests.factories import ProblemFactory, UserFactory, accepted_solution
from tests.market.helpers import balance, snapshot
from tests.payments.helpers import assert_payments_invariants, completed_session, event, sign

pytestmark = pytest.mark.django_db


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def fund_usd(user, amount):
    deposit = Deposit.objects.create(
        user=user,
        amount_minor=amount,
        checkout_session_id=f"cs_p_{user.pk}",
        status=DepositStatus.OPEN,
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    handle_webhook(payload=payload, signature_header=header)


def usd_trade(price=4_000):
    problem = ProblemFactory(currency=Currency.USD)
    buyer = UserFactory()
    fund_usd(buyer, 10_000)
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    seller = solution.solver
    place_bid(buyer=buyer, problem=problem, price=Money(price, Currency.USD), quantity=1)
    place_ask(seller=seller, solution=solution, price=Money(price, Currency.USD), quantity=1)
    return buyer, seller


def test_usd_proceeds_are_pending_until_the_window_ends(settings):
    settings.PROCEEDS_HOLD_WINDOW_S = 3 * 24 * 3600
    started = timezone.now()
    buyer, seller = usd_trade(price=4_000)
    net = 4_000 - fee_for(4_000)

    assert usd(seller) == 0 and usd(seller, AccountKind.PENDING) == net
    hold = ProceedsHold.objects.get()
    assert hold.user == seller and hold.amount_minor == net
    window = hold.available_at - started
    assert timedelta(days=3) <= window <= timedelta(days=3, seconds=60)
    assert_payments_invariants()

    # Not withdrawable yet.
    ConnectedAccount.objects.create(user=seller, stripe_account_id="acct_s", payouts_enabled=True)
    before = snapshot()
    with pytest.raises(InsufficientFunds):
        request_withdrawal(user=seller, amount_minor=net)
    assert snapshot() == before

    # Before the window: nothing released.
    assert release_matured_proceeds(now=hold.available_at - timedelta(seconds=1)) == 0
    assert usd(seller, AccountKind.PENDING) == net

    assert release_matured_proceeds(now=hold.available_at) == 1
    assert usd(seller) == net and usd(seller, AccountKind.PENDING) == 0
    assert release_matured_proceeds(now=hold.available_at + timedelta(days=1)) == 0  # once
    assert_payments_invariants()
    request_withdrawal(user=seller, amount_minor=net)
    assert usd(seller) == 0


def test_release_task_releases_due_holds(settings):
    settings.PROCEEDS_HOLD_WINDOW_S = 1
    _, seller = usd_trade(price=2_000)
    ProceedsHold.objects.update(available_at=timezone.now() - timedelta(seconds=1))
    assert release_matured_proceeds_task.run() == 1
    assert usd(seller) == 2_000 - fee_for(2_000)
    assert_payments_invariants()


def test_zero_window_credits_available_directly(settings):
    settings.PROCEEDS_HOLD_WINDOW_S = 0
    _, seller = usd_trade(price=2_000)
    assert usd(seller) == 2_000 - fee_for(2_000)
    assert ProceedsHold.objects.count() == 0
    assert_payments_invariants()


def test_demo_proceeds_are_not_held():
    problem = ProblemFactory(currency=Currency.DEMO)
    buyer = UserFactory()
    grant_demo_credits(user=buyer, amount_minor=10_000)
    solution = accepted_solution(verifier_version__verifier__problem=problem)
    place_bid(buyer=buyer, problem=problem, price=Money(1_000, Currency.DEMO), quantity=1)
    place_ask(
        seller=solution.solver, solution=solution, price=Money(1_000, Currency.DEMO), quantity=1
    )
    assert balance(solution.solver) == 1_000 - fee_for(1_000)
    assert ProceedsHold.objects.count() == 0


def test_released_proceeds_repay_debt_first(settings):
    from django.db import transaction

    from market.payments.services.balances import usd_account, usd_system_account
    from market.services.ledger import lock_accounts, record_transaction

    settings.PROCEEDS_HOLD_WINDOW_S = 60
    _, seller = usd_trade(price=4_000)
    with transaction.atomic():
        debt = usd_account(seller.pk, AccountKind.DEBT)
        record_transaction(
            kind="refund",
            currency="USD",
            locked=lock_accounts([debt]),
            legs=[(debt, -1_000), (usd_system_account(AccountKind.STRIPE_CLEARING), 1_000)],
        )
    hold = ProceedsHold.objects.get()
    release_matured_proceeds(now=hold.available_at)
    assert usd(seller) == hold.amount_minor - 1_000
    assert usd(seller, AccountKind.DEBT) == 0
