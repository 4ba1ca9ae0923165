"""The re-queue sweep, per judge queue, on the real Redis broker (issue 26 §3).

540 Lean solutions stuck on a server that cannot judge Lean must not starve one Python
solution whose message was lost; nothing still queued is sent again; a Lean-capable worker
gets the Lean rows, a page at a time, each once.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from market.models import Solution, SolutionStatus
from market.tasks import requeue_pending_solutions_task
from tests.factories import SolutionFactory, UserFactory, VerifierVersionFactory
from tests.waiting import wait_until
from verifiers.models import DryRun, DryRunStatus, Language
from verifiers.services.dry_runs import requeue_stale_dry_runs
from verifiers.services.requeue import CAPABLE_KEY
from verifiers.tasks import requeue_stale_dry_runs_task

RIGHT = "yes"
LONG_AGO = timedelta(hours=1)
QUEUES = ("default", "judge-python", "judge-lean")

pytestmark = pytest.mark.django_db(transaction=True)


def _redis():
    from config.celery import app

    connection = app.connection_for_write()
    return connection, connection.default_channel.client


@pytest.fixture
def broker():
    """The real broker, its judge queues empty and no worker claiming to judge Lean."""
    connection, client = _redis()
    for queue in QUEUES:
        client.delete(queue)
    for key in client.scan_iter(match=CAPABLE_KEY.format(language="*", hostname="*")):
        client.delete(key)
    yield client
    for queue in QUEUES:
        client.delete(queue)
    for key in client.scan_iter(match=CAPABLE_KEY.format(language="*", hostname="*")):
        client.delete(key)
    connection.release()


def queued(client, queue: str, kwarg: str) -> list[int]:
    """The ids named by the messages waiting in ``queue`` (read straight from Redis)."""
    ids = []
    for raw in client.lrange(queue, 0, -1):
        headers = json.loads(raw)["headers"]
        ids.append(int(headers["kwargsrepr"].split(":")[1].strip(" }")))
    return sorted(ids)


def stuck_lean_solutions(count: int) -> list[int]:
    version = VerifierVersionFactory(
        verifier__language=Language.LEAN, verifier__lean_project="core"
    )
    solver = UserFactory()
    rows = [
        Solution(
            verifier_version=version,
            problem=version.verifier.problem,
            solver=solver,
            text=f"theorem t{n} : True := trivial",
            sha256=hashlib.sha256(f"lean {n}".encode()).hexdigest(),
            size_bytes=30,
            status=SolutionStatus.PENDING,
        )
        for n in range(count)
    ]
    ids = [row.pk for row in Solution.objects.bulk_create(rows)]
    # Older than anything else: the old sweep (oldest 500 first) sent only these.
    Solution.objects.filter(pk__in=ids).update(created_at=timezone.now() - 2 * LONG_AGO)
    return ids


def lost_python_solution() -> Solution:
    solution = SolutionFactory(text=RIGHT)
    Solution.objects.filter(pk=solution.pk).update(created_at=timezone.now() - LONG_AGO)
    return solution


def test_540_stuck_lean_solutions_do_not_starve_a_python_one(broker, settings):
    settings.JUDGE_REQUEUE_AFTER_S = 300
    lean = stuck_lean_solutions(540)
    python = lost_python_solution()

    sent = requeue_pending_solutions_task()

    assert sent == 1
    assert queued(broker, "judge-python", "solution_id") == [python.pk]
    assert queued(broker, "judge-lean", "solution_id") == []  # no worker can judge Lean here
    # Its message is still queued: the next sweeps send nothing again.
    assert requeue_pending_solutions_task() == 0
    assert queued(broker, "judge-python", "solution_id") == [python.pk]
    assert Solution.objects.filter(pk__in=lean, status=SolutionStatus.PENDING).count() == 540


def test_a_lean_capable_worker_gets_every_stuck_row_a_page_at_a_time_each_once(broker, settings):
    settings.JUDGE_REQUEUE_AFTER_S = 300
    lean = stuck_lean_solutions(540)
    python = lost_python_solution()
    broker.set(CAPABLE_KEY.format(language="lean", hostname="lean1@host"), "1", ex=60)

    first = requeue_pending_solutions_task()
    assert first == 501  # a page of Lean (500 at most per queue and run), and the Python one
    assert queued(broker, "judge-python", "solution_id") == [python.pk]
    assert len(queued(broker, "judge-lean", "solution_id")) == 500

    # The next run skips what is still queued and reaches the 40 behind them.
    assert requeue_pending_solutions_task() == 40
    assert queued(broker, "judge-lean", "solution_id") == sorted(lean)
    assert requeue_pending_solutions_task() == 0


def test_a_python_row_whose_message_was_lost_is_judged_despite_stuck_lean_rows(
    broker, settings, celery_worker
):
    settings.JUDGE_REQUEUE_AFTER_S = 300
    stuck_lean_solutions(540)
    python = lost_python_solution()

    assert requeue_pending_solutions_task() == 1

    judged = wait_until(
        lambda: Solution.objects.filter(pk=python.pk, status=SolutionStatus.ACCEPTED).first(),
        f"a verdict on solution {python.pk}",
        timeout=60,
    )
    assert judged.judge_attempts == 1


def test_an_expired_claim_is_sent_at_once_and_a_live_one_never(broker, settings):
    dead = lost_python_solution()
    Solution.objects.filter(pk=dead.pk).update(
        status=SolutionStatus.RUNNING,
        claim_token="dead-task",
        claimed_until=timezone.now() - timedelta(seconds=1),
    )
    alive = lost_python_solution()
    Solution.objects.filter(pk=alive.pk).update(
        status=SolutionStatus.RUNNING,
        claim_token="live-task",
        claimed_until=timezone.now() + timedelta(minutes=1),
    )

    assert requeue_pending_solutions_task() == 1
    assert queued(broker, "judge-python", "solution_id") == [dead.pk]


def _dry_run(language: str) -> DryRun:
    project = "core" if language == Language.LEAN else ""
    version = VerifierVersionFactory(verifier__language=language, verifier__lean_project=project)
    dry_run = DryRun.objects.create(
        verifier=version.verifier,
        draft={"language": language},
        status=DryRunStatus.PENDING,
    )
    DryRun.objects.filter(pk=dry_run.pk).update(created_at=timezone.now() - LONG_AGO)
    return dry_run


def test_dry_runs_are_swept_per_queue_and_never_twice_while_queued(broker, settings):
    settings.JUDGE_REQUEUE_AFTER_S = 300
    lean = [_dry_run(Language.LEAN) for _ in range(3)]
    python = _dry_run(Language.PYTHON)

    assert requeue_stale_dry_runs(older_than=timedelta(minutes=5), limit=2) == 1
    assert queued(broker, "judge-python", "dry_run_id") == [python.pk]
    assert queued(broker, "judge-lean", "dry_run_id") == []
    assert requeue_stale_dry_runs_task() == 0

    broker.set(CAPABLE_KEY.format(language="lean", hostname="lean1@host"), "1", ex=60)
    assert requeue_stale_dry_runs(older_than=timedelta(minutes=5), limit=2) == 2
    assert requeue_stale_dry_runs(older_than=timedelta(minutes=5), limit=2) == 1
    assert queued(broker, "judge-lean", "dry_run_id") == sorted(d.pk for d in lean)
    assert requeue_stale_dry_runs_task() == 0


def test_a_worker_announces_lean_while_it_lives_and_withdraws_at_shutdown(broker):
    from verifiers.services.requeue import CAPABILITY_TTL_S, announce_capability

    key = CAPABLE_KEY.format(language="lean", hostname="lean9@host")
    withdraw = announce_capability(language="lean", hostname="lean9@host")
    try:
        wait_until(lambda: broker.exists(key), "the capability key", timeout=10)
        assert 0 < broker.ttl(key) <= CAPABILITY_TTL_S  # a dead worker's key expires
    finally:
        withdraw()
    assert not broker.exists(key)
