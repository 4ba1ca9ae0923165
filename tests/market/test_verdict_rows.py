"""Issue 29 (found sound by a review): the verdict path's raw statements against the ORM.

The claim (``claim_row``: one ``UPDATE ... RETURNING`` joined to the verifier version) and the
verdict's status change (``_mark_judged``: one ``UPDATE ... RETURNING`` joined to the problem)
build model instances from raw rows (``domain/rows.py``). Held here:

- every column they read back is what the ORM reads (value and type: datetimes with their
  zone, JSON parsed, nulls), and the loaded relation costs no query;
- two deliveries that meet on the row lock (READ COMMITTED's re-check of the WHERE) give one
  claim, and two recorders one verdict record, the loser without an error.

The races are made deterministic: a connection of the test's own holds the row lock until
both calls wait for it (``pg_blocking_pids``), then lets them go.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import psycopg
import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from domain.rows import inner_join_key
from judge.verdict import Outcome, Reason, Verdict
from market.models import Order, Solution, SolutionStatus, VerdictRecord
from market.services import solutions
from market.services.solutions import claim_solution, record_verdict
from tests.factories import SolutionFactory
from tests.waiting import wait_until
from verifiers.models import VerifierVersion
from verifiers.services.claims import claim_row

pytestmark = pytest.mark.django_db(transaction=True)

REJECTED = Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "expected 17 23", seed=7)


def _fields(instance, model) -> dict[str, tuple[type, object]]:
    return {
        f.attname: (type(getattr(instance, f.attname)), getattr(instance, f.attname))
        for f in model._meta.concrete_fields
    }


def _params() -> dict[str, object]:
    d = connection.settings_dict
    return {
        "dbname": d["NAME"],
        "user": d["USER"],
        "password": d["PASSWORD"] or None,
        "host": d["HOST"] or "127.0.0.1",
        "port": d["PORT"] or 5432,
    }


def test_the_claims_row_is_what_the_orm_reads_and_its_version_costs_no_query():
    solution = SolutionFactory()
    claimed = claim_solution(solution_id=solution.pk, lease=timedelta(minutes=5), token="t-1")
    assert claimed is not None
    with CaptureQueriesContext(connection) as queries:
        version = claimed.verifier_version
    assert len(queries) == 0
    fresh = Solution.objects.get(pk=solution.pk)
    assert _fields(claimed, Solution) == _fields(fresh, Solution)
    assert claimed.claimed_until.utcoffset() == timedelta(0)
    assert (claimed.status, claimed.claim_token, claimed.judge_attempts) == ("running", "t-1", 1)
    assert _fields(version, VerifierVersion) == _fields(
        VerifierVersion.objects.get(pk=version.pk), VerifierVersion
    )


def test_the_judged_row_is_what_the_orm_reads():
    solution = SolutionFactory(status=SolutionStatus.RUNNING, claim_token="t-1")
    judged = record_verdict(solution_id=solution.pk, verdict=REJECTED)
    fresh = Solution.objects.select_related("problem").get(pk=solution.pk)
    assert _fields(judged, Solution) == _fields(fresh, Solution)
    assert judged.judged_at is not None and judged.judged_at.utcoffset() == timedelta(0)
    assert (judged.status, judged.claim_token, judged.claimed_until) == ("rejected", "", None)
    with CaptureQueriesContext(connection) as queries:
        problem = judged.problem
        assert (problem.pk, problem.title, problem.slug) == (
            fresh.problem.pk,
            fresh.problem.title,
            fresh.problem.slug,
        )
    assert len(queries) == 0


def _race(solution_id: int, call) -> list[object]:
    """Run ``call`` in two threads that both wait on the solution's row lock, then free it."""
    results: list[object] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(call())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    with (
        psycopg.connect(**_params()) as blocker,
        # Autocommit: pg_stat_activity is read once per transaction.
        psycopg.connect(**_params(), autocommit=True) as watcher,
    ):
        blocker.execute("SELECT 1 FROM market_solution WHERE id = %s FOR UPDATE", [solution_id])
        threads = [threading.Thread(target=run) for _ in range(2)]
        for thread in threads:
            thread.start()

        def both_wait() -> bool:
            if errors or results:
                raise AssertionError(f"a call ended before the lock: {errors!r} {results!r}")
            # The first waits for the blocker, the second for the first's tuple lock.
            (waiting,) = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0"
            ).fetchone()
            return waiting >= 2

        wait_until(both_wait, "both calls to wait for the row lock", timeout=30, poll_s=0.01)
        blocker.commit()
        for thread in threads:
            thread.join()
    assert errors == []
    return results


def test_two_deliveries_meeting_on_the_row_lock_give_one_claim():
    solution = SolutionFactory()
    tokens = iter(["delivery-a", "delivery-b"])
    lock = threading.Lock()

    def claim():
        with lock:
            token = next(tokens)
        return claim_solution(solution_id=solution.pk, lease=timedelta(minutes=5), token=token)

    results = _race(solution.pk, claim)
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    fresh = Solution.objects.get(pk=solution.pk)
    assert (fresh.status, fresh.claim_token, fresh.judge_attempts) == (
        "running",
        winners[0].claim_token,
        1,
    )


def test_two_recorders_meeting_on_the_row_lock_write_one_verdict():
    solution = SolutionFactory(status=SolutionStatus.RUNNING, claim_token="t-1")
    results = _race(solution.pk, lambda: record_verdict(solution_id=solution.pk, verdict=REJECTED))
    assert [r.status for r in results] == ["rejected", "rejected"]
    assert VerdictRecord.objects.filter(solution_id=solution.pk).count() == 1


def test_a_claim_refuses_to_join_a_nullable_key_before_it_claims_anything():
    # Order.solution may be NULL: the inner join would claim the row and return nothing.
    with CaptureQueriesContext(connection) as captured, pytest.raises(TypeError):
        claim_row(
            model=Order,
            pk=1,
            token="t",
            lease=timedelta(seconds=1),
            pending="open",
            running="running",
            related="solution",
        )
    assert captured.captured_queries == []


def test_inner_join_keys_are_not_null_keys_to_a_primary_key():
    assert inner_join_key(Solution, "problem").column == "problem_id"
    with pytest.raises(TypeError, match="Order.solution"):
        inner_join_key(Order, "solution")  # nullable
    with pytest.raises(TypeError, match="Solution.text"):
        inner_join_key(Solution, "text")  # not a key


def test_the_verdicts_status_change_refuses_a_nullable_join_key(monkeypatch):
    # Were Solution.verifier_version nullable, the UPDATE would turn a solution final and the
    # join return no row: record_verdict would take it for "judged already" and write no record.
    monkeypatch.setattr(Solution._meta.get_field("verifier_version"), "null", True)
    solutions._mark_judged_sql.cache_clear()
    try:
        with pytest.raises(TypeError, match="Solution.verifier_version"):
            solutions._mark_judged_sql()
    finally:
        monkeypatch.undo()
        solutions._mark_judged_sql.cache_clear()
    assert "JOIN" in solutions._mark_judged_sql()[0]
