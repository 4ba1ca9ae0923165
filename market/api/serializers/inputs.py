"""Input validation of the market's endpoints: filters, solutions, orders, tokens."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers
from rest_framework.fields import empty

from market.api.errors import ApiError
from market.api.serializers.fields import (
    MAX_ID,
    FiniteFloatField,
    StrictIntegerField,
    id_field,
)
from market.models import (
    OrderSide,
    OrderStatus,
    ProblemStatus,
    SolutionStatus,
)
from market.models.problems import MAX_SOLUTION_BYTES
from market.money import Currency, format_minor
from market.verdict_waits import MAX_WAIT_S
from verifiers.models import Language


class OptionalBooleanField(serializers.BooleanField):
    """true or false; absent is no filter (DRF reads an absent query value as a form's
    unticked checkbox, False) and ``null`` is refused like any other non-boolean."""

    default_empty_html = empty


class ProblemFilterSerializer(serializers.Serializer):
    language = serializers.ChoiceField(choices=Language.choices, required=False)
    demo = OptionalBooleanField(required=False, help_text="true or false")
    currency = serializers.ChoiceField(choices=Currency.choices, required=False)
    status = serializers.ChoiceField(
        choices=[ProblemStatus.PUBLISHED, ProblemStatus.RETIRED], required=False
    )
    q = serializers.CharField(required=False, max_length=200, allow_blank=True)


class SolutionFilterSerializer(serializers.Serializer):
    problem = id_field(required=False)
    status = serializers.ChoiceField(choices=SolutionStatus.choices, required=False)


class SolutionWaitSerializer(serializers.Serializer):
    wait = FiniteFloatField(
        min_value=0,
        max_value=MAX_WAIT_S,
        required=False,
        help_text=(
            f"Seconds (0 to {MAX_WAIT_S}) to hold the answer until the verdict: it comes as "
            "soon as the solution is accepted or rejected, or with the pending state when "
            "the time is up. A server without a free slot answers at once (poll again "
            "later). Default 0: answer at once."
        ),
    )


class OrderFilterSerializer(serializers.Serializer):
    problem = id_field(required=False)
    status = serializers.ChoiceField(choices=OrderStatus.choices, required=False)
    side = serializers.ChoiceField(choices=OrderSide.choices, required=False)


class TradeFilterSerializer(serializers.Serializer):
    problem = id_field(required=False)


class LedgerFilterSerializer(serializers.Serializer):
    currency = serializers.ChoiceField(choices=Currency.choices, required=False)


class SolutionCreateSerializer(serializers.Serializer):
    verifier = id_field(help_text="The verifier to judge against (its active version).")
    text = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="The solution text"
    )
    file = serializers.FileField(required=False, help_text="Or upload it (multipart)")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_text, has_file = "text" in attrs, "file" in attrs
        if has_text == has_file:
            raise serializers.ValidationError({"text": ["give exactly one of text or file"]})
        if has_file and attrs["file"].size > MAX_SOLUTION_BYTES:
            raise serializers.ValidationError(
                {"file": [f"at most {MAX_SOLUTION_BYTES} bytes; this is {attrs['file'].size}"]}
            )
        return attrs


class OrderCreateSerializer(serializers.Serializer):
    problem = id_field(required=False, help_text="Required for a bid")
    side = serializers.ChoiceField(choices=OrderSide.choices)
    price_minor = StrictIntegerField(
        min_value=1, max_value=MAX_ID, help_text="Integer minor units: 10.00 DEMO is 1000"
    )
    currency = serializers.ChoiceField(choices=Currency.choices)
    quantity = StrictIntegerField(min_value=1, max_value=2**31 - 1, default=1)
    solution = id_field(required=False, help_text="Required for an ask: your ACCEPTED solution")
    client_order_id = serializers.RegexField(
        r"^[A-Za-z0-9_:+=/.-]{1,64}$",
        required=False,
        help_text="Your own id: re-sending it returns the existing order",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # The market's limits, said here with the price's decimals (the order checks' own
        # message names minor units, which no person should have to read).
        limits: dict[str, list[str]] = {}
        max_price = settings.MARKET_MAX_PRICE_MINOR
        if attrs["price_minor"] > max_price:
            price_limit = format_minor(max_price, attrs["currency"])
            limits["price_minor"] = [f"at most {price_limit} per copy"]
            if attrs["quantity"] > settings.MARKET_MAX_ORDER_QUANTITY:
                limit = settings.MARKET_MAX_ORDER_QUANTITY
                limits["quantity"] = [f"must be at most {limit}"]
        if limits:
            raise ApiError(
                code="market:invalid-order", message="invalid order", status=400, fields=limits
            )
        if attrs["side"] == OrderSide.ASK and "solution" not in attrs:
            raise serializers.ValidationError({"solution": ["an ask needs your solution's id"]})
        if attrs["side"] == OrderSide.BID:
            if "problem" not in attrs:
                raise serializers.ValidationError({"problem": ["a bid needs a problem id"]})
            if "solution" in attrs:
                raise serializers.ValidationError({"solution": ["a bid has no solution"]})
        return attrs


class TokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    username = serializers.CharField(
        required=False, max_length=150, help_text="Only when not logged in"
    )
    password = serializers.CharField(
        required=False, max_length=1000, help_text="Only when not logged in"
    )
