"""A won dispute and a refused withdrawal of the same seller at the same instant (issue 27
follow-up): both lock the seller's USD accounts and the withdrawal's transfer reversal, and
must take them in one order (accounts, then transfer reversals; docs/payments.md, "Lock
order"), or PostgreSQL detects a deadlock and one of the two fails.

Real PostgreSQL, real threads. The interleaving that deadlocked is forced by a third
transaction holding the seller's AVAILABLE account: the refusal queues on it first (holding
the withdrawal), then the won dispute (which, before the fix, already held the transfer
reversal). Each step waits until the previous one is seen waiting in ``pg_locks``, never for
a fixed time. Released, the refusal gets the accounts first and then needs the transfer
reversal.
"""

from __future__ import annotations

import pytest

from market.models import Account, AccountKind
from market.payments.exceptions import StripeUnavailable
from market.payments.models import (
    ConnectedAccount,
    SaleReversal,
    TransferReversal,
    TransferReversalStatus,
    WithdrawalStatus,
)
from market.payments.services.proceeds import release_matured_proceeds
from market.payments.services.withdrawals import (
    fail_withdrawal,
    request_withdrawal,
    send_withdrawal_transfer,
)
from tests.factories import UserFactory
from tests.payments import fakes
from tests.payments.helpers import assert_payments_invariants, dispute, event
from tests.payments.test_debt_race import Blocker, Step, wait_until_waiting
from tests.payments.test_provenance import after_window, deliver, paid_deposit, sell_to, usd

pytestmark = pytest.mark.django_db(transaction=True)


def disputed_in_flight_sale(fake):
    """A 100.00 deposit buys the seller's 100.00 ask; 95.00 matures and its withdrawal stays in
    flight (Stripe answered 500); the deposit is disputed: the transfer's 94.75 is a REQUESTED
    transfer reversal of the in-flight withdrawal."""
    buyer, seller = UserFactory(), UserFactory()
    ConnectedAccount.objects.create(
        user=seller,
        stripe_account_id=f"acct_lock_{seller.pk}",
        payouts_enabled=True,
        details_submitted=True,
    )
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    withdrawal = request_withdrawal(user=seller, amount_minor=9_500)
    fake.answer("POST", "/v1/transfers", 500, fakes.error(500, "api_error", None, "boom"))
    with pytest.raises(StripeUnavailable):
        send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_lock", 10_000, "needs_response")))
    reversal = TransferReversal.objects.get()
    assert (reversal.withdrawal_id, reversal.status) == (
        withdrawal.pk,
        TransferReversalStatus.REQUESTED,
    )
    return seller, deposit, withdrawal, reversal


def test_a_won_dispute_and_a_refused_withdrawal_at_once_do_not_deadlock(fake_stripe):
    seller, deposit, withdrawal, reversal = disputed_in_flight_sale(fake_stripe)
    available = Account.objects.get(owner=seller, kind=AccountKind.AVAILABLE, currency="USD")

    blocker = Blocker(lambda: list(Account.objects.select_for_update().filter(pk=available.pk)))
    blocker.start()
    assert blocker.locked.wait(30)
    refusal = Step(
        lambda: fail_withdrawal(withdrawal_id=withdrawal.pk, code="account_invalid", message="no")
    )
    won_event = event("charge.dispute.closed", dispute(deposit, "dp_lock", 10_000, "won"))
    won = Step(lambda: deliver(won_event))
    try:
        refusal.start()
        wait_until_waiting(1)
        won.start()
        wait_until_waiting(2)
    finally:
        blocker.release.set()
    blocker.join(30)
    refusal.join(60)
    won.join(60)
    assert not refusal.is_alive() and not won.is_alive()
    assert refusal.error is None, refusal.error
    assert won.error is None, won.error

    # Both happened, each computed as alone: the refusal gave 95.00 back and withheld the
    # 94.75 asked; the win then gave the seller the transfer's 94.75 again.
    withdrawal.refresh_from_db()
    reversal.refresh_from_db()
    assert withdrawal.status == WithdrawalStatus.FAILED
    assert reversal.status == TransferReversalStatus.WITHHELD
    assert reversal.sale_reversal.status == SaleReversal.Status.RESTORED
    assert usd(seller) == 25 + 9_475
    assert_payments_invariants()
