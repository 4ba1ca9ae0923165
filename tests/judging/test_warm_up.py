"""A judge worker warms its sandboxes before it takes a job, and says so in Redis.

A real prefork Celery worker on a private redis-server, the real sandbox, a real SIGKILL of
its pool child and a real warm shutdown. Every wait is on a condition (the warm key, a log
line, a verdict), never a fixed sleep; no assertion compares a duration with a constant:
"warm" is proven by the zygote that served the verdict having existed before the task was
sent, and by the task taking less time than the cold start measured in the same run.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings

from judge.sandbox import procs
from market.models import Solution, SolutionStatus
from market.services.solutions import submit_solution
from tests.factories import UserFactory, VerifierVersionFactory
from tests.judging.conftest import CELERY, PrivateRedis, Stack, _publish_to, wait_for
from verifiers.warm_up import WARM_TTL_S, warm_key

YES = '''"""Solution format: the word yes."""


def verify(solution, rng):
    return solution.strip() == "yes"
'''
WARM_LINE = re.compile(r"Python judge pool warm in ([0-9.]+) s, pid (\d+) \((\S+)\)")
SUCCEEDED = re.compile(r"Task market\.judge_python\[[^\]]+\] succeeded in ([0-9.]+)s")
BOUND_S = 300.0  # a readiness deadline only: generous for a loaded 2-core machine

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def _warm_stack(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("warm")
    private = PrivateRedis(folder)
    private.start()
    running = Stack(folder, private)
    _publish_to(private.url)
    try:
        yield running
    finally:
        running.stop()
        private.kill()
        _publish_to(settings.CELERY_BROKER_URL)


@pytest.fixture
def stack(transactional_db: None, _warm_stack: Stack) -> Iterator[Stack]:
    _warm_stack.resume()
    yield _warm_stack
    _warm_stack.pause()  # see Stack.pause: the flush after the test must wait for nobody


def _client(stack: Stack) -> redis.Redis:
    return redis.Redis.from_url(stack.redis.url)


def _hostname(stack: Stack) -> str:
    return f"faults{stack.starts}@{os.uname().nodename}"


def _worker_log(stack: Stack) -> str:
    return (stack.folder / f"worker-{stack.starts}.log").read_text(errors="replace")


def _bwraps(pid: int) -> set[tuple[int, str]]:
    """The sandboxes (bwrap processes) below ``pid``, as (pid, start time)."""
    found = set()
    for child in procs.descendants(pid):
        try:
            if Path(f"/proc/{child}/comm").read_text().strip() != "bwrap":
                continue
            stat = Path(f"/proc/{child}/stat").read_text()
        except OSError:
            continue
        found.add((child, stat[stat.rfind(")") + 2 :].split()[19]))
    return found


def _warm_lines(stack: Stack) -> list[tuple[float, int, str]]:
    return [(float(s), int(p), key) for s, p, key in WARM_LINE.findall(_worker_log(stack))]


def _judge_yes(stack: Stack) -> Solution:
    version = VerifierVersionFactory(
        verifier__draft_source=YES, verifier__time_limit_s=10.0, source=YES
    )
    solution = submit_solution(solver=UserFactory(), verifier_version=version, text="yes")

    def judged() -> Solution | None:
        row = Solution.objects.get(pk=solution.pk)
        return row if row.status in (SolutionStatus.ACCEPTED, SolutionStatus.REJECTED) else None

    done = wait_for(judged, timeout_s=BOUND_S, what=f"a verdict\n{stack.logs()}")
    assert isinstance(done, Solution)
    assert done.status == SolutionStatus.ACCEPTED, done.verdict.detail
    return done


def _task_seconds(stack: Stack) -> list[float]:
    return [float(x) for x in SUCCEEDED.findall(_worker_log(stack))]


def test_the_worker_is_warm_before_its_first_task_and_again_after_a_kill(stack: Stack) -> None:
    stack.start_worker()
    client = _client(stack)
    key = warm_key("python", _hostname(stack))

    # 1. The key appears before any task is sent, with its TTL, and the pool child already
    #    runs its sandbox; the main process kept none (the self-test's was closed).
    wait_for(lambda: client.get(key) == b"1", timeout_s=BOUND_S, what=f"{key}\n{stack.logs()}")
    assert 0 < client.ttl(key) <= WARM_TTL_S
    (child,) = stack.pool_children()
    before = _bwraps(child)
    assert before, "the pool child has no warm sandbox"
    assert stack.worker is not None
    assert _bwraps(stack.worker.pid) == before, "a sandbox outside the pool child"
    ((cold_s, warm_pid, warm_key_logged),) = _warm_lines(stack)
    assert (warm_pid, warm_key_logged) == (child, key)

    # 2. The first verdict is served by that sandbox: no zygote was started for it, and the
    #    task took less than the cold start this very run measured.
    _judge_yes(stack)
    assert _bwraps(child) == before, "the first verdict started a new sandbox"
    (task_s,) = wait_for(lambda: _task_seconds(stack), timeout_s=BOUND_S, what="the task log")
    print(f"cold start {cold_s:.3f} s, first task {task_s:.3f} s")
    assert task_s < cold_s

    # 3. A SIGKILLed pool child's replacement warms before it takes a task: the task sent
    #    right after the kill still does not pay the cold start.
    os.kill(child, signal.SIGKILL)
    _judge_yes(stack)
    lines = wait_for(
        lambda: len(_task_seconds(stack)) == 2 and _warm_lines(stack),
        timeout_s=BOUND_S,
        what="the second task",
    )
    assert isinstance(lines, list) and len(lines) == 2
    new_cold_s, new_pid, _ = lines[1]
    assert new_pid != child and stack.pool_children() == [new_pid]
    second_task_s = _task_seconds(stack)[1]
    print(f"after the kill: cold start {new_cold_s:.3f} s, first task {second_task_s:.3f} s")
    assert second_task_s < new_cold_s
    assert client.get(key) == b"1"


def test_a_clean_shutdown_removes_the_warm_key(stack: Stack) -> None:
    if stack.worker is None or stack.worker.poll() is not None:
        stack.start_worker()
    client = _client(stack)
    key = warm_key("python", _hostname(stack))
    wait_for(lambda: client.get(key) == b"1", timeout_s=BOUND_S, what=f"{key}\n{stack.logs()}")
    assert stack.worker is not None
    stack.worker.send_signal(signal.SIGTERM)  # Celery's warm shutdown
    stack.worker.wait(timeout=BOUND_S)
    assert client.get(key) is None
    assert client.keys("formalmarket:judge:warm:*") == []


def _other_claim(scope: dict[str, object], **changes: object) -> bytes:
    return json.dumps({**scope, **changes}).encode()


def test_an_overlapping_uid_range_on_this_kernel_is_refused_a_disjoint_one_is_not(
    stack: Stack,
) -> None:
    """Through a real Redis: another worker's claim (another container: another lock folder)."""
    from judge.sandbox.identity import lease_scope
    from verifiers.warm_up import UID_RANGE_KEY_PREFIX, UidRangeOverlap, claim_uid_range

    client = redis.Redis.from_url(settings.REDIS_URL)
    scope = lease_scope()
    other = f"{UID_RANGE_KEY_PREFIX}other-container@host"
    mine = f"{UID_RANGE_KEY_PREFIX}me@host"
    base, count = int(str(scope["base"])), int(str(scope["count"]))
    try:
        client.set(other, _other_claim(scope, lock="1:2", base=base + count - 1), ex=60)
        with pytest.raises(UidRangeOverlap, match="overlap"):
            claim_uid_range("me@host", scope)
        assert client.get(mine) is None  # a refused claim is withdrawn

        for harmless in (
            _other_claim(scope, lock="1:2", base=base + count),  # disjoint
            _other_claim(scope),  # the same lock folder: the flock keeps them apart
            _other_claim(scope, lock="1:2", kernel="another-machine"),  # other uids
        ):
            client.set(other, harmless, ex=60)
            beacon = claim_uid_range("me@host", scope)
            assert beacon is not None
            beacon.stop()
            assert json.loads(client.get(mine) or b"{}") == scope
    finally:
        client.delete(other, mine)


