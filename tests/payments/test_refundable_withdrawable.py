"""Refundable deposit vs withdrawable proceeds (issue 17 §1): deposited money goes back only
as a refund to its payment; only matured sale proceeds leave by Connect transfer; spending
draws on the deposit first."""

from __future__ import annotations

import pytest

from market.exceptions import InsufficientFunds
from market.models import AccountKind, Order, OrderStatus
from market.money import Currency, Money
from market.payments.models import ConnectedAccount, Deposit, DepositStatus, Withdrawal
from market.payments.panel import usd_panel_context
from market.payments.selectors import get_usd_summary
from market.payments.services.webhooks import handle_webhook
from market.payments.services.withdrawals import request_withdrawal
from market.services.orders import cancel_order, place_ask, place_bid
from tests.factories import ProblemFactory, UserFactory
from tests.market.conftest import Market
from tests.market.helpers import balance, snapshot
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
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
        checkout_session_id=f"cs_rw_{next(_sessions)}",
        status=DepositStatus.OPEN,
    )
    deliver(event("checkout.session.completed", completed_session(deposit)))
    deposit.refresh_from_db()
    return deposit


def can_withdraw(user) -> None:
    ConnectedAccount.objects.create(
        user=user, stripe_account_id=f"acct_rw_{user.pk}", payouts_enabled=True
    )


def split(user) -> tuple[int, int]:
    summary = get_usd_summary(user=user)
    assert summary.refundable_minor + summary.withdrawable_minor == summary.available_minor
    return summary.refundable_minor, summary.withdrawable_minor


def test_an_unspent_deposit_cannot_leave_by_transfer_so_a_later_refund_costs_nothing():
    """Deposit 100.00, try to withdraw it, refund the card: the platform is never out."""
    user = UserFactory()
    can_withdraw(user)
    deposit = paid_deposit(user, 10_000)
    assert split(user) == (10_000, 0)
    before = snapshot()

    with pytest.raises(InsufficientFunds) as caught:
        request_withdrawal(user=user, amount_minor=10_000)

    assert "0.00 USD" in caught.value.message and "refund" in caught.value.message
    assert snapshot() == before and Withdrawal.objects.count() == 0
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert_payments_invariants()


def test_matured_proceeds_are_withdrawable_and_the_deposit_stays_refundable():
    user = UserFactory()
    can_withdraw(user)
    paid_deposit(user, 5_000)
    earn_proceeds(user, 3_000)
    assert split(user) == (5_000, 3_000)

    request_withdrawal(user=user, amount_minor=3_000)
    assert split(user) == (5_000, 0)
    with pytest.raises(InsufficientFunds):
        request_withdrawal(user=user, amount_minor=1_000)
    assert_payments_invariants()


def test_proceeds_in_their_hold_window_are_not_withdrawable(settings):
    from market.services.orders import fee_for

    seller = UserFactory()
    can_withdraw(seller)
    buyer = UserFactory()
    paid_deposit(buyer, 2_000)
    market = Market(currency=Currency.USD, is_demo=False)
    place_ask(
        seller=seller,
        solution=market.accepted(solver=seller),
        price=Money(2_000, Currency.USD),
        quantity=1,
    )
    place_bid(buyer=buyer, problem=market.problem, price=Money(2_000, Currency.USD), quantity=1)
    assert usd(seller, AccountKind.PENDING) == 2_000 - fee_for(2_000)
    assert split(seller) == (0, 0)
    with pytest.raises(InsufficientFunds):
        request_withdrawal(user=seller, amount_minor=1_000)


def test_spending_draws_on_the_deposit_first():
    user = UserFactory()
    paid_deposit(user, 2_000)
    earn_proceeds(user, 3_000)
    problem = ProblemFactory(currency=Currency.USD)

    bid = place_bid(buyer=user, problem=problem, price=Money(1_500, Currency.USD), quantity=1)
    assert split(user) == (500, 3_000)  # the deposit paid for the bid
    # (on another problem: one open bid per buyer and problem)
    other = ProblemFactory(currency=Currency.USD)
    place_bid(buyer=user, problem=other, price=Money(1_000, Currency.USD), quantity=1)
    assert split(user) == (0, 2_500)  # then the proceeds

    # A released hold returns as deposit money, never as withdrawable proceeds...
    cancel_order(user=user, order_id=bid.pk)
    assert split(user) == (1_500, 2_500)
    assert_payments_invariants()


