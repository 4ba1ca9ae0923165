"""Regression tests of the money-path review (docs/payments.md, "Review of the money paths").

Each test reproduces one way money could be created, lost, mixed or moved unsafely, and
checks the fix; refusals assert that nothing changed.
"""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection, transaction
from django.db.models import F
from rest_framework.test import APIClient

from market.models import Account, AccountKind, LedgerTransaction, Order, OrderStatus
from market.money import Currency, Money
from market.payments.exceptions import StripeUnavailable, UsdDisabled
from market.payments.models import (
    ConnectedAccount,
    Deposit,
    DepositStatus,
    Withdrawal,
    WithdrawalStatus,
)
from market.payments.services.webhooks import handle_webhook
from market.payments.services.withdrawals import (
    complete_withdrawal,
    request_withdrawal,
    send_withdrawal_transfer,
)
from market.services.ledger import get_system_account, get_user_accounts, lock_accounts
from market.services.orders import cancel_order, place_ask, place_bid
from tests.factories import UserFactory
from tests.market.conftest import Market
from tests.market.helpers import (
    HELD_VIOLATION,
    assert_ledger_invariants,
    balance,
    market_violations,
    snapshot,
)
from tests.payments import fakes
from tests.payments.helpers import (
    assert_payments_invariants,
    completed_session,
    earn_proceeds,
    event,
    sign,
)
from tests.waiting import wait_until

