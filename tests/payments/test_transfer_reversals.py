"""Issue 27, M1 to the end: proceeds already paid out to a seller are asked back from their
Stripe account with a transfer reversal (the real library, Stripe stubbed at the HTTP layer),
and what cannot be recovered is a recorded loss.

The worked example of docs/payments.md: a 100.00 deposit buys a 100.00 sale; the seller's
95.00 matures and is withdrawn (94.75 transferred after the 0.25 fee); the deposit is
refunded: 94.75 is asked back by transfer reversal and 5.25 (the two fees) is a loss.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from market.models import AccountKind
from market.payments.exceptions import StripeUnavailable
from market.payments.models import (
    ConnectedAccount,
    Dispute,
    FundsLot,
    SaleReversal,
    TransferReversal,
    TransferReversalStatus,
    WithdrawalFunding,
)
from market.payments.services.proceeds import release_matured_proceeds
from market.payments.services.reconciliation import ledger_by_category
from market.payments.services.transfer_reversals import (
    list_stuck_transfer_reversal_ids,
    send_transfer_reversal,
)
from market.payments.services.withdrawals import request_withdrawal, send_withdrawal_transfer
from market.payments.tasks import send_transfer_reversal_task
from tests.factories import UserFactory
from tests.payments import fakes
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    dispute,
    event,
    system,
)
from tests.payments.test_provenance import (
    after_window,
    deliver,
    losses,
    paid_deposit,
    sell_to,
    usd,
    withdrawable,
)

pytestmark = pytest.mark.django_db


def paid_out_sale(fake):
    """A 100.00 deposit buys the seller's 100.00 ask; 95.00 matures and is withdrawn."""
    buyer, seller = UserFactory(), UserFactory()
    ConnectedAccount.objects.create(
        user=seller,
        stripe_account_id=f"acct_rev_{seller.pk}",
        payouts_enabled=True,
        details_submitted=True,
    )
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    withdrawal = request_withdrawal(user=seller, amount_minor=9_500)
    assert withdrawal.net_minor == 9_475
    funding = WithdrawalFunding.objects.get(withdrawal=withdrawal)
    assert funding.amount_minor == 9_500 and funding.lot.proceeds_hold is not None
    fake.answer("POST", "/v1/transfers", 200, fakes.transfer(f"tr_{seller.pk}", 9_475, "acct"))
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    return buyer, seller, deposit, f"tr_{seller.pk}"


def reversal_answer(reversal_id: str, transfer_id: str, amount: int, ours: int) -> dict:
    return {
        "id": reversal_id,
        "object": "transfer_reversal",
        "amount": amount,
        "currency": "usd",
        "transfer": transfer_id,
        "metadata": {"transfer_reversal_id": str(ours)},
    }


def test_worked_example_a_refund_asks_the_transfer_back_and_records_the_fees_as_loss(
    fake_stripe,
):
    buyer, seller, deposit, transfer_id = paid_out_sale(fake_stripe)

    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))

    reversal = TransferReversal.objects.get()
    assert (reversal.amount_minor, reversal.status) == (9_475, TransferReversalStatus.REQUESTED)
    assert system(AccountKind.REVERSALS) == -9_475
    assert losses() == 525
    assert usd(buyer, AccountKind.DEBT) == 0 and usd(seller) == 0
    sale = reversal.sale_reversal
    assert (sale.source, sale.status, sale.seller_minor) == ("transfer", "reversed", 9_475)
    assert_payments_invariants()

    path = f"/v1/transfers/{transfer_id}/reversals"
    fake_stripe.answer("POST", path, 200, reversal_answer("trr_1", transfer_id, 9_475, reversal.pk))
    send_transfer_reversal(reversal_id=reversal.pk)

    sent = fake_stripe.requests_to("POST", path)
    assert len(sent) == 1
    assert sent[0].idempotency_key == f"transfer-reversal-{reversal.pk}"
    assert sent[0].form["amount"] == "9475"
    assert sent[0].form["metadata[transfer_reversal_id]"] == str(reversal.pk)
    reversal.refresh_from_db()
    assert (reversal.status, reversal.stripe_reversal_id) == ("succeeded", "trr_1")
    assert system(AccountKind.REVERSALS) == 0
    # Stripe paid out 9 475, got 9 475 back and refunded 10 000 of 10 000: 525 lost, recorded.
    assert losses() == 525
    assert_payments_invariants()
    # The reconciliation compares the transfer with its reversal as Stripe reports them.
    assert ledger_by_category()["transfer"] == -9_475 + 9_475
    # A second run (a task re-delivered) changes nothing and asks nothing of Stripe.
    send_transfer_reversal(reversal_id=reversal.pk)
    assert len(fake_stripe.requests) == 2  # the transfer and the one reversal
    assert_payments_invariants()


