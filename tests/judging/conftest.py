"""Real judge workers for the fault tests: celery worker and beat as separate processes, on a
PRIVATE redis-server (never the shared one on 6379), with short leases and sweeps.

Every wait is on a condition (``tests.waiting.wait_until``), with a deadline scaled by
TEST_TIMEOUT_FACTOR; no fixed sleeps. A new worker is ready once its pool child is up and, when
the worker announces it, its pool is warm (Redis key ``formalmarket:judge:warm:<language>:<host>``).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.waiting import wait_until

ROOT = Path(settings.BASE_DIR)
CELERY = str(Path(sys.executable).with_name("celery"))
# Short intervals so that each fault resolves in seconds (production defaults: docs/judging.md).
FAST_JUDGING = {
    "JUDGE_CLAIM_LEASE_S": "3",
    "JUDGE_REQUEUE_EVERY_S": "1",
    "JUDGE_REQUEUE_AFTER_S": "3",
    "JUDGE_VISIBILITY_TIMEOUT_S": "20",
    "PRACTICE_BOT_REFRESH_S": "3600",
}
# What a fault may cost on an idle machine with FAST_JUDGING (a lease, a sweep, a retry and
# a verdict); wait_until scales it by TEST_TIMEOUT_FACTOR.
FAULT_BOUND_S = 45.0
WARM_KEY_PREFIX = "formalmarket:judge:warm:"
# Whether this tree's judge workers announce a warm pool (the worker warm-up of issue 26 §2).
WORKERS_ANNOUNCE_WARM = any(
    WARM_KEY_PREFIX in path.read_text(errors="replace")
    for folder in ("judge", "verifiers", "market", "config")
    for path in (ROOT / folder).rglob("*.py")
)


def wait_for(condition: Callable[[], object], *, timeout_s: float, what: str) -> object:
    """The old spelling of :func:`tests.waiting.wait_until` (same scaled deadline)."""
    return wait_until(condition, what, timeout=timeout_s)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """A redis-server of this test alone, without persistence (a restart loses everything)."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 - a fixed local binary
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._answers, "redis-server to answer", timeout=10)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