_sessions = iter(range(1, 100_000))


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def fund(user, amount):
    deposit = Deposit.objects.create(
        user=user,
        amount_minor=amount,
        checkout_session_id=f"cs_mp_{next(_sessions)}",
        status=DepositStatus.OPEN,
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    handle_webhook(payload=payload, signature_header=header)
    assert usd(user) >= amount


def seller(funds=10_000):
    user = UserFactory()
    ConnectedAccount.objects.create(
        user=user, stripe_account_id=f"acct_{user.pk}", payouts_enabled=True
    )
    # Withdrawals pay out sale proceeds only (deposits go back as refunds).
    earn_proceeds(user, funds)
    assert usd(user) == funds
    return user


def deliver(evt):
    payload, header = sign(evt)
    return handle_webhook(payload=payload, signature_header=header)


def transfer_list(*transfers):
    return {"object": "list", "url": "/v1/transfers", "has_more": False, "data": list(transfers)}


def usd_market():
    return Market(currency=Currency.USD, is_demo=False)


# --- USD disabled: the engine refuses USD orders -------------------------------------------


@pytest.mark.django_db
def test_without_keys_usd_orders_are_refused_and_change_nothing(settings):
    buyer = UserFactory()
    fund(buyer, 5_000)
    market = usd_market()
    solution = market.accepted()
    resting = place_bid(
        buyer=buyer, problem=market.problem, price=Money(1_000, Currency.USD), quantity=2
    )
    settings.STRIPE_SECRET_KEY = ""

    before = snapshot()
    with pytest.raises(UsdDisabled) as exc:
        place_bid(buyer=buyer, problem=market.problem, price=Money(500, Currency.USD), quantity=1)
    assert exc.value.code == "payments:usd-disabled" and exc.value.http_status == 403
    with pytest.raises(UsdDisabled):
        # Would trade against the resting bid if USD were enabled.
        place_ask(
            seller=solution.solver, solution=solution, price=Money(900, Currency.USD), quantity=1
        )
    assert snapshot() == before

    # Cancelling only releases the user's own hold: still allowed, so no funds are stuck.
    cancel_order(user=buyer, order_id=resting.pk)
    assert usd(buyer) == 5_000 and usd(buyer, AccountKind.HELD) == 0
    assert_payments_invariants()


@pytest.mark.django_db
def test_without_keys_the_order_api_answers_usd_disabled(settings):
    market = usd_market()
    user = UserFactory()
    settings.STRIPE_SECRET_KEY = ""
    client = APIClient()
    client.force_authenticate(user)
    before = snapshot()
    response = client.post(
        "/api/v1/orders/",
        {"problem": market.problem.pk, "side": "bid", "price_minor": 100, "currency": "USD"},
        format="json",
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "payments:usd-disabled"
    assert snapshot() == before


@pytest.mark.django_db
def test_with_keys_usd_orders_trade():
    buyer = UserFactory()
    fund(buyer, 5_000)
    market = usd_market()
    solution = market.accepted()
    place_bid(buyer=buyer, problem=market.problem, price=Money(1_000, Currency.USD), quantity=1)
    place_ask(seller=solution.solver, solution=solution, price=Money(900, Currency.USD), quantity=1)
    assert usd(buyer) == 4_000 and usd(solution.solver, AccountKind.PENDING) == 950
    assert_payments_invariants()


# --- currencies never mix, even when a problem's currency changed under resting orders -----


@pytest.mark.django_db
def test_resting_orders_of_another_currency_never_trade(settings):
    """A DEMO bid left on a problem whose currency became USD must not be paid with USD."""
    from market.services.accounts import grant_demo_credits

    buyer = UserFactory()
    grant_demo_credits(user=buyer, amount_minor=5_000)
    fund(buyer, 5_000)
    market = Market(currency=Currency.DEMO, is_demo=False)
    stale = place_bid(
        buyer=buyer, problem=market.problem, price=Money(1_000, Currency.DEMO), quantity=1
    )
    # USD held by the buyer for a bid on another problem: without the currency check the
    # trade below would take it to pay for the DEMO bid.
    other = usd_market()
    place_bid(buyer=buyer, problem=other.problem, price=Money(2_000, Currency.USD), quantity=1)
    type(market.problem).objects.filter(pk=market.problem.pk).update(currency=Currency.USD)

    solution = market.accepted()
    ask = place_ask(
        seller=solution.solver, solution=solution, price=Money(500, Currency.USD), quantity=1
    )
    assert ask.status == OrderStatus.OPEN and ask.remaining == 1
    stale.refresh_from_db()
    assert stale.status == OrderStatus.OPEN and stale.remaining == 1
    assert usd(buyer, AccountKind.HELD) == 2_000 and usd(buyer) == 3_000
    assert balance(buyer, AccountKind.HELD) == 1_000  # DEMO
    # The stale DEMO bid still cancels in DEMO.
    cancel_order(user=buyer, order_id=stale.pk)
    assert balance(buyer) == 5_000 and balance(buyer, AccountKind.HELD) == 0
    violations = market_violations()
    # The book looks crossed only across currencies, which may never trade.
    violations.pop("the book is crossed (an open bid and ask that may trade)", None)
    assert violations == {}


# --- withdrawals: a retry never pays twice and never releases money that left --------------


@pytest.mark.django_db
def test_a_retry_finds_the_transfer_an_earlier_attempt_made_and_does_not_pay_twice(fake_stripe):
    """Stripe keeps an idempotency key 24 h: a retry later than that must not create a second
    transfer when the first went through but its answer was lost."""
    user = seller(10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=4_000)
    # First attempt: the connection broke after Stripe created tr_lost.
    fake_stripe.answer("POST", "/v1/transfers", 500, fakes.error(500, "api_error", None, "boom"))
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    # A day later (the key has expired at Stripe): the retry looks for our transfer first.
    lost = fakes.transfer("tr_lost", 3_975, f"acct_{user.pk}")
    lost["metadata"] = {"withdrawal_id": str(withdrawal.pk), "user_id": str(user.pk)}
    lost["transfer_group"] = f"withdrawal-{withdrawal.pk}"
    fake_stripe.answer("GET", "/v1/transfers", 200, transfer_list(lost))
    done = send_withdrawal_transfer(withdrawal_id=withdrawal.pk)

    assert done.status == WithdrawalStatus.PAID and done.transfer_id == "tr_lost"
    assert len(fake_stripe.requests_to("POST", "/v1/transfers")) == 1  # no second transfer
    [lookup] = fake_stripe.requests_to("GET", "/v1/transfers")
    assert f"transfer_group=withdrawal-{withdrawal.pk}" in lookup.query
    assert f"destination=acct_{user.pk}" in lookup.query
    assert usd(user) == 6_000 and usd(user, AccountKind.HELD) == 0
    assert LedgerTransaction.objects.filter(kind="withdrawal_paid").count() == 1
    assert_payments_invariants()


@pytest.mark.django_db
def test_a_refusal_on_retry_does_not_release_funds_that_already_left(fake_stripe):
    user = seller(10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=4_000)
    fake_stripe.answer("POST", "/v1/transfers", 503, fakes.error(503, "api_error", None, "busy"))
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    # The transfer exists; a new create would now be refused (say the account was closed).
    made = fakes.transfer("tr_made", 3_975, f"acct_{user.pk}")
    made["metadata"] = {"withdrawal_id": str(withdrawal.pk)}
    fake_stripe.answer("GET", "/v1/transfers", 200, transfer_list(made))
    done = send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    assert done.status == WithdrawalStatus.PAID and done.transfer_id == "tr_made"
    assert usd(user) == 6_000  # not 10_000: the 4_000 left by tr_made
    assert_payments_invariants()


@pytest.mark.django_db
def test_a_retry_without_an_earlier_transfer_creates_it_once(fake_stripe):
    user = seller(10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=4_000)
    fake_stripe.answer("POST", "/v1/transfers", 500, fakes.error(500, "api_error", None, "boom"))
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    fake_stripe.answer("GET", "/v1/transfers", 200, transfer_list())
    fake_stripe.answer(
        "POST", "/v1/transfers", 200, fakes.transfer("tr_new", 3_975, f"acct_{user.pk}")
    )
    done = send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    assert done.status == WithdrawalStatus.PAID and done.transfer_id == "tr_new"
    posts = fake_stripe.requests_to("POST", "/v1/transfers")
    assert [r.idempotency_key for r in posts] == [f"payout-{withdrawal.pk}"] * 2
    assert_payments_invariants()


@pytest.mark.django_db
def test_a_failed_lookup_keeps_the_funds_held(fake_stripe):
    user = seller(10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=4_000)
    fake_stripe.answer("POST", "/v1/transfers", 500, fakes.error(500, "api_error", None, "boom"))
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    fake_stripe.answer(
        "GET", "/v1/transfers", 400, fakes.error(400, "invalid_request_error", None, "bad")
    )
    before = snapshot()
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    assert snapshot() == before
    withdrawal.refresh_from_db()
    assert withdrawal.status == WithdrawalStatus.REQUESTED and withdrawal.attempts == 2
    assert usd(user, AccountKind.HELD) == 4_000
    assert_payments_invariants()


@pytest.mark.django_db
def test_confirmed_twice_or_after_failing_moves_money_once(fake_stripe):
    user = seller(10_000)
    paid = request_withdrawal(user=user, amount_minor=2_000)
    complete_withdrawal(withdrawal_id=paid.pk, transfer_id="tr_a")
    complete_withdrawal(withdrawal_id=paid.pk, transfer_id="tr_b")
    paid.refresh_from_db()
    assert paid.transfer_id == "tr_a"
    failed = request_withdrawal(user=user, amount_minor=3_000)
    from market.payments.services.withdrawals import fail_withdrawal

    fail_withdrawal(withdrawal_id=failed.pk, code="x", message="y")
    before = snapshot()
    complete_withdrawal(withdrawal_id=failed.pk, transfer_id="tr_c")
    fail_withdrawal(withdrawal_id=failed.pk, code="x", message="y")
    assert snapshot() == before
    assert usd(user) == 8_000 and usd(user, AccountKind.HELD) == 0
    assert LedgerTransaction.objects.filter(kind="withdrawal_paid").count() == 1
    assert LedgerTransaction.objects.filter(kind="withdrawal_release").count() == 1
    # A task re-run after success sends nothing.
    assert send_withdrawal_transfer(withdrawal_id=paid.pk).status == WithdrawalStatus.PAID
    assert fake_stripe.requests == []
    assert_payments_invariants()


# --- the one invariant helper holds with withdrawals in flight, and catches drift -----------


@pytest.mark.django_db
def test_the_ledger_helper_counts_in_flight_withdrawals_in_held():
    user = seller(10_000)
    market = usd_market()
    place_bid(buyer=user, problem=market.problem, price=Money(1_000, Currency.USD), quantity=3)
    withdrawal = request_withdrawal(user=user, amount_minor=2_000)
    assert usd(user, AccountKind.HELD) == 5_000
    assert_ledger_invariants()  # held == 3 000 of bids + 2 000 in flight
    Withdrawal.objects.filter(pk=withdrawal.pk).update(amount_minor=F("amount_minor") + 1)
    assert HELD_VIOLATION in market_violations()
    with pytest.raises(AssertionError):
        assert_ledger_invariants()


# --- lock order: a system account is never created while user accounts are locked ----------


@pytest.mark.django_db(transaction=True)
def test_confirming_a_withdrawal_cannot_deadlock_with_the_engine_creating_the_fee_account(
    settings,
):
    """The engine gets (may create) the USD fee account, then locks user accounts. Confirming
    a withdrawal used to lock the user's HELD account first and get the fee account after:
    with the fee account not yet committed, each waited for the other (PostgreSQL deadlock).
    """
    settings.STRIPE_SECRET_KEY = "sk_test_formalmarket_fake"
    # The seller's proceeds come from a trade; with no trade fee it posts nothing to the fee
    # account, which is then removed so that the race below starts without one.
    settings.MARKET_FEE_BPS = 0
    user = seller(10_000)
    withdrawal = request_withdrawal(user=user, amount_minor=2_000)
    Account.objects.filter(owner=None, currency="USD", kind="fees").delete()
    assert not Account.objects.filter(owner=None, currency="USD", kind="fees").exists()
    held = get_user_accounts(keys=[(user.pk, AccountKind.HELD)], currency="USD")[
        (user.pk, AccountKind.HELD)
    ]
    fee_created = threading.Event()
    errors: list[BaseException] = []
    waited: list[bool] = []

    def engine_like() -> None:
        try:
            with transaction.atomic():
                get_system_account(currency="USD", kind=AccountKind.FEES)  # uncommitted insert
                fee_created.set()
                # Go on once the confirmation is waiting on us (or holding HELD and waiting).
                waited.append(_wait_for_a_lock_wait())
                lock_accounts([held])
        except BaseException as error:  # noqa: BLE001
            errors.append(error)
        finally:
            connection.close()

    def confirm() -> None:
        try:
            fee_created.wait(5)
            complete_withdrawal(withdrawal_id=withdrawal.pk, transfer_id="tr_lock")
        except BaseException as error:  # noqa: BLE001
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=engine_like), threading.Thread(target=confirm)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    close_old_connections()
    assert errors == []
    assert waited == [True]  # the race really happened: the confirmation waited on a lock
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == WithdrawalStatus.PAID
    assert_payments_invariants()


def _wait_for_a_lock_wait(timeout_s: float = 10.0) -> bool:
    """Poll pg_locks until another session of this database waits for a lock (True), or give
    up after ``timeout_s`` scaled by TEST_TIMEOUT_FACTOR (False). Runs inside the caller's
    transaction, on its connection."""
    with connection.cursor() as cursor:

        def someone_waits() -> bool:
            cursor.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE NOT l.granted AND a.datname = current_database()"
                " AND l.pid <> pg_backend_pid()"
            )
            return cursor.fetchone()[0] > 0

        try:
            return wait_until(someone_waits, "a lock wait", timeout=timeout_s, poll_s=0.01)
        except AssertionError:
            return False


