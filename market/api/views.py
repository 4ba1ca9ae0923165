"""API views for solvers and buyers: each parses input, makes one service or selector call
(through an ``access_*`` fetcher for objects), and renders the result."""

from __future__ import annotations

import dataclasses
from typing import Any

from django.contrib.auth import authenticate
from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer

from market import access, selectors
from market.api import serializers as s
from market.api.idempotency import derived_client_order_id, idempotent
from market.api.tokens import create_api_token, list_api_tokens, revoke_api_token
from market.judge_state import judge_states
from market.login_guard import is_refused_unchecked, login_failure_window_s
from market.models import Order, OrderSide
from market.money import Currency, Money
from market.payments.stripe_client import usd_enabled
from market.services.orders import cancel_order, place_ask, place_bid
from verifiers import access as verifier_access


def _params(serializer_class: type[Serializer], request: Request) -> dict[str, Any]:
    """The validated query filters. An empty value (``?status=``) is refused like any other
    value outside the filter's schema, not read as "no filter"; omit the parameter instead."""
    params = serializer_class(data=request.query_params)
    empty = {
        name: ["may not be empty: omit the parameter for no filter"]
        for name, field in params.fields.items()
        if request.query_params.get(name) == "" and not getattr(field, "allow_blank", False)
    }
    if empty:
        raise exceptions.ValidationError(empty)
    params.is_valid(raise_exception=True)
    return dict(params.validated_data)


def parse_body(serializer_class: type[Serializer], request: Request) -> dict[str, Any]:
    if not hasattr(request.data, "get"):  # a JSON array or scalar instead of an object
        raise exceptions.ValidationError({"non_field_errors": ["expected a JSON object"]})
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def _not_modified(request: Request, etag: str) -> Response | None:
    """304 when the client's If-None-Match names ``etag`` (cheap polling)."""
    header = request.headers.get("If-None-Match", "")
    if etag in [tag.strip() for tag in header.split(",")] or header.strip() == "*":
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    return None


NOT_MODIFIED = OpenApiResponse(description="Not modified (If-None-Match matched the ETag)")
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False
)


class ListView(GenericAPIView):
    """A paginated list built from a selector's queryset."""

    def paginated(self, queryset: QuerySet[Any], serializer_class: type[Serializer]) -> Response:
        page = self.paginate_queryset(queryset)
        data = serializer_class(page, many=True, context=self.get_serializer_context()).data
        return self.get_paginated_response(data)


# --- identity -------------------------------------------------------------------------------


class MeView(GenericAPIView):
    @extend_schema(responses=s.MeSerializer, summary="The authenticated user")
    def get(self, request: Request) -> Response:
        return Response({"id": request.user.pk, "username": request.user.get_username()})


class TokenListView(ListView):
    permission_classes = [AllowAny]

    @extend_schema(responses=s.TokenSerializer(many=True), summary="My API tokens (no keys)")
    def get(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        return self.paginated(list_api_tokens(user=request.user), s.TokenSerializer)

    @extend_schema(
        request=s.TokenCreateSerializer,
        responses={201: s.TokenCreatedSerializer},
        summary="Create an API token (the key is shown once)",
        description="Logged in (session or token): give a name. Otherwise also give your "
        "username and password. With an Idempotency-Key, a replay answers `key: null`: the "
        "key is shown once and never stored.",
    )
    @idempotent(secret_fields=("key",))
    def post(self, request: Request) -> Response:
        data = parse_body(s.TokenCreateSerializer, request)
        user = request.user
        if not user.is_authenticated:
            if not data.get("username") or not data.get("password"):
                raise exceptions.NotAuthenticated("log in, or give username and password")
            # The login guard (market/login_guard.py) counts failures and refuses a locked
            # username or address before any password check.
            user = authenticate(request, username=data["username"], password=data["password"])
            if user is None and is_refused_unchecked(request):
                raise exceptions.Throttled(
                    wait=login_failure_window_s(),
                    detail="too many failed password attempts; try again later",
                )
            if user is None:
                raise exceptions.AuthenticationFailed("wrong username or password")
        token, key = create_api_token(user=user, name=data["name"])
        body = s.TokenSerializer(token).data
        return Response({**body, "key": key}, status=status.HTTP_201_CREATED)


class TokenDetailView(GenericAPIView):
    @extend_schema(responses={200: s.TokenSerializer}, summary="Revoke a token")
    @idempotent
    def delete(self, request: Request, pk: int) -> Response:
        token = revoke_api_token(user=request.user, token_id=pk)
        return Response(s.TokenSerializer(token).data)


# --- problems, verifiers, books -------------------------------------------------------------


class ProblemListView(ListView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[s.ProblemFilterSerializer],
        responses=s.ProblemListSerializer(many=True),
        summary="Published problems (filters: language, demo, currency, status, q)",
    )
    def get(self, request: Request) -> Response:
        params = _params(s.ProblemFilterSerializer, request)
        problems = selectors.list_problems_with_best_prices(
            language=params.get("language"),
            is_demo=params.get("demo"),
            currency=params.get("currency"),
            status=params.get("status"),
            q=params.get("q") or None,
        )
        return self.paginated(problems, s.ProblemListSerializer)

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "judge_states": judge_states()}


