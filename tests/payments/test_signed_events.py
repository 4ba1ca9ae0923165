"""Every validly signed event gets a deliberate answer, never a 500 (issue 17 §2).

Each body below is signed with the real ``stripe`` library and posted to the real endpoint.
A malformed event is answered 400 and records nothing (Stripe retries a non-2xx, and a
malformed event never becomes valid, but nor does a 500 and this names the fault); an event
that is well formed but can never apply (a payment already funding another deposit) is
recorded as ignored with 200 so that Stripe stops. Either way nothing else changes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import stripe
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from market.payments.models import (
    ConnectedAccount,
    Deposit,
    DepositStatus,
    StripeEvent,
)
from tests.factories import UserFactory
from tests.market.helpers import snapshot
from tests.payments import fakes
from tests.payments.helpers import (
    WEBHOOK_SECRET,
    assert_payments_invariants,
    charge_refunded,
    completed_session,
    event,
)

pytestmark = pytest.mark.django_db

URL = "/payments/webhooks/stripe/"


def post_raw(client, body: str):
    header = stripe.WebhookSignature.generate_signature_header(body, WEBHOOK_SECRET)
    return client.post(
        URL, data=body, content_type="application/json", HTTP_STRIPE_SIGNATURE=header
    )


def post_event(client, evt: Any):
    return post_raw(client, json.dumps(evt))


def paid_deposit(client, user, amount=3_000, session_id="cs_sig_1") -> Deposit:
    deposit = Deposit.objects.create(
        user=user, amount_minor=amount, checkout_session_id=session_id, status=DepositStatus.OPEN
    )
    answer = post_event(client, event("checkout.session.completed", completed_session(deposit)))
    assert answer.status_code == 200, answer.content
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.PAID
    return deposit


def thin(type_: str, related: Any) -> dict[str, Any]:
    return {
        "id": "evt_thin_1",
        "object": "v2.core.event",
        "type": type_,
        "livemode": False,
        "created": "2026-12-01T10:00:00.000Z",
        "related_object": related,
    }


def refused(answer, code: str = "payments:invalid-webhook") -> None:
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["code"] == code


# --- the twelve cases of the issue, and their neighbours -------------------------------------


def _cases(deposit: Deposit, other: Deposit) -> dict[str, str]:
    session = completed_session(deposit)
    no_id = {k: v for k, v in session.items() if k != "id"}
    no_data = {k: v for k, v in event("charge.refunded", {}).items() if k != "data"}
    return {
        "a JSON list body": json.dumps([event("charge.refunded", charge_refunded(deposit, 1))]),
        "a JSON string body": json.dumps("evt_123"),
        "a JSON number body": "42",
        "a JSON null body": "null",
        "no data": json.dumps(no_data),
        "data a string": json.dumps({**event("charge.refunded", {}), "data": "x"}),
        "data.object a string": json.dumps(event("checkout.session.completed", "cs_1")),  # type: ignore[arg-type]
        "data.object null": json.dumps(event("charge.refunded", None)),  # type: ignore[arg-type]
        "a session without id": json.dumps(event("checkout.session.completed", no_id)),
        "a session id that is a number": json.dumps(
            event("checkout.session.completed", {**session, "id": 7})
        ),
        "amount_refunded not a number": json.dumps(
            event("charge.refunded", {**charge_refunded(deposit, 1), "amount_refunded": "lots"})
        ),
        "amount_refunded NaN": json.dumps(
            event(
                "charge.refunded", {**charge_refunded(deposit, 1), "amount_refunded": float("nan")}
            )
        ),
        "amount_refunded Infinity": json.dumps(
            event(
                "charge.refunded", {**charge_refunded(deposit, 1), "amount_refunded": float("inf")}
            )
        ),
        "amount_refunded a fraction": json.dumps(
            event("charge.refunded", {**charge_refunded(deposit, 1), "amount_refunded": 10.5})
        ),
        "amount_refunded negative": json.dumps(
            event("charge.refunded", {**charge_refunded(deposit, 1), "amount_refunded": -5})
        ),
        "amount_refunded beyond bigint": json.dumps(
            event("charge.refunded", {**charge_refunded(deposit, 1), "amount_refunded": 10**30})
        ),
        "amount_refunded true": json.dumps(
            event("charge.refunded", {**charge_refunded(deposit, 1), "amount_refunded": True})
        ),
        "a 300-character event id": json.dumps(event("charge.refunded", {}, event_id="e" * 300)),
        "an event id that is a number": json.dumps({**event("charge.refunded", {}), "id": 12}),
        "an event id with a NUL": json.dumps(event("charge.refunded", {}, event_id="evt_\x00")),
        "an event id with a space": json.dumps(event("ping", {}, event_id="evt 1")),
        "a session id with a NUL": json.dumps(
            event("checkout.session.completed", {**session, "id": "cs_\x00"})
        ),
        "an account id with a NUL": json.dumps({**event("charge.refunded", {}), "account": "\x00"}),
        "no event id": json.dumps({k: v for k, v in event("ping", {}).items() if k != "id"}),
        "no type": json.dumps({k: v for k, v in event("ping", {}).items() if k != "type"}),
        "a type that is a list": json.dumps({**event("ping", {}), "type": ["charge.refunded"]}),
        "not an event object": json.dumps({**event("ping", {}), "object": "charge"}),
        "livemode a string": json.dumps({**event("ping", {}), "livemode": "false"}),
        "account a number": json.dumps({**event("charge.refunded", {}), "account": 5}),
        "a thin event's related_object a string": json.dumps(
            thin("v2.core.account.updated", "acct_1")
        ),
        "a thin event's related_object without id": json.dumps(
            thin("v2.core.account.updated", {"type": "v2.core.account"})
        ),
        "a payment_intent that is an object without id": json.dumps(
            event("charge.refunded", {**charge_refunded(deposit, 1), "payment_intent": {}})
        ),
        "a dispute without id": json.dumps(
            event("charge.dispute.created", {"amount": 100, "payment_intent": "pi_x"})
        ),
        "a dispute amount as a string": json.dumps(
            event(
                "charge.dispute.created",
                {"id": "dp_s", "amount": "100", "payment_intent": deposit.payment_intent_id},
            )
        ),
        "an account.updated without id": json.dumps(
            event("account.updated", {"payouts_enabled": True})
        ),
        "a client_reference_id that is a number": json.dumps(
            event("checkout.session.completed", {**session, "client_reference_id": 5})
        ),
        "not UTF-8": "\udcff",
    }


def test_each_malformed_signed_event_is_refused_with_400_and_changes_nothing(client):
    user = UserFactory()
    deposit = paid_deposit(client, user)
    other = paid_deposit(client, UserFactory(), session_id="cs_sig_2")
    before, events = snapshot(), StripeEvent.objects.count()
    answers = {}
    for name, body in _cases(deposit, other).items():
        if name == "not UTF-8":
            payload = b'{"id": "evt_bad\xff"}'
            header = stripe.WebhookSignature.generate_signature_header(
                payload.decode("latin-1"), WEBHOOK_SECRET
            )
            answer = client.post(
                URL, data=payload, content_type="application/json", HTTP_STRIPE_SIGNATURE=header
            )
        else:
            answer = post_raw(client, body)
        answers[name] = (answer.status_code, answer.json()["error"]["code"])
    assert answers == {name: (400, "payments:invalid-webhook") for name in answers}
    assert snapshot() == before and StripeEvent.objects.count() == events
    assert_payments_invariants()


def test_a_payment_already_funding_another_deposit_is_recorded_ignored_not_credited(client):
    user = UserFactory()
    first = paid_deposit(client, user)
    second = Deposit.objects.create(
        user=user, amount_minor=3_000, checkout_session_id="cs_sig_9", status=DepositStatus.OPEN
    )
    session = {**completed_session(second), "payment_intent": first.payment_intent_id}
    before = snapshot()

    answer = post_event(client, event("checkout.session.completed", session, event_id="evt_pi"))

    assert answer.status_code == 200 and answer.json()["outcome"] == "ignored"
    assert snapshot() == before
    second.refresh_from_db()
    assert second.status == DepositStatus.OPEN and second.payment_intent_id is None
    record = StripeEvent.objects.get(event_id="evt_pi")
    assert "already funds another deposit" in record.detail
    assert post_event(client, event("checkout.session.completed", session, "evt_pi")).json()[
        "duplicate"
    ]
    assert_payments_invariants()


# --- livemode ---------------------------------------------------------------------------------


def test_a_live_event_on_a_test_key_server_is_refused(client):
    user = UserFactory()
    deposit = Deposit.objects.create(
        user=user, amount_minor=3_000, checkout_session_id="cs_live", status=DepositStatus.OPEN
    )
    live = {**event("checkout.session.completed", completed_session(deposit)), "livemode": True}
    before = snapshot()

    refused(post_event(client, live), "payments:livemode-mismatch")

    assert snapshot() == before and StripeEvent.objects.count() == 0
    deposit.refresh_from_db()
    assert deposit.status == DepositStatus.OPEN


def test_a_test_event_on_a_live_key_server_is_refused_and_a_live_one_is_taken(client, settings):
    settings.STRIPE_SECRET_KEY = "sk_live_formalmarket_fake"
    user = UserFactory()
    deposit = Deposit.objects.create(
        user=user, amount_minor=3_000, checkout_session_id="cs_l2", status=DepositStatus.OPEN
    )
    test_event = event("checkout.session.completed", completed_session(deposit))

    refused(post_event(client, test_event), "payments:livemode-mismatch")
    assert StripeEvent.objects.count() == 0

    answer = post_event(client, {**test_event, "id": "evt_live_ok", "livemode": True})
    assert answer.status_code == 200 and answer.json()["outcome"] == "processed"
    assert StripeEvent.objects.get().livemode is True
    assert_payments_invariants()


# --- thin v2 account events -------------------------------------------------------------------


def connected(user_id_suffix: str = "t") -> ConnectedAccount:
    user = UserFactory()
    return ConnectedAccount.objects.create(
        user=user,
        stripe_account_id=f"acct_thin_{user.pk}{user_id_suffix}",
        payouts_enabled=False,
        details_submitted=False,
    )


def test_thin_v2_core_account_updated_rereads_the_account(client, fake_stripe):
    account = connected()
    fake_stripe.answer(
        "GET",
        f"/v2/core/accounts/{account.stripe_account_id}",
        200,
        fakes.v2_account(account.stripe_account_id, transfers_status="active", due=None),
    )
    related = {"id": account.stripe_account_id, "type": "v2.core.account"}

    answer = post_event(client, thin("v2.core.account.updated", related))

    assert answer.status_code == 200 and answer.json()["outcome"] == "processed"
    account.refresh_from_db()
    assert account.payouts_enabled is True and account.details_submitted is True
    assert len(fake_stripe.requests_to("GET", f"/v2/core/accounts/{account.stripe_account_id}"))


def test_thin_v2_core_account_closed_stops_transfers_without_asking_stripe(client, fake_stripe):
    account = connected()
    ConnectedAccount.objects.filter(pk=account.pk).update(
        payouts_enabled=True, details_submitted=True
    )
    related = {"id": account.stripe_account_id, "type": "v2.core.account"}

    answer = post_event(client, thin("v2.core.account.closed", related))

    assert answer.status_code == 200 and answer.json()["outcome"] == "processed"
    account.refresh_from_db()
    assert account.payouts_enabled is False and account.details_submitted is False
    assert fake_stripe.requests == []
    assert StripeEvent.objects.get().detail == f"account {account.stripe_account_id} closed"


def test_a_thin_event_when_stripe_is_unreachable_is_deferred_with_a_plain_message(
    client, fake_stripe
):
    account = connected()
    fake_stripe.answer(
        "GET",
        f"/v2/core/accounts/{account.stripe_account_id}",
        503,
        fakes.error(503, "api_error", None, "upstream connect error at api.stripe.com"),
    )
    related = {"id": account.stripe_account_id, "type": "v2.core.account"}

    answer = post_event(client, thin("v2.core.account[requirements].updated", related))

    assert answer.status_code == 503
    assert "stripe.com" not in answer.json()["error"]["message"]
    assert StripeEvent.objects.count() == 0


# --- fuzz: JSON shapes, signed, never a 500 ---------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
TYPES = [
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.async_payment_failed",
    "checkout.session.expired",
    "charge.refunded",
    "charge.dispute.created",
    "charge.dispute.closed",
    "account.updated",
    "v2.core.account.updated",
    "v2.core.account.closed",
    "payment_intent.succeeded",
]
FIELDS = [
    "id",
    "mode",
    "payment_status",
    "amount_total",
    "currency",
    "client_reference_id",
    "payment_intent",
    "amount_refunded",
    "amount",
    "status",
]


@st.composite
def shaped_events(draw: st.DrawFn) -> Any:
    """Events near the shapes we read (each field may be anything), and arbitrary JSON."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    obj = {field: draw(json_values) for field in draw(st.sets(st.sampled_from(FIELDS)))}
    if draw(st.booleans()):
        obj["payment_intent"] = draw(st.sampled_from(["pi_fuzz", "pi_for_1", None]))
        obj["id"] = draw(st.sampled_from(["cs_fuzz", "dp_fuzz", "acct_fuzz"]))
    evt: dict[str, Any] = {
        "id": draw(st.one_of(st.text(min_size=1, max_size=40), json_values)),
        "object": draw(st.sampled_from(["event", "v2.core.event", "x"])),
        "type": draw(st.sampled_from(TYPES)),
        "livemode": draw(st.sampled_from([False, False, False, True, None])),
        "data": {"object": obj} if draw(st.integers(0, 5)) else draw(json_values),
        "related_object": draw(st.one_of(json_values, st.just({"id": "acct_fuzz"}))),
    }
    if draw(st.integers(0, 4)) == 0:
        evt["account"] = draw(json_values)
    return evt


@hsettings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=shaped_events())
def test_fuzzed_signed_events_never_get_a_500_and_the_ledger_holds(client, fake_stripe, body):
    # Any account re-read the fuzz reaches fails like an unreachable Stripe (503, deferred).
    for _ in range(3):
        fake_stripe.answer(
            "GET", "/v2/core/accounts/acct_fuzz", 503, fakes.error(503, "api_error", None, "x")
        )
    answer = post_event(client, body)
    assert answer.status_code in (200, 400, 409, 503), answer.content
    if answer.status_code != 200:
        assert answer.json()["error"]["code"].startswith("payments:")
    assert_payments_invariants()
