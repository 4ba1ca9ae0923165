"""A Redis blip (the rate counters' store stops answering) is a 503 `api:unavailable` with
`Retry-After`, for the API and the pages alike, never a 500; bad luck changes nothing; the
next request after Redis is back is served. A real redis-server of this test, stopped and
started again."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from market.api import throttling
from tests.api.conftest import assert_error
from tests.judging.conftest import PrivateRedis
from tests.market.helpers import snapshot


@pytest.fixture
def counters(tmp_path, settings):
    redis = PrivateRedis(tmp_path)
    redis.start()
    settings.REDIS_URL = redis.url
    yield redis
    redis.kill()
    throttling._clients.pop(redis.url, None)


def test_the_api_answers_503_with_retry_after_while_redis_is_down(world, counters):
    client = world.client("other_solver")
    body = {"problem": world.problem.pk, "side": "bid", "price_minor": 10, "currency": "DEMO"}
    assert client.get("/api/v1/problems/").status_code == 200

    counters.kill()
    before = snapshot()
    for response in (client.get("/api/v1/problems/"), client.post("/api/v1/orders/", body, "json")):
        error = assert_error(response, 503, "api:unavailable")
        assert "try again" in error["message"]
        assert response["Retry-After"] == str(throttling.UNAVAILABLE_RETRY_AFTER_S)
    assert snapshot() == before  # the refused write wrote nothing

    counters.start()  # Redis is back: the client's next call is served (a new connection)
    assert client.post("/api/v1/orders/", body, "json").status_code == 201


def test_a_page_form_answers_the_503_page_while_redis_is_down(db, counters):
    counters.kill()
    response = Client().post(
        "/signup/", {"username": "blip", "password1": "x" * 12, "password2": "x" * 12}
    )
    assert response.status_code == 503
    assert response["Retry-After"] == str(throttling.UNAVAILABLE_RETRY_AFTER_S)
    assert b"Briefly unavailable" in response.content
    assert not get_user_model().objects.filter(username="blip").exists()