class ProblemDetailView(GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=s.ProblemDetailSerializer, summary="A problem with its verifiers")
    def get(self, request: Request, pk: int) -> Response:
        problem = access.access_problem(user=request.user, problem_id=pk)
        problem = selectors.get_problem_with_verifiers(problem=problem)
        best = selectors.get_best_prices(problem=problem)
        context = {"best_prices": best, "judge_states": judge_states()}
        return Response(s.ProblemDetailSerializer(problem, context=context).data)


class OrderBookView(GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter("depth", OpenApiTypes.INT, description="price levels per side"),
            IF_NONE_MATCH,
        ],
        responses={200: s.OrderBookSerializer, 304: NOT_MODIFIED},
        summary="The order book: depth by price level, with its sequence number",
    )
    def get(self, request: Request, pk: int) -> Response:
        problem = access.access_problem(user=request.user, problem_id=pk)
        try:
            depth = int(request.query_params.get("depth", selectors.MAX_BOOK_DEPTH))
        except ValueError:
            raise exceptions.ValidationError({"depth": ["an integer"]}) from None
        if not 1 <= depth <= selectors.MAX_BOOK_DEPTH:
            raise exceptions.ValidationError({"depth": [f"1 to {selectors.MAX_BOOK_DEPTH}"]})
        etag = f'"book-{problem.pk}-{problem.book_sequence}-{depth}"'
        if (not_modified := _not_modified(request, etag)) is not None:
            return not_modified
        book = selectors.get_order_book(problem=problem, depth=depth)
        etag = f'"book-{problem.pk}-{book.sequence}-{depth}"'
        return Response(s.OrderBookSerializer(book).data, headers={"ETag": etag})


class ProblemTradesView(ListView):
    permission_classes = [AllowAny]

    @extend_schema(responses=s.PublicTradeSerializer(many=True), summary="Recent trades")
    def get(self, request: Request, pk: int) -> Response:
        problem = access.access_problem(user=request.user, problem_id=pk)
        return self.paginated(
            selectors.list_problem_trades(problem=problem), s.PublicTradeSerializer
        )


class VerifierDetailView(GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses=s.VerifierDetailSerializer,
        summary="A verifier and its versions (source only when public)",
    )
    def get(self, request: Request, pk: int) -> Response:
        verifier = verifier_access.access_verifier(user=request.user, verifier_id=pk)
        return Response(s.VerifierDetailSerializer(verifier).data)


# --- orders, trades, account ----------------------------------------------------------------


