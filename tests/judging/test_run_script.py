"""`make run` (scripts/run.sh) stops cleanly on Ctrl-C, mid-verdict, with nothing left running.

The script runs as `make run` runs it (a Celery worker with beat and runserver, SQLite and the
filesystem broker), on a free port with its own database and broker folder.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.judging.conftest import ROOT, free_port, wait_for

SLOW_VERIFIER = '''"""Solution format: the word yes."""
import time


def verify(solution, rng):
    time.sleep(60)
    return solution.strip() == "yes"
'''
SUBMIT = f"""
from market.services.solutions import submit_solution
from tests.factories import UserFactory, VerifierVersionFactory
version = VerifierVersionFactory(
    verifier__draft_source={SLOW_VERIFIER!r}, verifier__time_limit_s=60.0
)
print(submit_solution(solver=UserFactory(), verifier_version=version, text="yes").pk)
"""


def _tree(root: int) -> set[int]:
    """``root`` and every process below it (through /proc parent links)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = {root}, [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:  # noqa: S310 - loopback
            return response.status == 200
    except OSError:
        return False


def _status(database: Path, solution_id: int) -> str | None:
    with sqlite3.connect(database) as db:
        row = db.execute(
            "SELECT status FROM market_solution WHERE id = ?", (solution_id,)
        ).fetchone()
    return row[0] if row else None


def test_ctrl_c_mid_verdict_stops_everything_quickly(tmp_path):
    port = free_port()
    database = tmp_path / "db.sqlite3"
    env = {
        **os.environ,
        "PORT": str(port),
        "FORMALMARKET_VAR_DIR": str(tmp_path / "var"),
        "CELERY_FILESYSTEM_BROKER_DIR": str(tmp_path / "var" / "broker"),
        "DATABASE_URL": f"sqlite:///{database}",
        "REDIS_URL": "",
        "PRACTICE_BOT_REFRESH_S": "3600",
    }
    log = open(tmp_path / "run.log", "wb")  # noqa: SIM115 - closed below
    script = subprocess.Popen(  # noqa: S603 - our own script
        ["scripts/run.sh"], cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True
    )
    try:
        wait_for(
            lambda: _answers(f"http://127.0.0.1:{port}/") or script.poll() is not None,
            timeout_s=240,
            what="the web server of scripts/run.sh",
        )
        assert script.poll() is None, (tmp_path / "run.log").read_text()
        submitted = subprocess.run(  # noqa: S603
            [".venv/bin/python", "manage.py", "shell", "-c", SUBMIT],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert submitted.returncode == 0, submitted.stderr
        solution_id = int(submitted.stdout.strip().splitlines()[-1])
        wait_for(
            lambda: _status(database, solution_id) == "running",
            timeout_s=120,
            what=f"the verdict to start\n{(tmp_path / 'run.log').read_text()[-3000:]}",
        )
        processes = _tree(script.pid)
        assert len(processes) >= 4  # the script, the worker, its pool, runserver

        interrupted_at = time.monotonic()
        os.kill(script.pid, signal.SIGINT)  # what Ctrl-C sends to the foreground script
        script.wait(timeout=30)
        stopped_s = time.monotonic() - interrupted_at

        wait_for(lambda: not _alive(processes), timeout_s=5, what="every child to be gone")
        assert stopped_s < 15, f"scripts/run.sh took {stopped_s:.1f} s to stop"
        assert not _answers(f"http://127.0.0.1:{port}/")
        # Cut short, not lost: the solution is still RUNNING (its claim expires and the sweep
        # judges it again on the next start), never given a verdict it did not earn.
        assert _status(database, solution_id) == "running"
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
        for pid in _alive(_tree(script.pid)):
            os.kill(pid, signal.SIGKILL)
        log.close()