# --- a ledger movement always commits with what caused it -----------------------------------


@pytest.mark.django_db(transaction=True)
def test_record_transaction_outside_the_locking_transaction_is_refused():
    from market.services.ledger import record_transaction

    user = UserFactory()
    mint = get_system_account(currency="DEMO", kind=AccountKind.MINT)
    wallet = get_user_accounts(keys=[(user.pk, AccountKind.AVAILABLE)], currency="DEMO")[
        (user.pk, AccountKind.AVAILABLE)
    ]
    with transaction.atomic():
        locked = lock_accounts([wallet])
    count = LedgerTransaction.objects.count()
    with pytest.raises(RuntimeError):
        record_transaction(
            kind=LedgerTransaction.Kind.DEMO_GRANT,
            currency="DEMO",
            legs=[(mint, -100), (wallet, 100)],
            locked=locked,
        )
    assert LedgerTransaction.objects.count() == count
    assert Account.objects.get(pk=wallet.pk).balance_minor == 0
    assert not Order.objects.exists()


# --- the engine and payments at once, on shared users: no deadlock, invariants hold --------


@pytest.mark.django_db(transaction=True)
def test_engine_and_payments_concurrently_on_the_same_users_never_deadlock(settings):
    """Bids, asks, cancels, deposits, refunds, withdrawals (requested, paid, failed) and
    proceeds releases for the same four users, eight at a time, on a fresh database (no USD
    system account exists yet). Only typed domain errors may occur; the invariants hold."""
    import random

    from market.exceptions import DomainError
    from market.payments.services.proceeds import release_matured_proceeds
    from market.payments.services.withdrawals import fail_withdrawal
    from tests.payments.helpers import charge_refunded
    from tests.payments.test_concurrency import run_together

    settings.STRIPE_SECRET_KEY = "sk_test_formalmarket_fake"
    settings.PROCEEDS_HOLD_WINDOW_S = 60
    rng = random.Random(20261130)
    market = usd_market()
    users = [UserFactory() for _ in range(4)]
    solutions = {u.pk: market.accepted(solver=u) for u in users}
    for user in users:
        ConnectedAccount.objects.create(
            user=user, stripe_account_id=f"acct_{user.pk}", payouts_enabled=True
        )
        earn_proceeds(user, 6_000)  # withdrawable (deposits are not)
    deposits: list[Deposit] = []

    def new_deposit(user, amount):
        deposit = Deposit.objects.create(
            user=user,
            amount_minor=amount,
            checkout_session_id=f"cs_mix_{next(_sessions)}",
            status=DepositStatus.OPEN,
        )
        deposits.append(deposit)
        payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
        return lambda: handle_webhook(payload=payload, signature_header=header)

    def refund(deposit, amount):
        payload, header = sign(event("charge.refunded", charge_refunded(deposit, amount)))
        return lambda: handle_webhook(payload=payload, signature_header=header)

    def bid(user, price):
        return lambda: place_bid(
            buyer=user, problem=market.problem, price=Money(price, Currency.USD), quantity=2
        )

    def ask(user, price):
        solution = solutions[user.pk]
        return lambda: place_ask(
            seller=user, solution=solution, price=Money(price, Currency.USD), quantity=2
        )

    def cancel(user):
        order = Order.objects.filter(owner=user, status=OrderStatus.OPEN).order_by("?").first()
        return (lambda: cancel_order(user=user, order_id=order.pk)) if order else None

    def withdraw(user):
        return lambda: request_withdrawal(user=user, amount_minor=1_500)

    def close(withdrawal, paid):
        if paid:
            return lambda: complete_withdrawal(
                withdrawal_id=withdrawal, transfer_id=f"tr_{withdrawal}"
            )
        return lambda: fail_withdrawal(withdrawal_id=withdrawal, code="x", message="refused")

    failures: list[BaseException] = []
    for round_ in range(6):
        calls = []
        for user in users:
            calls.append(new_deposit(user, 3_000))
            calls.append(rng.choice([bid, ask])(user, rng.randrange(500, 1_500, 100)))
        open_withdrawals = list(
            Withdrawal.objects.filter(status=WithdrawalStatus.REQUESTED).values_list(
                "pk", flat=True
            )
        )
        calls += [close(pk, rng.random() < 0.5) for pk in open_withdrawals]
        calls += [withdraw(rng.choice(users)), withdraw(rng.choice(users))]
        calls += [c for c in (cancel(rng.choice(users)) for _ in range(2)) if c]
        paid = [d for d in deposits if Deposit.objects.get(pk=d.pk).status == DepositStatus.PAID]
        if paid:
            calls.append(refund(rng.choice(paid), 1_000 * (round_ % 3 + 1)))
        calls.append(lambda: release_matured_proceeds(now=timezone_far_future()))
        rng.shuffle(calls)
        for result in run_together(calls):
            if isinstance(result, BaseException) and not isinstance(result, DomainError):
                failures.append(result)
    close_old_connections()
    assert failures == []
    from market.models import Trade

    assert Trade.objects.filter(currency="USD").exists()
    assert Withdrawal.objects.filter(status=WithdrawalStatus.PAID).exists()
    assert_payments_invariants()


