"""Bad input found in review: each is a 4xx in the error envelope, never a 500, and changes
nothing."""

from __future__ import annotations

import json

import pytest

from market.api.parsers import MAX_DEPTH, nesting_depth
from market.models import Order
from tests.api.conftest import assert_error
from tests.market.helpers import snapshot

ENDPOINTS = [
    "/api/v1/me/",
    "/api/v1/tokens/",
    "/api/v1/tokens/{t}/",
    "/api/v1/problems/",
    "/api/v1/problems/{p}/",
    "/api/v1/problems/{p}/book/",
    "/api/v1/problems/{p}/trades/",
    "/api/v1/verifiers/{v}/",
    "/api/v1/solutions/",
    "/api/v1/solutions/{s}/",
    "/api/v1/solutions/{s}/status/",
    "/api/v1/orders/",
    "/api/v1/orders/{o}/",
    "/api/v1/orders/{o}/cancel/",
    "/api/v1/trades/",
    "/api/v1/account/balances/",
    "/api/v1/account/ledger/",
    "/api/v1/author/problems/",
    "/api/v1/author/problems/{p}/",
    "/api/v1/author/problems/{p}/publish/",
    "/api/v1/author/problems/{p}/retire/",
    "/api/v1/author/problems/{p}/verifiers/",
    "/api/v1/author/verifiers/{v}/",
    "/api/v1/author/verifiers/{v}/dry-runs/",
    "/api/v1/author/verifiers/{v}/publish/",
    "/api/v1/author/verifiers/{v}/retire/",
]


def _paths(world) -> list[str]:
    ids = {"p": world.problem.pk, "v": world.verifier.pk, "s": world.solution.pk}
    ids |= {"o": world.ask.pk, "t": 1}
    return [path.format(**ids) for path in ENDPOINTS]


@pytest.mark.parametrize("persona", ["anonymous", "author", "solver"])
def test_options_describes_every_endpoint_without_a_server_error(world, persona):
    # Before: DRF's SimpleMetadata asked these views for a serializer_class -> 500.
    client = world.client(persona)
    for path in _paths(world):
        response = client.options(path)
        if persona == "anonymous" and response.status_code in (401, 403):
            assert set(response.json()) == {"error"}, path
            continue
        assert response.status_code == 200, (path, response.content)
        body = response.json()
        assert body["schema"] == "/api/schema/"
        assert "application/json" in body["parses"]


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        # an object holding MAX_DEPTH nested lists: MAX_DEPTH + 1 levels
        '{"side": "bid", "price_minor": 100, "x": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}",
    ],
    ids=["deep-array", "deep-object", "just-over-the-bound"],
)
def test_deeply_nested_json_is_a_parse_error_not_a_500(world, body):
    before = snapshot()
    orders = Order.objects.count()
    response = world.client("buyer").post(
        "/api/v1/orders/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="deep"
    )
    error = assert_error(response, 400, "api:parse-error")
    assert f"nested deeper than {MAX_DEPTH} levels" in error["message"]
    assert snapshot() == before
    assert Order.objects.count() == orders


def test_nesting_depth_is_measured_without_recursion():
    assert nesting_depth(1) == 0
    assert nesting_depth({"a": [1, {"b": []}]}) == 4
    assert nesting_depth([[]] * 3) == 2
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    assert nesting_depth(deep) == MAX_DEPTH + 1  # stops counting once over the bound


def test_moderately_nested_json_still_parses(world):
    body = {"problem": world.problem.pk, "side": "bid", "price_minor": 10, "currency": "DEMO"}
    inner: list = []
    for _ in range(MAX_DEPTH - 2):
        inner = [inner]
    body["note"] = inner  # exactly MAX_DEPTH levels with the object around it
    response = world.client("buyer").post("/api/v1/orders/", body, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("price_minor", 100.0),
        ("price_minor", 1e2),
        ("price_minor", 100.5),
        ("price_minor", True),
        ("price_minor", " 100"),
        ("price_minor", "1e2"),
        ("price_minor", "100.0"),
        ("price_minor", -100),
        ("price_minor", 0),
        ("price_minor", 2**63),
        ("price_minor", 10**400),
        ("price_minor", None),
        ("price_minor", [100]),
        ("price_minor", {"amount": 100}),
        ("quantity", 1.0),
        ("quantity", True),
        ("quantity", "1.0"),
        ("quantity", 0),
        ("quantity", -1),
        ("quantity", 2**31),
    ],
)
def test_money_and_quantities_are_integers_only(world, field, value):
    # Before: 100.0, 1e2, " 100", "100.0" and a quantity of 1.0 were silently taken as integers.
    payload = {"problem": world.problem.pk, "side": "bid", "price_minor": 100, "currency": "DEMO"}
    payload[field] = value
    before = snapshot()
    orders = Order.objects.count()
    response = world.client("buyer").post(
        "/api/v1/orders/", json.dumps(payload), content_type="application/json"
    )
    error = assert_error(response, 400, "api:invalid")
    assert list(error["fields"]) == [field]
    assert snapshot() == before
    assert Order.objects.count() == orders


