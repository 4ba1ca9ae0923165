"""Issue 27: a hypothesis state machine of random deposits, trades, refunds (Stripe's and the
user's), disputes (opened, won, warning_closed, lost; closed before opened), proceeds
releases, withdrawals (transferred, refused, or left unconfirmed by a Stripe 5xx) and the
transfer reversals of paid-out proceeds (made, refused, or unconfirmed), in every order, on
real PostgreSQL with events signed by the real ``stripe`` library and Stripe's API faked at
the HTTP seam.

After every step: the ledger balances, and platform USD = deposits - refunds - disputes
lost - payouts - recorded losses (``assert_payments_invariants``, payouts net of transfer
reversals), every lot within its deposit's room, every pending hold equal to PENDING.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import event as note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from market.exceptions import DomainError
from market.models import AccountKind
from market.money import Currency, Money
from market.payments.exceptions import InvalidWebhook, StripeUnavailable
from market.payments.models import (
    ConnectedAccount,
    Deposit,
    DepositStatus,
    Dispute,
    SaleReversal,
    TransferReversal,
    TransferReversalStatus,
    Withdrawal,
    WithdrawalStatus,
)
from market.payments.services.buckets import compute_usd_buckets
from market.payments.services.proceeds import release_matured_proceeds
from market.payments.services.refunds import request_deposit_refund
from market.payments.services.transfer_reversals import send_transfer_reversal
from market.payments.services.webhooks import handle_webhook
from market.payments.services.withdrawals import request_withdrawal, send_withdrawal_transfer
from market.services.ledger import get_user_accounts
from market.services.orders import place_ask, place_bid
from tests.factories import UserFactory
from tests.market.conftest import PHASES, Market
from tests.payments import fakes
from tests.payments.fakes import FakeStripeHTTP
from tests.payments.helpers import (
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    dispute,
    event,
    sign,
)

USERS = 3
amounts = st.integers(min_value=500, max_value=5_000)
prices = st.integers(min_value=100, max_value=4_000)


def deliver(evt):
    payload, header = sign(evt)
    return handle_webhook(payload=payload, signature_header=header)


ANSWERS = {
    "done": 200,
    "refused": 400,
    "unavailable": 500,
}
outcomes = st.sampled_from(sorted(ANSWERS))


def empty_list(path: str) -> dict:
    return {"object": "list", "data": [], "has_more": False, "url": path}


class MoneyMachine(RuleBasedStateMachine):
    fake: FakeStripeHTTP
    # Paths reached over the whole run: the test asserts the rare ones were exercised.
    seen: Counter[str] = Counter()

    def __init__(self) -> None:
        super().__init__()
        self.savepoint = transaction.savepoint()
        self.users = [UserFactory() for _ in range(USERS)]
        self.deposits: list[Deposit] = []
        self.disputes: list[tuple[Deposit, str, int]] = []
        self.serial = 0
        self.later = timezone.now()
        for user in self.users:
            ConnectedAccount.objects.create(
                user=user, stripe_account_id=f"acct_sm_{user.pk}", payouts_enabled=True
            )

    def teardown(self) -> None:
        transaction.savepoint_rollback(self.savepoint)

    def _next(self) -> int:
        self.serial += 1
        return self.serial

    @rule(who=st.integers(0, USERS - 1), amount=amounts)
    def deposit(self, who, amount):
        deposit = Deposit.objects.create(
            user=self.users[who],
            amount_minor=amount,
            checkout_session_id=f"cs_sm_{self._next()}_{self.users[who].pk}",
            status=DepositStatus.OPEN,
        )
        deliver(event("checkout.session.completed", completed_session(deposit)))
        deposit.refresh_from_db()
        self.deposits.append(deposit)

    @rule(buyer=st.integers(0, USERS - 1), seller=st.integers(0, USERS - 1), price=prices)
    def trade(self, buyer, seller, price):
        if buyer == seller:
            return
        market = Market(currency=Currency.USD, is_demo=False)
        solution = market.accepted(solver=self.users[seller])
        try:
            place_ask(
                seller=self.users[seller],
                solution=solution,
                price=Money(price, Currency.USD),
                quantity=1,
            )
            place_bid(
                buyer=self.users[buyer],
                problem=market.problem,
                price=Money(price, Currency.USD),
                quantity=1,
            )
        except DomainError as error:
            note(f"trade refused: {error.code}")  # not enough money: nothing changed
            return
        note("trade")

    @rule(
        buyer=st.integers(0, USERS - 1),
        seller=st.integers(0, USERS - 1),
        amount=amounts,
        share=st.integers(1, 4),
    )
    def deposit_and_buy(self, buyer, seller, amount, share):
        """The fraud's first half: a deposit spent at once on a sale (M1)."""
        self.deposit(buyer, amount)
        self.trade(buyer, seller, max(100, amount // share))

    @rule(data=st.data(), fraction=st.integers(1, 4))
    def stripe_refund(self, data, fraction):
        if not self.deposits:
            return
        deposit = data.draw(st.sampled_from(self.deposits))
        deposit.refresh_from_db()
        total = min(
            deposit.amount_minor, deposit.stripe_refunded_minor + deposit.amount_minor // fraction
        )
        deliver(event("charge.refunded", charge_refunded(deposit, total)))
        if SaleReversal.objects.exists():
            note("a sale was reversed")

    @rule(data=st.data(), part=st.integers(1, 2))
    def user_refund(self, data, part):
        if not self.deposits:
            return
        deposit = data.draw(st.sampled_from(self.deposits))
        try:
            request_deposit_refund(
                user=deposit.user, deposit_id=deposit.pk, amount_minor=deposit.amount_minor // part
            )
        except DomainError:
            pass

    @rule(data=st.data(), opening=st.sampled_from(["needs_response", "warning_needs_response"]))
    def open_dispute(self, data, opening):
        if not self.deposits:
            return
        deposit = data.draw(st.sampled_from(self.deposits))
        dispute_id = f"dp_sm_{self._next()}"
        amount = data.draw(st.integers(1, deposit.amount_minor))
        deliver(event("charge.dispute.created", dispute(deposit, dispute_id, amount, opening)))
        self.disputes.append((deposit, dispute_id, amount))

    @rule(data=st.data(), status=st.sampled_from(["won", "lost", "warning_closed"]))
    def close_dispute(self, data, status):
        if not self.disputes:
            return
        deposit, dispute_id, amount = data.draw(st.sampled_from(self.disputes))
        deliver(event("charge.dispute.closed", dispute(deposit, dispute_id, amount, status)))

    @rule(data=st.data())
    def close_unopened_dispute_lost(self, data):
        if not self.deposits:
            return
        deposit = data.draw(st.sampled_from(self.deposits))
        amount = data.draw(st.integers(1, deposit.amount_minor))
        dispute_id = f"dp_sm_closed_{self._next()}"
        deliver(event("charge.dispute.closed", dispute(deposit, dispute_id, amount, "lost")))

    @rule(data=st.data())
    def conflicting_close(self, data):
        """A close naming another deposit's payment is refused and changes nothing."""
        if not self.disputes or len(self.deposits) < 2:
            return
        deposit, dispute_id, amount = data.draw(st.sampled_from(self.disputes))
        other = data.draw(st.sampled_from([d for d in self.deposits if d.pk != deposit.pk]))
        forged = dispute(deposit, dispute_id, amount, "won")
        forged["payment_intent"] = other.payment_intent_id
        record = Dispute.objects.get(dispute_id=dispute_id)
        if record.deposit_id == other.pk:
            return
        with pytest.raises(InvalidWebhook):
            deliver(event("charge.dispute.closed", forged))

    @rule()
    def time_passes(self):
        self.later += timedelta(seconds=django_settings.PROCEEDS_HOLD_WINDOW_S + 1)
        release_matured_proceeds(now=self.later)

    @rule(who=st.integers(0, USERS - 1), amount=st.integers(1_000, 6_000))
    def withdraw(self, who, amount):
        try:
            request_withdrawal(user=self.users[who], amount_minor=amount)
        except DomainError:
            pass

    @rule(
        buyer=st.integers(0, USERS - 1),
        seller=st.integers(0, USERS - 1),
        amount=st.integers(min_value=1_100, max_value=5_000),
        taking=st.sampled_from(["refund", "dispute", "later"]),
        outcome=outcomes,
    )
    def sale_paid_out(self, buyer, seller, amount, taking, outcome):
        """M1 to the end: a deposit buys a sale whose proceeds mature and are paid out at
        once; then (or later, by other rules) the deposit is refunded or disputed and Stripe
        answers the transfer reversal."""
        seller = (buyer + 1 + seller % (USERS - 1)) % USERS
        self.deposit_and_buy(buyer, seller, amount, 1)
        deposit = self.deposits[-1]
        self.time_passes()
        user = self.users[seller]
        available = get_user_accounts(
            keys=[(user.pk, AccountKind.AVAILABLE)], currency=Currency.USD
        )[(user.pk, AccountKind.AVAILABLE)]
        have = compute_usd_buckets(user_id=user.pk, available=available).withdrawable_minor
        self.seen["sale paid out"] += 1
        if have < 1_000:
            self.seen["too little to withdraw"] += 1
            return
        with transaction.atomic():
            withdrawal = request_withdrawal(user=user, amount_minor=have)
        self._answer_withdrawal(withdrawal, "done")
        if taking == "refund":
            deliver(event("charge.refunded", charge_refunded(deposit, deposit.amount_minor)))
        elif taking == "dispute":
            dispute_id = f"dp_sm_{self._next()}"
            amount = deposit.amount_minor
            deliver(
                event(
                    "charge.dispute.created", dispute(deposit, dispute_id, amount, "needs_response")
                )
            )
            self.disputes.append((deposit, dispute_id, amount))
        for reversal in TransferReversal.objects.filter(
            status=TransferReversalStatus.REQUESTED, withdrawal=withdrawal
        ):
            self._answer_reversal(reversal, outcome)

    @rule(data=st.data(), outcome=outcomes)
    def stripe_answers_a_withdrawal(self, data, outcome):
        """Stripe transfers, refuses, or fails with a 5xx (kept REQUESTED, retried later)."""
        waiting = list(Withdrawal.objects.filter(status=WithdrawalStatus.REQUESTED).order_by("id"))
        if not waiting:
            return
        self._answer_withdrawal(data.draw(st.sampled_from(waiting)), outcome)

    def _answer_withdrawal(self, withdrawal, outcome):
        if withdrawal.attempts:
            self.fake.answer("GET", "/v1/transfers", 200, empty_list("/v1/transfers"))
        if outcome == "done":
            body = fakes.transfer(f"tr_sm_{withdrawal.pk}", withdrawal.net_minor, "acct")
        else:
            body = fakes.error(ANSWERS[outcome], "api_error", "refused", "no")
        self.fake.answer("POST", "/v1/transfers", ANSWERS[outcome], body)
        try:
            send_withdrawal_transfer(withdrawal_id=withdrawal.pk)
        except StripeUnavailable:
            note("withdrawal left unconfirmed")
        self.seen[f"withdrawal {outcome}"] += 1

    @rule(data=st.data(), outcome=outcomes)
    def stripe_answers_a_transfer_reversal(self, data, outcome):
        waiting = list(
            TransferReversal.objects.filter(status=TransferReversalStatus.REQUESTED)
            .select_related("withdrawal")
            .order_by("id")
        )
        if not waiting:
            return
        self._answer_reversal(data.draw(st.sampled_from(waiting)), outcome)

    def _answer_reversal(self, reversal, outcome):
        path = f"/v1/transfers/{reversal.withdrawal.transfer_id}/reversals"
        if reversal.attempts:
            self.fake.answer("GET", path, 200, empty_list(path))
        if outcome == "done":
            body = {
                "id": f"trr_sm_{reversal.pk}",
                "object": "transfer_reversal",
                "amount": reversal.amount_minor,
                "currency": "usd",
            }
        else:
            body = fakes.error(ANSWERS[outcome], "invalid_request_error", "refused", "no")
        self.fake.answer("POST", path, ANSWERS[outcome], body)
        try:
            send_transfer_reversal(reversal_id=reversal.pk)
        except StripeUnavailable:
            note("transfer reversal left unconfirmed")
        note(f"transfer reversal {outcome}")
        self.seen[f"transfer reversal {outcome}"] += 1

    @invariant()
    def money_is_accounted_for(self):
        assert_payments_invariants()


@pytest.mark.django_db
def test_money_state_machine(fake_stripe):
    MoneyMachine.fake = fake_stripe
    MoneyMachine.seen.clear()
    run_state_machine_as_test(
        MoneyMachine,
        settings=settings(
            max_examples=20,
            stateful_step_count=25,
            deadline=None,
            database=None,
            phases=PHASES,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
    # The run reached paid-out proceeds taken back, and Stripe's answers to the reversal.
    assert MoneyMachine.seen["transfer reversal done"] > 0, MoneyMachine.seen