def timezone_far_future():
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() + timedelta(days=1)


# --- the forms read ASCII amounts only ------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("amount", ["²", "1²", "١٢", "12.٣"])
def test_a_non_ascii_amount_in_the_forms_is_refused_not_a_crash(client, fake_stripe, amount):
    user = UserFactory()
    client.force_login(user)
    before = snapshot()
    for path in ("/payments/deposit/", "/payments/withdraw/"):
        response = client.post(path, {"amount": amount})
        assert response.status_code == 302 and response["Location"] == "/account/"
    assert snapshot() == before
    assert Deposit.objects.count() == 0 and Withdrawal.objects.count() == 0
    assert fake_stripe.requests == []


# --- USD debt is repaid before the money can buy anything -----------------------------------


@pytest.mark.django_db
def test_a_cancelled_bid_repays_debt_instead_of_freeing_money_owed():
    """Deposit, bid, refund (the held money would be debt): the bid is cancelled in the
    refund's own transaction and its hold repays the debt; before, cancelling later freed
    the money to available, where it could buy from an accomplice."""
    from tests.payments.helpers import charge_refunded

    user = UserFactory()
    deposit = Deposit.objects.create(
        user=user, amount_minor=3_000, checkout_session_id="cs_debt", status=DepositStatus.OPEN
    )
    deliver(event("checkout.session.completed", completed_session(deposit)))
    deposit.refresh_from_db()
    market = usd_market()
    bid = place_bid(
        buyer=user, problem=market.problem, price=Money(1_000, Currency.USD), quantity=3
    )
    deliver(event("charge.refunded", charge_refunded(deposit, 3_000)))
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert usd(user, AccountKind.HELD) == 0
    assert Order.objects.get(pk=bid.pk).status == OrderStatus.CANCELLED
    assert LedgerTransaction.objects.filter(kind="debt_settle").count() == 1
    assert_payments_invariants()