def test_a_worker_refuses_to_start_on_an_overlapping_uid_range(stack: Stack) -> None:
    from judge.sandbox.identity import lease_scope
    from verifiers.warm_up import UID_RANGE_KEY_PREFIX

    if stack.worker is not None and stack.worker.poll() is None:
        stack.stop()
    client = _client(stack)
    client.set(
        f"{UID_RANGE_KEY_PREFIX}elsewhere@host",
        _other_claim(lease_scope(), lock="7:7"),
        ex=60,
    )
    try:
        stack.starts += 1
        worker = stack._spawn(
            f"worker-{stack.starts}",
            [
                CELERY,
                "-A",
                "config",
                "worker",
                "--pool=prefork",
                "--concurrency=1",
                "--queues=judge-python",
                f"--hostname=faults{stack.starts}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
        )
        assert worker.wait(timeout=BOUND_S) != 0
        assert "overlap" in _worker_log(stack) and "elsewhere@host" in _worker_log(stack)
        assert client.keys("formalmarket:judge:warm:*") == []
    finally:
        client.delete(f"{UID_RANGE_KEY_PREFIX}elsewhere@host")


def _sandboxes_of(pid: int) -> list[int]:
    """The outer bwrap of each sandbox started by ``pid`` (one per zygote)."""
    found = []
    for child in procs.descendants(pid):
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
            comm = Path(f"/proc/{child}/comm").read_text().strip()
        except OSError:
            continue
        if comm == "bwrap" and int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
            found.append(child)
    return found


def test_a_solo_worker_keeps_the_self_tests_sandbox_as_its_warm_pool(stack: Stack) -> None:
    """--pool=solo judges in the worker itself: one sandbox (the self-test's, kept), warm key
    set, and the first verdict starts none."""
    if stack.worker is not None and stack.worker.poll() is None:
        stack.stop()
    stack.starts += 1
    stack.worker = stack._spawn(
        f"worker-{stack.starts}",
        [
            CELERY,
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--queues=judge-python,default",
            "--loglevel=INFO",
            f"--hostname=faults{stack.starts}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
    )
    client = _client(stack)
    key = warm_key("python", _hostname(stack))
    wait_for(lambda: client.get(key) == b"1", timeout_s=BOUND_S, what=f"{key}\n{stack.logs()}")
    sandboxes = _sandboxes_of(stack.worker.pid)
    assert len(sandboxes) == 1, sandboxes  # JUDGE_PYTHON_ZYGOTES=1: nothing left over
    before = _bwraps(stack.worker.pid)

    _judge_yes(stack)

    assert _bwraps(stack.worker.pid) == before
    stack.worker.send_signal(signal.SIGTERM)
    stack.worker.wait(timeout=BOUND_S)
    assert client.get(key) is None
