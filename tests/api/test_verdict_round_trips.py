"""Statements per verdict, end to end: the submission, the judge task, the held read (issue 29).

A verdict costs a client one request (``POST /api/v1/solutions/?wait=30`` with an
Idempotency-Key; before, the submission and then ``GET <solution>?wait=30``) and the judge
worker one task. Each statement is a round
trip and its ORM and psycopg work on both sides, so the budget is counted here:

- the submission: the token, the key's insert, the verifier's access check with its active
  version, the solution's insert (``ON CONFLICT DO NOTHING``: no savepoint), the stored
  response: 5 (main before issue 29's last cuts: 7, and 6 of transaction control, now 4). It
  is answered from the row it inserted, not re-read, and its body is the later read's.
- the held read: the token and one query (the access check with the verdict) per read: 2 when
  the verdict is there, 3 when the request was woken by it (were 3 and 4).
- the waited submission: the submission's 5, then one read per wake-up as the held read, with
  no second token: 7 when woken by its verdict, none more than the submission when the text was
  judged already.
- the task: the claim (one UPDATE ... RETURNING with the verifier version), then the verdict's
  transaction: the status (one UPDATE ... RETURNING what the record and its event need), the
  record, the event with the webhook look-up: 4 (were 7).
Connection health checks (``SELECT 1``, once per request or task) are not counted.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable, Iterator

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import Event, EventKind
from judge.verdict import Outcome, Reason, Verdict
from market.models import Solution, SolutionStatus, VerdictRecord
from market.services.solutions import judge_claimed_solution, record_verdict
from market.verdict_waits import MAX_WAIT_S
from tests.api.conftest import client_for
from tests.factories import SolutionFactory
from tests.waiting import scaled, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

THREADED = {"wsgi.multithread": True}  # what gunicorn's gthread worker puts in the environ
REJECTED = Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "expected 17 23", seed=7)


CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK")


def _sql(captured: CaptureQueriesContext) -> list[str]:
    """The statements, without the transaction's control (BEGIN, SAVEPOINT, ...)."""
    return [q["sql"] for q in captured.captured_queries if not q["sql"].startswith(CONTROL)]


def _control(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"].split(" ")[0] for q in captured.captured_queries if q["sql"].startswith(CONTROL)
    ]


def _show(sql: list[str]) -> str:
    return "\n".join(statement[:120] for statement in sql)


def _listener_connected() -> None:
    """Start this process's listener and see it connected: a (re)connecting listener wakes
    every waiter to read again, which would be a read more than a long-lived one costs."""
    from market import verdict_waits

    probe = verdict_waits._listener.register(0)
    try:
        assert probe.wait(scaled(30)), "the verdict listener did not connect"
    finally:
        verdict_waits._listener.unregister(0, probe)


@contextlib.contextmanager
def _judged_once_held(solution_id: Callable[[], int]) -> Iterator[None]:
    """Record a verdict on ``solution_id()`` from another thread once a request is held."""
    from market import verdict_waits

    def judge_once_held() -> None:
        try:
            wait_until(lambda: verdict_waits._listener._busy == 1, "the request held", timeout=10)
            record_verdict(solution_id=solution_id(), verdict=REJECTED)
        finally:
            connection.close()  # this thread's connection: the test database is dropped later

    judge = threading.Thread(target=judge_once_held)
    judge.start()
    try:
        yield
    finally:
        judge.join(timeout=scaled(MAX_WAIT_S))


def _submit(client, verifier_id: int, text: str, query: str = "", **extra):
    # A token's last use is stamped at most once a minute: stamp it before counting.
    assert client.get("/api/v1/me/").status_code == 200
    with CaptureQueriesContext(connection) as captured:
        response = client.post(
            f"/api/v1/solutions/{query}",
            {"verifier": verifier_id, "text": text},
            format="json",
            HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            **extra,
        )
    # The statements in order, each by its first word (transaction control included).
    order = [q["sql"].split(" ")[0] for q in captured.captured_queries]
    return response, _sql(captured), _control(captured), order


