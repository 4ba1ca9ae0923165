"""Until a judge worker's pool is warm, the problem page says the judge is starting (at both
sizes); once a worker sets its warm key in Redis, the note is gone. /favicon.ico is served."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings

pytestmark = pytest.mark.e2e

KEY = "formalmarket:judge:warm:python:e2e-worker"


@pytest.fixture
def redis_client():
    client = redis.Redis.from_url(settings.REDIS_URL)
    for key in client.scan_iter(match="formalmarket:judge:warm:*"):
        client.delete(key)
    yield client
    client.delete(KEY)
    client.close()


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_problem_page_says_the_judge_is_starting_until_it_is_warm(
    page, demo, redis_client, size
):
    from tests.e2e.conftest import sign_up

    page.set_viewport_size({"width": size[0], "height": size[1]})
    sign_up(page, f"solver{size[0]}")
    page.goto("/problems/demo-factor-391/")
    note = page.locator("#judge-starting-python")
    assert note.inner_text().startswith("The judge is starting (Python)")
    assert note.is_visible()

    redis_client.set(KEY, "1", ex=60)
    page.reload()
    assert page.locator("#judge-starting-python").count() == 0
    assert page.get_by_role("heading", name="Submit a solution").is_visible()


def test_favicon_is_served(page):
    response = page.request.get("/favicon.ico")
    assert response.status == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert b"<svg" in response.body()