@pytest.mark.django_db
def test_a_usd_bid_repays_debt_first_and_a_refusal_changes_nothing():
    from market.exceptions import InsufficientFunds
    from market.services.ledger import transfer

    user = UserFactory()
    fund(user, 3_000)
    accounts = get_user_accounts(
        keys=[(user.pk, AccountKind.AVAILABLE), (user.pk, AccountKind.DEBT)], currency="USD"
    )
    # 1 000 owed while 3 000 is available (e.g. price improvement credited after a refund).
    transfer(
        kind=LedgerTransaction.Kind.REFUND,
        currency="USD",
        legs=[
            (accounts[(user.pk, AccountKind.DEBT)], -1_000),
            (get_system_account(currency="USD", kind=AccountKind.STRIPE_CLEARING), 1_000),
        ],
    )
    market = usd_market()
    before = snapshot()
    with pytest.raises(InsufficientFunds):
        place_bid(buyer=user, problem=market.problem, price=Money(1_000, Currency.USD), quantity=3)
    assert snapshot() == before

    place_bid(buyer=user, problem=market.problem, price=Money(1_000, Currency.USD), quantity=2)
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert usd(user, AccountKind.HELD) == 2_000
    assert_ledger_invariants()


# --- events of connected accounts are not payments to us ------------------------------------


