"""Webhook deliveries through a real Celery worker to a receiver on loopback: signed,
retried with backoff after failures, the same event id on each attempt, logged."""

from __future__ import annotations

import hashlib
import hmac
import http.server
import json
import threading
import time
from collections.abc import Iterator

import pytest

from activity.models import DeliveryStatus, WebhookDelivery
from activity.services.webhooks import attempt_delivery, backoff_s, create_webhook_endpoint
from activity.webhook_transport import sign
from judge.verdict import Outcome, Reason, Verdict
from market.services.solutions import record_verdict
from tests.api.conftest import client_for
from tests.factories import SolutionFactory, UserFactory
from tests.market.conftest import Market
from tests.waiting import scaled, wait_until


class Receiver:
    """A loopback HTTP server answering the scripted statuses, then 200; records requests."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = list(statuses)
        self.requests: list[tuple[float, dict[str, str], bytes]] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((time.monotonic(), dict(self.headers), body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver_factory() -> Iterator:
    made: list[Receiver] = []

    def make(statuses: list[int]) -> Receiver:
        made.append(Receiver(statuses))
        return made[-1]

    yield make
    for receiver in made:
        receiver.close()


def verify_signature(headers: dict[str, str], body: bytes, secret: str) -> None:
    parts = dict(item.split("=", 1) for item in headers["FormalMarket-Signature"].split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    assert hmac.compare_digest(parts["v1"], expected.hexdigest())
    assert abs(int(parts["t"]) - time.time()) < 60


@pytest.mark.django_db(transaction=True)
def test_a_verdict_is_delivered_signed_after_two_failures_with_backoff(
    settings, celery_worker, receiver_factory
):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    settings.WEBHOOK_RETRY_BASE_S = 0.3
    receiver = receiver_factory([500, 503])
    solver = UserFactory()
    endpoint = create_webhook_endpoint(user=solver, url=receiver.url)
    solution = SolutionFactory(verifier_version=Market(title="Squares").version, solver=solver)

    record_verdict(
        solution_id=solution.pk,
        verdict=Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "17 is not 23", seed=99),
    )

    delivery = wait_until(
        lambda: WebhookDelivery.objects.filter(status=DeliveryStatus.SUCCEEDED).first(),
        "the delivery to succeed on its third attempt",
    )
    assert len(receiver.requests) == 3
    assert delivery.attempts == 3 and delivery.last_status_code == 200
    bodies = {body for _, _, body in receiver.requests}
    assert len(bodies) == 1  # the same bytes on every attempt
    event_ids = {headers["FormalMarket-Event-Id"] for _, headers, _ in receiver.requests}
    assert event_ids == {f"evt_{delivery.event_id}"}
    for _, headers, body in receiver.requests:
        verify_signature(headers, body, endpoint.secret)
    payload = json.loads(bodies.pop())
    assert payload["type"] == "solution.judged" and payload["id"] == f"evt_{delivery.event_id}"
    assert payload["data"]["verdict"] == "REJECTED" and payload["data"]["seed"] == 99
    assert payload["data"]["reason"] == "WRONG_ANSWER"
    # Exponential backoff: the second gap is about twice the first (0.3 s, then 0.6 s).
    (t1, _, _), (t2, _, _), (t3, _, _) = receiver.requests
    assert t2 - t1 >= 0.25 and t3 - t2 >= 0.55

    log = client_for(solver).get(f"/api/v1/webhooks/{endpoint.pk}/deliveries/").json()
    [entry] = log["results"]
    assert (entry["status"], entry["attempts"], entry["last_status_code"]) == ("succeeded", 3, 200)


@pytest.mark.django_db
def test_a_delivery_gives_up_after_the_last_attempt_and_keeps_the_reason(
    settings, receiver_factory
):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    settings.WEBHOOK_RETRY_BASE_S = 0
    receiver = receiver_factory([500, 500, 500])
    solver = UserFactory()
    endpoint = create_webhook_endpoint(user=solver, url=receiver.url)
    solution = SolutionFactory(verifier_version=Market().version, solver=solver)
    record_verdict(solution_id=solution.pk, verdict=Verdict(Outcome.ACCEPTED, None, "ok"))
    from activity.services.webhooks import dispatch_webhooks

    [delivery_id] = dispatch_webhooks(user_ids=[solver.pk])
    assert dispatch_webhooks(user_ids=[solver.pk]) == [delivery_id]  # no second delivery

    assert attempt_delivery(delivery_id=delivery_id) == 0
    assert attempt_delivery(delivery_id=delivery_id) is None
    assert attempt_delivery(delivery_id=delivery_id) is None  # given up: nothing more is sent
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, 2)
    assert delivery.last_error == "the endpoint answered 500"
    assert len(receiver.requests) == 2
    assert endpoint.deliveries.count() == 1


@pytest.mark.django_db
def test_a_target_that_became_private_is_refused_at_delivery_without_connecting(
    settings, receiver_factory
):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    receiver = receiver_factory([])
    solver = UserFactory()
    create_webhook_endpoint(user=solver, url=receiver.url)
    solution = SolutionFactory(verifier_version=Market().version, solver=solver)
    record_verdict(solution_id=solution.pk, verdict=Verdict(Outcome.ACCEPTED, None, "ok"))
    from activity.services.webhooks import dispatch_webhooks

    [delivery_id] = dispatch_webhooks(user_ids=[solver.pk])
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    attempt_delivery(delivery_id=delivery_id)

    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 1
    assert delivery.last_error.startswith("refused: the URL must start with https://")
    assert receiver.requests == []


def test_signature_and_backoff_are_as_documented(settings):
    settings.WEBHOOK_RETRY_BASE_S = 30
    settings.WEBHOOK_RETRY_MAX_S = 3600
    assert [backoff_s(n) for n in (1, 2, 3, 4, 8)] == [30, 60, 120, 240, 3600]
    expected = hmac.new(b"whsec_x", b"1700000000.{}", hashlib.sha256).hexdigest()
    assert sign(secret="whsec_x", timestamp=1700000000, body=b"{}") == f"t=1700000000,v1={expected}"


@pytest.mark.django_db(transaction=True)
def test_a_resting_bid_reaches_a_sellers_feed_and_webhook_through_the_worker(
    settings, celery_worker, receiver_factory
):
    from activity.models import Event, EventKind
    from market.services.accounts import grant_demo_credits
    from market.services.orders import place_bid
    from tests.market.conftest import demo

    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    receiver = receiver_factory([])
    market = Market(title="Primes")
    seller, bidder = UserFactory(), UserFactory()
    market.accepted(solver=seller)
    grant_demo_credits(user=bidder, amount_minor=1_000)
    endpoint = create_webhook_endpoint(user=seller, url=receiver.url)

    # What beat runs: the fan-out listener, which enqueues a drain when the placement commits.
    # Nothing else drains here (no beat schedule in this test).
    from activity.services.listener import start_fanout_listener
    from activity.tasks import drain_fanout_task

    heard = threading.Event()

    def drain() -> None:
        drain_fanout_task.delay()
        heard.set()

    stop = start_fanout_listener(on_notify=drain)
    try:
        assert heard.wait(scaled(10))  # the drain it sends on connecting: LISTEN is in place
        heard.clear()
        bid = place_bid(buyer=bidder, problem=market.problem, price=demo(250), quantity=1)
        event = wait_until(lambda: Event.objects.filter(user=seller).first(), "the seller's event")
    finally:
        stop()
    assert heard.is_set()
    assert (event.kind, event.key, event.payload["price_minor"]) == (
        EventKind.BID_ARRIVED,
        f"bid:{bid.pk}",
        250,
    )
    wait_until(lambda: len(receiver.requests) == 1, "the webhook to arrive")
    _, headers, body = receiver.requests[0]
    verify_signature(headers, body, endpoint.secret)
    assert json.loads(body)["message"] == (
        "A bid of 2.50 DEMO arrived on Primes, where you have an accepted solution."
    )
    assert not Event.objects.filter(user=bidder).exists()