def _detail(client, solution_id: int) -> dict:
    response = client.get(f"/api/v1/solutions/{solution_id}/")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_submission_costs_five_statements_and_answers_what_a_read_answers(world):
    client = world.clients["other_solver"]

    response, sql, control, _ = _submit(client, world.verifier.pk, "yes, and a new text")

    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["status"], body["verdict"], body["judged_at"]) == ("pending", None, None)
    assert body == _detail(client, body["id"])
    assert response.headers["ETag"] == client.get(f"/api/v1/solutions/{body['id']}/")["ETag"]
    assert len(sql) == 5, _show(sql)
    # The key's transaction (the response is stored with the solution) and its savepoint for
    # a refusal; the solution's own insert needs none (a duplicate is no error).
    assert control == ["BEGIN", "SAVEPOINT", "RELEASE", "COMMIT"]
    assert not [s for s in sql if "market_verdictrecord" in s]  # a new solution has none
    assert Solution.objects.filter(solver=world.other_solver).count() == 1


def test_submitting_a_judged_text_again_answers_the_first_solution_with_its_verdict(world):
    client = world.clients["solver"]  # the world's accepted solution is the solver's "yes"

    response, _, _, _ = _submit(client, world.verifier.pk, "yes")

    assert response.status_code == 202, response.content
    body = response.json()
    assert body["id"] == world.solution.pk
    assert (body["status"], body["verdict"]["verdict"]) == ("accepted", "ACCEPTED")
    assert body == _detail(client, world.solution.pk)
    assert Solution.objects.filter(solver=world.solver).count() == 1


def test_a_held_read_of_a_judged_solution_is_the_token_and_one_query():
    solution = SolutionFactory()
    record_verdict(solution_id=solution.pk, verdict=REJECTED)
    client = client_for(solution.solver)
    assert client.get("/api/v1/me/").status_code == 200

    with CaptureQueriesContext(connection) as captured:
        response = client.get(f"/api/v1/solutions/{solution.pk}/?wait={MAX_WAIT_S}", **THREADED)

    assert response.status_code == 200, response.content
    assert response.json()["verdict"]["verdict"] == "REJECTED"
    assert len(_sql(captured)) == 2, _show(_sql(captured))


def test_a_read_woken_by_its_verdict_reads_the_solution_twice():
    solution = SolutionFactory()
    client = client_for(solution.solver)
    assert client.get("/api/v1/me/").status_code == 200
    _listener_connected()

    with _judged_once_held(lambda: solution.pk):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(f"/api/v1/solutions/{solution.pk}/?wait={MAX_WAIT_S}", **THREADED)

    assert response.status_code == 200, response.content
    assert response.json()["status"] == "rejected"
    sql = _sql(captured)
    assert len(sql) == 3, _show(sql)
    assert all("market_verdictrecord" in s for s in sql[1:])  # each read has the verdict


def test_a_waited_submission_woken_by_its_verdict_is_the_submission_and_two_reads(world):
    client = world.clients["other_solver"]
    _listener_connected()
    submitted = lambda: Solution.objects.get(solver=world.other_solver).pk  # noqa: E731

    with _judged_once_held(submitted):
        response, sql, control, order = _submit(
            client, world.verifier.pk, "yes, waited", f"?wait={MAX_WAIT_S}", **THREADED
        )

    assert response.status_code == 202, response.content
    assert response.json()["status"] == "rejected"
    # The submission's five, then, with no second token: the read after registering (still
    # pending) and the read once woken, each with the verdict.
    assert len(sql) == 7, _show(sql)
    assert all("market_verdictrecord" in s for s in sql[5:])
    # The key's transaction ended before the wait: both reads come after its COMMIT, in
    # autocommit, so nothing waits inside a transaction.
    assert control == ["BEGIN", "SAVEPOINT", "RELEASE", "COMMIT"]
    assert order[-3:] == ["COMMIT", "SELECT", "SELECT"]


