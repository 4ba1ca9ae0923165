"""Tokens, sessions with CSRF, the error envelope, throttling and Idempotency-Key."""

from __future__ import annotations

import hashlib
import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from market.api.models import ApiToken, IdempotencyRecord
from market.api.throttling import WriteThrottle
from market.models import Order, Problem
from market.money import Currency, Money
from tests.api.conftest import assert_error, client_for
from tests.factories import UserFactory
from tests.market.helpers import assert_ledger_invariants, snapshot

pytestmark = pytest.mark.django_db


# --- authentication -------------------------------------------------------------------------


def test_token_is_shown_once_stored_hashed_and_revocable(world):
    user = UserFactory(username="robot", password="s3cret-pass-word")
    anon = APIClient()
    response = anon.post(
        "/api/v1/tokens/",
        {"name": "bot", "username": "robot", "password": "s3cret-pass-word"},
        format="json",
    )
    assert response.status_code == 201, response.content
    key = response.json()["key"]
    token = ApiToken.objects.get(pk=response.json()["id"])
    assert token.key_sha256 == hashlib.sha256(key.encode()).hexdigest()
    assert key not in str(ApiToken.objects.filter(pk=token.pk).values().get())
    for scheme in ("Token", "Bearer"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
        assert client.get("/api/v1/me/").json() == {"id": user.pk, "username": "robot"}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    listed = client.get("/api/v1/tokens/").json()["results"]
    assert [t["prefix"] for t in listed] == [token.prefix] and "key" not in listed[0]
    assert client.delete(f"/api/v1/tokens/{token.pk}/").status_code == 200
    assert_error(client.get("/api/v1/me/"), 401, "api:authentication-failed")


def test_token_refusals(world):
    UserFactory(username="robot", password="s3cret-pass-word")
    anon = APIClient()
    count = ApiToken.objects.count()
    assert_error(
        anon.post("/api/v1/tokens/", {"name": "x", "username": "robot", "password": "no"}, "json"),
        401,
        "api:authentication-failed",
    )
    assert_error(anon.post("/api/v1/tokens/", {"name": "x"}, "json"), 401, "api:not-authenticated")
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token fm_nope_nope")
    assert_error(bad.get("/api/v1/me/"), 401, "api:authentication-failed")
    # Someone else's token id: not found, not revoked.
    other = ApiToken.objects.exclude(user=world.solver).first()
    assert_error(world.client("solver").delete(f"/api/v1/tokens/{other.pk}/"), 404, "not-found")
    assert ApiToken.objects.get(pk=other.pk).revoked_at is None
    assert ApiToken.objects.count() == count


def test_session_auth_enforces_csrf(world):
    user = UserFactory(username="webuser", password="s3cret-pass-word")
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/api/v1/me/").status_code == 200
    before = Problem.objects.count()
    response = client.post("/api/v1/author/problems/", {"title": "T"}, format="json")
    assert_error(response, 403, "api:permission-denied")
    assert "CSRF" in response.json()["error"]["message"]
    assert Problem.objects.count() == before


# --- errors ---------------------------------------------------------------------------------


def test_unknown_api_path_is_a_json_404(world):
    response = world.client("solver").get("/api/v1/nowhere/")
    assert_error(response, 404, "not-found")


def test_method_not_allowed_is_an_error_envelope(world):
    assert_error(world.client("solver").put("/api/v1/orders/"), 405, "api:method-not-allowed")


def test_unsupported_media_type(world):
    response = world.client("solver").post("/api/v1/orders/", "x", content_type="application/xml")
    assert_error(response, 415, "api:unsupported-media-type")


def test_throttling_answers_429_with_retry_after(world, monkeypatch):
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"read": "600/min", "write": "2/min"})
    client = world.client("other_solver")
    body = {"problem": world.problem.pk, "side": "bid", "price_minor": 10, "currency": "DEMO"}
    placed = client.post("/api/v1/orders/", body, "json")
    assert placed.status_code == 201
    # A second write (one open bid per buyer and problem: the bid is cancelled, not repeated).
    cancel = client.post(f"/api/v1/orders/{placed.json()['id']}/cancel/", {}, "json")
    assert cancel.status_code == 200
    before = snapshot()
    response = client.post("/api/v1/orders/", body, "json")
    assert_error(response, 429, "api:throttled")
    assert 1 <= int(response["Retry-After"]) <= 60
    assert snapshot() == before
    # Per user: another user is not throttled, and reads are counted apart.
    assert world.client("buyer").post("/api/v1/orders/", body, "json").status_code == 201
    assert client.get("/api/v1/orders/").status_code == 200


# --- idempotency ----------------------------------------------------------------------------

