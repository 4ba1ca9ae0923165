"""Throttles count atomically on real Redis, and page forms share the API's write bucket."""

from __future__ import annotations

import multiprocessing
import threading
import uuid

import pytest
from django.core.cache import caches
from django.test import Client
from rest_framework.test import APIClient

from market.api import throttling
from market.api.throttling import WriteThrottle
from market.api.tokens import create_api_token
from market.models import Order, Solution
from market.services.accounts import grant_demo_credits
from tests.factories import ProblemFactory, UserFactory, VerifierFactory, VerifierVersionFactory
from tests.production.rate_burst import burst
from tests.waiting import scaled
from verifiers.models import VerifierVersion

THREADS = 48
REQUESTS_PER_THREAD = 10
LIMIT = 120


@pytest.fixture(autouse=True)
def _clean_throttles():
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


def _run_in_threads(count: int, target) -> list:
    results: list = []
    lock = threading.Lock()
    barrier = threading.Barrier(count)

    def run() -> None:
        barrier.wait()  # all threads start together: the overlap is the point
        local = target()
        with lock:
            results.extend(local)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=scaled(120))
    assert not any(thread.is_alive() for thread in threads)
    return results


def test_48_threads_get_exactly_the_limit_through_the_counter():
    key = f"test:{uuid.uuid4()}"

    def burst() -> list[bool]:
        return [
            throttling.hit(key=key, limit=LIMIT, window_s=60).is_allowed
            for _ in range(REQUESTS_PER_THREAD)
        ]

    results = _run_in_threads(THREADS, burst)
    assert len(results) == THREADS * REQUESTS_PER_THREAD
    assert results.count(True) == LIMIT
    assert throttling.peek(key=key) == THREADS * REQUESTS_PER_THREAD


def test_separate_processes_share_one_atomic_counter():
    # Gunicorn workers are processes: the count must hold across them, not only threads.
    key = f"test:{uuid.uuid4()}"
    context = multiprocessing.get_context("fork")  # as gunicorn makes its workers
    queue = context.Queue()
    processes = [
        context.Process(target=burst, args=(key, LIMIT, REQUESTS_PER_THREAD * 4, queue))
        for _ in range(6)
    ]
    for process in processes:
        process.start()
    results = [allowed for _ in processes for allowed in queue.get(timeout=scaled(120))]
    for process in processes:
        process.join(timeout=scaled(60))
        assert process.exitcode == 0
    assert len(results) == 6 * REQUESTS_PER_THREAD * 4
    assert results.count(True) == LIMIT


def test_concurrent_api_writes_stop_at_the_write_limit(transactional_db, monkeypatch):
    # The case: many threads writing at once passed a 120/min limit.
    monkeypatch.setattr(
        WriteThrottle, "THROTTLE_RATES", {"read": "600/min", "write": f"{LIMIT}/min"}
    )
    user = UserFactory(username="hammer")
    _, key = create_api_token(user=user, name="t")
    threads, per_thread = 16, 30

    def burst() -> list[int]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        statuses = []
        for _ in range(per_thread):
            # An invalid order: refused with 400 after the throttle has counted it.
            statuses.append(client.post("/api/v1/orders/", {}, format="json").status_code)
        from django.db import connection

        connection.close()
        return statuses

    statuses = _run_in_threads(threads, burst)
    assert len(statuses) == threads * per_thread
    assert statuses.count(429) == threads * per_thread - LIMIT
    assert statuses.count(400) == LIMIT


@pytest.fixture
def bidder(db):
    user = UserFactory(username="bidder")
    grant_demo_credits(user=user, amount_minor=100_000)
    problem = ProblemFactory(title="Say yes", slug="say-yes")
    VerifierVersionFactory(verifier=VerifierFactory(problem=problem))
    client = Client()
    client.force_login(user)
    return user, problem, client


def test_page_bids_are_rate_limited_in_the_api_write_bucket(bidder, monkeypatch):
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"read": "600/min", "write": "3/min"})
    user, problem, client = bidder
    form = {"bid-price": "1.00", "bid-quantity": "1"}
    # Three problems: a buyer has one open bid per problem.
    others = [ProblemFactory() for _ in range(2)]
    for other_problem in others:
        VerifierVersionFactory(verifier=VerifierFactory(problem=other_problem))
    for each in (problem, *others):
        assert client.post(f"/problems/{each.slug}/bid/", form).status_code == 302
    assert Order.objects.filter(owner=user).count() == 3
    before = Order.objects.count()
    response = client.post(f"/problems/{problem.slug}/bid/", form)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Too many changes in a short time" in response.content.decode()
    assert Order.objects.count() == before
    # The same bucket as the API: this user's API write is refused too.
    api = APIClient()
    api.force_authenticate(user)
    body = {"problem": problem.pk, "side": "bid", "price_minor": 100, "currency": "DEMO"}
    assert api.post("/api/v1/orders/", body, format="json").status_code == 429
    assert Order.objects.count() == before
    # Another user is not affected.
    other = UserFactory(username="other-bidder")
    grant_demo_credits(user=other, amount_minor=100_000)
    other_client = Client()
    other_client.force_login(other)
    assert other_client.post(f"/problems/{problem.slug}/bid/", form).status_code == 302
    assert Order.objects.count() == before + 1


def test_page_submissions_are_rate_limited(bidder, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"read": "600/min", "write": "1/min"})
    user, problem, client = bidder
    version = VerifierVersion.objects.get(verifier__problem=problem)
    form = {"verifier_version": str(version.pk), "text": "yes"}
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(f"/problems/{problem.slug}/submit/", form).status_code == 302
        response = client.post(f"/problems/{problem.slug}/submit/", form)
    assert response.status_code == 429
    assert Solution.objects.filter(solver=user).count() == 1
