"""Suite-wide setup: the suite runs on PostgreSQL and Redis, never silently on less.

`make test` points DATABASE_URL and REDIS_URL at the local servers (starting them if they are
installed but stopped). Run by hand, pytest refuses to start on SQLite with a message.
"""

from __future__ import annotations

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
