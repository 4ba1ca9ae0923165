"""Concurrent duplicates on real PostgreSQL (threads, committed transactions)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from market.exceptions import InsufficientFunds
from market.models import AccountKind, LedgerTransaction
from market.payments.models import ConnectedAccount, Deposit, DepositStatus, StripeEvent
from market.payments.services.webhooks import handle_webhook
from market.payments.services.withdrawals import request_withdrawal
from tests.factories import UserFactory
from tests.market.helpers import balance
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    earn_proceeds,
    event,
    sign,
)
from tests.waiting import scaled

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8


def run_together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` in threads released at once; return each result or exception."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def worker(index: int) -> None:
        try:
            barrier.wait()
            results[index] = calls[index]()
        except Exception as error:  # collected and asserted by the test
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=scaled(60))
    return results


def open_deposit(user, amount=5_000, session_id="cs_conc") -> Deposit:
    return Deposit.objects.create(
        user=user, amount_minor=amount, checkout_session_id=session_id, status=DepositStatus.OPEN
    )


def deliver(payload: bytes, header: str):
    return lambda: handle_webhook(payload=payload, signature_header=header)


def test_the_same_event_delivered_concurrently_is_applied_once():
    user = UserFactory()
    deposit = open_deposit(user)
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))

    results = run_together([deliver(payload, header) for _ in range(THREADS)])

    assert all(isinstance(r, tuple) for r in results), results
    assert sorted(is_new for _, is_new in results) == [False] * (THREADS - 1) + [True]
    assert StripeEvent.objects.count() == 1
    assert LedgerTransaction.objects.filter(kind="deposit").count() == 1
    assert balance(user, currency="USD") == 5_000
    assert_payments_invariants()


def test_different_events_for_one_session_concurrently_credit_once():
    user = UserFactory()
    deposit = open_deposit(user)
    deliveries = []
    for i in range(THREADS):
        kind = "checkout.session.completed" if i % 2 else "checkout.session.async_payment_succeeded"
        deliveries.append(deliver(*sign(event(kind, completed_session(deposit)))))

    results = run_together(deliveries)

    assert all(isinstance(r, tuple) and r[1] for r in results), results
    assert StripeEvent.objects.count() == THREADS
    assert StripeEvent.objects.filter(outcome="processed").count() == 1
    assert LedgerTransaction.objects.filter(kind="deposit").count() == 1
    assert balance(user, currency="USD") == 5_000
    assert_payments_invariants()


def test_concurrent_refund_events_refund_once():
    user = UserFactory()
    deposit = open_deposit(user)
    deliver(*sign(event("checkout.session.completed", completed_session(deposit))))()
    deposit.refresh_from_db()
    deliveries = [
        deliver(*sign(event("charge.refunded", charge_refunded(deposit, 5_000))))
        for _ in range(THREADS)
    ]
    results = run_together(deliveries)
    assert all(isinstance(r, tuple) for r in results), results
    assert LedgerTransaction.objects.filter(kind="refund").count() == 1
    deposit.refresh_from_db()
    assert deposit.refunded_minor == 5_000
    assert balance(user, currency="USD") == 0
    assert balance(user, AccountKind.DEBT, currency="USD") == 0
    assert_payments_invariants()


def test_concurrent_withdrawals_never_overdraw():
    user = UserFactory()
    earn_proceeds(user, 10_000)  # withdrawable: sale proceeds (deposits are not)
    ConnectedAccount.objects.create(user=user, stripe_account_id="acct_c", payouts_enabled=True)

    results = run_together(
        [lambda: request_withdrawal(user=user, amount_minor=3_000) for _ in range(5)]
    )

    refused = [r for r in results if isinstance(r, InsufficientFunds)]
    accepted = [r for r in results if not isinstance(r, Exception)]
    assert (len(accepted), len(refused)) == (3, 2), results
    assert balance(user, currency="USD") == 1_000
    assert balance(user, AccountKind.HELD, currency="USD") == 9_000
    assert_payments_invariants()
