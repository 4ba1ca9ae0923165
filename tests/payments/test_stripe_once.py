"""make_once, the look-up / create / map-errors sequence of every Stripe object made for one
of our rows (withdrawal transfers, transfer reversals, refunds), through the real library and
the fake transport at the seam."""

from __future__ import annotations

import pytest

from market.payments import stripe_client
from market.payments.exceptions import StripeUnavailable
from market.payments.services.stripe_once import Attempt, Made, Refused, make_once
from tests.payments import fakes

LIST = ("GET", "/v1/refunds")
CREATE = ("POST", "/v1/refunds")


def _attempt(*, is_retry: bool) -> Attempt:
    return Attempt(label="refund 7", noun="refund", marker=("row_id", "7"), is_retry=is_retry)


def _make(*, is_retry: bool) -> Made | Refused:
    client = stripe_client.get_client()
    return make_once(
        _attempt(is_retry=is_retry),
        list_earlier=lambda: client.v1.refunds.list(params={"payment_intent": "pi_1"}),
        create=lambda: client.v1.refunds.create(
            params={"payment_intent": "pi_1", "amount": 100, "metadata": {"row_id": "7"}},
            options={"idempotency_key": "row-7"},
        ),
    )


def _refund(refund_id: str, row_id: str, status: str = "succeeded") -> dict[str, object]:
    return {"id": refund_id, "object": "refund", "status": status, "metadata": {"row_id": row_id}}


def _listing(*refunds: dict[str, object]) -> dict[str, object]:
    return {"object": "list", "data": list(refunds), "has_more": False, "url": "/v1/refunds"}


def test_a_retry_takes_the_object_an_earlier_attempt_made_and_creates_none(fake_stripe):
    fake_stripe.answer(*LIST, 200, _listing(_refund("re_other", "8"), _refund("re_ours", "7")))

    assert _make(is_retry=True) == Made(stripe_id="re_ours", status=None)
    assert fake_stripe.requests_to(*CREATE) == []


def test_a_retry_that_finds_none_creates_it_once_with_the_rows_key(fake_stripe):
    fake_stripe.answer(*LIST, 200, _listing(_refund("re_other", "8")))
    fake_stripe.answer(*CREATE, 200, _refund("re_new", "7", status="pending"))

    assert _make(is_retry=True) == Made(stripe_id="re_new", status="pending")
    assert [r.idempotency_key for r in fake_stripe.requests_to(*CREATE)] == ["row-7"]


def test_a_first_attempt_does_not_look_for_an_earlier_one(fake_stripe):
    fake_stripe.answer(*CREATE, 200, _refund("re_new", "7"))

    assert _make(is_retry=False) == Made(stripe_id="re_new", status="succeeded")
    assert fake_stripe.requests_to(*LIST) == []


@pytest.mark.parametrize(
    ("words", "shown"),
    [("The charge is disputed.", "The charge is disputed."), ("", stripe_client.REFUSED_MESSAGE)],
)
def test_a_refusal_carries_stripes_code_and_its_words_for_users(fake_stripe, words, shown):
    body = fakes.error(400, "invalid_request_error", "charge_disputed", words)
    fake_stripe.answer(*CREATE, 400, body)

    assert _make(is_retry=False) == Refused(code="charge_disputed", message=shown)


@pytest.mark.parametrize("where", ["lookup", "create"])
def test_a_temporary_failure_decides_nothing(fake_stripe, where):
    failure = fakes.error(500, "api_error", None, "boom")
    if where == "lookup":
        fake_stripe.answer(*LIST, 500, failure)
    else:
        fake_stripe.answer(*LIST, 200, _listing())
        fake_stripe.answer(*CREATE, 503, failure)

    with pytest.raises(StripeUnavailable) as raised:
        _make(is_retry=True)

    expected = {
        "lookup": "could not check for an earlier refund",
        "create": "refund not confirmed yet: Stripe is unreachable",
    }
    assert raised.value.message == expected[where]
    assert len(fake_stripe.requests_to(*CREATE)) == (0 if where == "lookup" else 1)