def test_a_refused_reversal_is_a_recorded_loss(fake_stripe):
    _, _, deposit, transfer_id = paid_out_sale(fake_stripe)
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    reversal = TransferReversal.objects.get()
    fake_stripe.answer(
        "POST",
        f"/v1/transfers/{transfer_id}/reversals",
        400,
        fakes.error(400, "invalid_request_error", "insufficient_funds", "balance too low"),
    )
    send_transfer_reversal(reversal_id=reversal.pk)
    reversal.refresh_from_db()
    assert (reversal.status, reversal.failure_code) == ("refused", "insufficient_funds")
    assert system(AccountKind.REVERSALS) == 0
    assert losses() == 10_000
    assert_payments_invariants()


def test_stripe_5xx_keeps_it_requested_and_the_sweep_retries_it(fake_stripe, settings):
    _, _, deposit, transfer_id = paid_out_sale(fake_stripe)
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    reversal = TransferReversal.objects.get()
    path = f"/v1/transfers/{transfer_id}/reversals"
    fake_stripe.answer("POST", path, 500, fakes.error(500, "api_error", None, "boom"))
    assert StripeUnavailable in send_transfer_reversal_task.autoretry_for
    with pytest.raises(StripeUnavailable):
        send_transfer_reversal_task.run(reversal_id=reversal.pk)
    reversal.refresh_from_db()
    assert (reversal.status, reversal.attempts) == ("requested", 1)
    assert system(AccountKind.REVERSALS) == -9_475
    assert_payments_invariants()

    assert list_stuck_transfer_reversal_ids() == []
    TransferReversal.objects.filter(pk=reversal.pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.PAYOUT_STUCK_AFTER_S + 1)
    )
    assert list_stuck_transfer_reversal_ids() == [reversal.pk]
    # The retry looks for an earlier reversal first (Stripe keeps keys 24 hours only) and
    # finds the one whose answer was lost.
    fake_stripe.answer(
        "GET",
        path,
        200,
        {
            "object": "list",
            "data": [reversal_answer("trr_lost", transfer_id, 9_475, reversal.pk)],
            "has_more": False,
            "url": path,
        },
    )
    send_transfer_reversal(reversal_id=reversal.pk)
    reversal.refresh_from_db()
    assert (reversal.status, reversal.stripe_reversal_id) == ("succeeded", "trr_lost")
    assert len(fake_stripe.requests_to("POST", path)) == 1
    assert_payments_invariants()


def test_a_won_dispute_gives_the_reversed_transfer_back_to_the_seller(fake_stripe):
    _, seller, deposit, transfer_id = paid_out_sale(fake_stripe)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_tr", 10_000, "needs_response")))
    reversal = TransferReversal.objects.get()
    assert reversal.sale_reversal.status == SaleReversal.Status.DISPUTED
    assert Dispute.objects.get().loss_minor == 525
    path = f"/v1/transfers/{transfer_id}/reversals"
    fake_stripe.answer("POST", path, 200, reversal_answer("trr_2", transfer_id, 9_475, reversal.pk))
    send_transfer_reversal(reversal_id=reversal.pk)
    assert_payments_invariants()

    deliver(event("charge.dispute.closed", dispute(deposit, "dp_tr", 10_000, "won")))
    # Stripe gave the 100.00 back: the seller's 94.75 (taken from their Stripe account) is
    # now in their withdrawable balance, and the 5.25 loss is undone.
    assert usd(seller) == 9_475 and withdrawable(seller) == 9_475
    assert losses() == 0
    assert_payments_invariants()