class Stack:
    """Celery worker (prefork, one pool child) and beat, as processes of their own."""

    def __init__(self, folder: Path, redis: PrivateRedis) -> None:
        self.folder = folder
        self.redis = redis
        self.worker: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.paused: list[subprocess.Popen[bytes]] = []

    def env(self) -> dict[str, str]:
        db = settings.DATABASES["default"]
        password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
        database_url = (
            f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        )
        return {
            **os.environ,
            **FAST_JUDGING,
            "DATABASE_URL": database_url,
            "REDIS_URL": self.redis.url,
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.folder / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        return subprocess.Popen(  # noqa: S603 - our own celery, fixed arguments
            argv, cwd=ROOT, env=self.env(), stdout=log, stderr=log, start_new_session=True
        )

    def start_worker(self) -> None:
        self.starts += 1
        self.worker = self._spawn(
            f"worker-{self.starts}",
            [
                CELERY,
                "-A",
                "config",
                "worker",
                "--pool=prefork",
                "--concurrency=1",
                "--queues=judge-python,default",
                "--loglevel=INFO",
                f"--hostname={self.hostname()}",
                "--without-gossip",
                "--without-mingle",
            ],
        )
        self.wait_ready()

    def hostname(self) -> str:
        return f"faults{self.starts}@{socket.gethostname()}"

    def is_warm(self) -> bool:
        """The worker says its Python pool is warm (or, in a tree whose workers do not say so
        yet, True: its pool child is the readiness signal that exists)."""
        if not WORKERS_ANNOUNCE_WARM:
            return True
        import redis

        client = redis.Redis.from_url(self.redis.url)
        try:
            # <host> is the worker's node name, or the machine's name for a worker that uses
            # that (one worker at a time runs here).
            names = (self.hostname(), socket.gethostname())
            return any(client.exists(f"{WARM_KEY_PREFIX}python:{name}") for name in names)
        finally:
            client.close()

    def wait_ready(self) -> None:
        """Until the worker has a pool child that can judge (and is warm, if it says so)."""
        wait_until(
            lambda: (self.pool_children() and self.is_warm()) or self._died("worker"),
            lambda: f"the worker's pool child to be ready\n{self.logs()}",
            timeout=60,
        )

    def start_beat(self) -> None:
        self.beat = self._spawn(
            "beat",
            [
                CELERY,
                "-A",
                "config",
                "beat",
                "--loglevel=INFO",
                f"--schedule={self.folder / 'beat'}",
            ],
        )

    def pool_children(self) -> list[int]:
        """Pids of the worker's pool children (its direct children running celery)."""
        if self.worker is None:
            return []
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
            if ppid == self.worker.pid and b"celery" in cmdline:
                found.append(int(entry))
        return found

    def kill_worker(self) -> None:
        """SIGKILL the whole worker: its main process and its pool (one process group)."""
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(timeout=10)

    def _died(self, name: str) -> bool:
        process = self.worker if name == "worker" else self.beat
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the {name} exited with {process.returncode}: {self.logs()}")
        return False

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-4000:]}"
            for path in sorted(self.folder.glob("*.log"))
        )

    def pause(self) -> None:
        """Freeze the worker and beat, and end any transaction they hold open.

        A transactional test ends with a flush (one TRUNCATE of every table). A worker or beat
        still running tasks then takes locks in another order and one of the two dies in a
        deadlock. Frozen (SIGSTOP), they take no new locks; a frozen one caught inside a
        transaction has its backend terminated (an idle connection is left alone), so the
        flush waits for nobody. :meth:`resume` lets them go on.
        """
        for process in (self.worker, self.beat):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGSTOP)
                self.paused.append(process)
        wait_until(
            lambda: _terminate_busy_backends() == 0,
            "no other backend of the test database inside a transaction",
            timeout=10,
        )

    def resume(self) -> None:
        for process in self.paused:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGCONT)
        self.paused.clear()

    def stop(self) -> None:
        for process in (self.worker, self.beat):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def _terminate_busy_backends() -> int:
    """Terminate every other backend of this database that is not idle; how many there were."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend' AND state IS DISTINCT FROM 'idle'"
        )
        (busy,) = cursor.fetchone()
    return int(busy)


def _publish_to(url: str) -> None:
    """Point this process's Celery app (what submit_solution enqueues with) at ``url``.

    Celery caches its connection and producer pools: drop them so the next publish connects
    to the new broker.
    """
    from config.celery import app

    app.conf.broker_url = url
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture(scope="module")
def _module_stack(
    django_db_setup: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """One redis-server, worker and beat for the module (starting them costs most of the time);
    a test that kills one of them gets a fresh one from :func:`stack`."""
    folder = tmp_path_factory.mktemp("judging")
    redis = PrivateRedis(folder)
    redis.start()
    running = Stack(folder, redis)
    _publish_to(redis.url)
    try:
        yield running
    finally:
        running.stop()
        redis.kill()
        _publish_to(settings.CELERY_BROKER_URL)


@pytest.fixture
def stack(transactional_db: None, _module_stack: Stack) -> Iterator[Stack]:
    """The module's stack, all of it running: worker, beat and Redis; paused while the test
    database is flushed after the test."""
    _module_stack.resume()
    if _module_stack.redis.process is None or _module_stack.redis.process.poll() is not None:
        _module_stack.redis.start()
    if _module_stack.worker is None or _module_stack.worker.poll() is not None:
        _module_stack.start_worker()
    elif not _module_stack.pool_children():
        _module_stack.wait_ready()
    if _module_stack.beat is None or _module_stack.beat.poll() is not None:
        _module_stack.start_beat()
    yield _module_stack
    _module_stack.pause()
