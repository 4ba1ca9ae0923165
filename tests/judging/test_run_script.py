"""`make run` (scripts/run.sh -> scripts/supervise.py) for real: its own PostgreSQL and Redis
(scripts/stack.py) in a fresh folder, a role killed with SIGKILL comes back while the web
server stays up, and Ctrl-C mid-verdict stops everything quickly with nothing left running.

The tests of this module share one running stack (a start migrates a fresh database: tens of
seconds on a loaded machine); the Ctrl-C test stops it and so comes last.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.judging.conftest import ROOT, free_port, wait_for
from tests.waiting import scaled

# Readiness is waited on; these bound only a start or a restart that never comes (a fresh
# migrate takes 25-60 s at load 6-15 on 2 cores).
START_TIMEOUT_S = 300
RESTART_TIMEOUT_S = 120
# Ctrl-C stops everything "within seconds": 5 s of grace for the roles, then the two servers.
STOP_BOUND_S = 7.0

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


def _children(pid: int) -> dict[int, str]:
    """The direct children of ``pid``: {pid: command line}."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
                found[int(entry)] = cmdline.decode(errors="replace")
    return found


def _tree(root: int) -> set[int]:
    found, todo = {root}, [root]
    while todo:
        for child in _children(todo.pop()):
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
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - loopback
            return response.status == 200
    except OSError:
        return False


@dataclass
class Stack:
    script: subprocess.Popen[bytes]
    port: int
    var: Path
    log: Path
    env: dict[str, str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def supervisor_pid(self) -> int:
        return self.script.pid  # run.sh execs supervise.py

    def role(self, marker: str) -> int | None:
        for pid, cmdline in _children(self.supervisor_pid()).items():
            if marker in cmdline and _alive({pid}):
                return pid
        return None

    def urls(self) -> dict[str, str]:
        values = {}
        for line in (self.var / "stack.env").read_text().splitlines():
            key, _, value = line.partition("=")
            values[key] = value
        return values

    def status(self, solution_id: int) -> str | None:
        with psycopg.connect(self.urls()["DATABASE_URL"]) as db:
            row = db.execute(
                "SELECT status FROM market_solution WHERE id = %s", [solution_id]
            ).fetchone()
        return row[0] if row else None


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("run")
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL"}  # its own servers, as `make run`
    }
    env.update(
        {"PORT": str(port), "FORMALMARKET_VAR_DIR": str(folder / "var")},
        PRACTICE_BOT_REFRESH_S="3600",
    )
    log = folder / "run.log"
    with open(log, "wb") as out:
        script = subprocess.Popen(  # noqa: S603 - our own script
            ["scripts/run.sh"], cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
        )
    running = Stack(script, port, folder / "var", log, env)
    try:
        wait_for(
            lambda: _answers(running.url) or script.poll() is not None,
            timeout_s=START_TIMEOUT_S,
            what="the web server of scripts/run.sh",
        )
        assert script.poll() is None, running.tail()
        yield running
    finally:
        everything = _tree(script.pid)
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
        for pid in _alive(everything):
            os.kill(pid, signal.SIGKILL)
        subprocess.run(  # noqa: S603 - the servers, had the script not stopped them
            [str(ROOT / ".venv/bin/python"), "scripts/stack.py", "stop", str(running.var)],
            cwd=ROOT,
            check=False,
        )
        data = running.var / "postgres"
        if data.is_symlink():  # as root under a private /tmp: the data lives outside
            shutil.rmtree(data.resolve(), ignore_errors=True)


def test_the_stack_runs_on_its_own_postgresql_18_and_redis(stack):
    urls = stack.urls()
    assert re.fullmatch(
        r"postgres://postgres:[0-9a-f]{32}@127\.0\.0\.1:\d+/formalmarket", urls["DATABASE_URL"]
    )
    assert re.fullmatch(r"redis://:[0-9a-f]{32}@127\.0\.0\.1:\d+/0", urls["REDIS_URL"])
    assert (stack.var / "stack.env").stat().st_mode & 0o077 == 0  # it holds the passwords
    with psycopg.connect(urls["DATABASE_URL"]) as db:
        version = db.execute("SHOW server_version_num").fetchone()[0]
    assert int(version) >= 180000

    # The demo problems load beside the roles' start (scripts/supervise.py).
    wait_for(
        lambda: re.search(r"load_demo took [\d.]+ s", stack.log.read_text(errors="replace")),
        timeout_s=START_TIMEOUT_S,
        what=f"load_demo to finish\n{stack.tail()}",
    )
    with psycopg.connect(urls["DATABASE_URL"]) as db:
        problems = db.execute("SELECT count(*) FROM market_problem").fetchone()[0]
    assert problems > 0


