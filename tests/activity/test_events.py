"""Activity events: written with the change they describe, once, in the user's terms."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from activity.models import Event, EventKind, Fanout, FanoutKind, WebhookEndpoint
from activity.selectors import count_unread, describe_event
from activity.services.events import announce_bid, mark_read
from judge.verdict import Outcome, Reason, Verdict
from market.services.orders import place_ask, place_bid
from market.services.solutions import record_verdict
from tests.factories import SolutionFactory, UserFactory
from tests.market.conftest import Market, demo, funded

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fee(settings):
    settings.MARKET_FEE_BPS = 500


def events_of(user) -> list[tuple[str, str]]:
    return list(Event.objects.filter(user=user).order_by("id").values_list("kind", "key"))


def test_a_verdict_sends_a_webhook_dispatch_only_to_a_solver_with_an_endpoint(
    django_capture_on_commit_callbacks,
):
    # A task per verdict was most of the default worker's CPU per verdict (issue 29): a solver
    # without an active endpoint gets none; one with an endpoint gets one, after commit.
    market = Market(title="Two squares")
    without, with_endpoint, removed = (
        SolutionFactory(verifier_version=market.version) for _ in range(3)
    )
    WebhookEndpoint.objects.create(
        user=with_endpoint.solver, url="https://example.com/hook", secret="whsec_x"
    )
    WebhookEndpoint.objects.create(
        user=removed.solver,
        url="https://example.com/gone",
        secret="whsec_y",
        disabled_at=timezone.now(),
    )
    verdict = Verdict(Outcome.ACCEPTED, None, "", seed=1)
    sent: dict[str, int] = {}

    for name, solution in (("without", without), ("with", with_endpoint), ("removed", removed)):
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            record_verdict(solution_id=solution.pk, verdict=verdict)
        sent[name] = len(callbacks)

    assert sent == {"without": 0, "with": 1, "removed": 0}
    assert Event.objects.filter(kind=EventKind.SOLUTION_JUDGED).count() == 3


def test_a_verdict_is_an_event_with_verdict_reason_and_seed_written_once():
    market = Market(title="Two squares")
    solution = SolutionFactory(verifier_version=market.version)
    verdict = Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "expected 17 23", seed=4242)

    record_verdict(solution_id=solution.pk, verdict=verdict)
    record_verdict(solution_id=solution.pk, verdict=verdict)  # a redelivered task

    [event] = Event.objects.filter(user=solution.solver)
    assert event.kind == EventKind.SOLUTION_JUDGED and event.key == f"verdict:{solution.pk}"
    assert event.payload == {
        "problem_id": market.problem.pk,
        "problem_title": "Two squares",
        "problem_slug": market.problem.slug,
        "solution_id": solution.pk,
        "status": "rejected",
        "verdict": "REJECTED",
        "reason": "WRONG_ANSWER",
        "detail": "expected 17 23",
        "seed": 4242,
    }
    assert describe_event(event) == (
        f"Your solution {solution.pk} to Two squares was judged REJECTED (WRONG_ANSWER), seed 4242."
    )


def test_a_judge_error_is_not_an_event():
    solution = SolutionFactory(verifier_version=Market().version)
    record_verdict(
        solution_id=solution.pk, verdict=Verdict(Outcome.JUDGE_ERROR, None, "sandbox down")
    )
    assert Event.objects.count() == 0


def test_a_fill_tells_buyer_and_seller_with_money_in_their_terms():
    market = Market(title="Factor 391")
    seller = UserFactory(username="seller")
    buyer = funded(10_000, username="buyer")
    solution = market.accepted(solver=seller)
    ask = place_ask(seller=seller, solution=solution, price=demo(1_000), quantity=1)

    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(1_200), quantity=1)

    trade = bid.bid_fills.get()
    [sold] = Event.objects.filter(user=seller)
    [bought] = Event.objects.filter(user=buyer)
    assert (sold.kind, sold.key) == (EventKind.ASK_FILLED, f"trade:{trade.pk}:seller")
    assert sold.payload["order_id"] == ask.pk and sold.payload["price_minor"] == 1_000
    assert sold.payload["fee_minor"] == 50 and sold.payload["net_minor"] == 950
    assert (bought.kind, bought.payload["order_id"]) == (EventKind.BID_FILLED, bid.pk)
    assert describe_event(sold) == (
        f"You sold a copy of solution {solution.pk} to Factor 391 for 10.00 DEMO "
        "(9.50 DEMO after the fee)."
    )
    assert describe_event(bought) == (
        f"Your bid on Factor 391 bought solution {solution.pk} for 10.00 DEMO."
    )


def test_a_placements_trade_events_are_written_in_its_one_statement():
    """No INSERT of events from Python: the trigger writes them with the trades."""
    market = Market()
    buyer = funded(100_000)
    for _ in range(3):
        seller = UserFactory()
        place_ask(
            seller=seller, solution=market.accepted(solver=seller), price=demo(100), quantity=1
        )

    with CaptureQueriesContext(connection) as queries:
        place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=3)

    assert not [q for q in queries if "activity_" in q["sql"]]
    assert Event.objects.filter(kind=EventKind.ASK_FILLED).count() == 3
    assert Event.objects.filter(user=buyer, kind=EventKind.BID_FILLED).count() == 3


def test_the_trigger_and_the_reference_writer_write_the_same_events():
    """activity_trade_events (the trigger) and the reference model's record_trade_events."""
    from market.models import Trade
    from tests.market.dev_engine.activity import record_trade_events

    market = Market(title="Same events")
    buyer = funded(100_000)
    for price in (100, 250):
        seller = UserFactory()
        place_ask(
            seller=seller, solution=market.accepted(solver=seller), price=demo(price), quantity=1
        )
    place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=2)

    def written():
        return sorted(
            (e.user_id, e.kind, e.key, e.payload, e.created_at)
            for e in Event.objects.filter(kind__in=[EventKind.ASK_FILLED, EventKind.BID_FILLED])
        )

    by_trigger = written()
    assert len(by_trigger) == 4
    Event.objects.all().delete()
    trades = list(Trade.objects.filter(problem=market.problem).order_by("id"))
    record_trade_events(problem=market.problem, trades=trades)
    by_python = written()
    assert [row[:4] for row in by_python] == [row[:4] for row in by_trigger]


