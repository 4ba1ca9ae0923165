"""Password guessing is bounded per username (from any address) and per address, on the
login page and on token creation by password; a refused attempt checks no password."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.test import Client
from rest_framework.test import APIClient

from market.api.models import ApiToken
from market.login_guard import MAX_LOGIN_FAILURES_PER_ADDRESS, max_login_failures_per_username
from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"
MAX_LOGIN_FAILURES_PER_USERNAME = max_login_failures_per_username()


@pytest.fixture(autouse=True)
def _clean_throttles(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


@pytest.fixture
def victim(db):
    user = UserFactory(username="victim")
    user.set_password(PASSWORD)
    user.save()
    return user


def _login(address: str, password: str, username: str = "victim"):
    return Client(REMOTE_ADDR=address).post("/login/", {"username": username, "password": password})


def test_login_page_locks_a_username_after_failures_from_many_addresses(victim):
    for n in range(MAX_LOGIN_FAILURES_PER_USERNAME):
        assert _login(f"10.0.1.{n}", "wrong").status_code == 200  # the form, with its error
    # The next guess, even the right password from a fresh address, is refused unchecked.
    response = _login("10.0.2.1", PASSWORD)
    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert "Too many failed attempts" in response.content.decode()
    assert "_auth_user_id" not in response.wsgi_request.session
    # Another username is not affected.
    other = UserFactory(username="bystander")
    other.set_password(PASSWORD)
    other.save()
    assert _login("10.0.2.1", PASSWORD, username="bystander").status_code == 302


def test_login_page_success_resets_the_username_count(victim):
    for n in range(MAX_LOGIN_FAILURES_PER_USERNAME - 1):
        _login(f"10.0.3.{n}", "wrong")
    assert _login("10.0.3.99", PASSWORD).status_code == 302
    for n in range(MAX_LOGIN_FAILURES_PER_USERNAME - 1):
        assert _login(f"10.0.4.{n}", "wrong").status_code == 200
    assert _login("10.0.4.99", PASSWORD).status_code == 302


def test_login_page_locks_an_address_guessing_many_usernames(db):
    for n in range(MAX_LOGIN_FAILURES_PER_ADDRESS):
        assert _login("10.0.5.1", "wrong", username=f"user{n}").status_code == 200
    assert _login("10.0.5.1", "wrong", username="another").status_code == 429
    assert _login("10.0.5.2", "wrong", username="another").status_code == 200


def test_token_creation_by_password_shares_the_username_lockout(victim):
    for n in range(MAX_LOGIN_FAILURES_PER_USERNAME):
        response = APIClient(REMOTE_ADDR=f"10.0.6.{n}").post(
            "/api/v1/tokens/",
            {"name": "t", "username": "victim", "password": "wrong"},
            format="json",
        )
        assert response.status_code == 401, response.content
    response = APIClient(REMOTE_ADDR="10.0.7.1").post(
        "/api/v1/tokens/", {"name": "t", "username": "victim", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 429, response.content
    assert response.json()["error"]["code"] == "api:throttled"
    assert int(response["Retry-After"]) == 900
    assert not ApiToken.objects.filter(user=victim).exists()
    # The login page counts the same failures.
    assert _login("10.0.7.2", PASSWORD).status_code == 429


def test_a_fullwidth_or_capitalised_username_counts_as_the_same_account(db):
    # Django's login form applies NFKC: "ｄａｖｅ" logs in as "dave". The count must follow.
    dave = UserFactory(username="dave")
    dave.set_password(PASSWORD)
    dave.save()
    spellings = ["dave", "ｄａｖｅ", "DAVE", "Ｄａｖｅ", " dave"]
    for n in range(MAX_LOGIN_FAILURES_PER_USERNAME):
        spelling = spellings[n % len(spellings)]
        assert _login(f"10.0.8.{n}", "wrong", username=spelling).status_code == 200
    for n, spelling in enumerate(spellings):
        response = _login(f"10.0.9.{n}", PASSWORD, username=spelling)
        assert response.status_code == 429, spelling
        assert "_auth_user_id" not in response.wsgi_request.session
    response = APIClient(REMOTE_ADDR="10.0.9.50").post(
        "/api/v1/tokens/",
        {"name": "t", "username": "ｄａｖｅ", "password": PASSWORD},
        format="json",
    )
    assert response.status_code == 429, response.content
    assert not ApiToken.objects.filter(user=dave).exists()


def test_the_admin_login_has_the_same_guard(victim):
    victim.is_staff = True
    victim.is_superuser = True
    victim.save()
    for n in range(MAX_LOGIN_FAILURES_PER_USERNAME):
        response = Client(REMOTE_ADDR=f"10.0.10.{n}").post(
            "/admin/login/", {"username": "victim", "password": "wrong"}
        )
        assert response.status_code == 200
    client = Client(REMOTE_ADDR="10.0.11.1")
    response = client.post("/admin/login/", {"username": "victim", "password": PASSWORD})
    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert "Too many failed attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # The lockout is shared with the login page.
    assert _login("10.0.11.2", PASSWORD).status_code == 429


def test_token_creation_failures_lock_the_login_page_by_address_too(db):
    for n in range(MAX_LOGIN_FAILURES_PER_ADDRESS):
        response = APIClient(REMOTE_ADDR="10.0.12.1").post(
            "/api/v1/tokens/",
            {"name": "t", "username": f"user{n}", "password": "wrong"},
            format="json",
        )
        assert response.status_code == 401
    assert _login("10.0.12.1", "wrong", username="another").status_code == 429
