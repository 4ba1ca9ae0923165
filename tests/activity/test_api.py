"""GET /api/v1/activity/ (cursor, ETag), mark-as-read, webhook endpoints, the /api/v1/ index."""

from __future__ import annotations

import pytest

from activity.models import Event, EventKind, WebhookEndpoint
from judge.verdict import Outcome, Reason, Verdict
from market.services.solutions import record_verdict
from tests.api.conftest import assert_error, client_for
from tests.factories import SolutionFactory, UserFactory
from tests.market.conftest import Market

pytestmark = pytest.mark.django_db


def judged(solver, n: int) -> list[int]:
    market = Market()
    for _ in range(n):
        solution = SolutionFactory(verifier_version=market.version, solver=solver)
        record_verdict(
            solution_id=solution.pk,
            verdict=Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "no", seed=7),
        )
    return list(Event.objects.filter(user=solver).order_by("id").values_list("id", flat=True))


def test_activity_pages_forward_from_a_cursor_and_answers_304_when_unchanged():
    solver = UserFactory()
    ids = judged(solver, 3)
    client = client_for(solver)

    first = client.get("/api/v1/activity/?after=0&limit=2")
    assert first.status_code == 200
    body = first.json()
    assert [e["id"] for e in body["results"]] == ids[:2]
    assert body["results"][0]["event_id"] == f"evt_{ids[0]}"
    assert body["results"][0]["type"] == "solution.judged"
    assert body["results"][0]["data"]["seed"] == 7
    assert body["results"][0]["is_read"] is False
    assert (body["has_more"], body["unread_count"]) == (True, 3)
    assert body["cursor"].endswith(f"-{ids[1]}")

    second = client.get(f"/api/v1/activity/?after={body['cursor']}&limit=2")
    assert [e["id"] for e in second.json()["results"]] == ids[2:]
    assert second.json()["has_more"] is False
    etag = second["ETag"]
    unchanged = client.get(
        f"/api/v1/activity/?after={body['cursor']}&limit=2", HTTP_IF_NONE_MATCH=etag
    )
    assert unchanged.status_code == 304 and unchanged.content == b""

    judged(solver, 1)  # something new: the same request now answers 200
    changed = client.get(
        f"/api/v1/activity/?after={body['cursor']}&limit=2", HTTP_IF_NONE_MATCH=etag
    )
    assert changed.status_code == 200 and len(changed.json()["results"]) == 2
    client.post("/api/v1/activity/read/", {}, format="json")  # the read state is in the body
    read = client.get(f"/api/v1/activity/?after={body['cursor']}&limit=2", HTTP_IF_NONE_MATCH=etag)
    assert read.status_code == 200 and read.json()["unread_count"] == 0


def test_activity_without_a_cursor_gives_the_newest_and_only_my_events():
    solver, other = UserFactory(), UserFactory()
    ids = judged(solver, 3)
    judged(other, 2)
    body = client_for(solver).get("/api/v1/activity/?limit=2").json()
    assert [e["id"] for e in body["results"]] == ids[1:]
    assert body["cursor"].endswith(f"-{ids[2]}")
    assert client_for(UserFactory()).get("/api/v1/activity/").json()["results"] == []


def test_mark_read_through_the_api():
    solver = UserFactory()
    ids = judged(solver, 3)
    client = client_for(solver)
    answer = client.post("/api/v1/activity/read/", {"up_to": ids[1]}, format="json")
    assert answer.status_code == 200
    assert answer.json() == {"last_read_id": ids[1], "unread_count": 1}
    events = client.get("/api/v1/activity/?after=0").json()["results"]
    assert [e["is_read"] for e in events] == [True, True, False]
    assert client.post("/api/v1/activity/read/", {}, format="json").json()["unread_count"] == 0


def test_activity_refuses_bad_cursors_and_anonymous_readers():
    client = client_for(UserFactory())
    for cursor in ("-1", "abc", "12", "1-", "1-2-3", "9" * 20 + "-1"):
        assert_error(client.get(f"/api/v1/activity/?after={cursor}"), 400, "api:invalid")
    assert_error(client.get("/api/v1/activity/?limit=201"), 400, "api:invalid")
    assert_error(client_for().get("/api/v1/activity/"), 401, "api:not-authenticated")


