"""Celery tasks of the market app (thin: each calls one service).

The judge tasks run on the judge queues (``judge-python``, ``judge-lean``), in workers that
have a sandbox; the web process only enqueues them. Each is acknowledged late and idempotent:
it claims the solution (a conditional update and a lease kept alive by a heartbeat), judges it
through :func:`verifiers.services.judging.judge_text`, and writes its one verdict record. How
every fault ends (pool child or worker SIGKILL, database connection dropped, Redis restarted)
is written in docs/judging.md.
"""

from __future__ import annotations

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError

# Platform faults worth another try: the judge could not decide, or the database went away
# (pg_terminate_backend, a failover). Never the user's fault, never a verdict.
RETRIED = (OperationalError, InterfaceError)


class JudgeUnavailable(Exception):
    """The judge could not decide (JUDGE_ERROR): retried with backoff."""


@shared_task(name="market.refresh_practice_bids", queue="default", ignore_result=True)
def refresh_practice_bids_task() -> int:
    """Keep the practice bot's standing bid on every demo problem (run by celery beat)."""
    from market.services.bot import refresh_practice_bids

    return refresh_practice_bids()


@shared_task(name="market.refresh_practice_bid", queue="default", ignore_result=True)
def refresh_practice_bid_task(*, problem_id: int) -> bool:
    """Re-place the practice bot's bid on one demo problem right after a fill there."""
    from market.services.bot import refresh_practice_bid

    return refresh_practice_bid(problem_id=problem_id)


@shared_task(name="market.requeue_pending_solutions", queue="default", ignore_result=True)
def requeue_pending_solutions_task() -> int:
    """Beat: send long-PENDING solutions and expired claims back to the judge."""
    from datetime import timedelta

    from django.conf import settings

    from market.services.solutions import requeue_pending_solutions

    return requeue_pending_solutions(older_than=timedelta(seconds=settings.JUDGE_REQUEUE_AFTER_S))


@shared_task(
    bind=True,
    name="market.judge_python",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(JudgeUnavailable, *RETRIED),
    retry_backoff=True,
    retry_backoff_max=300,
    max_retries=8,
)
def judge_python_task(self: Task, *, solution_id: int) -> str | None:
    """Judge one Python solution (idempotent: a judged or live-claimed one is left alone)."""
    return _judge_solution(solution_id=solution_id, task_id=self.request.id)


@shared_task(
    bind=True,
    name="market.judge_lean",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(JudgeUnavailable, *RETRIED),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=8,
)
def judge_lean_task(self: Task, *, solution_id: int) -> str | None:
    """Judge one Lean solution; without a toolchain it stays PENDING with the reason."""
    from market.services.solutions import note_pending_reason
    from verifiers.services.judging import lean_toolchain_status

    available, reason = lean_toolchain_status()
    if not available:
        # Never a rejection: the solution waits, with the reason, for a server that has Lean
        # (the re-queue sweep sends it again). A solution another worker is judging is not
        # touched.
        note_pending_reason(
            solution_id=solution_id, reason=f"Lean judging is unavailable: {reason}"
        )
        return None
    return _judge_solution(solution_id=solution_id, task_id=self.request.id)


def _judge_solution(*, solution_id: int, task_id: str | None) -> str | None:
    from judge.verdict import Outcome
    from market.services.solutions import judge_claimed_solution

    outcome = judge_claimed_solution(solution_id=solution_id, task_id=task_id)
    if outcome is None:
        return None
    if outcome.verdict is Outcome.JUDGE_ERROR:
        raise JudgeUnavailable(outcome.detail)
    return outcome.verdict.value
