"""The Celery glue: claiming, idempotent verdicts, retries, and a real worker on Redis."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

import market.tasks
import verifiers.services.judging
from judge.verdict import judge_error
from market.models import Solution, SolutionStatus, VerdictRecord
from market.services.solutions import claim_solution, submit_solution
from tests.factories import SolutionFactory, UserFactory, VerifierVersionFactory
from tests.waiting import wait_until

RIGHT = "yes"
WRONG = "no"


@pytest.mark.django_db
def test_task_writes_one_verdict_even_when_run_twice():
    solution = SolutionFactory(text=RIGHT)
    assert market.tasks.judge_python_task.run(solution_id=solution.pk) == "ACCEPTED"
    assert market.tasks.judge_python_task.run(solution_id=solution.pk) is None
    solution.refresh_from_db()
    assert solution.status == SolutionStatus.ACCEPTED
    assert VerdictRecord.objects.filter(solution=solution).count() == 1
    assert solution.verdict.seed is not None


@pytest.mark.django_db
def test_wrong_solution_is_rejected_with_the_reason():
    solution = SolutionFactory(text=WRONG)
    assert market.tasks.judge_python_task.run(solution_id=solution.pk) == "REJECTED"
    record = VerdictRecord.objects.get(solution=solution)
    assert (record.verdict, record.reason) == ("REJECTED", "WRONG_ANSWER")


@pytest.mark.django_db
def test_judge_error_keeps_the_solution_pending_and_retries(monkeypatch):
    # The judge's own seam (as the apps' seam imports it): the sandbox could not start.
    monkeypatch.setattr(
        verifiers.services.judging, "judge_python", lambda job: judge_error("no sandbox")
    )
    solution = SolutionFactory(text=RIGHT)
    with pytest.raises(market.tasks.JudgeUnavailable):
        market.tasks.judge_python_task.run(solution_id=solution.pk)
    solution.refresh_from_db()
    assert solution.status == SolutionStatus.PENDING
    assert solution.pending_reason == "judge unavailable: no sandbox"
    assert not VerdictRecord.objects.filter(solution=solution).exists()


@pytest.mark.django_db
def test_a_claim_abandoned_by_a_killed_worker_is_taken_over():
    solution = SolutionFactory(text=RIGHT)
    assert claim_solution(solution_id=solution.pk, lease=timedelta(seconds=10)) is not None
    # A second delivery while the first worker still holds the claim does nothing.
    assert market.tasks.judge_python_task.run(solution_id=solution.pk) is None
    # The first worker died: its claim expires, and the redelivered task judges again.
    Solution.objects.filter(pk=solution.pk).update(claimed_until=timezone.now() - timedelta(1))
    assert market.tasks.judge_python_task.run(solution_id=solution.pk) == "ACCEPTED"
    solution.refresh_from_db()
    assert (solution.status, solution.judge_attempts) == (SolutionStatus.ACCEPTED, 2)


def _wait_for_status(solution_id: int, timeout_s: float = 60) -> Solution:
    return wait_until(
        lambda: Solution.objects.filter(
            pk=solution_id, status__in=(SolutionStatus.ACCEPTED, SolutionStatus.REJECTED)
        ).first(),
        f"a verdict on solution {solution_id}",
        timeout=timeout_s,
    )


@pytest.mark.django_db(transaction=True)
def test_submitted_solutions_are_judged_by_a_real_worker(celery_worker):
    version = VerifierVersionFactory()
    solver = UserFactory()
    right = submit_solution(solver=solver, verifier_version=version, text=RIGHT)
    wrong = submit_solution(solver=solver, verifier_version=version, text=WRONG)
    assert _wait_for_status(right.pk).status == SolutionStatus.ACCEPTED
    assert _wait_for_status(wrong.pk).status == SolutionStatus.REJECTED
    assert VerdictRecord.objects.count() == 2


@pytest.mark.django_db
def test_lean_solution_stays_pending_with_a_reason_without_a_toolchain(monkeypatch):
    for var in ("JUDGE_LEAN_LAKE", "JUDGE_LEAN_PROJECTS_DIR"):
        monkeypatch.delenv(var, raising=False)
    version = VerifierVersionFactory(
        verifier__language="lean",
        verifier__lean_project="core",
        verifier__draft_source="abbrev Spec : Prop := 2 + 2 = 4\n",
    )
    solution = SolutionFactory(verifier_version=version, text="theorem answer : Spec := by decide")
    assert market.tasks.judge_lean_task.run(solution_id=solution.pk) is None
    solution.refresh_from_db()
    assert solution.status == SolutionStatus.PENDING
    assert solution.pending_reason.startswith("Lean judging is unavailable: ")
    assert not VerdictRecord.objects.filter(solution=solution).exists()


def test_worker_refuses_to_start_when_the_sandbox_self_test_fails(monkeypatch):
    from celery.contrib.testing.worker import TestWorkController

    import judge.python
    from config.celery import app
    from judge.sandbox import SandboxUnavailable

    def broken(judge=None):
        raise SandboxUnavailable("PYTHON JUDGE SELF-TEST FAILED: seccomp is not enforced")

    monkeypatch.setattr(judge.python, "run_selftest", broken)
    with pytest.raises(SystemExit, match="seccomp is not enforced"):
        TestWorkController(app=app, pool="solo", queues=["judge-python"])


def test_lean_only_worker_does_not_need_the_python_sandbox(monkeypatch):
    from celery.contrib.testing.worker import TestWorkController

    import judge.python
    from config.celery import app

    calls = []
    monkeypatch.setattr(judge.python, "run_selftest", lambda judge=None: calls.append(1))
    TestWorkController(app=app, pool="solo", queues=["judge-lean"])
    assert calls == []
    TestWorkController(app=app, pool="solo", queues=["judge-python"])
    assert calls == [1]


@pytest.mark.django_db(transaction=True)
def test_long_pending_solutions_are_sent_to_the_judge_again(celery_worker):
    from market.services.solutions import requeue_pending_solutions

    # Stored but never queued (as if the broker lost the message).
    stale = SolutionFactory(text=RIGHT)
    Solution.objects.filter(pk=stale.pk).update(created_at=timezone.now() - timedelta(hours=1))
    fresh = SolutionFactory(text=RIGHT, verifier_version=stale.verifier_version)

    assert requeue_pending_solutions(older_than=timedelta(minutes=5)) == 1
    assert _wait_for_status(stale.pk).status == SolutionStatus.ACCEPTED
    fresh.refresh_from_db()
    assert fresh.status == SolutionStatus.PENDING
    assert requeue_pending_solutions(older_than=timedelta(minutes=5)) == 0


@pytest.mark.django_db
def test_a_lean_worker_without_toolchain_leaves_a_running_solution_alone(monkeypatch):
    for var in ("JUDGE_LEAN_LAKE", "JUDGE_LEAN_PROJECTS_DIR"):
        monkeypatch.delenv(var, raising=False)
    version = VerifierVersionFactory(
        verifier__language="lean",
        verifier__lean_project="core",
        verifier__draft_source="abbrev Spec : Prop := 2 + 2 = 4\n",
    )
    solution = SolutionFactory(verifier_version=version, text="theorem answer : Spec := by decide")
    # Another worker, one with a toolchain, is judging it right now.
    assert claim_solution(solution_id=solution.pk, lease=timedelta(minutes=10)) is not None

    assert market.tasks.judge_lean_task.run(solution_id=solution.pk) is None

    solution.refresh_from_db()
    assert (solution.status, solution.pending_reason) == (SolutionStatus.RUNNING, "")
    assert solution.claimed_until > timezone.now()


@pytest.mark.django_db(transaction=True)
def test_a_dry_run_is_judged_by_a_real_worker_on_its_languages_queue(celery_worker):
    from verifiers.models import DryRun, DryRunStatus
    from verifiers.services.dry_runs import request_dry_run

    version = VerifierVersionFactory()
    verifier = version.verifier
    verifier.reference_solutions = [RIGHT]
    verifier.wrong_solutions = [WRONG]
    verifier.save(update_fields=["reference_solutions", "wrong_solutions"])

    requested = request_dry_run(author=verifier.problem.author, verifier=verifier)

    dry_run = wait_until(
        lambda: DryRun.objects.filter(pk=requested.pk, status=DryRunStatus.DONE).first(),
        f"dry run {requested.pk} to finish",
        timeout=60,
    )
    assert dry_run.is_passed is True
    assert [r["verdict"] for r in dry_run.results] == ["ACCEPTED", "REJECTED"]
    assert dry_run.judge_attempts == 1
