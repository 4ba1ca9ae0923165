#!/usr/bin/env python3
"""`make run`: the private PostgreSQL and Redis (scripts/stack.py), migrate, the demo problems,
then the roles (Celery worker, beat, web server), each kept running.

A role that exits is started again after a backoff (1 s, doubling to 30 s; back to 1 s once it
has run for a minute), and the restart is logged: the other roles, the web server first, stay
up. Ctrl-C (SIGINT) or SIGTERM stops every role within STOP_GRACE_S (default 5 s: Celery gets a
cold shutdown, so a verdict in progress is cut short, never lost: its claim expires and the
sweep judges it again; docs/judging.md), then the two servers. Their data stays in var/.

Environment: PORT (8000), FORMALMARKET_VAR_DIR (var), STOP_GRACE_S (5), WORKER_CONCURRENCY (2);
DATABASE_URL / REDIS_URL, when given, are used instead of the private servers.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
CELERY = str(ROOT / ".venv" / "bin" / "celery")
BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 30.0
HEALTHY_AFTER_S = 60.0
# The worker and beat wait for the web server to listen, at most this long (see main).
GATE_MAX_S = 30.0


def log(message: str) -> None:
    print(f"[supervise] {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def load_stack():
    spec = importlib.util.spec_from_file_location("stack", ROOT / "scripts" / "stack.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Role:
    name: str
    argv: list[str]
    stop_signal: int = signal.SIGTERM
    # Started once the gate opens (the web server listens): see Supervisor.
    after_gate: bool = False
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    restarts: int = 0
    backoff_s: float = BACKOFF_FIRST_S
    restart_at: float | None = None
    pids: set[int] = field(default_factory=set)

    def start(self, env: dict[str, str]) -> None:
        # Its own session: Ctrl-C reaches only the supervisor, which stops the roles in order.
        self.process = subprocess.Popen(self.argv, cwd=ROOT, env=env, start_new_session=True)  # noqa: S603
        self.started_at = time.monotonic()
        self.restart_at = None
        log(f"{self.name} started (pid {self.process.pid})")


def descendants(root: int) -> set[int]:
    """``root`` and every process below it, through /proc parent links."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    found, todo = {root}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def listens(port: str) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=0.2):
            return True
    except OSError:
        return False


def kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class Supervisor:
    def __init__(
        self,
        roles: list[Role],
        env: dict[str, str],
        grace_s: float,
        one_shot: Role | None = None,
        one_shot_env: dict[str, str] | None = None,
        gate: Callable[[], bool] | None = None,
        gate_max_s: float = GATE_MAX_S,
        on_open: Callable[[bool], None] | None = None,
    ) -> None:
        self.roles, self.env, self.grace_s = roles, env, grace_s
        self.one_shot = one_shot  # run once beside the roles, never restarted
        self.one_shot_env = one_shot_env or env
        # Roles marked after_gate start when gate() is true, or gate_max_s after the others;
        # on_open is told once which of the two opened it (True: the gate itself).
        self.gate, self.gate_max_s, self.on_open = gate, gate_max_s, on_open
        self.stopping = False

    def request_stop(self, signum: int, _frame: object) -> None:
        if not self.stopping:
            log(f"{signal.Signals(signum).name}: stopping")
        self.stopping = True

    def run(self) -> None:
        if self.one_shot is not None:
            self.one_shot.start(self.one_shot_env)
        gated = [role for role in self.roles if role.after_gate and self.gate is not None]
        for role in self.roles:
            if role not in gated:
                role.start(self.env)
        gate_closes_at = time.monotonic() + self.gate_max_s
        while not self.stopping:
            now = time.monotonic()
            if gated:
                opened = self.gate is not None and self.gate()
                if opened or now >= gate_closes_at:
                    for role in gated:
                        role.start(self.env)
                    gated = []
                    if self.on_open is not None:
                        self.on_open(opened)
            shot = self.one_shot
            if shot is not None and shot.process is not None and shot.process.poll() is not None:
                took = now - shot.started_at
                status = shot.process.returncode
                outcome = "took" if status == 0 else f"failed ({status}) after"
                log(f"{shot.name} {outcome} {took:.1f} s")
                self.one_shot = None
            for role in self.roles:
                if role.process is None:
                    continue  # behind the gate
                if role.restart_at is not None:
                    if now >= role.restart_at:
                        role.restarts += 1
                        role.start(self.env)
                    continue
                status = role.process.poll()
                if status is None:
                    continue
                ran_s = now - role.started_at
                if ran_s >= HEALTHY_AFTER_S:
                    role.backoff_s = BACKOFF_FIRST_S
                # Whatever it left behind (a pool child, a sandbox) goes with it.
                kill_group(role.process.pid, signal.SIGKILL)
                log(
                    f"{role.name} exited (status {status}) after {ran_s:.1f} s; "
                    f"restarting in {role.backoff_s:.0f} s (restart {role.restarts + 1})"
                )
                role.restart_at = now + role.backoff_s
                role.backoff_s = min(role.backoff_s * 2, BACKOFF_MAX_S)
            signal.sigtimedwait([signal.SIGCHLD], 0.5)
        self.stop()

    def stop(self) -> None:
        every: set[int] = set()
        if self.one_shot is not None:
            self.roles.append(self.one_shot)
        for role in self.roles:
            if role.process is not None and role.process.poll() is None:
                every |= descendants(role.process.pid)
                kill_group(role.process.pid, role.stop_signal)
        deadline = time.monotonic() + self.grace_s
        while any(alive(pid) for pid in every) and time.monotonic() < deadline:
            signal.sigtimedwait([signal.SIGCHLD], 0.1)
        # Whatever is left (a pool child stuck in a verdict, a sandbox in its own session).
        for role in self.roles:
            if role.process is not None:
                kill_group(role.process.pid, signal.SIGKILL)
        for pid in every:
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for role in self.roles:
            if role.process is not None:
                role.process.wait()
        log("roles stopped")


