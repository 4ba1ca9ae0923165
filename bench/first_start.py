"""The first `make run` of a checkout, by phase, up to the first HTTP 200; one JSON object.

A newcomer's first start: no private servers yet (initdb), an empty database (every
migration), no demo problems. ``make run`` runs with a fresh ``FORMALMARKET_VAR_DIR`` and a
free ``PORT``; each line it prints is timestamped as it arrives, and the home page is polled
until it answers 200. Phases (seconds from the start of ``make run``, and their lengths):

- ``to_initdb``: make, the supervisor's and stack.py's start, up to initdb;
- ``initdb``: PostgreSQL's initdb (logged by stack.py when it ends);
- ``servers_up``: PostgreSQL and Redis both answering (``servers ready``);
- ``migrate``: ``manage.py migrate`` on the empty database;
- ``load_demo``: the demo problems (it overlaps the roles' start);
- ``first_http_200``: the web server answers the home page;
- ``judge_warm``: the worker's pool says it is warm (informative; ``--wait-warm``).

The virtualenv install is not part of the start: ``--clone`` (a fresh ``git clone`` of the
checkout into a temporary folder, then ``make .venv/.installed .env`` there) times it
separately as ``venv_install_s``. Then ``make run`` is stopped with SIGINT (``stop_s``) and the
temporary folders are removed. Asserts nothing.

    .venv/bin/python bench/first_start.py [--checkout PATH | --clone] [--runs 1] [--wait-warm]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Where each phase ends: the first line matching it (stack.py and supervise.py print them).
MARKS = {
    "initdb_started": re.compile(r"\[stack\] initdb "),
    "initdb": re.compile(r"\[stack\] initdb took"),
    "servers_up": re.compile(r"servers ready"),
    "migrate": re.compile(r"manage\.py migrate took"),
    "load_demo": re.compile(r"load_demo took"),
    "judge_warm": re.compile(r"Python judge pool warm in"),
}
FAILED = re.compile(r"migrate failed|load_demo failed|could not be started|Error:")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers_200(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - loopback
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _clone(source: Path, folder: Path) -> tuple[Path, float]:
    """A fresh clone of ``source``'s HEAD with its virtualenv; (path, install seconds)."""
    checkout = folder / "clone"
    subprocess.run(  # noqa: S603
        ["git", "clone", "--quiet", str(source), str(checkout)],  # noqa: S607
        check=True,
    )
    started = time.monotonic()
    subprocess.run(  # noqa: S603
        ["make", "--no-print-directory", ".venv/.installed", ".env"],  # noqa: S607
        cwd=checkout,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return checkout, time.monotonic() - started


def first_start(checkout: Path, var: Path, *, deadline_s: float, wait_warm: bool) -> dict:
    """One `make run` in ``checkout`` with its data in ``var`` (absent: a first start)."""
    port = _free_port()
    env = {**os.environ, "PORT": str(port), "FORMALMARKET_VAR_DIR": str(var)}
    for key in ("DATABASE_URL", "REDIS_URL"):
        env.pop(key, None)  # the private servers, as a newcomer gets them
    url = f"http://127.0.0.1:{port}/"
    load_before = _load()
    started = time.monotonic()
    process = subprocess.Popen(  # noqa: S603
        ["make", "--no-print-directory", "run"],  # noqa: S607
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    seen: dict[str, float] = {}
    lines: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.decode(errors="replace").rstrip()
            lines.append(line)
            now = time.monotonic() - started
            for name, pattern in MARKS.items():
                if name not in seen and pattern.search(line):
                    seen[name] = now
            if "failed" not in seen and FAILED.search(line):
                seen["failed"] = now

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while time.monotonic() - started < deadline_s:
            if process.poll() is not None or "failed" in seen:
                break
            if "first_http_200" not in seen and _answers_200(url):
                seen["first_http_200"] = time.monotonic() - started
            wanted = ["first_http_200", "load_demo"] + (["judge_warm"] if wait_warm else [])
            if all(name in seen for name in wanted):
                break
            time.sleep(0.1)  # a poll interval
    finally:
        stop_at = time.monotonic()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        stop_s = time.monotonic() - stop_at
        reader.join(timeout=5)
    at = {name: round(t, 2) for name, t in sorted(seen.items(), key=lambda item: item[1])}
    lengths: dict[str, float] = {}
    previous = 0.0
    for name in ("initdb_started", "initdb", "servers_up", "migrate"):
        if name in seen:
            key = "to_initdb" if name == "initdb_started" else name
            lengths[key] = round(seen[name] - previous, 2)
            previous = seen[name]
    if "migrate" in seen:
        for name in ("load_demo", "first_http_200", "judge_warm"):
            if name in seen:
                lengths[f"{name}_after_migrate"] = round(seen[name] - seen["migrate"], 2)
    result = {
        "first_http_200_s": at.get("first_http_200"),
        "serving_with_demo_s": (
            round(max(seen["first_http_200"], seen["load_demo"]), 2)
            if "first_http_200" in seen and "load_demo" in seen
            else None
        ),
        "at_s": at,
        "phases_s": lengths,
        "stop_s": round(stop_s, 2),
        "load_average_before": load_before,
        "load_average_after": _load(),
    }
    if "first_http_200" not in seen:
        result["log_tail"] = lines[-40:]
    return result


def _remove_var(var: Path) -> None:
    data = var / "postgres"
    if data.is_symlink():  # as root under a private folder: the data lives in /var/lib
        shutil.rmtree(data.resolve(), ignore_errors=True)
    shutil.rmtree(var, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--checkout", type=Path, default=ROOT, help="a checkout with its .venv")
    where.add_argument("--clone", action="store_true", help="measure a fresh clone of --checkout")
    parser.add_argument("--source", type=Path, default=ROOT, help="what --clone clones")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--deadline-s", type=float, default=600.0)
    parser.add_argument("--wait-warm", action="store_true", help="also wait for a warm judge")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="first-start-"))
    folder.chmod(0o755)  # as root, PostgreSQL's user must reach the data (as in a checkout)
    report: dict[str, object] = {
        "bench": "first_start",
        "cpus": os.cpu_count(),
        "mode": "clone" if args.clone else "checkout",
    }
    try:
        checkout = args.checkout.resolve()
        if args.clone:
            checkout, install_s = _clone(args.source.resolve(), folder)
            report["venv_install_s"] = round(install_s, 2)
        report["commit"] = subprocess.run(  # noqa: S603
            ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607
            cwd=checkout,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        runs = []
        for run in range(args.runs):
            var = folder / f"var-{run}"
            runs.append(
                first_start(checkout, var, deadline_s=args.deadline_s, wait_warm=args.wait_warm)
            )
            _remove_var(var)
        report["runs"] = runs
    finally:
        for var in folder.glob("var-*"):
            _remove_var(var)
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    sys.exit(main())