BID = {"side": "bid", "price_minor": 100, "currency": "DEMO", "quantity": 1}


def test_same_key_same_body_replays_the_first_response(world):
    client = world.client("other_solver")
    body = {"problem": world.problem.pk, **BID}
    first = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201
    before = snapshot()
    second = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert second.status_code == 201
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert second["Location"] == first["Location"]
    assert snapshot() == before


def test_same_key_different_body_is_422_and_changes_nothing(world):
    client = world.client("other_solver")
    body = {"problem": world.problem.pk, **BID}
    client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-2")
    before = snapshot()
    response = client.post(
        "/api/v1/orders/", {**body, "price_minor": 101}, "json", HTTP_IDEMPOTENCY_KEY="k-2"
    )
    assert_error(response, 422, "api:idempotency-key-reused")
    assert snapshot() == before


def test_key_in_progress_is_409_and_changes_nothing(world):
    client = world.client("other_solver")
    body = {"problem": world.problem.pk, **BID}
    first = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-4")
    assert first.status_code == 201
    # As if the first request were still running (its record not completed yet).
    IdempotencyRecord.objects.filter(key="k-4").update(state="in_progress")
    before = snapshot()
    response = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-4")
    assert_error(response, 409, "api:idempotency-in-progress")
    assert snapshot() == before
    assert Order.objects.filter(owner=world.other_solver).count() == 1


def test_refusals_are_replayed_too(world):
    client = world.client("other_solver")
    body = {"problem": world.problem.pk, **BID, "price_minor": 999_999}
    first = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-5")
    assert_error(first, 402, "market:insufficient-funds")
    second = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-5")
    assert second.json() == first.json() and second["Idempotent-Replayed"] == "true"


def test_keys_are_scoped_per_user(world):
    body = {"problem": world.problem.pk, **BID}
    a = world.client("other_solver").post(
        "/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="shared"
    )
    b = world.client("buyer").post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="shared")
    assert a.status_code == b.status_code == 201 and a.json()["id"] != b.json()["id"]


def test_invalid_key_is_400(world):
    response = world.client("other_solver").post(
        "/api/v1/orders/",
        {"problem": world.problem.pk, **BID},
        "json",
        HTTP_IDEMPOTENCY_KEY="x" * 256,
    )
    assert_error(response, 400, "api:invalid-idempotency-key")
    assert Order.objects.filter(owner=world.other_solver).count() == 0


