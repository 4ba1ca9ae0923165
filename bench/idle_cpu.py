"""Idle CPU of the whole stack, before and after the fan-out stopped polling (issue 26 §3).

Starts a private redis-server, a Celery worker (default and judge-python queues, one pool
child), celery beat and gunicorn (2 workers) on the database of ``DATABASE_URL``, lets them
settle, then counts the CPU seconds (user + system) that every process of the stack uses
while nobody uses the market: the processes started here with all their children, and the
PostgreSQL backends connected to that database. Two configurations in the same run:

- ``polling`` (before): beat sends ``activity.drain_fanout`` every second, no listener
  (``ACTIVITY_FANOUT_EVERY_S=1``, ``ACTIVITY_FANOUT_LISTEN=0``);
- ``notify`` (after, the defaults): beat's listener waits for ``NOTIFY activity_fanout`` and
  the backstop sweep runs every 30 s.

Prints one JSON object; asserts nothing.

    DATABASE_URL=postgres://... .venv/bin/python bench/idle_cpu.py [--seconds 120]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CONFIGURATIONS = {
    "polling": {"ACTIVITY_FANOUT_EVERY_S": "1", "ACTIVITY_FANOUT_LISTEN": "0"},
    "notify": {},
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_s(pid: int) -> float | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _descendants(roots: list[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        todo.extend(children.get(pid, []))
    return found


def _backends(conn: psycopg.Connection) -> set[int]:
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid()"
    ).fetchall()
    return {int(pid) for (pid,) in rows}


def _wait(condition, what: str, timeout_s: float = 300.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


def measure(name: str, overrides: dict[str, str], seconds: float, folder: Path) -> dict:
    redis_port, web_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "PRACTICE_BOT_REFRESH_S": os.environ.get("PRACTICE_BOT_REFRESH_S", "60"),
        "PYTHONUNBUFFERED": "1",
        **overrides,
    }
    logs = {role: (folder / f"{name}-{role}.log").open("wb") for role in ("redis", "worker")}
    logs |= {role: (folder / f"{name}-{role}.log").open("wb") for role in ("beat", "web")}
    commands = {
        "redis": ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", ""],
        "worker": [
            str(BIN / "celery"),
            "-A",
            "config",
            "worker",
            "--pool=prefork",
            "--concurrency=1",
            "--queues=default,judge-python",
            f"--hostname=idle-{name}@%h",
            "--loglevel=INFO",
        ],
        "beat": [
            str(BIN / "celery"),
            "-A",
            "config",
            "beat",
            "--loglevel=INFO",
            f"--schedule={folder / (name + '-beat')}",
        ],
        "web": [
            str(BIN / "gunicorn"),
            "config.wsgi",
            "--workers=2",
            f"--bind=127.0.0.1:{web_port}",
            "--control-socket",
            str(folder / f"{name}-gunicorn.ctl"),
        ],
    }
    processes: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for role, argv in commands.items():
            processes[role] = subprocess.Popen(  # noqa: S603 - our own commands
                argv,
                cwd=ROOT,
                env=env,
                stdout=logs[role],
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            if role == "redis":
                _wait(lambda: _redis_answers(redis_port), "redis")
        worker_log = folder / f"{name}-worker.log"
        _wait(lambda: b" ready." in worker_log.read_bytes(), "the worker")
        _wait(lambda: b"beat: Starting" in (folder / f"{name}-beat.log").read_bytes(), "beat")
        time.sleep(15)  # settle: imports, pool start, first schedule ticks (a benchmark)
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
            roots = [process.pid for process in processes.values()]
            seen: dict[int, tuple[float, float]] = {}  # pid -> (first, last) CPU seconds

            def sample() -> None:
                for pid in _descendants(roots) | _backends(conn):
                    cpu = _cpu_s(pid)
                    if cpu is not None:
                        first = seen.get(pid, (cpu, cpu))[0]
                        seen[pid] = (first, cpu)

            sample()
            started = time.monotonic()
            while time.monotonic() - started < seconds:
                time.sleep(2)  # the sampling interval of a benchmark
                sample()
            elapsed = time.monotonic() - started
        total = sum(last - first for first, last in seen.values())
        return {
            "cpu_s": round(total, 2),
            "seconds": round(elapsed, 1),
            "cpu_percent": round(100 * total / elapsed, 2),
            "processes": len(seen),
            "settings": overrides,
        }
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for handle in logs.values():
            handle.close()


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args()
    if "DATABASE_URL" not in os.environ:
        raise SystemExit("DATABASE_URL is required (a migrated PostgreSQL database)")
    subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    folder = Path(tempfile.mkdtemp(prefix="idle-cpu-"))
    results = {
        name: measure(name, overrides, args.seconds, folder)
        for name, overrides in CONFIGURATIONS.items()
    }
    report = {
        "bench": "idle_cpu",
        "what": "CPU seconds of worker, beat, gunicorn, redis and the database's backends, idle",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        **results,
        "ratio_notify_to_polling": round(
            results["notify"]["cpu_s"] / max(results["polling"]["cpu_s"], 1e-9), 3
        ),
    }
    print(json.dumps(report, indent=2))
    if not args.keep_logs:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
