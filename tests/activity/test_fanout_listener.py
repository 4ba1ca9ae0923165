"""The fan-out is driven by commits, not by polling (issue 26 §3): the outbox's statement
trigger NOTIFYs on commit (activity migration 0005) and beat's listener enqueues a drain."""

from __future__ import annotations

import itertools
import threading
import time

import psycopg
import pytest
from django.conf import settings
from django.db import connection, transaction

from activity.models import Fanout, FanoutKind
from activity.services.listener import CHANNEL, start_fanout_listener
from market.services.orders import place_bid
from tests.factories import UserFactory
from tests.market.conftest import Market, demo, funded
from tests.waiting import scaled, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def _listening_connection() -> psycopg.Connection:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    conn = psycopg.connect(**params, autocommit=True)
    conn.execute(f"LISTEN {CHANNEL}")
    return conn


def test_a_resting_bid_notifies_the_outbox_when_it_commits_and_not_before():
    market = Market(title="Primes")
    market.accepted(solver=UserFactory())
    bidder = funded(10_000)
    with _listening_connection() as listener:
        with transaction.atomic():
            Fanout.objects.create(kind=FanoutKind.DISPATCH, ref=bidder.pk)
            # Not committed: PostgreSQL holds the notification back.
            assert list(listener.notifies(timeout=0.0)) == []
        [note] = listener.notifies(timeout=scaled(10), stop_after=1)
        assert note.channel == CHANNEL

        # The engine's own rows (its triggers queue the bid's announcement) notify too.
        place_bid(buyer=bidder, problem=market.problem, price=demo(300), quantity=1)
        [note] = listener.notifies(timeout=scaled(10), stop_after=1)
        assert note.channel == CHANNEL


def test_the_listener_folds_a_burst_into_drains_and_reconnects_its_backlog():
    calls: list[int] = []
    first = threading.Event()

    def on_notify() -> None:
        calls.append(1)
        first.set()

    stop = start_fanout_listener(on_notify=on_notify)
    try:
        # On connecting it drains once: what was queued while nobody listened.
        assert first.wait(scaled(10))
        Fanout.objects.bulk_create(
            [Fanout(kind=FanoutKind.DISPATCH, ref=n) for n in range(1, 51)]
        )  # one statement, one commit: one notification
        wait_until(lambda: len(calls) >= 2, "a drain after the commit", timeout=10)
    finally:
        stop()
    assert len(calls) == 2


def test_polling_is_gone_only_a_slow_backstop_remains():
    schedule = settings.CELERY_BEAT_SCHEDULE["activity-drain-fanout"]["schedule"]
    assert float(schedule) >= 30.0
    assert settings.ACTIVITY_FANOUT_LISTEN is True


def test_a_steady_stream_of_commits_is_drained_at_most_once_per_window():
    window_s = 0.3
    calls: list[float] = []
    lock = threading.Lock()

    def on_notify() -> None:
        with lock:
            calls.append(time.monotonic())

    stop = start_fanout_listener(on_notify=on_notify, coalesce_s=window_s)
    try:
        wait_until(lambda: calls, "the drain on connecting", timeout=10)
        commits = 0
        started = time.monotonic()
        while commits < 10 or time.monotonic() - started < 2 * window_s:
            before_last_commit = time.monotonic()
            Fanout.objects.create(kind=FanoutKind.DISPATCH, ref=commits + 1)  # one commit each
            commits += 1
        wait_until(
            lambda: calls[-1] > before_last_commit, "a drain after the last commit", timeout=10
        )
    finally:
        stop()
    gaps = [later - earlier for earlier, later in itertools.pairwise(calls)]
    assert min(gaps) >= window_s, gaps
    assert len(calls) < commits, (len(calls), commits)  # folded, not one per commit
    # The first notification after the connect's drain waited only for the window's end.
    assert gaps[0] < window_s + scaled(2), gaps
