"""Celery tasks of the verifiers app: dry runs (on the judge queues) and their sweep.

Also the judge workers' start-up guard: a worker that consumes ``judge-python`` runs the
sandbox's self-test before it takes any job, and refuses to start without every layer.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

from celery import Task, shared_task
from celery.signals import (
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)
from django.db import InterfaceError, OperationalError

from verifiers.warm_up import (
    Beacon,
    UidRangeOverlap,
    WarmBeacon,
    claim_uid_range,
    delete_key,
    delete_warm_key,
)

logger = logging.getLogger(__name__)


# What worker_init learnt about this worker; inherited by its prefork pool children.
_worker: dict[str, object] = {"judges_python": False, "hostname": "", "forks": True}
_beacon: WarmBeacon | None = None
_uid_claim: Beacon | None = None  # the main process's uid range claim


def _judges_python(sender: object) -> bool:
    queues = getattr(getattr(sender, "app", None), "amqp", None)
    consumed = queues.queues.consume_from if queues is not None else None
    return consumed is None or "judge-python" in consumed


def _forks(sender: object) -> bool:
    """Whether the worker judges in forked pool children (prefork) or in itself (solo...)."""
    from celery.concurrency import get_implementation
    from celery.concurrency.prefork import TaskPool

    try:
        pool_cls = get_implementation(getattr(sender, "pool_cls", None) or "prefork")
    except Exception:  # noqa: BLE001 -- an unknown pool: assume it forks, like prefork
        return True
    return isinstance(pool_cls, type) and issubclass(pool_cls, TaskPool)


@worker_init.connect
def refuse_to_start_without_a_sandbox(sender: object, **kwargs: object) -> None:
    """Before a worker that judges Python takes a job, run the sandbox's canaries.

    If any layer is missing (no bubblewrap, seccomp not enforced, a socket opens, ...) the
    worker stops here, loudly, instead of judging. Celery logs and swallows ordinary
    exceptions from signal handlers, so this raises SystemExit.

    The self-test's sandbox is not left behind: a prefork worker judges in its pool children,
    so the main process closes it (its memory and its pool uid go back); a solo or threads
    worker judges in this process and keeps it as the first zygote of its pool.
    """
    if not _judges_python(sender):
        return  # e.g. the Lean worker: no Python verdicts there
    from judge.python import PythonJudge, run_selftest
    from judge.python.runner import default_judge
    from judge.sandbox import SandboxUnavailable

    forks = _forks(sender)
    hostname = str(getattr(sender, "hostname", ""))
    _worker.update(judges_python=True, hostname=hostname, forks=forks)
    _claim_uid_range(hostname)
    pool = PythonJudge(size=1) if forks else default_judge()
    try:
        run_selftest(pool)
    except SandboxUnavailable as exc:
        logger.critical("%s", exc)
        if _uid_claim is not None:
            _uid_claim.stop()
            delete_key(_uid_claim.key)
        raise SystemExit(f"refusing to start the judge worker: {exc}") from exc
    finally:
        if forks:
            pool.close()
    logger.info("Python judge self-test passed: every sandbox layer is in place")


def _claim_uid_range(hostname: str) -> None:
    """A root worker leases pool uids: refuse to start on a range another worker here uses."""
    global _uid_claim
    from judge.sandbox import SandboxUnavailable
    from judge.sandbox.identity import is_root, lease_scope

    if not is_root():
        return  # the sandboxes run as the worker's own uid: nothing to lease
    try:
        _uid_claim = claim_uid_range(hostname, lease_scope())
    except (UidRangeOverlap, SandboxUnavailable) as exc:
        logger.critical("%s", exc)
        raise SystemExit(f"refusing to start the judge worker: {exc}") from exc


def _warm_and_announce() -> None:
    """Start this process's zygotes, then mark the worker warm (before any task arrives)."""
    global _beacon
    from judge.python.runner import default_judge
    from judge.sandbox import SandboxUnavailable

    started = time.monotonic()
    try:
        default_judge().warm_up()
    except SandboxUnavailable as exc:
        # Not fatal here: each verdict reports JUDGE_ERROR and is retried; no warm key.
        logger.critical("the Python judge could not warm its sandboxes: %s", exc)
        return
    _beacon = WarmBeacon("python", str(_worker["hostname"]))
    _beacon.start()
    # tests/judging/test_warm_up.py reads this line: keep its words.
    logger.info(
        "Python judge pool warm in %.3f s, pid %d (%s)",
        time.monotonic() - started,
        os.getpid(),
        _beacon.key,
    )


@worker_process_init.connect
def warm_the_pool_child(**kwargs: object) -> None:
    """A prefork pool child (at start, after a kill, after max-tasks): warm before UP."""
    if _worker["judges_python"] and _worker["forks"]:
        _warm_and_announce()


@worker_ready.connect
def warm_the_solo_worker(**kwargs: object) -> None:
    """A solo/threads worker judges in itself: warm the rest of its pool now."""
    if _worker["judges_python"] and not _worker["forks"]:
        _warm_and_announce()


@worker_process_shutdown.connect
def stop_the_pool_childs_beacon(**kwargs: object) -> None:
    if _beacon is not None:
        _beacon.stop()


@worker_shutdown.connect
def clear_the_warm_key(**kwargs: object) -> None:
    """A clean shutdown (the pool is already stopped): the worker is no longer warm."""
    if not _worker["judges_python"]:
        return
    if _beacon is not None:
        _beacon.stop()
    delete_warm_key("python", str(_worker["hostname"]))
    if _uid_claim is not None:
        _uid_claim.stop()
        delete_key(_uid_claim.key)


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
