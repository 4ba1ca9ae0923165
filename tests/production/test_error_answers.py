"""Without DEBUG every error is a product page, or the JSON envelope under /api/, and none
leaks a detail; under DEBUG (`make run`) a missing page is still the product 404."""

from __future__ import annotations

import json

import pytest
from django.test import Client, RequestFactory

from market.views.errors import csrf_failure

LEAKS = ("secret-", "Traceback", "DisallowedHost", "Invalid HTTP_HOST", "URLconf", "settings.py")


@pytest.fixture
def failing_urls(settings):
    settings.ROOT_URLCONF = "tests.production.error_urls"
    settings.DEBUG = False


def _assert_page(response, status: int, heading: str) -> str:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert f"<h1>{heading}</h1>" in body
    assert "/static/css/site.css" in body  # the product page, styled
    for leak in LEAKS:
        assert leak not in body
    return body


def _assert_json(response, status: int, code: str) -> dict:
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = json.loads(response.content)
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["code"] == code
    for leak in LEAKS:
        assert leak not in response.content.decode()
    return body["error"]


def test_a_bad_host_header_is_a_product_page_or_json(db, failing_urls):
    client = Client(HTTP_HOST="evil.example")
    _assert_page(client.get("/problems/"), 400, "Bad request")
    _assert_json(client.get("/api/v1/problems/"), 400, "api:bad-host")
    _assert_json(client.post("/api/v1/orders/", {}), 400, "api:bad-host")


def test_a_missing_page_is_the_product_404_and_json_under_the_api(db, failing_urls):
    client = Client()
    _assert_page(client.get("/no-such-page/"), 404, "Page not found")
    _assert_page(client.get("/problems/no-such-problem/"), 404, "Page not found")
    _assert_json(client.get("/api/v1/no-such-endpoint/"), 404, "not-found")
    _assert_json(client.get("/api/v1/problems/999999/"), 404, "not-found")


def test_a_crash_is_the_product_500_and_json_under_the_api(db, failing_urls):
    client = Client(raise_request_exception=False)
    _assert_page(client.get("/boom/"), 500, "Something went wrong")
    error = _assert_json(client.get("/api/v1/boom/"), 500, "api:server-error")
    assert error["message"] == "internal error; it has been logged"


def test_a_refusal_is_the_product_403_and_json_under_the_api(db, failing_urls):
    client = Client()
    _assert_page(client.get("/forbidden/"), 403, "Not allowed")
    _assert_json(client.get("/api/v1/forbidden/"), 403, "api:permission-denied")


def test_a_form_without_its_csrf_token_is_the_product_403(db, failing_urls):
    response = Client(enforce_csrf_checks=True).post("/login/", {"username": "a", "password": "b"})
    body = _assert_page(response, 403, "Not allowed")
    assert "Reload the page and try again" in body
    api_request = RequestFactory().post("/api/v1/orders/")
    _assert_json(csrf_failure(api_request, reason="CSRF cookie not set."), 403, "api:csrf-failed")


def test_debug_mode_shows_the_product_404_not_the_url_list(db, settings):
    settings.DEBUG = True  # before the client builds its middleware chain
    client = Client()
    response = client.get("/no-such-page/")
    _assert_page(response, 404, "Page not found")
    _assert_page(client.get("/problems/no-such-problem/"), 404, "Page not found")
    _assert_json(client.get("/api/v1/no-such-endpoint/"), 404, "not-found")
    # APPEND_SLASH still works in front of it.
    redirect = client.get("/problems")
    assert redirect.status_code == 301
    assert redirect["Location"] == "/problems/"


def test_every_dynamic_answer_is_private_and_not_stored(db):
    client = Client()
    for url in ("/", "/problems/", "/login/", "/api/v1/problems/", "/no-such-page/"):
        assert client.get(url)["Cache-Control"] == "private, no-store", url