def test_money_beyond_what_deposits_could_refund_is_withdrawable():
    """Proceeds that paid for a cancelled bid cannot be stuck as "refundable": with no deposit
    to refund them to, they are withdrawable again."""
    user = UserFactory()
    earn_proceeds(user, 3_000)
    problem = ProblemFactory(currency=Currency.USD)
    bid = place_bid(buyer=user, problem=problem, price=Money(3_000, Currency.USD), quantity=1)
    assert split(user) == (0, 0)
    cancel_order(user=user, order_id=bid.pk)
    assert split(user) == (0, 3_000)


def test_the_account_page_shows_refundable_deposit_and_withdrawable_proceeds(client):
    user = UserFactory()
    paid_deposit(user, 123_450)
    earn_proceeds(user, 2_000)
    client.force_login(user)

    page = client.get("/account/").content.decode()

    assert "Refundable deposit" in page and "Withdrawable proceeds" in page
    assert '<div class="value" id="usd-refundable">1,234.50 USD</div>' in page
    assert '<div class="value" id="usd-withdrawable">20.00 USD</div>' in page
    assert "Refund to my card" in page


def test_the_panel_context_formats_both_parts():
    from django.test import RequestFactory

    user = UserFactory()
    paid_deposit(user, 50_000)
    request = RequestFactory().get("/account/")
    request.user = user
    usd_context = usd_panel_context(request)["usd"]
    assert (usd_context["refundable"], usd_context["withdrawable"]) == ("500.00 USD", "0.00 USD")
    assert [d["room"] for d in usd_context["refundable_deposits"]] == ["500.00 USD"]


def test_a_refunded_deposit_cannot_keep_its_bid_open():
    user = UserFactory()
    deposit = paid_deposit(user, 2_000)
    problem = ProblemFactory(currency=Currency.USD)
    bid = place_bid(buyer=user, problem=problem, price=Money(2_000, Currency.USD), quantity=1)

    deliver(event("charge.refunded", charge_refunded(deposit, 2_000)))

    assert Order.objects.get(pk=bid.pk).status == OrderStatus.CANCELLED
    assert (usd(user), usd(user, AccountKind.HELD), usd(user, AccountKind.DEBT)) == (0, 0, 0)
    assert_payments_invariants()


def test_with_no_hold_window_a_sale_is_withdrawable_at_once_and_a_price_improvement_is_not(
    settings,
):
    from market.services.orders import fee_for

    settings.PROCEEDS_HOLD_WINDOW_S = 0
    seller, buyer = UserFactory(), UserFactory()
    paid_deposit(buyer, 3_000)
    market = Market(currency=Currency.USD, is_demo=False)
    place_ask(
        seller=seller,
        solution=market.accepted(solver=seller),
        price=Money(2_000, Currency.USD),
        quantity=1,
    )
    # The buyer bids 2 500 and pays the maker's 2 000: 500 comes back as deposit money.
    place_bid(buyer=buyer, problem=market.problem, price=Money(2_500, Currency.USD), quantity=1)

    assert split(seller) == (0, 2_000 - fee_for(2_000))
    assert split(buyer) == (1_000, 0)
    assert_payments_invariants()


def test_the_deposit_form_never_shows_the_librarys_error_text(client, fake_stripe):
    from tests.payments import fakes

    user = UserFactory()
    client.force_login(user)
    fake_stripe.answer(
        "POST",
        "/v1/checkout/sessions",
        503,
        fakes.error(503, "api_error", None, "getaddrinfo failed for api.stripe.com"),
    )

    page = client.post("/payments/deposit/", {"amount": "25"}, follow=True).content.decode()

    assert "Stripe cannot be reached right now; nothing was charged." in page
    assert "getaddrinfo" not in page and "api.stripe.com" not in page
    assert Deposit.objects.count() == 0
