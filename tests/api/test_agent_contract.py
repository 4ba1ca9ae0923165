"""What an agent reads from the API (issue 30): the list's book fields, query values outside
the schema refused in the error envelope, Lean honestly closed, and the judge's start-up."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings

from market.models import Order
from market.money import Money
from market.services.orders import place_bid
from tests.api.conftest import assert_error
from tests.factories import ProblemFactory, VerifierFactory, VerifierVersionFactory
from tests.market.helpers import snapshot
from verifiers.models import Language
from verifiers.selectors import judge_is_warm


@pytest.fixture
def warm_keys():
    """The judge worker's warm keys, set and removed as a worker would."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    for key in client.scan_iter(match="formalmarket:judge:warm:*"):
        client.delete(key)
    set_keys: list[str] = []

    def warm(language: str, host: str = "worker-1") -> None:
        key = f"formalmarket:judge:warm:{language}:{host}"
        client.set(key, "1", ex=60)
        set_keys.append(key)

    yield warm
    for key in set_keys:
        client.delete(key)
    client.close()


def test_the_problem_list_serves_the_best_bid_and_ask(world):
    place_bid(buyer=world.buyer, problem=world.problem, price=Money(700, "DEMO"), quantity=1)
    place_bid(buyer=world.other_solver, problem=world.problem, price=Money(800, "DEMO"), quantity=1)
    empty = ProblemFactory(title="Nobody trades here")
    body = world.client("anonymous").get("/api/v1/problems/").json()
    rows = {p["id"]: p for p in body["results"]}
    best_ask = (
        Order.objects.filter(problem=world.problem, side="ask", status="open")
        .order_by("price_minor")
        .values_list("price_minor", flat=True)
        .first()
    )
    assert (rows[world.problem.pk]["best_bid_minor"], rows[world.problem.pk]["best_ask_minor"]) == (
        800,
        best_ask,
    )
    assert best_ask is not None
    assert (rows[empty.pk]["best_bid_minor"], rows[empty.pk]["best_ask_minor"]) == (None, None)


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=-1",
        "limit=abc",
        "limit=1000",
        "limit=",
        "limit=2.5",
        "status=",
        "demo=",
        "demo=null",
        "demo=maybe",
        "language=",
        "currency=",
    ],
)
def test_query_values_outside_the_schema_are_400_in_the_envelope(world, query):
    error = assert_error(
        world.client("anonymous").get(f"/api/v1/problems/?{query}"), 400, "api:invalid"
    )
    assert list(error["fields"]) == [query.split("=")[0]]


@pytest.mark.parametrize(
    "path", ["/api/v1/orders/", "/api/v1/solutions/", "/api/v1/trades/", "/api/v1/account/ledger/"]
)
@pytest.mark.parametrize("query", ["limit=0", "limit=201", "limit=x", "status="])
def test_every_list_refuses_a_bad_limit_or_an_empty_filter(world, path, query):
    response = world.client("solver").get(f"{path}?{query}")
    if query == "status=" and path in ("/api/v1/trades/", "/api/v1/account/ledger/"):
        assert response.status_code == 200  # no status filter there: an unknown parameter
        return
    error = assert_error(response, 400, "api:invalid")
    assert list(error["fields"]) == [query.split("=")[0]]


def test_a_limit_in_range_still_pages_with_a_cursor(world):
    for n in range(3):
        ProblemFactory(title=f"Extra {n}")
    client = world.client("anonymous")
    first = client.get("/api/v1/problems/?limit=2").json()
    assert len(first["results"]) == 2 and first["next"]
    second = client.get(first["next"]).json()
    assert not {p["id"] for p in first["results"]} & {p["id"] for p in second["results"]}


@pytest.mark.parametrize(
    "body",
    [
        {"name": ""},
        {"name": "   "},
        {"name": "x", "username": ""},
        {"name": "x", "username": "someone", "password": ""},
    ],
)
def test_too_short_token_fields_are_400(world, body):
    before = snapshot()
    error = assert_error(
        world.client("anonymous").post("/api/v1/tokens/", body, format="json"), 400, "api:invalid"
    )
    assert error["fields"]
    assert snapshot() == before


@pytest.mark.usefixtures("no_lean_toolchain")
def test_a_lean_problem_does_not_accept_submissions_where_lean_cannot_be_judged(world):
    lean = ProblemFactory(title="Two plus two", slug="two-plus-two")
    VerifierVersionFactory(
        verifier=VerifierFactory(problem=lean, language=Language.LEAN, lean_project="core")
    )
    client = world.client("anonymous")
    [verifier] = client.get(f"/api/v1/problems/{lean.pk}/").json()["verifiers"]
    assert verifier["accepts_submissions"] is False
    assert "cannot judge Lean" in verifier["judge_note"]
    [python] = client.get(f"/api/v1/problems/{world.problem.pk}/").json()["verifiers"]
    assert python["accepts_submissions"] is True
    rows = {p["id"]: p for p in client.get("/api/v1/problems/").json()["results"]}
    assert rows[lean.pk]["verifiers"][0]["accepts_submissions"] is False


def test_judge_is_warm_reads_the_workers_keys(warm_keys):
    assert judge_is_warm("python") is False
    warm_keys("lean")
    assert judge_is_warm("python") is False
    warm_keys("python", "worker-7")
    assert judge_is_warm("python") is True


def test_the_api_says_the_judge_is_starting_until_a_worker_is_warm(world, warm_keys):
    client = world.client("anonymous")

    def python_note() -> str | None:
        body = client.get(f"/api/v1/problems/{world.problem.pk}/").json()
        return body["verifiers"][0]["judge_note"]

    assert "the judge is starting" in (python_note() or "")
    warm_keys("python")
    assert python_note() is None