@pytest.mark.django_db
def test_a_connected_accounts_own_checkout_never_credits_our_deposit():
    """A seller with their own Stripe account could make a Checkout Session whose
    client_reference_id names our deposit (one still without a session id, e.g. after a
    Stripe 500) and pay it to themselves; delivered through a Connect endpoint, it must not
    credit the deposit."""
    from market.payments.models import StripeEvent

    user = UserFactory()
    deposit = Deposit.objects.create(user=user, amount_minor=2_000)  # CREATED, no session id
    session = completed_session(deposit)
    session["id"] = "cs_on_their_account"
    evt = event("checkout.session.completed", session)
    evt["account"] = "acct_seller_own"
    before = snapshot()
    record, is_new = deliver(evt)
    assert is_new and record.outcome == StripeEvent.Outcome.IGNORED
    assert "connected account" in record.detail
    assert snapshot() == before
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.CREATED and deposit.checkout_session_id is None
    for type_, obj in [
        ("charge.refunded", {"id": "ch_x", "payment_intent": "pi_x", "amount_refunded": 1}),
        ("charge.dispute.created", {"id": "dp_x", "payment_intent": "pi_x", "amount": 1}),
    ]:
        other = event(type_, obj)
        other["account"] = "acct_seller_own"
        assert deliver(other)[0].outcome == StripeEvent.Outcome.IGNORED  # not a 409 either
    assert usd(user) == 0
    assert_payments_invariants()


