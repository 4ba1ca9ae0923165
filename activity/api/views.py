"""Activity and webhook endpoints: each parses input, makes one service or selector call."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from activity import selectors
from activity.api import serializers as s
from activity.services.events import mark_read
from activity.services.webhooks import (
    create_webhook_endpoint,
    get_own_endpoint,
    remove_webhook_endpoint,
)
from market.api.idempotency import idempotent
from market.api.views import (
    IF_NONE_MATCH,
    NOT_MODIFIED,
    ListView,
    _not_modified,
    _params,
    parse_body,
)


class ActivityView(GenericAPIView):
    pagination_class = None

    @extend_schema(
        parameters=[s.ActivityParamsSerializer, IF_NONE_MATCH],
        responses={200: s.ActivityPageSerializer, 304: NOT_MODIFIED},
        summary="My activity after a cursor, oldest first (ETag: 304 when nothing changed)",
        description="Without `after`: the newest `limit` events. With `after=<cursor>`: the "
        "events after it. Keep `cursor` from each answer and pass it as `after` next time; "
        "send the answer's ETag as If-None-Match to get a bodiless 304 until something new.",
    )
    def get(self, request: Request) -> Response:
        params = _params(s.ActivityParamsSerializer, request)
        user_id = request.user.pk
        after, limit = params.get("after"), params["limit"]
        events = selectors.list_events_after(user_id=user_id, after=after, limit=limit + 1)
        has_more = after is not None and len(events) > limit
        events = events[:limit] if after is not None else events[-limit:]
        last = events[-1] if events else None
        cursor = (last.txid, last.pk) if last else (after or (0, 0))
        last_read = selectors.get_last_read_id(user_id=user_id)
        unread = selectors.count_unread(user_id=user_id)
        # The tag names exactly what the body holds: a 304 only when nothing in it changed.
        etag = selectors.activity_etag(
            user_id, [e.pk for e in events], cursor, has_more, last_read, unread
        )
        if (not_modified := _not_modified(request, etag)) is not None:
            return not_modified
        context = {"last_read_id": last_read}
        body = {
            "results": s.EventSerializer(events, many=True, context=context).data,
            "cursor": selectors.format_cursor(cursor),
            "has_more": has_more,
            "unread_count": unread,
            "last_read_id": last_read,
        }
        return Response(body, headers={"ETag": etag})


class ActivityReadView(GenericAPIView):
    @extend_schema(
        request=s.MarkReadSerializer,
        responses={200: s.MarkReadResultSerializer},
        summary="Mark my events as read, up to an id (default: all)",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = parse_body(s.MarkReadSerializer, request)
        last_read = mark_read(user_id=request.user.pk, up_to_id=data.get("up_to"))
        unread = selectors.count_unread(user_id=request.user.pk)
        return Response({"last_read_id": last_read, "unread_count": unread})


class WebhookListView(ListView):
    @extend_schema(responses=s.WebhookEndpointSerializer(many=True), summary="My webhook endpoints")
    def get(self, request: Request) -> Response:
        return self.paginated(
            selectors.list_user_endpoints(user_id=request.user.pk), s.WebhookEndpointSerializer
        )

    @extend_schema(
        request=s.WebhookCreateSerializer,
        responses={201: s.WebhookEndpointCreatedSerializer},
        summary="Register a webhook endpoint (the signing secret is shown once)",
        description="Each event after this moment is POSTed to the URL as JSON, signed in "
        "the `FormalMarket-Signature: t=<unix>,v1=<hex>` header (HMAC-SHA256 of "
        "`<t>.<body>` with the secret); retried with exponential backoff until a 2xx. "
        "The URL must be https:// on a public address. At most 5 endpoints.",
    )
    @idempotent(secret_fields=("secret",))
    def post(self, request: Request) -> Response:
        data = parse_body(s.WebhookCreateSerializer, request)
        endpoint = create_webhook_endpoint(
            user=request.user, url=data["url"], description=data.get("description", "")
        )
        body = {**s.endpoint_data(endpoint), "secret": endpoint.secret}
        return Response(body, status=status.HTTP_201_CREATED)


class WebhookDetailView(GenericAPIView):
    @extend_schema(responses={200: s.WebhookEndpointSerializer}, summary="A webhook endpoint")
    def get(self, request: Request, pk: int) -> Response:
        endpoint = get_own_endpoint(user=request.user, endpoint_id=pk)
        return Response(s.endpoint_data(endpoint))

    @extend_schema(responses={200: s.WebhookEndpointSerializer}, summary="Remove an endpoint")
    @idempotent
    def delete(self, request: Request, pk: int) -> Response:
        endpoint = remove_webhook_endpoint(user=request.user, endpoint_id=pk)
        return Response(s.endpoint_data(endpoint))


class WebhookDeliveryListView(ListView):
    @extend_schema(
        responses=s.WebhookDeliverySerializer(many=True),
        summary="The delivery log of one of my endpoints, newest first",
    )
    def get(self, request: Request, pk: int) -> Response:
        endpoint = get_own_endpoint(user=request.user, endpoint_id=pk)
        return self.paginated(
            selectors.list_endpoint_deliveries(endpoint=endpoint), s.WebhookDeliverySerializer
        )
