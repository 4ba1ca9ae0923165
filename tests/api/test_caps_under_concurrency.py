"""Per-user caps hold when the requests arrive at once (threads on real PostgreSQL): at most
20 active API tokens, at most 5 webhook endpoints. Before: each cap was a count read
without a lock, so concurrent creates all saw room and passed it."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from activity.models import WebhookEndpoint
from activity.services.webhooks import MAX_ENDPOINTS
from market.api.models import ApiToken
from market.api.tokens import MAX_ACTIVE_TOKENS, create_api_token
from tests.api.conftest import client_for
from tests.factories import UserFactory
from tests.waiting import scaled

THREADS = 8


def post_at_once(client, path: str, bodies: list[dict]) -> list[tuple[int, dict]]:
    results: list[tuple[int, dict]] = []
    start = threading.Barrier(len(bodies))

    def send(body: dict) -> None:
        try:
            start.wait(timeout=scaled(30))
            response = client.post(path, body, "json")
            results.append((response.status_code, response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(b,), daemon=True) for b in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=scaled(60))
    assert len(results) == len(bodies)
    return results


@pytest.mark.django_db(transaction=True)
def test_concurrent_webhook_registrations_stop_at_the_cap(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    user = UserFactory()
    bodies = [{"url": f"http://127.0.0.1:{9000 + i}/hook"} for i in range(THREADS)]

    results = post_at_once(client_for(user), "/api/v1/webhooks/", bodies)

    statuses = sorted(status for status, _ in results)
    assert statuses == [201] * MAX_ENDPOINTS + [400] * (THREADS - MAX_ENDPOINTS)
    refusals = [body["error"] for status, body in results if status == 400]
    assert {(e["code"], e["fields"]["url"][0]) for e in refusals} == {
        ("activity:invalid-webhook", "too many endpoints")
    }
    assert WebhookEndpoint.objects.filter(user=user, disabled_at__isnull=True).count() == 5


@pytest.mark.django_db(transaction=True)
def test_concurrent_token_creations_stop_at_the_cap():
    user = UserFactory()
    for i in range(MAX_ACTIVE_TOKENS - 3):  # one of them is the client's own
        create_api_token(user=user, name=f"old {i}")
    client = client_for(user)
    bodies = [{"name": f"new {i}"} for i in range(THREADS)]

    results = post_at_once(client, "/api/v1/tokens/", bodies)

    statuses = sorted(status for status, _ in results)
    assert statuses == [201] * 2 + [400] * (THREADS - 2)
    assert ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() == 20
