"""The generated OpenAPI schema, and schemathesis property tests against the WSGI app.

Every operation is exercised with generated input, authenticated as a persona with data
(and anonymously for the public reads), and every response must be a non-5xx that matches the
schema: status code, content type, headers and body. Bounded to finish in well under 60 s.
"""

from __future__ import annotations

import os
import time

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from activity.services.webhooks import create_webhook_endpoint
from market.api.throttling import ReadThrottle, WriteThrottle
from market.api.tokens import create_api_token
from verifiers.models import DryRun, DryRunStatus

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# Raise it for a deeper hunt: SCHEMATHESIS_EXAMPLES=50 (the 60 s bound then does not apply).
EXAMPLES_PER_OPERATION = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "6"))


def test_schema_and_docs_are_served_with_local_assets(world):
    client = world.client("anonymous")
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/orders/" in paths and "/api/v1/author/verifiers/{id}/dry-runs/" in paths
    post = paths["/api/v1/orders/"]["post"]
    assert any(p["name"] == "Idempotency-Key" for p in post["parameters"])
    submit = paths["/api/v1/solutions/"]["post"]
    [wait] = [p for p in submit["parameters"] if p["name"] == "wait"]
    assert (wait["in"], wait["schema"]["maximum"]) == ("query", 30)
    assert "until the verdict" in submit["description"]
    assert post["responses"]["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower() and "https://" not in html


@pytest.fixture
def _keep_connection_open():
    """The raw WSGI app closes the database connection after each request (request_finished):
    that would close the test's transaction. Django's test client does the same as this."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.usefixtures("_keep_connection_open")
def test_schemathesis_finds_no_server_error_and_no_schema_violation(world, monkeypatch, settings):
    rates = {"read": "100000/min", "write": "100000/min"}
    monkeypatch.setattr(ReadThrottle, "THROTTLE_RATES", rates)
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", rates)
    _, solver_key = create_api_token(user=world.solver, name="schemathesis")
    _, author_key = create_api_token(user=world.author, name="schemathesis")
    spare_token, _ = create_api_token(user=world.solver, name="to be revoked")
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    webhook = create_webhook_endpoint(user=world.solver, url="http://127.0.0.1:9/hook")
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    # Real ids, so that generated requests also reach past the 404s into the views' logic.
    dry_run = DryRun.objects.create(
        verifier=world.verifier, fingerprint="0" * 64, status=DryRunStatus.DONE, summary="s"
    )
    real_ids = {
        "/api/v1/author/dry-runs/": dry_run.pk,
        "/api/v1/problems/": world.problem.pk,
        "/api/v1/verifiers/": world.verifier.pk,
        "/api/v1/solutions/": world.solution.pk,
        "/api/v1/orders/": world.ask.pk,
        "/api/v1/tokens/": spare_token.pk,
        "/api/v1/webhooks/": webhook.pk,
        "/api/v1/author/problems/": world.problem.pk,
        "/api/v1/author/verifiers/": world.verifier.pk,
    }
    started = time.monotonic()
    calls: dict[str, int] = {}
    statuses: dict[int, int] = {}

    for operation in operations:
        key = author_key if operation.path.startswith("/api/v1/author/") else solver_key
        auth = {"Authorization": f"Token {key}"}
        runs = [(GenerationMode.POSITIVE, auth, None), (GenerationMode.POSITIVE, {}, None)]
        runs.append((GenerationMode.NEGATIVE, auth, None))
        if "{id}" in operation.path:
            prefix = operation.path.split("{id}")[0]
            runs.append((GenerationMode.POSITIVE, auth, {"id": real_ids[prefix]}))
        for mode, headers, path_parameters in runs:
            strategy = operation.as_strategy(mode, path_parameters=path_parameters)
            try:
                _property_test(operation, strategy, headers, calls, statuses)()
            except Unsatisfiable:
                # No invalid input can be derived for an operation with nothing to negate
                # (a GET without parameters); positive runs cover it.
                assert mode == GenerationMode.NEGATIVE, operation.label

    # Its duration is printed, never asserted: timings belong in bench/, and a busy CI machine
    # would turn a time bound into a false failure.
    elapsed = time.monotonic() - started
    assert len(calls) == len(operations)
    print(
        f"schemathesis: {len(operations)} operations, {sum(calls.values())} calls in "
        f"{elapsed:.1f} s; statuses {dict(sorted(statuses.items()))}"
    )
    assert statuses.get(200, 0) > 0 and statuses.get(400, 0) > 0 and statuses.get(404, 0) > 0


def _property_test(operation, strategy, headers, calls, statuses):
    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    def run(case):
        response = case.call_and_validate(headers=headers, checks=CHECKS)
        calls[operation.label] = calls.get(operation.label, 0) + 1
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1

    return run
