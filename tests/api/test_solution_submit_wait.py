"""A waiting submission: ``POST /api/v1/solutions/?wait=<s>``, one request per verdict (issue 29).

The submission is committed and queued first; then the answer is held, as on ``GET
<solution>?wait=``, until the verdict or the time is up, and its body is the one the read
would give. A replay (the same Idempotency-Key, or the same text) waits the same way. The
server needs threads for it (these tests set ``wsgi.multithread`` as gthread does).
"""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

import pytest

from market.api.models import IdempotencyRecord
from market.demo.loader import load_demo_problems
from market.models import Problem, Solution, SolutionStatus, VerdictRecord
from market.verdict_waits import MAX_WAIT_S
from tests.api.conftest import assert_error, client_for
from tests.clients.conftest import RIGHT
from tests.factories import UserFactory
from tests.waiting import wait_until

THREADED = {"wsgi.multithread": True}  # what gunicorn's gthread worker puts in the environ


def _post(client, verifier_id: int, text: str, wait: object, **extra):
    started = time.monotonic()
    response = client.post(
        f"/api/v1/solutions/?wait={wait}",
        {"verifier": verifier_id, "text": text},
        format="json",
        **{**THREADED, **extra},
    )
    return response, time.monotonic() - started


@pytest.mark.django_db(transaction=True)
def test_a_waited_submission_answers_the_verdict_of_a_real_judge_worker(celery_worker):
    load_demo_problems()
    verifier = Problem.objects.get(slug="demo-factor-391").verifiers.get()
    client = client_for(UserFactory(username="waiter"))
    # The first verdict of a fresh worker may take its warm-up: wait for it without timing.
    first = client.post(
        "/api/v1/solutions/", {"verifier": verifier.pk, "text": RIGHT}, format="json"
    )
    wait_until(
        lambda: Solution.objects.get(pk=first.json()["id"]).status == SolutionStatus.ACCEPTED,
        "the worker's first verdict",
        timeout=120,
    )
    key = {"HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}

    started_at = datetime.now(tz=UTC)
    right, right_s = _post(client, verifier.pk, RIGHT + "\n", MAX_WAIT_S, **key)
    wrong, wrong_s = _post(client, verifier.pk, "1 391", MAX_WAIT_S)

    # One request each, held until the verdict (recorded after it was sent) and answered
    # before its time was up: a missed wake-up would answer at the deadline.
    for response, elapsed_s in ((right, right_s), (wrong, wrong_s)):
        assert response.status_code == 202, response.content
        assert elapsed_s < MAX_WAIT_S - 1
        assert started_at < Solution.objects.get(pk=response.json()["id"]).judged_at
    body = right.json()
    assert (body["status"], body["verdict"]["verdict"]) == ("accepted", "ACCEPTED")
    assert (wrong.json()["status"], wrong.json()["verdict"]["verdict"]) == (
        "rejected",
        "REJECTED",
    )
    # The body, its ETag and its Location are the read's.
    read = client.get(f"/api/v1/solutions/{body['id']}/")
    assert body == read.json()
    assert right.headers["ETag"] == read.headers["ETag"]
    assert right.headers["Location"] == body["url"]
    # The key stored the answer the submission gave at once (pending): a replay without a
    # wait answers that; one with a wait waits as the first did (here: judged, at once).
    stored = IdempotencyRecord.objects.get(key=key["HTTP_IDEMPOTENCY_KEY"])
    assert stored.response_body["status"] == "pending"
    replayed = client.post(
        "/api/v1/solutions/", {"verifier": verifier.pk, "text": RIGHT + "\n"}, format="json", **key
    )
    assert (replayed.status_code, replayed.json()["status"]) == (202, "pending")
    waited_replay, _ = _post(client, verifier.pk, RIGHT + "\n", MAX_WAIT_S, **key)
    assert waited_replay.status_code == 202
    assert waited_replay.headers["Idempotent-Replayed"] == "true"
    assert waited_replay.json() == body
    # The same text again (no key) is the same solution, answered judged at once.
    same_text, _ = _post(client, verifier.pk, "1 391", MAX_WAIT_S)
    assert same_text.json() == client.get(f"/api/v1/solutions/{wrong.json()['id']}/").json()
    assert Solution.objects.filter(solver__username="waiter").count() == 3


@pytest.mark.django_db
def test_a_waited_submission_is_answered_pending_when_the_time_is_up(world):
    # Nothing judges here: the solution stays pending for the whole wait.
    client = world.clients["other_solver"]

    response, elapsed_s = _post(
        client, world.verifier.pk, "yes, unjudged", 1.5, HTTP_IDEMPOTENCY_KEY="pending-1"
    )

    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["status"], body["verdict"], body["judged_at"]) == ("pending", None, None)
    assert elapsed_s >= 1.5  # held for the time it asked, not answered at once
    assert body == client.get(body["url"]).json()
    assert response.headers["ETag"] == client.get(body["url"]).headers["ETag"]
    assert Solution.objects.filter(solver=world.other_solver).count() == 1


