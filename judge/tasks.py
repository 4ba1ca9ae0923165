"""Celery glue between the judge and the market: the only module of judge/ that knows Django.

Tasks are acknowledged late and idempotent: a solution is claimed with a conditional update
and a lease, its verdict record is written once, and a worker killed mid-verdict leaves a
claim that expires, so the redelivered task judges it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from celery import shared_task
from celery.signals import worker_init
from django.conf import settings

from judge.verdict import Outcome, Verdict
from market.services.solutions import claim_solution, note_pending_reason, record_verdict
from verifiers.models import VerifierVersion

logger = logging.getLogger(__name__)


@worker_init.connect
def refuse_to_start_without_a_sandbox(sender: object, **kwargs: object) -> None:
    """Before a worker that judges Python takes a job, run the sandbox's canaries.

    If any layer is missing (no bubblewrap, seccomp not enforced, a socket opens, ...) the
    worker stops here, loudly, instead of judging. Celery logs and swallows ordinary
    exceptions from signal handlers, so this raises SystemExit.
    """
    queues = getattr(getattr(sender, "app", None), "amqp", None)
    consumed = queues.queues.consume_from if queues is not None else None
    if consumed is not None and "judge-python" not in consumed:
        return  # e.g. the Lean worker: no Python verdicts there
    from judge.python import run_selftest
    from judge.sandbox import SandboxUnavailable

    try:
        run_selftest()
    except SandboxUnavailable as exc:
        logger.critical("%s", exc)
        raise SystemExit(f"refusing to start the judge worker: {exc}") from exc
    logger.info("Python judge self-test passed: every sandbox layer is in place")


class JudgeUnavailable(Exception):
    """The judge could not decide (JUDGE_ERROR): retried with backoff."""


@shared_task(
    name="judge.judge_python",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(JudgeUnavailable,),
    retry_backoff=True,
    retry_backoff_max=300,
    max_retries=8,
)
def judge_python_task(*, solution_id: int) -> str | None:
    from judge.python import PythonJob, judge_python

    def run(version: VerifierVersion, text: str) -> Verdict:
        return judge_python(
            PythonJob(
                verifier_source=version.source,
                solution=text,
                seed=None,
                time_limit_s=version.time_limit_s,
                memory_limit_mb=version.memory_limit_mb,
            )
        )

    return _judge_claimed(solution_id=solution_id, lease=_lease_for(solution_id), run=run)


@shared_task(
    name="judge.judge_lean",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(JudgeUnavailable,),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=8,
)
def judge_lean_task(*, solution_id: int) -> str | None:
    from judge.lean import LeanJob, judge_lean, toolchain_status

    status = toolchain_status()
    if not status.available:
        # Never a rejection: the solution waits, with the reason, for a server that has Lean
        # (the re-queue sweep sends it again). A solution another worker is judging is not
        # touched.
        note_pending_reason(
            solution_id=solution_id, reason=f"Lean judging is unavailable: {status.reason}"
        )
        return None

    def run(version: VerifierVersion, text: str) -> Verdict:
        return judge_lean(
            LeanJob(
                verifier_source=version.source,
                solution=text,
                project=version.lean_project or "core",
                time_limit_s=version.time_limit_s,
                memory_limit_mb=version.memory_limit_mb,
            )
        )

    # A Lean job may first prepare its verifier (once per version), under the server's cap.
    lease = _lease_for(solution_id) + timedelta(seconds=settings.JUDGE_LEAN_MAX_TIME_S)
    return _judge_claimed(solution_id=solution_id, lease=lease, run=run)


def _judge_claimed(
    *, solution_id: int, lease: timedelta, run: Callable[[VerifierVersion, str], Verdict]
) -> str | None:
    """Claim the solution, judge it, record the verdict once; JUDGE_ERROR is retried."""
    solution = claim_solution(solution_id=solution_id, lease=lease)
    if solution is None:
        return None  # judged already, or another worker holds a live claim
    verdict = run(solution.verifier_version, solution.text)
    record_verdict(solution_id=solution_id, verdict=verdict)
    if verdict.verdict is Outcome.JUDGE_ERROR:
        raise JudgeUnavailable(verdict.detail)
    return verdict.verdict.value


def _lease_for(solution_id: int) -> timedelta:
    from market.models import Solution

    limit = (
        Solution.objects.filter(pk=solution_id)
        .values_list("verifier_version__time_limit_s", flat=True)
        .first()
    )
    return timedelta(seconds=float(limit or 60))