# --- refunds and disputes for amounts other than the deposit's --------------------------------


@pytest.mark.django_db
def test_a_refund_event_for_more_than_the_deposit_takes_back_the_deposit_only():
    from tests.payments.helpers import charge_refunded

    user = UserFactory()
    fund(user, 3_000)
    deposit = Deposit.objects.get(user=user)
    deliver(event("charge.refunded", charge_refunded(deposit, 9_999)))
    deposit.refresh_from_db()
    assert deposit.refunded_minor == 3_000
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    before = snapshot()
    deliver(event("charge.refunded", charge_refunded(deposit, 12_000)))  # a later, larger total
    deliver(event("charge.refunded", charge_refunded(deposit, 1_000)))  # an older, smaller one
    assert snapshot() == before
    assert LedgerTransaction.objects.filter(kind="refund").count() == 1
    assert_payments_invariants()


@pytest.mark.django_db
def test_a_dispute_won_before_created_moves_nothing_and_the_late_created_is_ignored():
    from market.payments.models import Dispute, DisputeStatus
    from tests.payments.helpers import dispute

    user = UserFactory()
    fund(user, 3_000)
    deposit = Deposit.objects.get(user=user)
    before = snapshot()
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_won_first", 3_000, "won")))
    deliver(
        event("charge.dispute.created", dispute(deposit, "dp_won_first", 3_000, "needs_response"))
    )
    assert snapshot() == before
    assert usd(user) == 3_000
    assert Dispute.objects.get().status == DisputeStatus.WON
    # A dispute for more than the deposit freezes the deposit's amount at most.
    deliver(event("charge.dispute.created", dispute(deposit, "dp_big", 50_000, "needs_response")))
    assert usd(user) == 0 and usd(user, AccountKind.DEBT) == 0
    assert Dispute.objects.get(dispute_id="dp_big").amount_minor == 3_000
    assert_payments_invariants()
