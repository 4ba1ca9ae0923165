"""A live server with the demo problems, the practice bot's bids and a real Celery worker."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches

from market.api.tokens import create_api_token
from market.demo.loader import load_demo_problems
from market.services.bot import refresh_practice_bids
from tests.factories import UserFactory
from tests.verifiers.conftest import no_lean_toolchain  # noqa: F401  (a shared fixture)

DEMO = Path(settings.BASE_DIR) / "market" / "demo" / "python" / "factor-391"
WRONG = (DEMO / "wrong_solution.txt").read_text()
RIGHT = (DEMO / "solution.txt").read_text()
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _clean_throttles():
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


@pytest.fixture
def demo_market(transactional_db):
    load_demo_problems()
    refresh_practice_bids()


@pytest.fixture
def alice(transactional_db):
    return UserFactory(username="alice", password=PASSWORD)


@pytest.fixture
def alice_token(alice) -> str:
    return create_api_token(user=alice, name="tests")[1]
