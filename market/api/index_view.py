"""``GET /api/v1/``: an index of the resources, so a program (or a person) can find its way."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

# (name, path relative to /api/v1/, who may call it, what it is)
RESOURCES: list[tuple[str, str, str, str]] = [
    ("me", "me/", "user", "the authenticated user"),
    ("tokens", "tokens/", "user", "API tokens: list, create (key shown once), revoke"),
    ("problems", "problems/", "anyone", "published problems; each has book/ and trades/"),
    ("verifiers", "verifiers/{id}/", "anyone", "a verifier and its versions"),
    ("solutions", "solutions/", "user", "submit and list my solutions; {id}/status/ to poll"),
    ("orders", "orders/", "user", "place bids and asks; {id}/cancel/"),
    ("trades", "trades/", "user", "my trades"),
    ("balances", "account/balances/", "user", "my balances per currency"),
    ("ledger", "account/ledger/", "user", "my ledger postings"),
    ("activity", "activity/", "user", "my events after a cursor; activity/read/ to mark read"),
    ("webhooks", "webhooks/", "user", "signed webhook endpoints and their delivery logs"),
    ("author_problems", "author/problems/", "user", "authoring: my problems and verifiers"),
    ("payments", "payments/", "user", "USD deposits and withdrawals (when Stripe is set up)"),
]


class ApiIndexView(GenericAPIView):
    permission_classes = [AllowAny]
    pagination_class = None

    @extend_schema(
        summary="An index of the API's resources",
        responses=inline_serializer(
            "ApiIndex",
            {
                "version": serializers.CharField(),
                "schema": serializers.CharField(),
                "docs": serializers.CharField(),
                "authentication": serializers.CharField(),
                "resources": serializers.DictField(child=serializers.DictField()),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        base = request.build_absolute_uri("/api/v1/")
        resources: dict[str, Any] = {
            name: {"url": base + rel, "auth": who, "description": what}
            for name, rel, who, what in RESOURCES
        }
        return Response(
            {
                "version": "1",
                "schema": request.build_absolute_uri("/api/schema/"),
                "docs": request.build_absolute_uri("/api/docs/"),
                "authentication": "Authorization: Token <key> (create one at /account/tokens/)",
                "resources": resources,
            }
        )
