"""The roles agree on the judge's caps, or the web server says which worker does not: a real
Celery worker (its own process, a private Redis) publishes the caps it read at start."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from config import caps
from tests.judging.conftest import PrivateRedis, wait_for
from tests.waiting import scaled

CELERY = str(Path(sys.executable).with_name("celery"))


@pytest.fixture
def private_redis(tmp_path, settings):
    server = PrivateRedis(tmp_path)
    server.start()
    settings.REDIS_URL = server.url
    yield server
    server.kill()


def _published(url: str, hostname: str) -> bool:
    return redis.Redis.from_url(url).exists(caps.KEY_PREFIX + hostname) == 1


def test_a_worker_with_a_raised_cap_is_named_at_web_start(
    private_redis, settings, tmp_path, caplog
):
    env = {**os.environ, "REDIS_URL": private_redis.url, "JUDGE_PYTHON_MAX_TIME_S": "120"}
    worker = subprocess.Popen(  # noqa: S603 - the project's celery
        [CELERY, "-A", "config", "worker", "-Q", "caps-test", "-n", "capstest@%h", "--pool=solo"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=open(tmp_path / "worker.log", "wb"),  # noqa: SIM115 - the process owns it
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    hostname = f"capstest@{os.uname().nodename}"
    try:
        wait_for(
            lambda: _published(private_redis.url, hostname) or worker.poll() is not None,
            timeout_s=240,
            what="the worker to publish its caps",
        )
        assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]

        settings.JUDGE_PYTHON_MAX_TIME_S = 60.0  # the web's own value differs
        with caplog.at_level(logging.WARNING, logger="config.caps"):
            found = caps.warn_on_disagreement()
        assert len(found) == 1
        assert hostname in found[0] and "JUDGE_PYTHON_MAX_TIME_S=120.0 (here 60.0)" in found[0]
        assert found[0] in caplog.text

        settings.JUDGE_PYTHON_MAX_TIME_S = 120.0  # the same settings everywhere: silence
        assert caps.disagreements() == []

        os.killpg(worker.pid, signal.SIGTERM)  # a clean stop withdraws the entry
        worker.wait(timeout=scaled(120))
        assert not _published(private_redis.url, hostname)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def test_redis_down_at_web_start_is_a_warning_not_a_crash(private_redis, caplog):
    private_redis.kill()
    with caplog.at_level(logging.WARNING, logger="config.caps"):
        assert caps.warn_on_disagreement() == []
    assert "could not compare the judge caps" in caplog.text