def test_a_waited_submission_of_a_judged_text_is_answered_from_the_submission(world, monkeypatch):
    client = world.clients["solver"]  # the world's accepted solution is the solver's "yes"

    def no_wait(**kwargs):  # a judged answer takes no wait slot and starts no listener
        raise AssertionError(f"waited for a judged solution: {kwargs}")

    monkeypatch.setattr("market.api.solution_views.waiting_for_verdict", no_wait)
    response, sql, _, _ = _submit(
        client, world.verifier.pk, "yes", f"?wait={MAX_WAIT_S}", **THREADED
    )

    assert response.status_code == 202, response.content
    assert (response.json()["id"], response.json()["status"]) == (world.solution.pk, "accepted")
    # The submission of a text it has: the insert finds it and reads it (6, one more than a
    # new text). Judged already, it is answered from that read: no wait, no read of its own.
    assert len(sql) == 6, _show(sql)
    assert len([s for s in sql if s.startswith('SELECT "market_solution"')]) == 1


def test_the_judge_task_costs_four_statements_and_records_one_verdict():
    solution = SolutionFactory(text="yes")
    with CaptureQueriesContext(connection) as warm:  # the worker's first verdict warms its pool
        judge_claimed_solution(solution_id=SolutionFactory(text="yes").pk, task_id="warm")
    assert warm.captured_queries

    with CaptureQueriesContext(connection) as captured:
        verdict = judge_claimed_solution(solution_id=solution.pk, task_id=uuid.uuid4().hex)

    assert verdict is not None and verdict.verdict is Outcome.ACCEPTED
    sql = _sql(captured)
    assert len(sql) == 4, _show(sql)
    assert sql[0].startswith("WITH claimed AS (UPDATE")
    assert sql[1].startswith("WITH judged AS (UPDATE")
    assert sql[3].startswith("WITH written AS (INSERT")
    solution.refresh_from_db()
    assert (solution.status, solution.judge_attempts, solution.claim_token) == (
        SolutionStatus.ACCEPTED,
        1,
        "",
    )
    assert VerdictRecord.objects.filter(solution=solution).count() == 1
    event = Event.objects.get(user=solution.solver, key=f"verdict:{solution.pk}")
    assert (event.kind, event.payload["status"], event.payload["problem_slug"]) == (
        EventKind.SOLUTION_JUDGED,
        "accepted",
        solution.problem.slug,
    )
    # A redelivery finds it judged: the claim's one statement, nothing written.
    again = CaptureQueriesContext(connection)
    with again:
        assert judge_claimed_solution(solution_id=solution.pk, task_id="another") is None
    assert len(again.captured_queries) == 1
    assert VerdictRecord.objects.filter(solution=solution).count() == 1


def _serialized(solution: Solution, user) -> tuple[dict, dict]:
    """The hand-built body of the solution as the API reads it (``access_solution``'s own SQL)
    and the serializer's of the ORM's instance, for one reader."""
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from market.access import access_solution
    from market.api.serializers import SolutionSerializer
    from market.api.solution_bodies import solution_body

    request = Request(APIRequestFactory().get("/", HTTP_X_FORWARDED_PROTO="https"))
    request.user = user
    context = {"request": request, "include_text": True}
    with CaptureQueriesContext(connection) as reads:
        read = access_solution(user=user, solution_id=solution.pk)
        built = solution_body(read, request=request)
    assert len(reads.captured_queries) == 1  # the version and the verdict came with it
    return built, dict(SolutionSerializer(solution, context=context).data)


def test_the_hand_built_body_is_the_serializers_for_every_state(world):
    pending = SolutionFactory(text="yes, pending")
    judged = SolutionFactory(text="no")
    record_verdict(solution_id=judged.pk, verdict=REJECTED)
    readers = [
        (Solution.objects.select_related("verdict", "verifier_version").get(pk=pending.pk), None),
        (Solution.objects.select_related("verdict", "verifier_version").get(pk=judged.pk), None),
        # The world's accepted solution read by the buyer who owns a copy: not theirs.
        (
            Solution.objects.select_related("verdict", "verifier_version").get(
                pk=world.solution.pk
            ),
            world.buyer,
        ),
    ]

    for solution, reader in readers:
        built, serialized = _serialized(solution, reader or solution.solver)

        assert list(built) == list(serialized)  # the same fields in the same order
        assert built == serialized
    assert serialized["is_mine"] is False and serialized["verdict"]["verdict"] == "ACCEPTED"