def test_a_resting_bid_reaches_sellers_who_could_sell_to_it_once():
    market = Market(title="Primes")
    bidder = funded(10_000, username="bidder")
    seller = UserFactory(username="seller")
    owned_seller = UserFactory(username="owned")
    market.accepted(solver=seller)
    owned_solution = market.accepted(solver=owned_seller)
    market.solution("rejected", solver=UserFactory(username="rejected"))
    # The bidder already owns owned_seller's only solution: that seller cannot sell to it.
    place_ask(seller=owned_seller, solution=owned_solution, price=demo(100), quantity=1)
    place_bid(buyer=bidder, problem=market.problem, price=demo(100), quantity=1)
    Event.objects.all().delete()

    bid = place_bid(buyer=bidder, problem=market.problem, price=demo(300), quantity=2)

    # The bid rested: no event yet; its announcement is queued (activity.services.fanout).
    assert Event.objects.count() == 0
    assert Fanout.objects.filter(kind=FanoutKind.ANNOUNCE_BID, ref=bid.pk).exists()
    assert announce_bid(order_id=bid.pk) == [seller.pk]
    assert announce_bid(order_id=bid.pk) == [seller.pk]  # a retried task: still one event
    [event] = Event.objects.all()
    assert (event.user_id, event.kind, event.key) == (
        seller.pk,
        EventKind.BID_ARRIVED,
        f"bid:{bid.pk}",
    )
    assert describe_event(event) == (
        "A bid of 3.00 DEMO arrived on Primes, where you have an accepted solution."
    )


def test_mark_read_moves_forward_only_and_counts_unread():
    solver_solutions = [SolutionFactory(verifier_version=Market().version) for _ in range(1)]
    solver = solver_solutions[0].solver
    for i in range(3):
        solution = SolutionFactory(verifier_version=Market().version, solver=solver)
        record_verdict(solution_id=solution.pk, verdict=Verdict(Outcome.ACCEPTED, None, "ok"))
    ids = list(Event.objects.filter(user=solver).order_by("id").values_list("id", flat=True))
    assert count_unread(user_id=solver.pk) == 3

    assert mark_read(user_id=solver.pk, up_to_id=ids[1]) == ids[1]
    assert count_unread(user_id=solver.pk) == 1
    assert mark_read(user_id=solver.pk, up_to_id=ids[0]) == ids[1]  # never backwards
    assert mark_read(user_id=solver.pk, up_to_id=ids[2] + 1000) == ids[2]  # never past the newest
    assert count_unread(user_id=solver.pk) == 0


@pytest.mark.django_db(transaction=True)
def test_the_feed_never_skips_an_event_that_commits_after_a_newer_one():
    """Ids are taken at INSERT, visible at COMMIT: a reader that kept the cursor of a newer
    event would skip an older id committed later. The feed orders by (txid, id) and holds
    back what a running transaction could still precede."""
    import threading

    from django.db import connections, transaction

    from activity.selectors import list_events_after

    user = UserFactory()
    inserted, release = threading.Event(), threading.Event()

    def slow_writer() -> None:
        try:
            with transaction.atomic():
                Event.objects.create(user=user, kind=EventKind.SOLUTION_JUDGED, key="slow")
                inserted.set()
                assert release.wait(30)
        finally:
            connections.close_all()

    writer = threading.Thread(target=slow_writer)
    writer.start()
    assert inserted.wait(30)
    Event.objects.create(user=user, kind=EventKind.SOLUTION_JUDGED, key="fast")  # commits now

    seen = list_events_after(user_id=user.pk, after=(0, 0), limit=50)
    assert seen == []  # "fast" waits: the slow transaction could still precede it
    release.set()
    writer.join(30)

    seen = list_events_after(user_id=user.pk, after=(0, 0), limit=50)
    assert [e.key for e in seen] == ["slow", "fast"]
    cursor = (seen[-1].txid, seen[-1].pk)
    assert list_events_after(user_id=user.pk, after=cursor, limit=50) == []