@pytest.mark.parametrize(("role", "marker"), [("worker", " worker "), ("web", "runserver")])
def test_a_role_killed_with_sigkill_is_restarted_with_the_rest_still_up(stack, role, marker):
    before = wait_for(lambda: stack.role(marker), timeout_s=RESTART_TIMEOUT_S, what=role)
    beat = stack.role(" beat ")
    os.kill(before, signal.SIGKILL)
    after = wait_for(
        lambda: (pid := stack.role(marker)) and pid != before and pid,
        timeout_s=RESTART_TIMEOUT_S,
        what=f"the {role} to be started again\n{stack.tail()}",
    )
    assert after != before
    logged = rf"{role} exited \(status -9\) after [\d.]+ s; restarting in \d+ s"
    assert re.search(logged, stack.tail())
    assert stack.script.poll() is None  # the supervisor stays
    assert stack.role(" beat ") == beat  # the other roles were left alone
    wait_for(lambda: _answers(stack.url), timeout_s=RESTART_TIMEOUT_S, what="the web server")


def test_ctrl_c_mid_verdict_stops_everything_quickly(stack):
    submitted = subprocess.run(  # noqa: S603
        [".venv/bin/python", "manage.py", "shell", "-c", SUBMIT],
        cwd=ROOT,
        env={**stack.env, **{k: v for k, v in stack.urls().items() if k.endswith("_URL")}},
        capture_output=True,
        text=True,
        check=False,
    )
    assert submitted.returncode == 0, submitted.stderr
    solution_id = int(submitted.stdout.strip().splitlines()[-1])
    wait_for(
        lambda: stack.status(solution_id) == "running",
        timeout_s=START_TIMEOUT_S,
        what=f"the verdict to start\n{stack.tail()}",
    )
    urls = stack.urls()
    processes = _tree(stack.script.pid)
    servers = {
        int((stack.var / "redis" / "redis.pid").read_text()),
        int((stack.var / "postgres" / "postmaster.pid").read_text().split()[0]),
    }
    assert len(processes) >= 5  # the supervisor, the worker, its pool, beat, runserver

    interrupted_at = time.monotonic()
    os.kill(stack.script.pid, signal.SIGINT)  # what Ctrl-C sends to the foreground script
    stack.script.wait(timeout=scaled(20))
    stopped_s = time.monotonic() - interrupted_at

    def survivors() -> str:
        return "\n".join(
            f"{pid}: {Path(f'/proc/{pid}/cmdline').read_bytes()!r}"
            for pid in _alive(processes | servers)
            if Path(f"/proc/{pid}").exists()
        )

    wait_for(
        lambda: not _alive(processes | servers),
        timeout_s=10,
        what=f"every child to be gone:\n{survivors()}",
    )
    assert stopped_s < scaled(STOP_BOUND_S), (
        f"scripts/run.sh took {stopped_s:.1f} s to stop\n{stack.tail()}"
    )
    assert not _answers(stack.url)
    # Cut short, not lost, never given a verdict it did not earn: RUNNING when the pool child
    # died before it could hand its claim back (the claim expires and the sweep judges it
    # again on the next start), PENDING when the interrupt reached the task first and it
    # released the claim (judge_claimed_solution's except BaseException; the next start
    # judges it at once). Which one depends on the order the signal reaches the processes.
    # The data outlives the stop: the next start finds it.
    restarted = subprocess.run(  # noqa: S603
        [".venv/bin/python", "scripts/stack.py", "start", str(stack.var)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "DATABASE_URL=" in restarted.stdout
    assert stack.urls()["PG_PASSWORD"] == urls["PG_PASSWORD"]
    assert stack.status(solution_id) in ("running", "pending")