def test_webhook_endpoints_register_list_log_and_remove(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    user, other = UserFactory(), UserFactory()
    client = client_for(user)
    created = client.post(
        "/api/v1/webhooks/",
        {"url": "http://127.0.0.1:9/hook", "description": "bot"},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 40
    endpoint_id = body["id"]
    listed = client.get("/api/v1/webhooks/").json()["results"]
    assert [(e["id"], e["url"]) for e in listed] == [(endpoint_id, "http://127.0.0.1:9/hook")]
    assert "secret" not in listed[0]
    assert client.get(f"/api/v1/webhooks/{endpoint_id}/deliveries/").json()["results"] == []

    stranger = client_for(other)
    assert_error(stranger.get(f"/api/v1/webhooks/{endpoint_id}/"), 404, "not-found")
    assert_error(stranger.delete(f"/api/v1/webhooks/{endpoint_id}/"), 404, "not-found")
    assert_error(stranger.get(f"/api/v1/webhooks/{endpoint_id}/deliveries/"), 404, "not-found")
    assert WebhookEndpoint.objects.get(pk=endpoint_id).is_active

    assert client.delete(f"/api/v1/webhooks/{endpoint_id}/").status_code == 200
    assert client.get("/api/v1/webhooks/").json()["results"] == []
    assert_error(client.get(f"/api/v1/webhooks/{endpoint_id}/"), 404, "not-found")


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.215.14/hook",  # plain http: production wants https
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.1/hook",
        "https://192.168.1.1/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://0.0.0.0/hook",
        "https://user:pw@93.184.215.14/hook",
        "ftp://93.184.215.14/hook",
        "https:///nohost",
    ],
)
def test_webhooks_to_private_or_odd_targets_are_refused_in_production(settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    client = client_for(UserFactory())
    error = assert_error(
        client.post("/api/v1/webhooks/", {"url": url}, format="json"),
        400,
        "activity:invalid-webhook",
    )
    assert "url" in error["fields"]
    assert WebhookEndpoint.objects.count() == 0


def test_at_most_five_webhook_endpoints(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    client = client_for(UserFactory())
    for i in range(5):
        url = f"http://127.0.0.1:9/{i}"
        assert client.post("/api/v1/webhooks/", {"url": url}, format="json").status_code == 201
    assert_error(
        client.post("/api/v1/webhooks/", {"url": "http://127.0.0.1:9/6"}, format="json"),
        400,
        "activity:invalid-webhook",
    )
    assert WebhookEndpoint.objects.count() == 5


def test_the_api_root_is_an_index_of_resources():
    body = client_for().get("/api/v1/").json()
    assert body["schema"].endswith("/api/schema/")
    assert body["resources"]["activity"]["url"].endswith("/api/v1/activity/")
    assert body["resources"]["problems"]["auth"] == "anyone"
    assert {"tokens", "solutions", "orders", "balances", "webhooks"} <= set(body["resources"])


def test_event_kinds_are_documented_in_the_schema():
    schema = client_for().get("/api/schema/?format=json").json()
    assert "/api/v1/activity/" in schema["paths"]
    assert "/api/v1/webhooks/{id}/deliveries/" in schema["paths"]
    assert set(schema["components"]["schemas"]["TypeEnum"]["enum"]) >= {k.value for k in EventKind}


@pytest.mark.parametrize(
    "url", ["https://[zz]/hook", "https://[::1/hook", "https://a]b/", "https://[1.2.3.4]/"]
)
def test_a_malformed_webhook_url_is_refused_not_a_server_error(settings, url):
    # Before: urlsplit's ValueError on a bad bracketed host escaped the check: a 500.
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    response = client_for(UserFactory()).post("/api/v1/webhooks/", {"url": url}, format="json")
    error = assert_error(response, 400, "activity:invalid-webhook")
    assert error["fields"] == {"url": ["the URL is malformed"]}
    assert WebhookEndpoint.objects.count() == 0
