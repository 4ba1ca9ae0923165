"""The production-shaped stack: the roles of docker-compose.yml as processes on this machine.

compose service   here
---------------   -------------------------------------------------------------------------
web               gunicorn, DEBUG off, static files by WhiteNoise from `collectstatic`
worker            celery worker -Q default (the market's tasks; the only role with Stripe keys)
worker-python     celery worker -Q judge-python (bubblewrap sandboxes)
worker-lean       celery worker -Q judge-lean (no Lean toolchain here: Lean stays pending)
beat              celery beat
postgres, redis   this machine's servers: a database of its own (<DATABASE_URL name>_stack),
                  the Redis of REDIS_URL (its judge queues purged first)

The TLS proxy in front of `web` is played by the client, which sends X-Forwarded-Proto: https
as the proxy does; the production settings trust exactly that header.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
QUEUES = ("default", "judge-python", "judge-lean")
START_TIMEOUT_S = 120.0


@dataclass
class Stack:
    base_url: str
    env: dict[str, str]
    folder: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    timings_s: dict[str, float] = field(default_factory=dict)

    def log(self, role: str) -> str:
        return (self.folder / f"{role}.log").read_text(errors="replace")

    def logs(self) -> str:
        return "\n".join(f"--- {role} ---\n{self.log(role)[-4000:]}" for role in self.processes)

    def assert_running(self) -> None:
        dead = {role: p.returncode for role, p in self.processes.items() if p.poll() is not None}
        assert not dead, f"roles exited: {dead}\n{self.logs()}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stack_database_url() -> str:
    url = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
    name = url.path.lstrip("/") + "_stack"
    return urllib.parse.urlunsplit(url._replace(path=f"/{name}"))


def _recreate_database(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def _drop_database(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


def production_env(*, port: int, database_url: str, static_root: Path) -> dict[str, str]:
    """The environment every role gets: DEBUG off, real secrets, no Stripe keys."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "STRIPE_", "PYTEST", "JUDGE_LEAN_"))
    }
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        # The browser's Origin is http://; behind a real TLS proxy it is the https:// origin.
        DJANGO_CSRF_TRUSTED_ORIGINS=f"http://127.0.0.1:{port}",
        DATABASE_URL=database_url,
        DJANGO_STATIC_ROOT=str(static_root),
        PYTHONUNBUFFERED="1",
    )
    return env


