"""record_closed and list_stuck_ids: how a refund, a withdrawal or a transfer reversal closes
on Stripe's answer, and which are stuck open (shown here on refunds; the withdrawal and
transfer reversal tests close theirs through the same two functions)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from market.payments.models import DepositRefund, RefundStatus, Withdrawal, WithdrawalStatus
from market.payments.services.closing import list_stuck_ids
from market.payments.services.refunds import (
    complete_deposit_refund,
    fail_deposit_refund,
    list_stuck_refund_ids,
    request_deposit_refund,
)
from tests.factories import UserFactory
from tests.payments.test_provenance import paid_deposit

pytestmark = pytest.mark.django_db


def _requested_refund() -> DepositRefund:
    user = UserFactory()
    deposit = paid_deposit(user, 5_000)
    return request_deposit_refund(user=user, deposit_id=deposit.pk, amount_minor=2_000)


def test_a_refusal_is_recorded_cut_to_its_columns_with_its_closing_transaction():
    refund = _requested_refund()

    fail_deposit_refund(refund_id=refund.pk, code="c" * 150, message="m" * 600)

    refund.refresh_from_db()
    assert refund.status == RefundStatus.FAILED
    assert (refund.failure_code, refund.failure_message) == ("c" * 100, "m" * 500)
    assert refund.close_transaction is not None and refund.closed_at is not None


def test_a_success_records_stripes_id_and_no_refusal():
    refund = _requested_refund()

    complete_deposit_refund(refund_id=refund.pk, stripe_refund_id="re_closed")

    refund.refresh_from_db()
    assert (refund.status, refund.stripe_refund_id) == (RefundStatus.SUCCEEDED, "re_closed")
    assert (refund.failure_code, refund.failure_message) == ("", "")
    assert refund.close_transaction is None and refund.closed_at is not None


def test_only_rows_still_requested_past_the_window_are_stuck_in_id_order():
    first, second, closed = _requested_refund(), _requested_refund(), _requested_refund()
    assert list_stuck_refund_ids() == []
    DepositRefund.objects.update(
        created_at=timezone.now() - timedelta(seconds=settings.PAYOUT_STUCK_AFTER_S + 1)
    )
    complete_deposit_refund(refund_id=closed.pk, stripe_refund_id="re_done")

    assert list_stuck_refund_ids() == [first.pk, second.pk]
    assert list_stuck_ids(Withdrawal, requested=WithdrawalStatus.REQUESTED) == []