@pytest.mark.django_db
def test_without_threads_a_waited_submission_is_answered_at_once(world):
    client = world.clients["other_solver"]

    response, elapsed_s = _post(
        client, world.verifier.pk, "yes, unjudged", MAX_WAIT_S, **{"wsgi.multithread": False}
    )

    assert (response.status_code, response.json()["status"]) == (202, "pending")
    assert elapsed_s < MAX_WAIT_S / 2


@pytest.mark.parametrize("value", ["", "abc", "-1", "30.5", "31", "nan", "inf", "1e9"])
@pytest.mark.django_db
def test_a_bad_wait_is_a_json_400_and_submits_nothing(world, value):
    client = world.clients["other_solver"]

    response, _ = _post(
        client, world.verifier.pk, "yes, new", value, HTTP_IDEMPOTENCY_KEY=f"bad-wait-{value}"
    )

    error = assert_error(response, 400, "api:invalid")
    assert set(error["fields"]) == {"wait"}
    assert not Solution.objects.filter(solver=world.other_solver).exists()
    assert not IdempotencyRecord.objects.filter(user=world.other_solver).exists()


@pytest.mark.parametrize(
    "no_slot",
    [{"wsgi.multithread": False}, {"wsgi.multithread": True, "slots": 0}],
    ids=["unthreaded", "slots-taken"],
)
@pytest.mark.django_db
def test_a_waited_replay_without_a_slot_answers_the_current_state_as_the_read_does(
    world, settings, no_slot
):
    # The key stored the pending answer; the verdict came since. A replay with ?wait and no
    # slot to wait in answers at once, but the current state (as GET does), not the stored
    # pending body: "a replay with wait answers the current state, like the first request".
    client = world.clients["other_solver"]
    key = {"HTTP_IDEMPOTENCY_KEY": "judged-since"}
    first, _ = _post(client, world.verifier.pk, "yes, judged later", 0, **key)
    assert (first.status_code, first.json()["status"]) == (202, "pending")
    solution = Solution.objects.get(pk=first.json()["id"])
    VerdictRecord.objects.create(
        solution=solution, verdict="ACCEPTED", reason="", detail="ok", judge_version="test"
    )
    Solution.objects.filter(pk=solution.pk).update(
        status=SolutionStatus.ACCEPTED, judged_at=datetime.now(tz=UTC)
    )
    settings.API_SOLUTION_WAIT_SLOTS = no_slot.get("slots", settings.API_SOLUTION_WAIT_SLOTS)

    replay, elapsed_s = _post(
        client,
        world.verifier.pk,
        "yes, judged later",
        MAX_WAIT_S,
        **key,
        **{"wsgi.multithread": no_slot["wsgi.multithread"]},
    )

    read = client.get(first.json()["url"])
    assert replay.status_code == 202
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == read.json()
    assert replay.json()["status"] == "accepted"
    assert replay.headers["ETag"] == read.headers["ETag"]
    assert elapsed_s < MAX_WAIT_S / 2
