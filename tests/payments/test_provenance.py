"""Issue 27: every USD cent knows which deposit it came from (funds provenance).

M1-M6 are the sequences that lost money before lots existed: each is played with events
signed by the real ``stripe`` library on real PostgreSQL (the engine's trades are written by
its SQL functions; the trigger ``payments_fund_trade`` records which lots paid for them).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from activity.models import Event
from market.models import AccountKind, OrderStatus
from market.money import Currency, Money
from market.payments.exceptions import InvalidWebhook, NotRefundable
from market.payments.models import (
    Deposit,
    DepositStatus,
    Dispute,
    DisputeStatus,
    FundsLot,
    ProceedsHold,
    SaleReversal,
    TradeFunding,
)
from market.payments.services.proceeds import release_matured_proceeds
from market.payments.services.refunds import request_deposit_refund
from market.payments.services.webhooks import handle_webhook
from market.services.orders import place_ask, place_bid
from tests.factories import UserFactory
from tests.market.conftest import Market
from tests.market.helpers import balance, snapshot
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    dispute,
    event,
    sign,
    system,
)

pytestmark = pytest.mark.django_db

URL = "/payments/webhooks/stripe/"
_sessions = iter(range(1, 100_000))


def deliver(evt):
    payload, header = sign(evt)
    return handle_webhook(payload=payload, signature_header=header)


def paid_deposit(user, amount) -> Deposit:
    deposit = Deposit.objects.create(
        user=user,
        amount_minor=amount,
        checkout_session_id=f"cs_prov_{next(_sessions)}",
        status=DepositStatus.OPEN,
    )
    deliver(event("checkout.session.completed", completed_session(deposit)))
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.PAID
    return deposit


def usd(user, kind=AccountKind.AVAILABLE):
    return balance(user, kind, currency="USD")


def sell_to(buyer, seller, price: int):
    """``seller``'s resting ask fills ``buyer``'s bid at ``price``; return the trade."""
    market = Market(currency=Currency.USD, is_demo=False)
    place_ask(
        seller=seller,
        solution=market.accepted(solver=seller),
        price=Money(price, Currency.USD),
        quantity=1,
    )
    bid = place_bid(
        buyer=buyer, problem=market.problem, price=Money(price, Currency.USD), quantity=1
    )
    assert bid.status == OrderStatus.FILLED
    return bid.bid_fills.get()


def losses() -> int:
    return -system(AccountKind.LOSSES)


def withdrawable(user) -> int:
    from market.models import Account
    from market.payments.services.buckets import compute_usd_buckets

    account = Account.objects.get(owner=user, kind=AccountKind.AVAILABLE, currency="USD")
    return compute_usd_buckets(user_id=user.pk, available=account).withdrawable_minor


def after_window():
    return timezone.now() + timedelta(seconds=settings.PROCEEDS_HOLD_WINDOW_S + 1)


# --- M1: a chargeback after a purchase takes back the seller's pending proceeds ------------


@pytest.mark.parametrize("taking", ["dispute_lost", "refund"])
def test_m1_chargeback_after_a_purchase_reverses_the_pending_sale(taking):
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    trade = sell_to(buyer, seller, 10_000)
    assert usd(seller, AccountKind.PENDING) == 9_500
    funding = TradeFunding.objects.get(trade=trade)
    assert funding.lot.deposit_id == deposit.pk and funding.amount_minor == 10_000

    if taking == "refund":
        deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    else:
        deliver(
            event("charge.dispute.created", dispute(deposit, "dp_m1", 10_000, "needs_response"))
        )
        assert usd(seller, AccountKind.PENDING) == 0
        reversal = SaleReversal.objects.get(seller=seller)
        assert reversal.status == SaleReversal.Status.DISPUTED
        deliver(event("charge.dispute.closed", dispute(deposit, "dp_m1", 10_000, "lost")))

    # The seller's 9 500 and the platform's 500 fee paid for the taking: the buyer owes
    # nothing, the platform lost nothing, and nothing is left to release or withdraw.
    assert usd(seller, AccountKind.PENDING) == 0
    assert usd(buyer) == 0 and usd(buyer, AccountKind.DEBT) == 0
    assert losses() == 0
    assert release_matured_proceeds(now=after_window()) == 0
    assert usd(seller) == 0
    reversal = SaleReversal.objects.get(seller=seller)
    assert (reversal.seller_minor, reversal.fee_minor) == (9_500, 500)
    assert reversal.status == SaleReversal.Status.REVERSED
    # The seller learns why, in their activity feed and on their account page.
    note = Event.objects.get(user=seller, kind="sale.reversed")
    assert note.payload["trade_id"] == trade.pk and "95.00 USD" in note.payload["message"]
    assert_payments_invariants()


def test_m1_a_won_dispute_gives_the_sale_back_to_the_seller():
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_w", 10_000, "needs_response")))
    assert usd(seller, AccountKind.PENDING) == 0
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_w", 10_000, "won")))
    assert usd(seller, AccountKind.PENDING) == 9_500
    assert SaleReversal.objects.get().status == SaleReversal.Status.RESTORED
    assert release_matured_proceeds(now=after_window()) == 1
    assert usd(seller) == 9_500 and usd(buyer) == 0
    assert_payments_invariants()


def test_m1_a_partially_spent_deposit_takes_its_own_lot_first_then_the_sale():
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 4_000)  # seller pending 3 800, fee 200
    deliver(event("charge.dispute.created", dispute(deposit, "dp_p", 8_000, "needs_response")))
    record = Dispute.objects.get()
    assert (record.from_lot_minor, record.from_proceeds_minor, record.loss_minor) == (
        6_000,
        2_000,
        0,
    )
    assert usd(buyer) == 0
    assert usd(seller, AccountKind.PENDING) == 3_800 - 1_900
    assert_payments_invariants()


def test_m1_matured_proceeds_in_the_sellers_balance_are_taken_back_then_restored():
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    assert withdrawable(seller) == 9_500
    deliver(event("charge.dispute.created", dispute(deposit, "dp_l", 10_000, "needs_response")))
    # The proceeds matured into the seller's balance: taken from there, with the fee on them,
    # not left as a platform loss.
    assert losses() == 0
    assert usd(seller) == 0 and withdrawable(seller) == 0
    record = Dispute.objects.get()
    assert (record.from_proceeds_minor, record.loss_minor) == (10_000, 0)
    reversal = SaleReversal.objects.get(seller=seller)
    assert (reversal.source, reversal.status) == ("available", "disputed")
    assert (reversal.seller_minor, reversal.fee_minor) == (9_500, 500)
    note = Event.objects.get(user=seller, kind="sale.disputed")
    assert "95.00 USD" in note.payload["message"] and "disputed" in note.payload["message"]
    assert_payments_invariants()
    # Won: the seller's proceeds come back, withdrawable, and the seller is told.
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_l", 10_000, "won")))
    assert usd(seller) == 9_500 and withdrawable(seller) == 9_500
    assert Event.objects.filter(user=seller, kind="sale.restored").count() == 1
    assert FundsLot.objects.get(user=seller).remaining_minor == 9_500
    assert_payments_invariants()


def test_m1_a_lost_dispute_tells_the_seller_the_sale_is_reversed():
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_r", 10_000, "needs_response")))
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_r", 10_000, "lost")))
    kinds = list(Event.objects.filter(user=seller).order_by("id").values_list("kind", flat=True))
    assert kinds[-2:] == ["sale.disputed", "sale.reversed"]
    assert_payments_invariants()


def test_m1_proceeds_the_seller_spent_leave_a_recorded_loss_not_a_gap():
    buyer, seller, other = UserFactory(), UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    # The seller spends the proceeds on another sale; that one is not chased (its buyer's
    # money is the seller's own proceeds): the buyer has nothing, so the rest is a loss.
    sell_to(seller, other, 9_500)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_s", 10_000, "needs_response")))
    assert losses() == 10_000
    assert Dispute.objects.get().loss_minor == 10_000
    assert usd(buyer, AccountKind.DEBT) == 0
    assert_payments_invariants()
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_s", 10_000, "won")))
    assert losses() == 0
    assert_payments_invariants()


# --- M2: a refund hidden by a dispute is re-applied when the dispute closes for the user ---


@pytest.mark.parametrize("status", ["won", "warning_closed"])
def test_m2_a_refund_made_during_a_dispute_is_applied_when_it_closes(status):
    user = UserFactory()
    deposit = paid_deposit(user, 10_000)
    opening = "warning_needs_response" if status == "warning_closed" else "needs_response"
    deliver(event("charge.dispute.created", dispute(deposit, "dp_m2", 10_000, opening)))
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    assert usd(user) == 0
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_m2", 10_000, status)))
    deposit.refresh_from_db()
    # Stripe refunded the card: the money must not come back to the balance.
    assert usd(user) == 0 and deposit.refunded_minor == 10_000
    record = Dispute.objects.get()
    assert record.status == DisputeStatus.WON and record.stripe_status == status
    assert_payments_invariants()


def test_m2_a_closed_event_with_an_open_status_is_refused():
    user = UserFactory()
    deposit = paid_deposit(user, 10_000)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_s", 10_000, "needs_response")))
    before = snapshot()
    with pytest.raises(InvalidWebhook):
        deliver(event("charge.dispute.closed", dispute(deposit, "dp_s", 10_000, "under_review")))
    assert snapshot() == before and usd(user) == 0


# --- M3: a refund goes back only from its own deposit's unspent lot --------------------------


def test_m3_a_refund_is_not_paid_with_another_payments_money():
    buyer, seller = UserFactory(), UserFactory()
    first = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)  # FIFO: paid by the first deposit
    second = paid_deposit(buyer, 10_000)
    before = snapshot()
    with pytest.raises(NotRefundable) as refused:
        request_deposit_refund(user=buyer, deposit_id=first.pk, amount_minor=10_000)
    assert "0.00 USD" in refused.value.message  # money in messages has its decimals
    assert snapshot() == before
    assert FundsLot.objects.get(deposit=second).remaining_minor == 10_000
    # The second deposit's own money goes back to its own card.
    refund = request_deposit_refund(user=buyer, deposit_id=second.pk, amount_minor=10_000)
    assert refund.amount_minor == 10_000 and usd(buyer) == 0
    assert FundsLot.objects.get(deposit=second).remaining_minor == 0
    assert_payments_invariants()


def test_m3_refund_api_answers_409_with_the_amount_formatted(client):
    buyer, seller = UserFactory(), UserFactory()
    first = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    paid_deposit(buyer, 10_000)
    client.force_login(buyer)
    answer = client.post(
        f"/payments/api/deposits/{first.pk}/refund/",
        data={"amount_minor": 10_000},
        content_type="application/json",
    )
    assert answer.status_code == 409
    error = answer.json()["error"]
    assert error["code"] == "payments:not-refundable" and "0.00 USD" in error["message"]


# --- M4, M5: every event is checked against our records ------------------------------------


def test_m4_a_dispute_closed_naming_another_users_payment_is_refused():
    mallory, victim = UserFactory(), UserFactory()
    mine = paid_deposit(mallory, 10_000)
    theirs = paid_deposit(victim, 10_000)
    deliver(event("charge.dispute.created", dispute(mine, "dp_m4", 10_000, "needs_response")))
    before = snapshot()
    forged = dispute(mine, "dp_m4", 10_000, "won")
    forged["payment_intent"] = theirs.payment_intent_id
    with pytest.raises(InvalidWebhook):
        deliver(event("charge.dispute.closed", forged))
    assert snapshot() == before
    assert usd(victim) == 10_000 and usd(mallory) == 0
    assert Dispute.objects.get().status == DisputeStatus.OPEN


def test_m4_a_conflicting_event_answers_400_through_the_endpoint(client):
    mallory, victim = UserFactory(), UserFactory()
    mine = paid_deposit(mallory, 10_000)
    theirs = paid_deposit(victim, 10_000)
    deliver(event("charge.dispute.created", dispute(mine, "dp_m4b", 10_000, "needs_response")))
    forged = dispute(mine, "dp_m4b", 10_000, "won")
    forged["payment_intent"] = theirs.payment_intent_id
    payload, header = sign(event("charge.dispute.closed", forged))
    answer = client.post(
        URL, data=payload, content_type="application/json", HTTP_STRIPE_SIGNATURE=header
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "payments:invalid-webhook"


@pytest.mark.parametrize("kind", ["refund", "dispute"])
def test_m5_an_event_in_another_currency_is_refused(kind):
    user = UserFactory()
    deposit = paid_deposit(user, 10_000)
    before = snapshot()
    if kind == "refund":
        obj = {**charge_refunded(deposit, 2_500), "currency": "eur"}
        evt = event("charge.refunded", obj)
    else:
        obj = {**dispute(deposit, "dp_eur", 2_500, "needs_response"), "currency": "eur"}
        evt = event("charge.dispute.created", obj)
    with pytest.raises(InvalidWebhook):
        deliver(evt)
    assert snapshot() == before and usd(user) == 10_000


# --- M6: a second taking past the cap still records its Dispute ----------------------------


def test_m6_a_dispute_past_the_cap_is_recorded():
    user = UserFactory()
    deposit = paid_deposit(user, 10_000)
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    before = snapshot()
    deliver(event("charge.dispute.created", dispute(deposit, "dp_m6", 10_000, "needs_response")))
    assert snapshot() == before  # nothing left to take
    record = Dispute.objects.get(dispute_id="dp_m6")
    assert record.amount_minor == 0 and record.stripe_amount_minor == 10_000
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_m6", 10_000, "lost")))
    record.refresh_from_db()
    assert record.status == DisputeStatus.LOST and record.stripe_status == "lost"
    assert_payments_invariants()


# --- The webhook endpoint never answers 500 -----------------------------------------------


def test_a_non_ascii_signature_is_a_400(client):
    user = UserFactory()
    deposit = Deposit.objects.create(
        user=user, amount_minor=1_000, checkout_session_id="cs_na", status=DepositStatus.OPEN
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    timestamp = header.split(",")[0]
    answer = client.post(
        URL,
        data=payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=f"{timestamp},v1=é" + "ü" * 63,
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "payments:invalid-webhook"
    assert usd(user) == 0


def test_a_signed_body_of_deeply_nested_arrays_is_a_400(client):
    body = '{"id": "evt_deep", "object": "event", "data": ' + "[" * 100_000 + "]" * 100_000 + "}"
    header = __import__("stripe").WebhookSignature.generate_signature_header(
        body, "whsec_test_formalmarket"
    )
    answer = client.post(
        URL, data=body, content_type="application/json", HTTP_STRIPE_SIGNATURE=header
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "payments:invalid-webhook"
    json.dumps(answer.json())


def test_holds_and_lots_after_a_partial_reversal_release_only_the_rest():
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    deliver(event("charge.refunded", charge_refunded(deposit, 4_000)))
    hold = ProceedsHold.objects.get(user=seller)
    assert hold.reversed_minor == 3_800
    assert release_matured_proceeds(now=after_window()) == 1
    assert usd(seller) == 9_500 - 3_800
    assert FundsLot.objects.get(user=seller).remaining_minor == 9_500 - 3_800
    assert_payments_invariants()


def test_the_seller_sees_why_a_sale_was_reversed_on_the_account_page(client):
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    trade = sell_to(buyer, seller, 10_000)
    deliver(event("charge.refunded", charge_refunded(deposit, 10_000)))
    client.force_login(seller)
    html = client.get("/account/").content.decode()
    assert "usd-sale-reversals" in html
    assert f"trade {trade.pk}" in html and "95.00 USD" in html
    assert "was refunded" in html


def test_a_deposit_credited_before_lots_existed_keeps_the_earlier_refund_rule():
    user = UserFactory()
    deposit = paid_deposit(user, 4_000)
    FundsLot.objects.filter(deposit=deposit).delete()  # as if credited before migration 0003
    refund = request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=4_000)
    assert refund.amount_minor == 4_000 and usd(user) == 0


def test_a_won_dispute_gives_the_buyers_other_funds_back_to_the_lots_they_came_from():
    """Step 5 took the disputed deposit's amount from a second deposit's lot: a won dispute
    gives it back to that lot, not to the disputed deposit's (whose card would then be
    refunded with the second card's money, and the second card's dispute a loss)."""
    buyer, seller, other = UserFactory(), UserFactory(), UserFactory()
    first = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    sell_to(seller, other, 9_500)  # the seller spends the proceeds
    second = paid_deposit(buyer, 10_000)
    deliver(event("charge.dispute.created", dispute(first, "dp_other", 10_000, "needs_response")))
    record = Dispute.objects.get()
    assert (record.from_lot_minor, record.from_buyer_minor, record.loss_minor) == (0, 10_000, 0)
    assert FundsLot.objects.get(deposit=second).remaining_minor == 0

    deliver(event("charge.dispute.closed", dispute(first, "dp_other", 10_000, "won")))

    assert usd(buyer) == 10_000
    assert FundsLot.objects.get(deposit=first).remaining_minor == 0
    assert FundsLot.objects.get(deposit=second).remaining_minor == 10_000
    before = snapshot()
    with pytest.raises(NotRefundable):
        request_deposit_refund(user=buyer, deposit_id=first.pk, amount_minor=10_000)
    assert snapshot() == before
    # The second card's dispute takes its own lot back: nothing is lost.
    deliver(event("charge.dispute.created", dispute(second, "dp_y", 10_000, "needs_response")))
    deliver(event("charge.dispute.closed", dispute(second, "dp_y", 10_000, "lost")))
    assert losses() == 0 and usd(buyer) == 0 and usd(buyer, AccountKind.DEBT) == 0
    assert_payments_invariants()


def test_a_won_dispute_gives_a_lot_refunded_meanwhile_only_its_room_the_rest_to_its_own():
    buyer, seller, other = UserFactory(), UserFactory(), UserFactory()
    first = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    sell_to(seller, other, 9_500)
    second = paid_deposit(buyer, 10_000)
    deliver(event("charge.dispute.created", dispute(first, "dp_gone", 10_000, "needs_response")))
    # The second card is refunded at Stripe meanwhile: its lot can never take money again.
    deliver(event("charge.refunded", charge_refunded(second, 10_000)))
    deliver(event("charge.dispute.closed", dispute(first, "dp_gone", 10_000, "won")))
    assert FundsLot.objects.get(deposit=second).remaining_minor == 0
    assert FundsLot.objects.get(deposit=first).remaining_minor == 10_000
    assert usd(buyer) == 10_000
    assert_payments_invariants()


def test_a_won_dispute_gives_each_of_step_5s_lots_its_part_locking_them_in_one_query():
    buyer, seller, other = UserFactory(), UserFactory(), UserFactory()
    first = paid_deposit(buyer, 10_000)
    sell_to(buyer, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    sell_to(seller, other, 9_500)
    lots = [FundsLot.objects.get(deposit=paid_deposit(buyer, a)) for a in (6_000, 4_000)]
    deliver(event("charge.dispute.created", dispute(first, "dp_two", 10_000, "needs_response")))
    assert [FundsLot.objects.get(pk=lot.pk).remaining_minor for lot in lots] == [0, 0]

    with CaptureQueriesContext(connection) as queries:
        deliver(event("charge.dispute.closed", dispute(first, "dp_two", 10_000, "won")))

    assert [FundsLot.objects.get(pk=lot.pk).remaining_minor for lot in lots] == [6_000, 4_000]
    assert usd(buyer) == 10_000
    by_id = f'WHERE "{FundsLot._meta.db_table}"."id"'
    locks = [q["sql"] for q in queries if by_id in q["sql"] and "FOR NO KEY UPDATE" in q["sql"]]
    assert len(locks) == 1 and f"IN ({lots[0].pk}, {lots[1].pk})" in locks[0], locks
    assert_payments_invariants()