def test_a_refusal_after_a_won_dispute_takes_it_from_the_seller_not_the_platform(fake_stripe):
    _, seller, deposit, transfer_id = paid_out_sale(fake_stripe)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_tf", 10_000, "needs_response")))
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_tf", 10_000, "won")))
    assert usd(seller) == 9_475
    reversal = TransferReversal.objects.get()
    fake_stripe.answer(
        "POST",
        f"/v1/transfers/{transfer_id}/reversals",
        400,
        fakes.error(400, "invalid_request_error", "insufficient_funds", "balance too low"),
    )
    send_transfer_reversal(reversal_id=reversal.pk)
    # The seller kept the transfer: the give-back is taken from them, not written off.
    assert usd(seller) == 0 and withdrawable(seller) == 0
    assert losses() == 0
    assert_payments_invariants()


def test_a_refusal_after_a_won_dispute_also_takes_the_proceeds_lot_back(fake_stripe):
    """The won dispute gave the seller's proceeds lot its 94.75 back with the money; the
    refusal takes the money, so it takes the lot's part too (a lot with no money behind it
    would later fund a withdrawal or a taking that finds nothing)."""
    _, seller, deposit, transfer_id = paid_out_sale(fake_stripe)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_lot", 10_000, "needs_response")))
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_lot", 10_000, "won")))
    lot = FundsLot.objects.get(user=seller)
    assert lot.remaining_minor == 9_475
    reversal = TransferReversal.objects.get()
    fake_stripe.answer(
        "POST",
        f"/v1/transfers/{transfer_id}/reversals",
        400,
        fakes.error(400, "invalid_request_error", "insufficient_funds", "balance too low"),
    )
    send_transfer_reversal(reversal_id=reversal.pk)
    lot.refresh_from_db()
    assert usd(seller) == 0 and lot.remaining_minor == 0
    assert_payments_invariants()


def test_a_refused_withdrawal_gives_its_lots_back(fake_stripe):
    buyer, seller = UserFactory(), UserFactory()
    ConnectedAccount.objects.create(
        user=seller, stripe_account_id="acct_back", payouts_enabled=True, details_submitted=True
    )
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    release_matured_proceeds(now=after_window())
    withdrawal = request_withdrawal(user=seller, amount_minor=9_500)
    fake_stripe.answer(
        "POST",
        "/v1/transfers",
        400,
        fakes.error(400, "invalid_request_error", "account_invalid", "no"),
    )
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    # The proceeds are back in the seller's lot, so a refund takes them from there.
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    assert usd(seller) == 0 and losses() == 0
    assert not TransferReversal.objects.exists()
    assert_payments_invariants()


