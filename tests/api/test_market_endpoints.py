"""Problems, books, trades, solutions, orders and the account: success and each refusal."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from market.models import AccountKind, Order, OrderStatus, Posting, Solution, SolutionStatus
from market.money import Currency, Money
from market.services.orders import place_bid
from tests.api.conftest import assert_error
from tests.factories import ProblemFactory, VerifierFactory, VerifierVersionFactory
from tests.market.conftest import funded
from tests.market.helpers import assert_ledger_invariants, balance, snapshot
from verifiers.models import Language, VerifierStatus

pytestmark = pytest.mark.django_db


# --- problems -------------------------------------------------------------------------------


def test_problem_list_filters(world):
    demo = ProblemFactory(is_demo=True, title="Factor 391", slug="factor-391")
    lean = ProblemFactory(title="Two plus two", slug="two-plus-two")
    VerifierVersionFactory(
        verifier=VerifierFactory(problem=lean, language=Language.LEAN, lean_project="core")
    )
    anon = world.client("anonymous")

    def ids(query: str) -> list[int]:
        response = anon.get(f"/api/v1/problems/{query}")
        assert response.status_code == 200, response.content
        return [p["id"] for p in response.json()["results"]]

    assert ids("") == [lean.pk, demo.pk, world.problem.pk]
    assert ids("?demo=true") == [demo.pk]
    assert ids("?language=lean") == [lean.pk]
    assert ids("?language=python") == [world.problem.pk]
    assert ids("?currency=USD") == []
    assert ids("?q=391") == [demo.pk]
    assert ids("?status=retired") == []
    assert ids("?limit=1")[0] == lean.pk
    assert_error(anon.get("/api/v1/problems/?status=draft"), 400, "api:invalid")
    assert_error(anon.get("/api/v1/problems/?language=cobol"), 400, "api:invalid")


def test_problem_list_is_cursor_paginated(world):
    for n in range(3):
        ProblemFactory(slug=f"p-{n}")
    anon = world.client("anonymous")
    first = anon.get("/api/v1/problems/?limit=2").json()
    assert len(first["results"]) == 2 and first["next"]
    second = anon.get(first["next"]).json()
    seen = [p["id"] for p in first["results"] + second["results"]]
    assert len(seen) == len(set(seen)) == 4


def test_problem_detail_has_statement_verifiers_and_best_prices(world):
    body = world.client("anonymous").get(f"/api/v1/problems/{world.problem.pk}/").json()
    assert body["statement_md"] == "Say **yes**."
    assert body["best_bid_minor"] is None  # the buyer's bid filled
    assert body["best_ask_minor"] == 900
    [verifier] = body["verifiers"]
    assert verifier["language"] == "python"
    assert verifier["active_version"]["solution_format"] == "the word yes"
    assert verifier["active_version"]["time_limit_s"] == 10.0
    assert verifier["active_version"]["memory_limit_mb"] == 256


def test_missing_problem_is_404(world):
    assert_error(world.client("anonymous").get("/api/v1/problems/999999/"), 404, "not-found")
    huge = "/api/v1/problems/99999999999999999999999/"
    assert_error(world.client("anonymous").get(huge), 404, "not-found")


def test_order_book_depth_by_price_level_with_sequence_and_etag(world):
    place_bid(buyer=world.other_solver, problem=world.problem, price=Money(300, "DEMO"), quantity=2)
    place_bid(buyer=world.buyer, problem=world.problem, price=Money(300, "DEMO"), quantity=1)
    # One open bid per buyer and problem: the solver bids too (below its own ask at 900).
    place_bid(buyer=world.solver, problem=world.problem, price=Money(200, "DEMO"), quantity=4)
    world.problem.refresh_from_db()
    anon = world.client("anonymous")
    response = anon.get(f"/api/v1/problems/{world.problem.pk}/book/")
    assert response.status_code == 200
    assert response.json() == {
        "problem": world.problem.pk,
        "currency": "DEMO",
        "sequence": world.problem.book_sequence,
        "bids": [
            {"price_minor": 300, "quantity": 3, "order_count": 2},
            {"price_minor": 200, "quantity": 4, "order_count": 1},
        ],
        "asks": [{"price_minor": 900, "quantity": 4, "order_count": 1}],
    }
    etag = response["ETag"]
    again = anon.get(f"/api/v1/problems/{world.problem.pk}/book/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    place_bid(buyer=funded(), problem=world.problem, price=Money(100, "DEMO"), quantity=1)
    changed = anon.get(f"/api/v1/problems/{world.problem.pk}/book/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed.json()["sequence"] == world.problem.book_sequence + 1
    depth_one = anon.get(f"/api/v1/problems/{world.problem.pk}/book/?depth=1").json()
    assert len(depth_one["bids"]) == 1
    assert_error(anon.get(f"/api/v1/problems/{world.problem.pk}/book/?depth=0"), 400, "api:invalid")


def test_recent_trades_show_price_and_no_identities(world):
    body = world.client("anonymous").get(f"/api/v1/problems/{world.problem.pk}/trades/").json()
    [trade] = body["results"]
    assert trade["price_minor"] == 1_000 and trade["currency"] == "DEMO"
    assert trade["maker_side"] == "bid"
    assert set(trade) == {"id", "price_minor", "currency", "maker_side", "created_at"}


def test_verifier_source_only_when_public(world):
    anon = world.client("anonymous")
    url = f"/api/v1/verifiers/{world.verifier.pk}/"
    assert anon.get(url).json()["source"] is None
    world.verifier.is_source_public = True
    world.verifier.save(update_fields=["is_source_public"])
    body = anon.get(url).json()
    assert body["source"] == world.version.source
    assert [v["sha256"] for v in body["versions"]] == [world.version.sha256]


# --- solutions ------------------------------------------------------------------------------


def test_submit_text_returns_202_with_the_solution_url(world, django_capture_on_commit_callbacks):
    client = world.client("other_solver")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            "/api/v1/solutions/", {"verifier": world.verifier.pk, "text": "yes"}, format="json"
        )
    assert response.status_code == 202, response.content
    body = response.json()
    solution = Solution.objects.get(pk=body["id"])
    assert (
        response["Location"] == body["url"] == f"http://testserver/api/v1/solutions/{solution.pk}/"
    )
    assert (solution.solver, solution.verifier_version, solution.status) == (
        world.other_solver,
        world.version,
        SolutionStatus.PENDING,
    )
    assert body["status"] == "pending" and body["verdict"] is None and body["text"] == "yes"
    assert len(callbacks) == 1  # the judge task is enqueued on commit
    detail = client.get(body["url"])
    assert detail.status_code == 200 and detail.json()["id"] == solution.pk


def test_submit_file_upload(world):
    upload = SimpleUploadedFile("answer.txt", b"yes\n", content_type="text/plain")
    response = world.client("other_solver").post(
        "/api/v1/solutions/", {"verifier": world.verifier.pk, "file": upload}, format="multipart"
    )
    assert response.status_code == 202, response.content
    assert Solution.objects.get(pk=response.json()["id"]).text == "yes\n"


def test_submit_refuses_over_64_kb_and_changes_nothing(world):
    client = world.client("other_solver")
    count = Solution.objects.count()
    big = "y" * 65_537
    assert_error(
        client.post("/api/v1/solutions/", {"verifier": world.verifier.pk, "text": big}, "json"),
        400,
        "market:invalid-solution",
    )
    upload = SimpleUploadedFile("a.txt", big.encode())
    error = assert_error(
        client.post(
            "/api/v1/solutions/", {"verifier": world.verifier.pk, "file": upload}, "multipart"
        ),
        400,
        "api:invalid",
    )
    assert "file" in error["fields"]
    assert Solution.objects.count() == count


def test_submit_refuses_a_nul_character_instead_of_failing(world):
    count = Solution.objects.count()
    upload = SimpleUploadedFile("a.txt", b"yes\x00")
    response = world.client("other_solver").post(
        "/api/v1/solutions/", {"verifier": world.verifier.pk, "file": upload}, format="multipart"
    )
    error = assert_error(response, 400, "market:invalid-solution")
    assert "NUL" in error["message"]
    assert Solution.objects.count() == count


def test_submit_refusals(world):
    client = world.client("other_solver")
    count = Solution.objects.count()
    assert_error(
        client.post("/api/v1/solutions/", {"verifier": world.verifier.pk}, "json"),
        400,
        "api:invalid",
    )
    assert_error(
        client.post("/api/v1/solutions/", {"verifier": 987654, "text": "yes"}, "json"),
        404,
        "not-found",
    )
    draft = VerifierFactory(problem=ProblemFactory(status="draft"), status=VerifierStatus.DRAFT)
    assert_error(
        client.post("/api/v1/solutions/", {"verifier": draft.pk, "text": "y"}, "json"),
        404,
        "not-found",
    )
    world.version.is_active = False
    world.version.save(update_fields=["is_active"])
    assert_error(
        client.post("/api/v1/solutions/", {"verifier": world.verifier.pk, "text": "y"}, "json"),
        409,
        "market:submissions-closed",
    )
    assert_error(
        client.post("/api/v1/solutions/", "[1]", content_type="application/json"),
        400,
        "api:invalid",
    )
    assert_error(
        client.post("/api/v1/solutions/", "{", content_type="application/json"),
        400,
        "api:parse-error",
    )
    assert Solution.objects.count() == count


def test_list_my_solutions_without_text(world):
    body = world.client("solver").get("/api/v1/solutions/").json()
    assert [(s["id"], s["status"], s["text"]) for s in body["results"]] == [
        (world.solution.pk, "accepted", None)
    ]
    filtered = world.client("solver").get("/api/v1/solutions/?status=pending").json()
    assert filtered["results"] == []


def test_status_polling_with_etag(world):
    client = world.client("solver")
    url = f"/api/v1/solutions/{world.solution.pk}/status/"
    first = client.get(url)
    assert first.json()["verdict"]["verdict"] == "ACCEPTED"
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert len(queries) == 2  # the token lookup and the access check, nothing else
    detail = client.get(f"/api/v1/solutions/{world.solution.pk}/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert detail.status_code == 304


# --- orders, trades, account ----------------------------------------------------------------


def test_place_bid_holds_funds_and_fills_against_the_ask(world):
    client = world.client("other_solver")
    response = client.post(
        "/api/v1/orders/",
        {
            "problem": world.problem.pk,
            "side": "bid",
            "price_minor": 950,
            "currency": "DEMO",
            "quantity": 2,
            "client_order_id": "my-bid-1",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["side"], body["quantity"], body["remaining"], body["status"]) == (
        "bid",
        2,
        1,
        "open",
    )
    assert [(f["price_minor"], f["fee_minor"]) for f in body["fills"]] == [(900, 45)]
    assert body["client_order_id"] == "my-bid-1"
    assert response["Location"].endswith(f"/api/v1/orders/{body['id']}/")
    assert balance(world.other_solver) == 10_000 - 900 - 950
    assert balance(world.other_solver, AccountKind.HELD) == 950
    replay = client.post(
        "/api/v1/orders/",
        {
            "problem": world.problem.pk,
            "side": "bid",
            "price_minor": 950,
            "currency": "DEMO",
            "quantity": 2,
            "client_order_id": "my-bid-1",
        },
        format="json",
    )
    assert replay.status_code == 201 and replay.json()["id"] == body["id"]
    assert Order.objects.filter(owner=world.other_solver).count() == 1
    assert_ledger_invariants()


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        (
            {"side": "bid", "price_minor": 900_000, "currency": "DEMO"},
            402,
            "market:insufficient-funds",
        ),
        ({"side": "bid", "price_minor": 100, "currency": "USD"}, 400, "market:currency-mismatch"),
        ({"side": "bid", "price_minor": 0, "currency": "DEMO"}, 400, "api:invalid"),
        (
            {"side": "bid", "price_minor": 100, "currency": "DEMO", "quantity": 0},
            400,
            "api:invalid",
        ),
        (
            {"side": "bid", "price_minor": 100, "currency": "DEMO", "quantity": 5000},
            400,
            "market:invalid-order",
        ),
        (
            {"side": "bid", "price_minor": 100, "currency": "DEMO", "solution": 1},
            400,
            "api:invalid",
        ),
        ({"side": "ask", "price_minor": 100, "currency": "DEMO"}, 400, "api:invalid"),
        ({"side": "sell", "price_minor": 100, "currency": "DEMO"}, 400, "api:invalid"),
        ({"side": "bid", "price_minor": "1.5", "currency": "DEMO"}, 400, "api:invalid"),
        (
            {"side": "bid", "price_minor": 100, "currency": "DEMO", "client_order_id": "a b"},
            400,
            "api:invalid",
        ),
    ],
)
def test_place_order_refusals_change_nothing(world, payload, status, code):
    payload = {"problem": world.problem.pk, **payload}
    before = snapshot()
    response = world.client("other_solver").post("/api/v1/orders/", payload, format="json")
    assert_error(response, status, code)
    assert snapshot() == before


def test_ask_refusals(world):
    pending = Solution.objects.create(
        problem=world.problem,
        verifier_version=world.version,
        solver=world.other_solver,
        text="maybe",
        sha256="0" * 64,
        size_bytes=5,
    )
    before = snapshot()
    other = world.client("other_solver")
    ask = {"side": "ask", "price_minor": 100, "currency": "DEMO"}
    assert_error(
        other.post("/api/v1/orders/", {**ask, "solution": pending.pk}, "json"),
        409,
        "market:solution-not-accepted",
    )
    # Someone else's ACCEPTED solution: indistinguishable from a missing one.
    assert_error(
        other.post("/api/v1/orders/", {**ask, "solution": world.solution.pk}, "json"),
        404,
        "not-found",
    )
    assert snapshot() == before


def test_a_second_bid_and_a_self_trade_are_409_naming_the_resting_order(world):
    """One open bid per buyer and problem; no order that crosses its owner's own order."""
    bid = {"problem": world.problem.pk, "side": "bid", "currency": "DEMO", "quantity": 1}
    other = world.client("other_solver")
    resting = other.post("/api/v1/orders/", {**bid, "price_minor": 100}, "json").json()
    own_ask = Order.objects.get(owner=world.solver, status=OrderStatus.OPEN)
    before = snapshot()
    error = assert_error(
        other.post("/api/v1/orders/", {**bid, "price_minor": 200}, "json"),
        409,
        "market:bid-already-open",
    )
    assert f"order {resting['id']}" in error["message"]
    assert error["fields"] == {"problem": [f"already has your open bid {resting['id']}"]}
    error = assert_error(
        world.client("solver").post("/api/v1/orders/", {**bid, "price_minor": 950}, "json"),
        409,
        "market:self-trade",
    )
    assert f"Cancel order {own_ask.pk} first" in error["message"]
    assert snapshot() == before


