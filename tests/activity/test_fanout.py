"""The fan-out outbox: queued with the change, drained by the beat task, once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from activity.models import Event, EventKind, Fanout, FanoutKind, WebhookDelivery
from activity.services.fanout import drain_fanout
from activity.services.webhooks import create_webhook_endpoint
from market.services.orders import place_ask, place_bid
from tests.factories import UserFactory
from tests.market.conftest import Market, demo, funded
from tests.waiting import scaled

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _private_targets(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True


def queued():
    return sorted(Fanout.objects.values_list("kind", "ref"))


def test_a_resting_bid_is_queued_announced_by_the_drain_once_and_unqueued():
    market = Market(title="Primes")
    seller, bidder = UserFactory(), funded(10_000)
    market.accepted(solver=seller)
    bid = place_bid(buyer=bidder, problem=market.problem, price=demo(300), quantity=1)
    assert queued() == [(FanoutKind.ANNOUNCE_BID, bid.pk)]
    assert not Event.objects.filter(user=seller).exists()

    assert drain_fanout() == []  # nobody has a webhook: no delivery is due
    [event] = Event.objects.filter(user=seller)
    assert (event.kind, event.key) == (EventKind.BID_ARRIVED, f"bid:{bid.pk}")
    assert queued() == []
    assert drain_fanout() == [] and Event.objects.filter(user=seller).count() == 1


def test_only_traders_with_an_active_webhook_are_queued_for_dispatch():
    market = Market()
    hooked_seller, plain_seller = UserFactory(), UserFactory()
    buyer = funded(100_000)
    endpoint = create_webhook_endpoint(user=hooked_seller, url="https://127.0.0.1:9/hook")
    for seller in (hooked_seller, plain_seller):
        place_ask(
            seller=seller, solution=market.accepted(solver=seller), price=demo(100), quantity=1
        )
    Fanout.objects.all().delete()

    filled = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=2)

    assert filled.status == "filled"  # no announcement: the bid does not rest
    assert queued() == [(FanoutKind.DISPATCH, hooked_seller.pk)]
    due = drain_fanout()
    assert [WebhookDelivery.objects.get(pk=pk).endpoint_id for pk in due] == [endpoint.pk]
    assert queued() == []


def test_a_traders_dispatch_is_queued_once_while_pending():
    market = Market()
    hooked, buyer = UserFactory(), funded(100_000)
    create_webhook_endpoint(user=hooked, url="https://127.0.0.1:9/hook")
    for _ in range(3):
        place_ask(
            seller=hooked, solution=market.accepted(solver=hooked), price=demo(100), quantity=1
        )
    place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=3)
    assert queued() == [(FanoutKind.DISPATCH, hooked.pk)]
    assert len(drain_fanout()) == 3  # the one dispatch sends all three events
    place_bid(buyer=funded(1_000), problem=market.problem, price=demo(5), quantity=1)
    assert [kind for kind, _ in queued()] == [FanoutKind.ANNOUNCE_BID]  # a new one after


def test_an_announcement_that_fails_is_dropped_without_blocking_the_rest(monkeypatch):
    from activity.services import events

    market = Market()
    seller = UserFactory()
    market.accepted(solver=seller)
    # Two bidders: one open bid per buyer and problem.
    bad, good = (
        place_bid(buyer=funded(100_000), problem=market.problem, price=demo(10 + i), quantity=1)
        for i in range(2)
    )
    real_announce = events.announce_bid

    def failing_once(*, order_id: int) -> list[int]:
        if order_id == bad.pk:
            raise RuntimeError("a bug in one announcement")
        return real_announce(order_id=order_id)

    monkeypatch.setattr(events, "announce_bid", failing_once)
    drain_fanout()
    assert queued() == []
    assert list(Event.objects.filter(user=seller).values_list("key", flat=True)) == [
        f"bid:{good.pk}"
    ]


def test_the_reference_writer_queues_what_the_triggers_queue():
    market = Market()
    hooked, buyer = UserFactory(), funded(100_000)
    create_webhook_endpoint(user=hooked, url="https://127.0.0.1:9/hook")
    solution = market.accepted(solver=hooked)
    place_ask(seller=hooked, solution=solution, price=demo(100), quantity=1)
    Fanout.objects.all().delete()
    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(150), quantity=2)
    assert bid.status == "open"  # one copy bought, one left resting
    by_triggers = queued()
    assert by_triggers == sorted(
        [(FanoutKind.ANNOUNCE_BID, bid.pk), (FanoutKind.DISPATCH, hooked.pk)]
    )
    Fanout.objects.all().delete()
    from tests.market.dev_engine.activity import queue_placement

    queue_placement(order=bid, traders=[buyer.pk, hooked.pk])
    assert queued() == by_triggers


@pytest.mark.django_db(transaction=True)
def test_two_drains_at_once_never_do_the_same_row(monkeypatch):
    from activity.services import events

    market = Market()
    seller = UserFactory()
    market.accepted(solver=seller)
    # Forty bidders: one open bid per buyer and problem.
    bids = [
        place_bid(buyer=funded(100_000), problem=market.problem, price=demo(10 + i), quantity=1)
        for i in range(40)
    ]
    assert len(queued()) == 40
    announced: list[int] = []
    real_announce = events.announce_bid

    def recording_announce(*, order_id: int) -> list[int]:
        announced.append(order_id)
        return real_announce(order_id=order_id)

    monkeypatch.setattr(events, "announce_bid", recording_announce)
    barrier = threading.Barrier(2)

    def drain() -> None:
        try:
            barrier.wait(timeout=scaled(30))
            drain_fanout(limit=25)
        finally:
            connection.close()

    threads = [threading.Thread(target=drain) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=scaled(60))
    # Every bid announced exactly once between the two drains (25 + 15, claimed apart).
    assert sorted(announced) == sorted(b.pk for b in bids)
    assert queued() == []
    assert Event.objects.filter(user=seller, kind=EventKind.BID_ARRIVED).count() == 40
