"""A dispute and a trade on the disputed buyer's bid at the same moment (issue 17 §1).

Real PostgreSQL, real threads; the order is forced by a third transaction holding a lock,
and each step waits for the previous one to be *waiting on a lock* (seen in ``pg_locks``),
never for a fixed time. Either the dispute wins (the bid is cancelled in the dispute's own
transaction and the ask finds nothing to buy) or the trade does (it completed before the
dispute was known; the dispute then leaves debt and there is no bid left to cancel). In no
order can money whose source is disputed complete a trade after the dispute was applied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import close_old_connections, connection, transaction

from market.models import Account, AccountKind, Order, OrderStatus, Problem, Trade
from market.money import Currency, Money
from market.payments.models import Deposit, DepositStatus, Dispute
from market.payments.services.webhooks import handle_webhook
from market.services.orders import place_ask, place_bid
from tests.factories import UserFactory
from tests.market.conftest import Market
from tests.market.helpers import balance
from tests.payments.helpers import (
    assert_payments_invariants,
    completed_session,
    dispute,
    event,
    sign,
)
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted")
        return int(cursor.fetchone()[0])


def wait_until_waiting(count: int, timeout_s: float = 20.0) -> None:
    wait_until(
        lambda: waiting_on_locks() >= count,
        f"{count} transactions waiting on a lock",
        timeout=timeout_s,
        poll_s=0.01,
    )


class Step(threading.Thread):
    """Run ``call`` in its own thread and database connection; keep its result or error."""

    def __init__(self, call: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.call = call
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.call()
        except BaseException as error:  # noqa: BLE001  # asserted by the test
            self.error = error
        finally:
            connection.close()


class Blocker(threading.Thread):
    """Hold a row lock taken by ``lock`` until released."""

    def __init__(self, lock: Callable[[], None]) -> None:
        super().__init__(daemon=True)
        self.lock = lock
        self.locked = threading.Event()
        self.release = threading.Event()

    def run(self) -> None:
        try:
            with transaction.atomic():
                self.lock()
                self.locked.set()
                self.release.wait(30)
        finally:
            connection.close()


def setup_bid(settings, tag: str = ""):
    settings.STRIPE_SECRET_KEY = "sk_test_formalmarket_fake"
    buyer, seller = UserFactory(), UserFactory()
    deposit = Deposit.objects.create(
        user=buyer,
        amount_minor=5_000,
        checkout_session_id=f"cs_race{tag}",
        status=DepositStatus.OPEN,
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    handle_webhook(payload=payload, signature_header=header)
    market = Market(currency=Currency.USD, is_demo=False)
    solution = market.accepted(solver=seller)
    bid = place_bid(
        buyer=buyer, problem=market.problem, price=Money(5_000, Currency.USD), quantity=1
    )
    deposit.refresh_from_db()
    payload, header = sign(
        event("charge.dispute.created", dispute(deposit, f"dp_race{tag}", 5_000, "needs_response"))
    )

    def dispute_arrives():
        return handle_webhook(payload=payload, signature_header=header)

    def ask_arrives():
        return place_ask(
            seller=seller, solution=solution, price=Money(5_000, Currency.USD), quantity=1
        )

    return buyer, bid, market.problem, dispute_arrives, ask_arrives


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def test_a_dispute_that_locks_first_cancels_the_bid_and_the_ask_finds_nothing(settings):
    buyer, bid, problem, dispute_arrives, ask_arrives = setup_bid(settings)
    blocker = Blocker(
        lambda: Problem.objects.select_for_update(no_key=True).filter(pk=problem.pk).exists()
    )
    blocker.start()
    assert blocker.locked.wait(10)

    webhook = Step(dispute_arrives)
    webhook.start()
    wait_until_waiting(1)  # the dispute waits for the book
    trade = Step(ask_arrives)
    trade.start()
    wait_until_waiting(2)  # the ask waits behind it
    blocker.release.set()
    for thread in (blocker, webhook, trade):
        thread.join(30)
    close_old_connections()

    assert webhook.error is None and trade.error is None, (webhook.error, trade.error)
    assert Trade.objects.count() == 0
    assert Order.objects.get(pk=bid.pk).status == OrderStatus.CANCELLED
    assert trade.result.status == OrderStatus.OPEN  # the ask rests
    assert (usd(buyer), usd(buyer, AccountKind.HELD), usd(buyer, AccountKind.DEBT)) == (0, 0, 0)
    assert Dispute.objects.get().amount_minor == 5_000
    assert_payments_invariants()


def test_a_trade_that_locks_first_completes_and_the_dispute_reverses_the_sale(settings):
    buyer, bid, problem, dispute_arrives, ask_arrives = setup_bid(settings)
    # The ask fills the buyer's resting bid, which pays from the buyer's HELD: the trade locks
    # that account (and not the buyer's available, which a fill from a hold does not touch).
    held = Account.objects.get(owner=buyer, currency="USD", kind=AccountKind.HELD)
    blocker = Blocker(lambda: Account.objects.select_for_update().filter(pk=held.pk).exists())
    blocker.start()
    assert blocker.locked.wait(10)

    trade = Step(ask_arrives)
    trade.start()
    wait_until_waiting(1)  # the trade holds the book and waits for the buyer's accounts
    webhook = Step(dispute_arrives)
    webhook.start()
    wait_until_waiting(2)  # the dispute waits for the book
    blocker.release.set()
    for thread in (blocker, trade, webhook):
        thread.join(30)
    close_old_connections()

    assert webhook.error is None and trade.error is None, (webhook.error, trade.error)
    assert Trade.objects.count() == 1
    assert Order.objects.get(pk=bid.pk).status == OrderStatus.FILLED
    # The trade bought with the disputed deposit: the dispute takes the seller's pending
    # proceeds of that sale (and its fee) instead of leaving the buyer in debt (issue 27, M1).
    assert (usd(buyer), usd(buyer, AccountKind.HELD), usd(buyer, AccountKind.DEBT)) == (0, 0, 0)
    from market.payments.models import ProceedsHold

    hold = ProceedsHold.objects.get()
    assert hold.reversed_minor == hold.amount_minor
    assert_payments_invariants()


def test_disputes_and_trades_released_together_never_deadlock(settings):
    """The same two calls started at once, many times: one of the two outcomes above, no
    deadlock, no error."""
    from tests.payments.test_concurrency import run_together

    outcomes = set()
    for round_ in range(4):
        buyer, bid, _, dispute_arrives, ask_arrives = setup_bid(settings, tag=str(round_))
        results = run_together([dispute_arrives, ask_arrives])
        close_old_connections()
        assert [r for r in results if isinstance(r, BaseException)] == [], results
        status = Order.objects.get(pk=bid.pk).status
        outcomes.add(status)
        assert usd(buyer, AccountKind.DEBT) == 0  # either way: the sale is reversed
        assert status in {OrderStatus.CANCELLED, OrderStatus.FILLED}
        assert_payments_invariants()
    assert outcomes <= {OrderStatus.CANCELLED, OrderStatus.FILLED}


def test_a_bid_on_a_problem_not_locked_first_is_cancelled_or_the_event_is_deferred(settings):
    """A bid placed between the listing of the user's bid problems and the lock of their
    accounts sits on a problem the dispute did not lock: it is locked NOWAIT (waiting while
    holding the user's accounts could deadlock with a trade on it). Free: cancelled. Busy:
    PaymentsBusy, and the whole event rolls back (Stripe delivers it again)."""
    from market.payments.exceptions import PaymentsBusy
    from market.payments.services.debtors import cancel_open_usd_bids

    buyer, bid, problem, _, _ = setup_bid(settings)
    blocker = Blocker(
        lambda: Problem.objects.select_for_update(no_key=True).filter(pk=problem.pk).exists()
    )
    blocker.start()
    assert blocker.locked.wait(10)
    try:
        with pytest.raises(PaymentsBusy), transaction.atomic():
            cancel_open_usd_bids(user_id=buyer.pk, locked_problem_ids=set())
        assert Order.objects.get(pk=bid.pk).status == OrderStatus.OPEN
    finally:
        blocker.release.set()
        blocker.join(30)
    close_old_connections()

    with transaction.atomic():
        assert cancel_open_usd_bids(user_id=buyer.pk, locked_problem_ids=set()) == 1
    assert Order.objects.get(pk=bid.pk).status == OrderStatus.CANCELLED
    assert usd(buyer) == 5_000 and usd(buyer, AccountKind.HELD) == 0
    assert_payments_invariants()