def test_a_form_post_may_still_send_digit_strings(world):
    response = world.client("buyer").post(
        "/api/v1/orders/",
        {"problem": world.problem.pk, "side": "bid", "price_minor": "10", "currency": "DEMO"},
    )
    assert response.status_code == 201, response.content
    assert response.json()["price_minor"] == 10


def test_a_bid_whose_total_would_overflow_bigint_is_refused_cleanly(world):
    # price_minor x quantity = (2**63 - 1) x (2**31 - 1): far beyond a bigint.
    payload = {
        "problem": world.problem.pk,
        "side": "bid",
        "price_minor": 2**63 - 1,
        "currency": "DEMO",
        "quantity": 2**31 - 1,
    }
    before = snapshot()
    response = world.client("buyer").post("/api/v1/orders/", payload, format="json")
    error = assert_error(response, 400, "market:invalid-order")
    assert set(error["fields"]) == {"price_minor", "quantity"}
    # The limit is said with its decimals, never in raw minor units.
    assert error["fields"]["price_minor"] == ["at most 1,000,000.00 DEMO per copy"]
    assert "100000000" not in response.content.decode()
    assert snapshot() == before


@pytest.fixture
def no_temporary_upload_files(monkeypatch):
    from django.core.files import uploadedfile

    def refuse(*args, **kwargs):
        raise AssertionError("an upload was spooled to a temporary file on disk")

    monkeypatch.setattr(uploadedfile.TemporaryUploadedFile, "__init__", refuse)


def test_a_huge_upload_is_never_spooled_to_disk_and_reports_its_true_size(
    world, no_temporary_upload_files
):
    # Before: Django's default handlers wrote any upload over 2.5 MB to a temporary file,
    # unbounded. Now at most 64 KB + 1 byte of a file part is kept, in memory.
    from django.core.files.uploadedfile import SimpleUploadedFile

    from market.models import Solution

    size = 5 * 1024 * 1024
    upload = SimpleUploadedFile("big.txt", b"y" * size, content_type="text/plain")
    solutions = Solution.objects.count()
    response = world.client("other_solver").post(
        "/api/v1/solutions/", {"verifier": world.verifier.pk, "file": upload}, format="multipart"
    )
    error = assert_error(response, 400, "api:invalid")
    assert error["fields"] == {"file": [f"at most 65536 bytes; this is {size}"]}
    assert Solution.objects.count() == solutions


def test_an_anonymous_multipart_post_to_a_page_is_not_spooled_to_disk(
    db, no_temporary_upload_files
):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client

    upload = SimpleUploadedFile("big.bin", b"\0" * (4 * 1024 * 1024))
    client = Client(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = "x" * 32  # any cookie: the middleware then reads the body
    response = client.post("/login/", {"f": upload})
    assert response.status_code == 403  # the CSRF check read the body, in memory


def test_an_upload_of_exactly_64_kb_is_accepted_whole(world, no_temporary_upload_files):
    from django.core.files.uploadedfile import SimpleUploadedFile

    text = "z" * 65536
    upload = SimpleUploadedFile("ok.txt", text.encode(), content_type="text/plain")
    response = world.client("other_solver").post(
        "/api/v1/solutions/", {"verifier": world.verifier.pk, "file": upload}, format="multipart"
    )
    assert response.status_code == 202, response.content
    assert response.json()["size_bytes"] == 65536
    assert response.json()["text"] == text
