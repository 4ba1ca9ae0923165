"""scripts/stack.py, which `make run` and `make test` start their servers with: a second start
adopts the running pair, a pair killed with SIGKILL (a `make` killed, a machine rebooted: stale
pid files) is started again on its data, and a stop stops both."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def _stack(*args: str) -> dict[str, str]:
    done = subprocess.run(  # noqa: S603 - our own script
        [sys.executable, "scripts/stack.py", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


@pytest.fixture
def var(tmp_path):
    folder = tmp_path / "var"
    yield folder
    subprocess.run([sys.executable, "scripts/stack.py", "stop", str(folder)], cwd=ROOT)  # noqa: S603
    data = folder / "postgres"
    if data.is_symlink():  # as root under a private /tmp the data lives outside
        shutil.rmtree(data.resolve(), ignore_errors=True)


def test_adopt_restart_after_sigkill_and_stop(var):
    first = _stack("start", str(var))
    with psycopg.connect(first["DATABASE_URL"], autocommit=True) as db:
        assert int(db.execute("SHOW server_version_num").fetchone()[0]) >= 180000
        db.execute("CREATE TABLE kept (x int)")
    assert _stack("start", str(var)) == first  # running: adopted, same ports

    postgres = int((var / "postgres" / "postmaster.pid").read_text().split()[0])
    redis = int((var / "redis" / "redis.pid").read_text())
    for pid in (postgres, redis):
        os.kill(pid, signal.SIGKILL)
    from tests.judging.conftest import wait_for

    wait_for(lambda: _gone(postgres) and _gone(redis), timeout_s=30, what="the servers to die")
    assert (var / "postgres" / "postmaster.pid").exists()  # stale, as after a crash

    again = _stack("start", str(var))
    with psycopg.connect(again["DATABASE_URL"]) as db:
        assert db.execute("SELECT count(*) FROM kept").fetchone() == (0,)  # the data kept
    import redis as redis_client

    assert redis_client.Redis.from_url(again["REDIS_URL"]).ping()

    _stack("stop", str(var))
    postgres = (
        int((var / "postgres" / "postmaster.pid").read_text().split()[0])
        if (var / "postgres" / "postmaster.pid").exists()
        else None
    )
    assert postgres is None  # a clean stop removes the pid file
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(again["DATABASE_URL"], connect_timeout=3)
