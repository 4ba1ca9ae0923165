"""Every endpoint against every persona: who may read or do what, with the exact refusal.

A refusal of an object that exists but is not the caller's is the same 404 `not-found` as a
missing object. Anonymous callers read published problems, books, trades and verifiers only.
"""

from __future__ import annotations

import pytest

from market.models import Order, OrderStatus, ProblemStatus
from tests.api.conftest import assert_error
from tests.factories import ProblemFactory
from tests.market.helpers import snapshot

pytestmark = pytest.mark.django_db

PERSONAS = ["anonymous", "solver", "other_solver", "buyer", "author", "other_author"]


def _expect(persona: str, allowed: set[str]) -> int:
    if persona in allowed:
        return 200
    return 401 if persona == "anonymous" else 404


@pytest.mark.parametrize("persona", PERSONAS)
def test_public_reads_are_open_to_everyone(world, persona):
    client = world.client(persona)
    pid = world.problem.pk
    for url in (
        "/api/v1/problems/",
        f"/api/v1/problems/{pid}/",
        f"/api/v1/problems/{pid}/book/",
        f"/api/v1/problems/{pid}/trades/",
        f"/api/v1/verifiers/{world.verifier.pk}/",
    ):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_draft_problem_is_visible_only_to_its_author(world, persona):
    draft = ProblemFactory(author=world.author, status=ProblemStatus.DRAFT)
    response = world.client(persona).get(f"/api/v1/problems/{draft.pk}/")
    if persona == "author":
        assert response.status_code == 200
    else:
        assert_error(response, 404, "not-found")
    listed = world.client(persona).get("/api/v1/problems/").json()["results"]
    assert draft.pk not in [p["id"] for p in listed]


@pytest.mark.parametrize("persona", PERSONAS)
def test_solution_text_is_read_only_by_its_solver_and_entitled_buyers(world, persona):
    url = f"/api/v1/solutions/{world.solution.pk}/"
    response = world.client(persona).get(url)
    status_response = world.client(persona).get(url + "status/")
    expected = _expect(persona, {"solver", "buyer"})
    assert response.status_code == expected
    assert status_response.status_code == expected
    if expected == 200:
        assert response.json()["text"] == "yes"
        assert response.json()["is_mine"] is (persona == "solver")
    elif persona == "anonymous":
        assert_error(response, 401, "api:not-authenticated")
        assert response["WWW-Authenticate"] == 'Token realm="api"'
    else:
        assert_error(response, 404, "not-found")
        assert "yes" not in response.content.decode()


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_reads_and_cancels_an_order(world, persona):
    url = f"/api/v1/orders/{world.ask.pk}/"
    before = snapshot()
    read = world.client(persona).get(url)
    cancel = world.client(persona).post(url + "cancel/")
    if persona == "solver":
        assert read.status_code == 200 and cancel.status_code == 200
        assert cancel.json()["status"] == "cancelled"
    else:
        code = (401, "api:not-authenticated") if persona == "anonymous" else (404, "not-found")
        assert_error(read, *code)
        assert_error(cancel, *code)
        assert snapshot() == before
        assert Order.objects.get(pk=world.ask.pk).status == OrderStatus.OPEN


@pytest.mark.parametrize("persona", PERSONAS)
def test_author_endpoints_serve_only_the_author(world, persona):
    client = world.client(persona)
    problem_url = f"/api/v1/author/problems/{world.problem.pk}/"
    verifier_url = f"/api/v1/author/verifiers/{world.verifier.pk}/"
    before = (world.problem.title, world.verifier.draft_source)
    responses = [
        client.get(problem_url),
        client.get(verifier_url),
        client.get(verifier_url + "dry-runs/"),
        client.patch(problem_url, {"title": "hijacked"}, format="json"),
        client.patch(verifier_url, {"source": "x"}, format="json"),
        client.post(verifier_url + "dry-runs/"),
        client.post(verifier_url + "publish/"),
        client.post(verifier_url + "retire/"),
        client.post(problem_url + "retire/"),
        client.post(problem_url + "verifiers/", {"language": "python", "source": "x"}, "json"),
    ]
    if persona == "author":
        assert [r.status_code for r in responses[:3]] == [200, 200, 200]
        return
    for response in responses:
        if persona == "anonymous":
            assert_error(response, 401, "api:not-authenticated")
        else:
            assert_error(response, 404, "not-found")
    world.problem.refresh_from_db()
    world.verifier.refresh_from_db()
    assert (world.problem.title, world.verifier.draft_source) == before
    assert world.problem.status == ProblemStatus.PUBLISHED
    assert world.verifier.dry_runs.count() == 0


@pytest.mark.parametrize("persona", PERSONAS)
def test_private_endpoints_need_authentication(world, persona):
    client = world.client(persona)
    for url in (
        "/api/v1/me/",
        "/api/v1/solutions/",
        "/api/v1/orders/",
        "/api/v1/trades/",
        "/api/v1/account/balances/",
        "/api/v1/account/ledger/",
        "/api/v1/author/problems/",
        "/api/v1/tokens/",
    ):
        response = client.get(url)
        if persona == "anonymous":
            assert_error(response, 401, "api:not-authenticated")
        else:
            assert response.status_code == 200, url


def test_lists_of_mine_show_only_mine(world):
    other = world.client("other_solver")
    assert other.get("/api/v1/solutions/").json()["results"] == []
    assert other.get("/api/v1/orders/").json()["results"] == []
    assert other.get("/api/v1/trades/").json()["results"] == []
    assert other.get("/api/v1/author/problems/").json()["results"] == []
    buyer_trades = world.client("buyer").get("/api/v1/trades/").json()["results"]
    assert [(t["role"], t["price_minor"], t["net_minor"]) for t in buyer_trades] == [
        ("buyer", 1_000, -1_000)
    ]
    seller_trades = world.client("solver").get("/api/v1/trades/").json()["results"]
    assert [(t["role"], t["net_minor"]) for t in seller_trades] == [("seller", 950)]


def test_a_retired_problem_cannot_be_traded_but_keeps_entitlements(world):
    world.problem.status = ProblemStatus.RETIRED
    world.problem.save(update_fields=["status"])
    before = snapshot()
    response = world.client("other_solver").post(
        "/api/v1/orders/",
        {"problem": world.problem.pk, "side": "bid", "price_minor": 900, "currency": "DEMO"},
        format="json",
    )
    assert_error(response, 409, "market:not-tradable")
    assert snapshot() == before
    assert (
        world.client("buyer").get(f"/api/v1/solutions/{world.solution.pk}/").json()["text"] == "yes"
    )