class CollectedStatic:
    """``collectstatic`` with DEBUG off (the image's build step) into ``folder``, started in
    the background at once; :meth:`wait` returns the folder once it has finished."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder / "static"
        self.log = folder / "collectstatic.log"
        env = {
            **os.environ,
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "collectstatic-signs-nothing",
            "DJANGO_STATIC_ROOT": str(self.folder),
        }
        self.process = _run_checked(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], env, self.log
        )

    def wait(self) -> Path:
        code = self.process.wait(timeout=START_TIMEOUT_S)
        assert code == 0, f"collectstatic failed ({code}):\n{self.log.read_text()[-4000:]}"
        return self.folder

    def stop(self) -> None:
        _stop({"collectstatic": self.process})


def _run_checked(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("wb")
    return subprocess.Popen(  # noqa: S603 - our own commands
        args, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )


def _wait_all(processes: dict[str, subprocess.Popen[bytes]], folder: Path) -> None:
    for role, process in processes.items():
        code = process.wait(timeout=START_TIMEOUT_S)
        log = (folder / f"{role}.log").read_text(errors="replace")
        assert code == 0, f"{role} failed ({code}):\n{log[-4000:]}"


def _wait_for(condition, what: str, stack: Stack, timeout_s: float = START_TIMEOUT_S) -> None:
    def ready() -> bool:
        stack.assert_running()
        return bool(condition())

    wait_until(ready, lambda: f"{what}\n{stack.logs()}", timeout=timeout_s, poll_s=0.2)


def http_get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One GET without following redirects: (status, headers, body)."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers=headers or {})  # noqa: S310 - loopback
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def _web_is_up(base_url: str) -> bool:
    try:
        status, _, _ = http_get(base_url + "/", {"X-Forwarded-Proto": "https"})
    except OSError:
        return False
    return status == 200


def _purge_queues() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in QUEUES:
            conn.default_channel.queue_purge(queue)


def _stop(processes: dict[str, subprocess.Popen[bytes]]) -> None:
    for process in processes.values():
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    for process in processes.values():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@contextlib.contextmanager
def production_stack(
    folder: Path,
    *,
    judge_processes: int = 1,
    web_workers: int = 2,
    web_threads: int = 1,
    static: CollectedStatic | None = None,
) -> Iterator[Stack]:
    """Prepare (collectstatic, migrate, load_demo), start every role, yield, stop them all.

    ``judge_processes`` is the concurrency of the Python judge worker (compose runs one);
    ``web_workers`` and ``web_threads`` are gunicorn's ``--workers`` and ``--threads``
    (threads above 1 select the gthread worker; docs/production.md, *Web workers*).
    ``static``: a collectstatic already started (the test suite runs one for every test that
    reads its output); without it the stack runs its own beside ``migrate``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    database_url = _stack_database_url()
    _recreate_database(database_url)
    static_root = static.folder if static is not None else folder / "static"
    env = production_env(port=port, database_url=database_url, static_root=static_root)
    stack = Stack(base_url=f"http://127.0.0.1:{port}", env=env, folder=folder)
    python = sys.executable
    celery = str(VENV_BIN / "celery")
    started = time.monotonic()
    one_shot: dict[str, subprocess.Popen[bytes]] = {}
    try:
        # The image's build step and the web service's start-up command, as in compose.
        preparing = one_shot = {
            "migrate": _run_checked(
                [python, "manage.py", "migrate", "--noinput", "-v0"], env, folder / "migrate.log"
            ),
        }
        if static is None:
            preparing["collectstatic"] = _run_checked(
                [python, "manage.py", "collectstatic", "--noinput", "-v0"],
                env,
                folder / "collectstatic.log",
            )
        _wait_all(preparing, folder)
        if static is not None:
            static.wait()
        _purge_queues()
        # The roles start while the demo problems load (the browser needs them, the roles
        # do not), as compose starts the workers beside web's start-up command.
        load_demo = _run_checked([python, "manage.py", "load_demo"], env, folder / "load_demo.log")
        one_shot = {"load_demo": load_demo}
        stack.timings_s["prepare"] = time.monotonic() - started
        worker = [celery, "-A", "config", "worker", "--loglevel=INFO", "--prefetch-multiplier=1"]
        roles = {
            "web": [
                str(VENV_BIN / "gunicorn"),
                "config.wsgi:application",
                f"--bind=127.0.0.1:{port}",
                f"--workers={web_workers}",
                f"--threads={web_threads}",
                "--access-logfile=-",
            ],
            "worker": [*worker, "-Q", "default", "-n", "default@%h", "--concurrency=1"],
            "worker-python": [
                *worker,
                "-Q",
                "judge-python",
                "-n",
                "python@%h",
                f"--concurrency={judge_processes}",
            ],
            "worker-lean": [*worker, "-Q", "judge-lean", "-n", "lean@%h", "--concurrency=1"],
            "beat": [
                celery,
                "-A",
                "config",
                "beat",
                "--loglevel=INFO",
                f"--schedule={folder / 'celerybeat-schedule'}",
            ],
        }
        for role, args in roles.items():
            stack.processes[role] = _run_checked(args, env, folder / f"{role}.log")
        _wait_all(one_shot, folder)
        _wait_for(lambda: _web_is_up(stack.base_url), "gunicorn", stack)
        for role in ("worker", "worker-python", "worker-lean"):
            _wait_for(lambda role=role: " ready." in stack.log(role), f"{role} ready", stack)
        _wait_for(lambda: "Starting..." in stack.log("beat"), "beat", stack)
        stack.timings_s["start"] = time.monotonic() - started - stack.timings_s["prepare"]
        (folder / "timings.json").write_text(repr(stack.timings_s))
        yield stack
    finally:
        _stop({**one_shot, **stack.processes})
        _drop_database(database_url)
