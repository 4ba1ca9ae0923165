"""Activity and webhook API shapes. Money in ``data`` is integer minor units + currency."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from activity.models import Event, EventKind, WebhookDelivery, WebhookEndpoint
from activity.selectors import describe_event, parse_cursor

MAX_ID = 2**63 - 1


class EventSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="For mark-as-read (`up_to`).")
    event_id = serializers.CharField(help_text="`evt_<id>`: the same in webhook deliveries.")
    type = serializers.ChoiceField(choices=EventKind.choices, source="kind")
    created_at = serializers.DateTimeField()
    message = serializers.SerializerMethodField()
    is_read = serializers.SerializerMethodField()
    data = serializers.JSONField(
        source="payload",
        help_text="problem_id/title/slug; solution.judged: solution_id, status, verdict, "
        "reason, detail, seed; ask.filled/bid.filled: trade_id, order_id, solution_id, "
        "price_minor, currency (+ fee_minor, net_minor for the seller); bid.arrived: "
        "order_id, price_minor, currency, quantity; sale.disputed/sale.reversed/"
        "sale.restored (a USD sale taken back or given back because the buyer's payment was "
        "disputed or refunded): trade_id, solution_id, price_minor, currency, reversed_minor, "
        "source, status, message.",
    )

    def get_message(self, event: Event) -> str:
        return describe_event(event)

    def get_is_read(self, event: Event) -> bool:
        return bool(event.pk <= self.context.get("last_read_id", 0))


class ActivityPageSerializer(serializers.Serializer):
    results = EventSerializer(many=True)
    cursor = serializers.CharField(
        help_text="Opaque: the position after the last event returned (or the `after` "
        "given); pass it as the next `after`."
    )
    has_more = serializers.BooleanField()
    unread_count = serializers.IntegerField(help_text="Capped at 100.")
    last_read_id = serializers.IntegerField()


class ActivityParamsSerializer(serializers.Serializer):
    after = serializers.CharField(
        required=False,
        max_length=40,
        help_text="A `cursor` from a previous answer, or `0` for the beginning.",
    )

    def validate_after(self, value: str) -> Any:
        cursor = parse_cursor(value)
        if cursor is None:
            raise serializers.ValidationError("not a cursor: give `0` or a previous `cursor`")
        return cursor

    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50)


class MarkReadSerializer(serializers.Serializer):
    up_to = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_ID, help_text="Default: every event."
    )


class MarkReadResultSerializer(serializers.Serializer):
    last_read_id = serializers.IntegerField()
    unread_count = serializers.IntegerField()


class WebhookEndpointSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()


class WebhookEndpointCreatedSerializer(WebhookEndpointSerializer):
    secret = serializers.CharField(
        allow_null=True,
        help_text="The signing secret, shown in this response only (null on a replay).",
    )


class WebhookCreateSerializer(serializers.Serializer):
    url = serializers.CharField(max_length=500)
    description = serializers.CharField(max_length=100, required=False, allow_blank=True)


class WebhookDeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event_id = serializers.SerializerMethodField()
    type = serializers.CharField(source="event.kind")
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)

    def get_event_id(self, delivery: WebhookDelivery) -> str:
        return f"evt_{delivery.event_id}"


def endpoint_data(endpoint: WebhookEndpoint) -> dict[str, Any]:
    return dict(WebhookEndpointSerializer(endpoint).data)