def test_multipart_submissions_replay_despite_a_new_boundary(world):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = world.client("other_solver")
    responses = [
        client.post(
            "/api/v1/solutions/",
            {"verifier": world.verifier.pk, "file": SimpleUploadedFile("a.txt", b"yes!")},
            format="multipart",
            HTTP_IDEMPOTENCY_KEY="upload-1",
        )
        for _ in range(2)
    ]
    assert [r.status_code for r in responses] == [202, 202]
    assert responses[1]["Idempotent-Replayed"] == "true"


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_place_exactly_one_order():
    """Eight threads send the same bid with the same key at once, on real PostgreSQL."""
    from market.money import Currency, Money  # noqa: F401
    from market.services.accounts import grant_demo_credits
    from tests.factories import ProblemFactory

    buyer = UserFactory(username="racer")
    grant_demo_credits(user=buyer, amount_minor=10_000)
    problem = ProblemFactory()
    client = client_for(buyer)
    body = {"problem": problem.pk, "side": "bid", "price_minor": 700, "currency": "DEMO"}
    barrier = threading.Barrier(8)
    results: list[tuple[int, dict]] = []

    def send() -> None:
        try:
            barrier.wait()
            response = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="race")
            results.append((response.status_code, response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    statuses = sorted(status for status, _ in results)
    assert len(results) == 8
    assert set(statuses) <= {201, 409}
    assert statuses.count(201) >= 1
    created = {body["id"] for status, body in results if status == 201}
    assert len(created) == 1  # every 201 is the same order (first run or replay)
    conflicts = [b for s, b in results if s == 409]
    assert all(b["error"]["code"] == "api:idempotency-in-progress" for b in conflicts)
    assert Order.objects.filter(owner=buyer).count() == 1
    assert_ledger_invariants()
    from tests.market.helpers import balance

    assert balance(buyer) == 10_000 - 700


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_client_order_ids_place_exactly_one_order():
    from market.services.accounts import grant_demo_credits
    from tests.factories import ProblemFactory

    buyer = UserFactory(username="racer2")
    grant_demo_credits(user=buyer, amount_minor=10_000)
    problem = ProblemFactory()
    client = client_for(buyer)
    body = {
        "problem": problem.pk,
        "side": "bid",
        "price_minor": 700,
        "currency": "DEMO",
        "client_order_id": "cid-1",
    }
    barrier = threading.Barrier(6)
    results: list[tuple[int, dict]] = []

    def send() -> None:
        try:
            barrier.wait()
            response = client.post("/api/v1/orders/", body, "json")
            results.append((response.status_code, response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [s for s, _ in results] == [201] * 6
    assert len({b["id"] for _, b in results}) == 1
    assert Order.objects.filter(owner=buyer).count() == 1
    assert_ledger_invariants()


def test_a_bug_is_a_json_500_and_frees_the_idempotency_key(world, monkeypatch):
    import market.api.views as views

    def broken(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(views, "place_bid", broken)
    client = world.client("other_solver")
    client.raise_request_exception = False
    body = {"problem": world.problem.pk, **BID}
    response = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-500")
    assert_error(response, 500, "api:server-error")
    assert not IdempotencyRecord.objects.filter(key="k-500").exists()
    monkeypatch.undo()
    retried = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-500")
    assert retried.status_code == 201
    assert Order.objects.filter(owner=world.other_solver).count() == 1


def test_a_crash_after_the_service_leaves_no_effect_and_a_free_key(world, monkeypatch):
    """The process dies after the service but before storing the response (a token here:
    every endpoint but the order endpoints stores its response in the service's transaction).
    """
    import market.api.idempotency as idempotency

    def dies(*args):
        raise RuntimeError("worker killed between the service and the stored response")

    monkeypatch.setattr(idempotency, "_complete", dies)
    client = world.client("other_solver")
    client.raise_request_exception = False
    tokens = ApiToken.objects.filter(user=world.other_solver)
    before = tokens.count()
    response = client.post("/api/v1/tokens/", {"name": "ci"}, "json", HTTP_IDEMPOTENCY_KEY="k-t")
    assert response.status_code == 500
    assert tokens.count() == before  # the token rolled back with the missing record
    assert not IdempotencyRecord.objects.filter(key="k-t").exists()
    monkeypatch.undo()
    retried = client.post("/api/v1/tokens/", {"name": "ci"}, "json", HTTP_IDEMPOTENCY_KEY="k-t")
    assert retried.status_code == 201
    assert tokens.count() == before + 1


@pytest.mark.django_db(transaction=True)
def test_a_crash_after_a_placement_leaves_one_order_and_the_retry_answers_it(world, monkeypatch):
    """An error after the engine placed the bid, before the response is stored (a 500 frees
    the key at once; a killed process leaves it in progress until its lease ends).

    As deployed (autocommit: the engine's durable CALL commits the placement alone, the book
    is not held while the response is stored): the bid stays, and the retry with the same
    key is recognised by the engine itself through the client order id the key gave it.
    """
    import market.api.idempotency as idempotency

    def dies(*args):
        raise RuntimeError("worker killed between the placement and the stored response")

    monkeypatch.setattr(idempotency, "_complete", dies)
    client = world.client("other_solver")
    client.raise_request_exception = False
    body = {"problem": world.problem.pk, **BID}
    response = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-crash")
    assert response.status_code == 500
    assert not IdempotencyRecord.objects.filter(key="k-crash").exists()
    (placed,) = Order.objects.filter(owner=world.other_solver)
    derived = "idem-" + hashlib.sha256(b"k-crash").hexdigest()[:48]
    assert placed.client_order_id == derived
    before = snapshot()
    monkeypatch.undo()
    retried = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-crash")
    assert retried.status_code == 201
    assert retried.json()["id"] == placed.pk
    assert retried.json()["client_order_id"] == derived
    assert snapshot() == before  # nothing placed or held a second time
    assert Order.objects.filter(owner=world.other_solver).count() == 1
    assert IdempotencyRecord.objects.get(key="k-crash").state == "completed"
    assert_ledger_invariants()


def test_a_client_order_id_in_the_body_is_kept_with_an_idempotency_key(world):
    body = {"problem": world.problem.pk, **BID, "client_order_id": "mine-1"}
    response = world.client("other_solver").post(
        "/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="k-mine"
    )
    assert response.status_code == 201 and response.json()["client_order_id"] == "mine-1"
    plain = world.client("buyer").post("/api/v1/orders/", {**body, "client_order_id": "x"})
    assert plain.status_code == 201 and plain.json()["client_order_id"] == "x"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("endpoint", ["place", "cancel"])
def test_the_book_is_free_while_an_idempotent_response_is_stored(monkeypatch, endpoint):
    """On PostgreSQL, as deployed: the placement (or cancel) has committed and released the
    problem's row, the book's lock, before the response is stored. A second connection
    takes that lock, without waiting, at the moment the response is being stored."""
    import psycopg

    import market.api.idempotency as idempotency
    from market.services.accounts import grant_demo_credits
    from market.services.orders import place_bid
    from tests.factories import ProblemFactory

    buyer = UserFactory(username=f"holder-{endpoint}")
    grant_demo_credits(user=buyer, amount_minor=10_000)
    problem = ProblemFactory()
    client = client_for(buyer)
    d = connection.settings_dict
    params = {
        "dbname": d["NAME"],
        "user": d["USER"],
        "password": d["PASSWORD"] or None,
        "host": d["HOST"] or "127.0.0.1",
        "port": d["PORT"] or 5432,
    }
    seen: list[str] = []
    complete = idempotency._complete

    def storing(record, response, *args):
        with psycopg.connect(**params, autocommit=True) as other:
            try:
                other.execute(
                    "SELECT id FROM market_problem WHERE id = %s FOR UPDATE NOWAIT", [problem.pk]
                )
                seen.append("free")
            except psycopg.errors.LockNotAvailable:
                seen.append("held")
        return complete(record, response, *args)

    monkeypatch.setattr(idempotency, "_complete", storing)
    if endpoint == "place":
        body = {"problem": problem.pk, "side": "bid", "price_minor": 700, "currency": "DEMO"}
        response = client.post("/api/v1/orders/", body, "json", HTTP_IDEMPOTENCY_KEY="free-1")
    else:
        order = place_bid(buyer=buyer, problem=problem, price=Money(700, Currency.DEMO), quantity=1)
        response = client.post(
            f"/api/v1/orders/{order.pk}/cancel/", {}, "json", HTTP_IDEMPOTENCY_KEY="free-2"
        )
    assert response.status_code in (200, 201), response.content
    assert seen == ["free"]
    assert IdempotencyRecord.objects.get(user=buyer).state == "completed"
    assert_ledger_invariants()


@pytest.mark.parametrize("raw", ["p=abc", "o=1&p=%00", "p=-5"])
def test_a_forged_cursor_is_a_404_not_a_server_error(world, raw):
    import base64

    cursor = base64.b64encode(raw.encode()).decode()
    response = world.client("solver").get(f"/api/v1/orders/?cursor={cursor}")
    assert_error(response, 404, "not-found")


@pytest.mark.parametrize("key", ["fm_\x00_x", "fm_abc_def", "x" * 500, "fm_" + "0" * 12 + "_"])
def test_a_malformed_token_is_refused_without_a_server_error(world, key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert_error(client.get("/api/v1/me/"), 401, "api:authentication-failed")


def test_anonymous_throttling_ignores_a_client_written_x_forwarded_for(world, monkeypatch):
    # Review finding: DRF's get_ident took the whole X-Forwarded-For header when NUM_PROXIES
    # is unset, so a fresh header per request escaped the anonymous throttle (password guessing
    # through POST /tokens/ without limit).
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"read": "600/min", "write": "2/min"})
    client = APIClient()
    guess = {"name": "x", "username": "solver", "password": "wrong"}
    for n in range(2):
        response = client.post("/api/v1/tokens/", guess, "json", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
        assert_error(response, 401, "api:authentication-failed")
    response = client.post("/api/v1/tokens/", guess, "json", HTTP_X_FORWARDED_FOR="10.0.0.9")
    assert_error(response, 429, "api:throttled")
    assert ApiToken.objects.filter(user=world.solver).count() == 1  # the fixture's own token


def test_a_token_key_is_not_stored_in_the_idempotency_record_nor_replayed(world):
    # Review finding: a logged-in user creating a token with an Idempotency-Key had the key
    # stored in plain text in the idempotency record for 24 hours, and shown again on replay.
    client = world.client("solver")
    first = client.post("/api/v1/tokens/", {"name": "ci"}, "json", HTTP_IDEMPOTENCY_KEY="tok-1")
    assert first.status_code == 201, first.content
    key = first.json()["key"]
    assert key.startswith("fm_")
    record = IdempotencyRecord.objects.get(user=world.solver, key="tok-1")
    assert key not in str(IdempotencyRecord.objects.filter(pk=record.pk).values().get())
    assert record.response_body["key"] is None
    replay = client.post("/api/v1/tokens/", {"name": "ci"}, "json", HTTP_IDEMPOTENCY_KEY="tok-1")
    assert replay.status_code == 201
    assert replay["Idempotent-Replayed"] == "true"
    assert replay.json() == {**first.json(), "key": None}
    assert ApiToken.objects.filter(user=world.solver, name="ci").count() == 1