class OrderListView(ListView):
    @extend_schema(
        parameters=[s.OrderFilterSerializer],
        responses=s.OrderSerializer(many=True),
        summary="My orders with their fills",
    )
    def get(self, request: Request) -> Response:
        params = _params(s.OrderFilterSerializer, request)
        orders = selectors.list_user_orders(
            user=request.user,
            problem_id=params.get("problem"),
            status=params.get("status"),
            side=params.get("side"),
        )
        return self.paginated(orders, s.OrderSerializer)

    @extend_schema(
        request=s.OrderCreateSerializer,
        responses={201: s.OrderSerializer},
        summary="Place a bid (on a problem) or an ask (for your ACCEPTED solution)",
        description="A repeated client_order_id returns the existing order (201, same body). "
        "With an Idempotency-Key and no client_order_id, the order's client_order_id is "
        "`idem-` and 48 hex digits of the key's sha256: a retry is recognised by the engine.",
    )
    @idempotent(commits_alone=True)
    def post(self, request: Request) -> Response:
        data = parse_body(s.OrderCreateSerializer, request)
        price = Money(data["price_minor"], data["currency"])
        # Committed alone (not with the stored response): the engine recognises a retry.
        client_order_id = data.get("client_order_id") or derived_client_order_id(request)
        if data["side"] == OrderSide.BID:
            problem = access.access_problem(user=request.user, problem_id=data["problem"])
            order = place_bid(
                buyer=request.user,
                problem=problem,
                price=price,
                quantity=data["quantity"],
                client_order_id=client_order_id,
            )
        else:
            solution = access.access_own_solution(user=request.user, solution_id=data["solution"])
            if data.get("problem") not in (None, solution.problem_id):
                raise exceptions.ValidationError({"problem": ["not the solution's problem"]})
            order = place_ask(
                seller=request.user,
                solution=solution,
                price=price,
                quantity=data["quantity"],
                client_order_id=client_order_id,
            )
        order = _with_fills(request, order)
        location = request.build_absolute_uri(reverse("api:order-detail", kwargs={"pk": order.pk}))
        return Response(
            s.OrderSerializer(order).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": location},
        )


def _with_fills(request: Request, order: Order) -> Order:
    """The order as the engine answered it, re-read with its fills only when something filled.

    The engine returns every column of the order it placed or cancelled; an order nothing
    filled has no fills to list, so re-reading it would be a round trip for the same body.
    """
    if order.remaining == order.quantity:
        return order
    return selectors.get_user_order(user=request.user, order_id=order.pk)


class OrderDetailView(GenericAPIView):
    @extend_schema(responses=s.OrderSerializer, summary="One of my orders with its fills")
    def get(self, request: Request, pk: int) -> Response:
        order = access.access_own_order(user=request.user, order_id=pk)
        order = selectors.get_user_order(user=request.user, order_id=order.pk)
        return Response(s.OrderSerializer(order).data)


class OrderCancelView(GenericAPIView):
    @extend_schema(request=None, responses=s.OrderSerializer, summary="Cancel my open order")
    @idempotent(commits_alone=True)
    def post(self, request: Request, pk: int) -> Response:
        # The engine's cancel is its own access check: it refuses a missing order and another
        # user's alike with NotFound("no such order"), the answer access_own_order gives.
        order = cancel_order(user=request.user, order_id=pk)
        return Response(s.OrderSerializer(_with_fills(request, order)).data)


class MyTradeListView(ListView):
    @extend_schema(
        parameters=[s.TradeFilterSerializer],
        responses=s.MyTradeSerializer(many=True),
        summary="My trades, as buyer or seller",
    )
    def get(self, request: Request) -> Response:
        params = _params(s.TradeFilterSerializer, request)
        trades = selectors.list_user_trades(user=request.user, problem_id=params.get("problem"))
        return self.paginated(trades, s.MyTradeSerializer)


class BalanceView(GenericAPIView):
    pagination_class = None

    @extend_schema(
        responses=s.BalanceSerializer(many=True),
        summary="My balances per currency (available, held for open bids, pending)",
    )
    def get(self, request: Request) -> Response:
        usd_on = usd_enabled()
        balances = [
            {
                **dataclasses.asdict(b),
                "enabled": b.currency != Currency.USD or usd_on,
                "note": None
                if b.currency != Currency.USD or usd_on
                else "USD is disabled on this server (no Stripe keys are configured): it "
                "cannot be deposited, traded or withdrawn here",
            }
            for b in selectors.list_balances(user=request.user)
        ]
        return Response(s.BalanceSerializer(balances, many=True).data)


class LedgerView(ListView):
    @extend_schema(
        parameters=[s.LedgerFilterSerializer],
        responses=s.LedgerEntrySerializer(many=True),
        summary="My ledger history (postings to my accounts), newest first",
    )
    def get(self, request: Request) -> Response:
        params = _params(s.LedgerFilterSerializer, request)
        entries = selectors.list_ledger_entries(user=request.user, currency=params.get("currency"))
        return self.paginated(entries, s.LedgerEntrySerializer)
