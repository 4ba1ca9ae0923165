"""Faults lose nothing: each ends with exactly one verdict, automatically, within a bound.

Real processes throughout: a prefork Celery worker and beat on a private redis-server, the
real sandbox, real SIGKILLs, a real pg_terminate_backend. The intervals are the short ones of
``FAST_JUDGING``; docs/judging.md gives the production bounds.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.db import connection

from market.models import Solution, SolutionStatus, VerdictRecord
from market.services.solutions import submit_solution
from tests.factories import UserFactory, VerifierVersionFactory
from tests.judging.conftest import FAULT_BOUND_S, Stack
from tests.waiting import wait_until
from verifiers.models import DryRun, DryRunStatus
from verifiers.services.dry_runs import request_dry_run

# Slow enough to be killed mid-verdict, fast enough to be judged again quickly.
SLOW_YES = '''"""Solution format: the word yes."""
import time


def verify(solution, rng):
    time.sleep(1.5)
    return solution.strip() == "yes"
'''

pytestmark = pytest.mark.django_db(transaction=True)


def _slow_version():
    return VerifierVersionFactory(
        verifier__draft_source=SLOW_YES, verifier__time_limit_s=10.0, source=SLOW_YES
    )


def _status(solution_id: int) -> str:
    return Solution.objects.filter(pk=solution_id).values_list("status", flat=True).get()


def _judged(solution_id: int) -> Solution | None:
    solution = Solution.objects.get(pk=solution_id)
    judged = solution.status in (SolutionStatus.ACCEPTED, SolutionStatus.REJECTED)
    return solution if judged else None


def _assert_one_verdict(solution: Solution, *, attempts_at_least: int) -> None:
    assert solution.status == SolutionStatus.ACCEPTED
    assert VerdictRecord.objects.filter(solution=solution).count() == 1
    assert solution.verdict.verdict == "ACCEPTED"
    assert solution.judge_attempts >= attempts_at_least
    assert (solution.claimed_until, solution.claim_token, solution.pending_reason) == (None, "", "")


def _submit_and_wait_running(stack: Stack) -> Solution:
    solution = submit_solution(solver=UserFactory(), verifier_version=_slow_version(), text="yes")
    wait_until(
        lambda: _status(solution.pk) == SolutionStatus.RUNNING,
        lambda: f"solution {solution.pk} to be RUNNING\n{stack.logs()}",
        timeout=60,
    )
    solution.refresh_from_db()
    return solution


def _wait_judged(stack: Stack, solution_id: int, since: float) -> Solution:
    judged = wait_until(
        lambda: _judged(solution_id),
        lambda: f"a verdict on solution {solution_id}\n{stack.logs()}",
        timeout=FAULT_BOUND_S,
    )
    print(f"solution {solution_id} judged {time.monotonic() - since:.1f} s after the fault")
    return judged  # type: ignore[return-value]


def test_a_pool_child_killed_mid_verdict_is_judged_again(stack):
    solution = _submit_and_wait_running(stack)
    (child,) = stack.pool_children()

    os.kill(child, signal.SIGKILL)
    killed_at = time.monotonic()

    judged = _wait_judged(stack, solution.pk, killed_at)
    _assert_one_verdict(judged, attempts_at_least=2)
    assert stack.worker is not None and stack.worker.poll() is None  # the worker lived on


def test_a_whole_worker_killed_mid_verdict_is_judged_by_the_next_one(stack):
    solution = _submit_and_wait_running(stack)

    stack.kill_worker()
    killed_at = time.monotonic()
    stack.start_worker()

    judged = _wait_judged(stack, solution.pk, killed_at)
    _assert_one_verdict(judged, attempts_at_least=2)


def test_a_dropped_database_connection_mid_verdict_is_retried(stack):
    solution = _submit_and_wait_running(stack)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (terminated,) = cursor.fetchone()
    dropped_at = time.monotonic()
    assert terminated >= 1  # the worker's connection (and beat's) at least

    judged = _wait_judged(stack, solution.pk, dropped_at)
    # Retried: the task that held the claim (its token is the Celery task id) failed on the
    # dropped connection, Celery retried it, and the retry claimed the solution again.
    _assert_one_verdict(judged, attempts_at_least=2)
    task_id = solution.claim_token
    assert task_id
    worker_logs = "".join(p.read_text(errors="replace") for p in stack.folder.glob("worker-*"))
    assert f"market.judge_python[{task_id}] retry:" in worker_logs, stack.logs()


def test_redis_restarted_loses_no_verdict_and_no_queued_solution(stack):
    running = _submit_and_wait_running(stack)
    # A second solution whose message will be lost with Redis: the worker is busy (one pool
    # child), so it waits in the queue when Redis dies.
    queued = submit_solution(
        solver=UserFactory(), verifier_version=running.verifier_version, text="yes "
    )
    assert _status(queued.pk) == SolutionStatus.PENDING

    stack.redis.kill()
    restarted_at = time.monotonic()
    stack.redis.start()  # empty: no persistence, so the queued message is gone

    _assert_one_verdict(_wait_judged(stack, running.pk, restarted_at), attempts_at_least=1)
    # The sweep finds the lost one PENDING past JUDGE_REQUEUE_AFTER_S and sends it again.
    _assert_one_verdict(_wait_judged(stack, queued.pk, restarted_at), attempts_at_least=1)


def test_a_pool_child_killed_mid_dry_run_finishes_the_dry_run_once(stack):
    version = _slow_version()
    verifier = version.verifier
    verifier.reference_solutions = ["yes"]
    verifier.wrong_solutions = ["no"]
    verifier.save(update_fields=["reference_solutions", "wrong_solutions"])
    dry_run = request_dry_run(author=verifier.problem.author, verifier=verifier)
    wait_until(
        lambda: DryRun.objects.get(pk=dry_run.pk).status == DryRunStatus.RUNNING,
        lambda: f"dry run {dry_run.pk} to be RUNNING\n{stack.logs()}",
        timeout=60,
    )
    (child,) = stack.pool_children()

    os.kill(child, signal.SIGKILL)

    finished = wait_until(
        lambda: DryRun.objects.filter(pk=dry_run.pk, status=DryRunStatus.DONE).first(),
        lambda: f"dry run {dry_run.pk} to finish\n{stack.logs()}",
        timeout=FAULT_BOUND_S,
    )
    assert finished.is_passed is True, finished.summary
    assert [r["verdict"] for r in finished.results] == ["ACCEPTED", "REJECTED"]
    assert finished.judge_attempts >= 2
    assert DryRun.objects.filter(verifier=verifier).count() == 1