def test_cancel_releases_the_hold_and_a_second_cancel_is_refused(world):
    order = place_bid(
        buyer=world.other_solver, problem=world.problem, price=Money(500, Currency.DEMO), quantity=2
    )
    client = world.client("other_solver")
    response = client.post(f"/api/v1/orders/{order.pk}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert balance(world.other_solver) == 10_000
    assert balance(world.other_solver, AccountKind.HELD) == 0
    before = snapshot()
    assert_error(client.post(f"/api/v1/orders/{order.pk}/cancel/"), 409, "market:order-not-open")
    assert snapshot() == before


def test_list_my_orders_with_fills_and_filters(world):
    client = world.client("buyer")
    body = client.get("/api/v1/orders/").json()
    [bid] = body["results"]
    assert (bid["side"], bid["status"], len(bid["fills"])) == ("bid", "filled", 1)
    assert client.get("/api/v1/orders/?status=open").json()["results"] == []
    assert_error(client.get("/api/v1/orders/?status=nope"), 400, "api:invalid")


def test_balances_per_currency_available_and_held(world):
    place_bid(buyer=world.other_solver, problem=world.problem, price=Money(100, "DEMO"), quantity=3)
    body = world.client("other_solver").get("/api/v1/account/balances/").json()
    demo = {"currency": "DEMO", "available_minor": 9_700, "held_minor": 300, "pending_minor": 0}
    usd = {"currency": "USD", "available_minor": 0, "held_minor": 0, "pending_minor": 0}
    assert body == [
        {**demo, "enabled": True, "note": None},
        {**usd, "enabled": False, "note": body[1]["note"]},
    ]
    assert "USD is disabled on this server" in body[1]["note"]


def test_ledger_history_is_cursor_paginated_and_complete(world):
    client = world.client("buyer")
    expected = list(
        Posting.objects.filter(account__owner=world.buyer)
        .order_by("-id")
        .values_list("id", "amount_minor")
    )
    assert len(expected) >= 4
    seen, url = [], "/api/v1/account/ledger/?limit=2"
    while url:
        page = client.get(url).json()
        seen += [(e["id"], e["amount_minor"]) for e in page["results"]]
        url = page["next"]
    assert seen == expected
    kinds = {e["kind"] for e in client.get("/api/v1/account/ledger/").json()["results"]}
    assert kinds == {"demo_grant", "bid_hold", "trade"}
    assert client.get("/api/v1/account/ledger/?currency=USD").json()["results"] == []


def test_order_status_is_an_integer_money_everywhere(world):
    body = world.client("solver").get(f"/api/v1/orders/{world.ask.pk}/").json()
    assert isinstance(body["price_minor"], int) and body["currency"] == "DEMO"
    assert Order.objects.get(pk=world.ask.pk).status == OrderStatus.OPEN