def main() -> int:
    port = os.environ.get("PORT", "8000")
    var = Path(os.environ.get("FORMALMARKET_VAR_DIR", ROOT / "var")).absolute()
    grace_s = float(os.environ.get("STOP_GRACE_S", "5"))
    concurrency = os.environ.get("WORKER_CONCURRENCY", "2")
    stack = load_stack()
    env = dict(os.environ)
    given = {key for key in ("DATABASE_URL", "REDIS_URL") if env.get(key)}
    if len(given) < 2:
        state = stack.start(var, durable=True, skip=given)
        env.update({key: state[key] for key in ("DATABASE_URL", "REDIS_URL") if key not in given})
        log(f"servers ready; their URLs are in {var / 'stack.env'}")
    env.setdefault("FORMALMARKET_VAR_DIR", str(var))
    if os.geteuid() != 0 and not env.get("JUDGE_PYTHON_ALLOW_NO_CGROUP"):
        # Per-verdict memory cgroups need root; a developer's own machine falls back to rlimits.
        log("not root: the Python judge measures memory with RLIMIT_DATA instead of a cgroup")
        env["JUDGE_PYTHON_ALLOW_NO_CGROUP"] = "1"

    supervisor: Supervisor | None = None
    stop_requested = False

    def early_stop(signum: int, _frame: object) -> None:
        nonlocal stop_requested
        stop_requested = True
        if supervisor is not None:
            supervisor.request_stop(signum, _frame)

    signal.signal(signal.SIGINT, early_stop)
    signal.signal(signal.SIGTERM, early_stop)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes sigtimedwait
    try:
        started = time.monotonic()
        # No system checks in the one-shot commands and runserver: `make lint` and the tests
        # run them; here they cost a second of CPU per process at every start.
        migrate = [PY, "manage.py", "migrate", "--noinput", "--skip-checks"]
        # Commits need not wait for their WAL flush during the start's bulk writes (a crash
        # loses at most the last commits, never consistency; migrate and load_demo redo them).
        fast = {**env, "PGOPTIONS": "-c synchronous_commit=off"}
        done = subprocess.run(migrate, cwd=ROOT, env=fast, check=False)  # noqa: S603
        if done.returncode != 0 or stop_requested:
            log(f"manage.py migrate {'interrupted' if stop_requested else 'failed'}")
            return done.returncode or 130
        log(f"manage.py migrate took {time.monotonic() - started:.1f} s")
        schedule = var / "celerybeat-schedule"
        roles = [
            Role(
                "worker",
                [
                    CELERY, "-A", "config", "worker", "--loglevel=INFO",
                    f"--concurrency={concurrency}", "--hostname=worker@%h",
                    "--queues=default,judge-python,judge-lean",
                ],
                # Celery's cold shutdown: it does not wait for a running verdict.
                stop_signal=signal.SIGQUIT,
                after_gate=True,
            ),
            Role(
                "beat",
                [CELERY, "-A", "config", "beat", "--loglevel=INFO", f"--schedule={schedule}"],
                after_gate=True,
            ),
            Role(
                "web",
                [PY, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"],
            ),
        ]  # fmt: skip
        # The demo problems load while the web server starts (each imports Django for
        # seconds): the first start from a fresh clone is that much shorter (idempotent; it is
        # a no-op on later starts). The worker and beat start once the web server listens:
        # on 2 cores the worker's start (Celery, the sandbox's self-test, a warm pool child
        # each) would otherwise take most of the CPU while the first page waits. The pages
        # say "the judge is starting" until a pool is warm (verifiers.selectors.judge_is_warm).
        demo = Role("load_demo", [PY, "manage.py", "load_demo", "--skip-checks"])
        url = f"http://127.0.0.1:{port}"

        def web_is_up(listening: bool) -> None:
            # Said once the address answers: a browser opened on it does not meet a refusal.
            if listening:
                log(f"FormalMarket is at {url} (Ctrl-C to stop)")
            else:
                log(f"the web server is not listening at {url} yet; see its log above")

        supervisor = Supervisor(
            roles,
            env,
            grace_s,
            one_shot=demo,
            one_shot_env=fast,
            gate=lambda: listens(port),
            on_open=web_is_up,
        )
        if stop_requested:
            return 130
        log(f"starting; FormalMarket will be at {url}")
        supervisor.run()
        return 0
    finally:
        if len(given) < 2:
            stack.stop(var)


if __name__ == "__main__":
    sys.exit(main())
