"""Suite-wide setup: the suite runs on PostgreSQL and Redis, never silently on less.

`make test` starts a private PostgreSQL and Redis (scripts/stack.py) unless DATABASE_URL and
REDIS_URL are given; the settings refuse to load without them.
"""

from __future__ import annotations

import gc

import pytest


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine:
        raise pytest.UsageError(
            "The test suite needs PostgreSQL (the ledger's triggers and row locks are part of "
            "what it tests). Run `make test`, or set DATABASE_URL=postgres://... "
            "(Debian: apt-get install postgresql)."
        )
    if not settings.REDIS_URL:
        raise pytest.UsageError(
            "The test suite needs Redis for the Celery worker tests. Run `make test`, or set "
            "REDIS_URL=redis://127.0.0.1:6379/0 (Debian: apt-get install redis-server)."
        )
    from tests import fast_flush

    fast_flush.install()


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory):
    """One ``collectstatic`` with DEBUG off (20 CPU-seconds: brotli at quality 11) for the
    tests that read its output: the production-shaped stack serves it, the static-variants
    test decodes it. Started in the background; ``.wait()`` gives its folder."""
    from tests.production.stack import CollectedStatic

    collecting = CollectedStatic(tmp_path_factory.mktemp("collectstatic"))
    yield collecting
    collecting.stop()  # a no-op once it has finished


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2 at full strength costs ~0.3 s per user; tests are not about hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def truncated_tables(transactional_db):
    """Tables as empty as on a new deployment: truncated, without the dead rows that the
    DELETE emptying between transactional tests leaves (tests/fast_flush.py)."""
    from tests import fast_flush

    fast_flush.truncate()


@pytest.fixture
def celery_worker(transactional_db):
    """A real Celery worker (in a thread, solo pool) on the real Redis broker from settings.

    The judge queues are purged first, so tasks left by earlier tests cannot leak in.
    """
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in ("default", "judge-python", "judge-lean"):
            conn.default_channel.queue_purge(queue)
    # The worker's event loop sees the stop at the end of the test only when its BRPOP on
    # Redis returns: after kombu's 1 s by default, 1.0-1.1 s of every such test's teardown.
    # The worker in this thread polls every 0.1 s instead (a worker in production keeps 1 s);
    # a task is still delivered the moment it is queued, whatever the interval.
    options = app.conf.broker_transport_options
    app.conf.broker_transport_options = {**(options or {}), "polling_interval": 0.1}
    try:
        with start_worker(
            app,
            pool="solo",
            perform_ping_check=False,
            queues=["default", "judge-python", "judge-lean"],
            shutdown_timeout=30,
        ) as worker:
            yield worker
    finally:
        app.conf.broker_transport_options = options
    # The worker's thread kept its database connection between tasks (CELERY_DB_REUSE_MAX, as
    # a pool child does) and has ended: its connection is garbage, in a reference cycle, and
    # would hold the test database open until a collection. Collect it now (PQfinish).
    gc.collect()


@pytest.fixture(autouse=True)
def _stop_the_verdict_listener():
    """A request that waited for a verdict (``?wait=``) started this process's listener, whose
    connection would keep the test database open: stop it after each test."""
    yield
    from market.verdict_waits import stop_listening

    stop_listening()
