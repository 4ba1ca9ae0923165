"""Celery tasks of the verifiers app: dry runs (on the judge queues) and their sweep.

Also the judge workers' start-up guard: a worker that consumes ``judge-python`` runs the
sandbox's self-test before it takes any job, and refuses to start without every layer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import Task, shared_task
from celery.signals import worker_init, worker_ready, worker_shutdown
from django.db import InterfaceError, OperationalError

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


_withdrawals: list[Callable[[], None]] = []


@worker_ready.connect
def announce_what_this_worker_can_judge(sender: object, **kwargs: object) -> None:
    """A worker that consumes ``judge-lean`` and has a toolchain says so in the broker, so the
    re-queue sweep sends Lean work back only while someone can judge it."""
    app = getattr(sender, "app", None)
    queues = getattr(getattr(app, "amqp", None), "queues", None)
    consumed = queues.consume_from if queues is not None else None
    if consumed is not None and "judge-lean" not in consumed:
        return
    from verifiers.services.judging import lean_toolchain_status
    from verifiers.services.requeue import announce_capability

    available, reason = lean_toolchain_status()
    if not available:
        logger.info("this worker cannot judge Lean: %s", reason)
        return
    hostname = str(getattr(sender, "hostname", "") or "worker")
    _withdrawals.append(announce_capability(language="lean", hostname=hostname))


@worker_shutdown.connect
def withdraw_what_this_worker_can_judge(**kwargs: object) -> None:
    while _withdrawals:
        _withdrawals.pop()()


@shared_task(
    bind=True,
    name="verifiers.judge_dry_run",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_backoff_max=120,
    max_retries=8,
)
def judge_dry_run_task(self: Task, *, dry_run_id: int) -> bool | None:
    """Judge one dry run (sent to the queue of its draft's language); idempotent."""
    from verifiers.services.dry_runs import perform_dry_run

    dry_run = perform_dry_run(dry_run_id=dry_run_id, task_id=self.request.id)
    return None if dry_run is None else dry_run.is_passed


@shared_task(name="verifiers.requeue_stale_dry_runs", queue="default", ignore_result=True)
def requeue_stale_dry_runs_task() -> int:
    """Beat: re-send dry runs whose message was lost or whose worker died."""
    from datetime import timedelta

    from django.conf import settings

    from verifiers.services.dry_runs import requeue_stale_dry_runs

    return requeue_stale_dry_runs(older_than=timedelta(seconds=settings.JUDGE_REQUEUE_AFTER_S))