def test_a_seller_who_spends_a_deposit_of_their_own_cannot_launder_proceeds_out_of_reach(
    fake_stripe,
):
    """Spending draws on deposits before proceeds, in the lots as in the balance split.

    A seller whose proceeds matured deposits money of their own and spends it on an
    accomplice's ask: the purchase is paid from that deposit, so the proceeds lot stays whole,
    the withdrawal records that it paid the proceeds out, and the buyer's chargeback asks the
    transfer back. When the trade trigger spent the oldest lot (the proceeds) first, the
    withdrawal recorded no funding and the whole 100.00 became a loss.
    """
    buyer, seller, accomplice = UserFactory(), UserFactory(), UserFactory()
    ConnectedAccount.objects.create(
        user=seller,
        stripe_account_id=f"acct_launder_{seller.pk}",
        payouts_enabled=True,
        details_submitted=True,
    )
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    own = paid_deposit(seller, 9_500)
    sell_to(seller, accomplice, 9_500)
    own.lot.refresh_from_db()
    assert own.lot.remaining_minor == 0  # the purchase was paid from the seller's deposit
    assert withdrawable(seller) == 9_500
    withdrawal = request_withdrawal(user=seller, amount_minor=9_500)
    funding = WithdrawalFunding.objects.get(withdrawal=withdrawal)
    assert funding.amount_minor == 9_500 and funding.lot.proceeds_hold is not None
    fake_stripe.answer(
        "POST", "/v1/transfers", 200, fakes.transfer(f"tr_{seller.pk}", 9_475, "acct")
    )
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)

    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))

    reversal = TransferReversal.objects.get()
    assert reversal.amount_minor == 9_475
    assert losses() == 525
    assert_payments_invariants()


def in_flight_sale(fake):
    """As paid_out_sale, but Stripe answers the withdrawal's transfer with a 500: it stays
    REQUESTED (in flight) when the buyer's deposit is refunded."""
    buyer, seller = UserFactory(), UserFactory()
    ConnectedAccount.objects.create(
        user=seller,
        stripe_account_id=f"acct_fly_{seller.pk}",
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
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    # The transfer's share is asked back (a receivable), not written off; the reversal waits
    # for the transfer and asks nothing of Stripe meanwhile.
    reversal = TransferReversal.objects.get()
    assert (reversal.amount_minor, reversal.status) == (9_475, TransferReversalStatus.REQUESTED)
    assert losses() == 525 and system(AccountKind.REVERSALS) == -9_475
    with pytest.raises(StripeUnavailable):
        send_transfer_reversal(reversal_id=reversal.pk)
    assert fake.requests_to("POST", f"/v1/transfers/tr_{seller.pk}/reversals") == []
    assert_payments_invariants()
    fake.answer("GET", "/v1/transfers", 200, {"object": "list", "data": []})
    return seller, withdrawal, reversal


def test_a_taking_during_an_in_flight_withdrawal_asks_the_reversal_once_it_is_paid(fake_stripe):
    seller, withdrawal, reversal = in_flight_sale(fake_stripe)
    fake_stripe.answer("POST", "/v1/transfers", 200, fakes.transfer(f"tr_{seller.pk}", 9_475, "a"))
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    path = f"/v1/transfers/tr_{seller.pk}/reversals"
    fake_stripe.answer(
        "POST", path, 200, reversal_answer("trr_fly", f"tr_{seller.pk}", 9_475, reversal.pk)
    )
    send_transfer_reversal(reversal_id=reversal.pk)
    reversal.refresh_from_db()
    assert (reversal.status, reversal.stripe_reversal_id) == ("succeeded", "trr_fly")
    assert losses() == 525 and usd(seller) == 0
    assert_payments_invariants()


def test_a_taking_during_an_in_flight_withdrawal_that_stripe_refuses_is_withheld(fake_stripe):
    seller, withdrawal, reversal = in_flight_sale(fake_stripe)
    fake_stripe.answer(
        "POST",
        "/v1/transfers",
        400,
        fakes.error(400, "invalid_request_error", "account_invalid", "no"),
    )
    send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
    # The refusal gave the seller their 95.00 back; the 94.75 asked is withheld from it in the
    # same transaction (before, the seller kept 95.00, withdrawable, and 100.00 was a loss).
    reversal.refresh_from_db()
    assert reversal.status == TransferReversalStatus.WITHHELD
    assert reversal.close_transaction_id is not None
    assert usd(seller) == 25 and withdrawable(seller) == 25
    assert system(AccountKind.REVERSALS) == 0 and losses() == 525
    send_transfer_reversal(reversal_id=reversal.pk)  # closed: nothing asked of Stripe
    assert fake_stripe.requests_to("POST", f"/v1/transfers/tr_{seller.pk}/reversals") == []
    assert_payments_invariants()
