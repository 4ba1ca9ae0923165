"""Waiting for a verdict without polling: GET /api/v1/solutions/<id>/?wait=<s> (issue 29).

A request that asks to wait is held until the solution's status is final (woken by the
NOTIFY of market migration 0018 at the verdict's commit) or its time is up. The server needs
threads for it (the WSGI environ's ``wsgi.multithread``, which gunicorn's gthread worker
sets and the test client does not: these tests set it as gthread would).
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import psycopg
import pytest
from django.db import connection

from judge.verdict import Outcome, Reason, Verdict
from market.demo.loader import load_demo_problems
from market.models import Problem, Solution, SolutionStatus
from market.services.solutions import record_verdict, release_solution
from market.verdict_waits import CHANNEL, MAX_WAIT_S
from tests.api.conftest import assert_error, client_for
from tests.clients.conftest import RIGHT
from tests.factories import SolutionFactory, UserFactory
from tests.waiting import scaled, wait_until

THREADED = {"wsgi.multithread": True}  # what gunicorn's gthread worker puts in the environ
REJECTED = Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "expected 17 23", seed=7)


def _get(client, url: str, **extra):
    started = time.monotonic()
    response = client.get(url, **{**THREADED, **extra})
    return response, time.monotonic() - started


@pytest.mark.django_db
def test_a_judged_solution_is_answered_at_once_whatever_the_wait():
    solution = SolutionFactory()
    record_verdict(solution_id=solution.pk, verdict=REJECTED)
    client = client_for(solution.solver)

    response, elapsed_s = _get(client, f"/api/v1/solutions/{solution.pk}/?wait={MAX_WAIT_S}")

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["verdict"]["verdict"]) == ("rejected", "REJECTED")
    # It did not wait for the 30 s it was allowed: the status was final at the first read.
    assert elapsed_s < MAX_WAIT_S / 2


@pytest.mark.django_db
def test_a_pending_solution_is_answered_pending_when_the_time_is_up():
    solution = SolutionFactory()
    client = client_for(solution.solver)

    response, elapsed_s = _get(client, f"/api/v1/solutions/{solution.pk}/status/?wait=1.5")

    assert response.status_code == 200, response.content
    assert response.json()["status"] == "pending"
    assert elapsed_s >= 1.5  # it was held for the time it asked, not answered at once
    assert response.headers["ETag"]


@pytest.mark.django_db
def test_without_threads_or_a_free_slot_the_wait_is_not_held(settings):
    # A sync worker (one thread per process) would be tied up: the answer comes at once.
    solution = SolutionFactory()
    client = client_for(solution.solver)
    url = f"/api/v1/solutions/{solution.pk}/?wait={MAX_WAIT_S}"

    sync, sync_s = _get(client, url, **{"wsgi.multithread": False})
    settings.API_SOLUTION_WAIT_SLOTS = 0
    no_slot, no_slot_s = _get(client, url)

    assert [sync.status_code, no_slot.status_code] == [200, 200]
    assert [sync.json()["status"], no_slot.json()["status"]] == ["pending", "pending"]
    assert max(sync_s, no_slot_s) < MAX_WAIT_S / 2


@pytest.mark.parametrize("value", ["", "abc", "-1", "30.5", "31", "nan", "inf", "-inf", "1e9"])
@pytest.mark.django_db
def test_a_bad_wait_is_a_json_400(value):
    solution = SolutionFactory()
    client = client_for(solution.solver)

    for url in (f"/api/v1/solutions/{solution.pk}/", f"/api/v1/solutions/{solution.pk}/status/"):
        response = client.get(url, {"wait": value}, **THREADED)

        error = assert_error(response, 400, "api:invalid")
        assert set(error["fields"]) == {"wait"}


@pytest.mark.django_db
def test_waiting_on_someone_elses_solution_is_not_found_at_once():
    solution = SolutionFactory()
    stranger = client_for(UserFactory())

    response, elapsed_s = _get(stranger, f"/api/v1/solutions/{solution.pk}/?wait={MAX_WAIT_S}")

    assert_error(response, 404, "not-found")
    assert elapsed_s < MAX_WAIT_S / 2


@pytest.mark.django_db(transaction=True)
def test_the_verdict_is_notified_at_its_commit_and_only_when_final():
    solution = SolutionFactory()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        # A judge error puts the solution back to PENDING: not a verdict, nobody is woken.
        Solution.objects.filter(pk=solution.pk).update(status=SolutionStatus.RUNNING)
        release_solution(solution_id=solution.pk, reason="judge unavailable: test")
        record_verdict(solution_id=solution.pk, verdict=REJECTED)
        record_verdict(solution_id=solution.pk, verdict=REJECTED)  # a redelivery: no change

        heard = [notify.payload for notify in listener.notifies(timeout=scaled(2), stop_after=2)]

    assert heard == [str(solution.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_waiting_request_returns_on_the_verdict_from_a_real_judge_worker(celery_worker):
    load_demo_problems()
    problem = Problem.objects.get(slug="demo-factor-391")
    verifier = problem.verifiers.get()
    client = client_for(UserFactory(username="waiter"))

    def submit(text: str) -> int:
        response = client.post(
            "/api/v1/solutions/", {"verifier": verifier.pk, "text": text}, format="json"
        )
        assert response.status_code == 202, response.content
        return int(response.json()["id"])

    # The first verdict of a fresh worker may take its warm-up: wait for it without timing.
    first = submit(RIGHT)
    wait_until(
        lambda: Solution.objects.get(pk=first).status == SolutionStatus.ACCEPTED,
        "the worker's first verdict",
        timeout=120,
    )
    solution_id = submit(RIGHT + "\n")

    # Held until the verdict: one request, in flight when the verdict was recorded, answered
    # before its time was up (a missed wake-up would answer at the deadline).
    started_at = datetime.now(tz=UTC)
    response, elapsed_s = _get(client, f"/api/v1/solutions/{solution_id}/?wait={MAX_WAIT_S}")

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["verdict"]["verdict"]) == ("accepted", "ACCEPTED")
    judged_at = Solution.objects.get(pk=solution_id).judged_at
    assert started_at < judged_at
    assert elapsed_s < MAX_WAIT_S - 1


@pytest.mark.django_db(transaction=True)
def test_a_verdict_wakes_only_the_requests_that_wait_for_that_solution():
    waited, other = SolutionFactory(), SolutionFactory()
    answers: dict[str, tuple[str, float]] = {}

    def wait_for(name: str, solution: Solution, wait_s: float) -> None:
        client = client_for(solution.solver)
        response, elapsed_s = _get(client, f"/api/v1/solutions/{solution.pk}/?wait={wait_s}")
        answers[name] = (response.json()["status"], elapsed_s)
        connection.close()  # this thread's connection: the test database is dropped later

    threads = [
        threading.Thread(target=wait_for, args=("waited", waited, MAX_WAIT_S)),
        threading.Thread(target=wait_for, args=("other", other, 3)),
    ]
    for thread in threads:
        thread.start()
    # Both requests are held (each in its slot) before the verdict is recorded.
    from market import verdict_waits

    wait_until(lambda: verdict_waits._listener._busy == 2, "both requests waiting", timeout=10)
    record_verdict(solution_id=waited.pk, verdict=REJECTED)
    for thread in threads:
        thread.join(timeout=scaled(MAX_WAIT_S))

    assert answers["waited"][0] == "rejected"
    assert answers["waited"][1] < MAX_WAIT_S - 1
    assert answers["other"][0] == "pending" and answers["other"][1] >= 3
