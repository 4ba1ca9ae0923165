"""The activity page, the header badge, mark-as-read, and the token + webhook page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from activity.models import Event, WebhookEndpoint
from activity.selectors import get_last_read_id
from judge.verdict import Outcome, Reason, Verdict
from market.api.models import ApiToken
from market.api.tokens import create_api_token, hash_key
from market.services.solutions import record_verdict
from tests.factories import SolutionFactory, UserFactory
from tests.market.conftest import Market

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def judge(solver, title: str = "Two squares") -> None:
    solution = SolutionFactory(verifier_version=Market(title=title).version, solver=solver)
    record_verdict(
        solution_id=solution.pk,
        verdict=Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "no", seed=5),
    )


def test_the_header_badge_counts_unread_and_polls_without_inline_script():
    solver = UserFactory()
    judge(solver)
    judge(solver)
    page = logged_in(solver).get("/problems/").content.decode()
    [badge] = re.findall(r'<a id="activity-badge"[^>]*>.*?</a>', page, re.S)
    assert 'data-unread="2"' in badge and 'hx-get="/activity/badge/"' in badge
    assert 'hx-trigger="every 15s"' in badge
    assert "<script>" not in page and " onclick" not in page and "hx-on" not in page

    fragment = logged_in(solver).get("/activity/badge/")
    assert fragment.status_code == 200 and 'data-unread="2"' in fragment.content.decode()
    anonymous = Client().get("/activity/badge/").content.decode()
    assert "data-unread" not in anonymous


def test_the_activity_page_lists_events_in_words_and_marks_them_read():
    solver = UserFactory()
    judge(solver, "Two squares")
    client = logged_in(solver)
    page = client.get("/activity/").content.decode()
    assert "to Two squares was judged REJECTED (WRONG_ANSWER), seed 5." in page
    # Seeing it is reading it: marked "new" on this visit, read from now on.
    assert 'class="unread"' in page and "1 new since your last visit" in page
    assert "Mark all as read" not in page

    answer = client.post("/activity/read/")
    assert answer.status_code == 302
    page = client.get("/activity/").content.decode()
    assert 'class="unread"' not in page and "Mark all as read" not in page
    assert 'data-unread="' not in client.get("/activity/badge/").content.decode()
    assert Client().get("/activity/").status_code == 302  # login first


def test_the_token_page_creates_shows_the_key_once_and_revokes():
    user = UserFactory()
    client = logged_in(user)
    created = client.post("/account/tokens/", {"action": "create-token", "name": "my solver"})
    assert created.status_code == 200
    [key] = re.findall(r'id="new-token-key">([^<]+)<', created.content.decode())
    token = ApiToken.objects.get(user=user)
    assert token.name == "my solver" and token.key_sha256 == hash_key(key)

    again = client.get("/account/tokens/").content.decode()
    assert key not in again and "my solver" in again and f"fm_{token.prefix}_" in again

    other = UserFactory()
    revoke_other = logged_in(other).post(
        "/account/tokens/", {"action": "revoke-token", "id": token.pk}
    )
    assert revoke_other.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is None  # someone else's token is untouched

    client.post("/account/tokens/", {"action": "revoke-token", "id": token.pk})
    token.refresh_from_db()
    assert token.revoked_at is not None
    refused = client.post("/account/tokens/", {"action": "create-token", "name": ""}, follow=True)
    assert "invalid token name" in refused.content.decode()
    assert ApiToken.objects.filter(user=user).count() == 1


def test_the_token_page_adds_and_removes_webhooks_and_shows_their_log(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    user = UserFactory()
    client = logged_in(user)
    refused = client.post(
        "/account/tokens/",
        {"action": "create-webhook", "url": "https://127.0.0.1/hook"},
        follow=True,
    )
    assert "not a public address" in refused.content.decode()
    assert WebhookEndpoint.objects.count() == 0

    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    added = client.post(
        "/account/tokens/",
        {"action": "create-webhook", "url": "http://127.0.0.1:9/hook", "description": "bot"},
    )
    [secret] = re.findall(r'id="new-webhook-secret">([^<]+)<', added.content.decode())
    endpoint = WebhookEndpoint.objects.get(user=user)
    assert endpoint.secret == secret
    judge(user)
    from activity.services.webhooks import dispatch_webhooks

    dispatch_webhooks(user_ids=[user.pk])
    page = client.get("/account/tokens/").content.decode()
    event = Event.objects.get(user=user)
    assert secret not in page and f"evt_{event.pk}" in page and "pending" in page

    client.post("/account/tokens/", {"action": "remove-webhook", "id": endpoint.pk})
    endpoint.refresh_from_db()
    assert endpoint.disabled_at is not None


@pytest.mark.parametrize("posted_id", ["²", "٣", "9" * 30])
def test_page_forms_with_non_ascii_or_overflowing_ids_change_nothing(posted_id):
    # Before: "²".isdigit() is true and int("²") raised; 10**30 overflowed bigint: 500s.
    solver = UserFactory()
    judge(solver)
    client = logged_in(solver)
    token, _ = create_api_token(user=solver, name="keep")

    revoked = client.post("/account/tokens/", {"action": "revoke-token", "id": posted_id})
    removed = client.post("/account/tokens/", {"action": "remove-webhook", "id": posted_id})

    assert (revoked.status_code, removed.status_code) == (302, 302)
    token.refresh_from_db()
    assert token.revoked_at is None
    # An unreadable ``up_to`` is no ``up_to``: the page's button marks everything read.
    marked = client.post("/activity/read/", {"up_to": posted_id})
    assert marked.status_code == 302
    assert get_last_read_id(user_id=solver.pk) == Event.objects.get(user=solver).pk
