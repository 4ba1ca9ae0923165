"""Payments API views: parse, call one service or selector, render.

Errors are domain errors rendered by the project's DRF exception handler as
``{"error": {"code", "message", "fields"}}`` (``payments:usd-disabled`` when no Stripe keys
are configured). POSTs take an ``Idempotency-Key`` header with the API's semantics
(market.api.idempotency: a replay returns the first response); the key is also passed to the
services, so a deposit or withdrawal is unique per (user, key) even across interfaces.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from market.api.idempotency import idempotent
from market.money import format_minor
from market.payments import return_urls, selectors
from market.payments.api.serializers import (
    AmountSerializer,
    ConnectedAccountSerializer,
    ConnectStatusSerializer,
    DepositListSerializer,
    DepositRefundListSerializer,
    DepositRefundSerializer,
    DepositSerializer,
    OnboardingLinkSerializer,
    RefundAmountSerializer,
    UsdHistorySerializer,
    UsdSummarySerializer,
    WithdrawalListSerializer,
    WithdrawalSerializer,
)
from market.payments.services import connect, deposits, refunds, withdrawals
from market.payments.stripe_client import require_usd

DISABLED_MESSAGE = "USD payments are disabled on this server (no Stripe keys are configured)."


def _ascii_int(raw: str | None) -> int | None:
    """``raw`` as an int when it is 1 to 18 ASCII digits, else None (``"²".isdigit()`` is
    true but ``int("²")`` raises: that was a 500)."""
    if raw and raw.isascii() and raw.isdigit() and len(raw) <= 18:
        return int(raw)
    return None


def _key(request: Request) -> str | None:
    return request.headers.get("Idempotency-Key")


class UsdSummaryView(APIView):
    @extend_schema(responses=UsdSummarySerializer, summary="My USD balances and payout policy")
    def get(self, request: Request) -> Response:
        summary = selectors.get_usd_summary(user=request.user)
        account = summary.connected_account
        body: dict[str, Any] = {
            "usd_enabled": summary.is_enabled,
            "currency": "USD",
            "available_minor": summary.available_minor,
            "refundable_minor": summary.refundable_minor,
            "withdrawable_minor": summary.withdrawable_minor,
            "held_minor": summary.held_minor,
            "pending_minor": summary.pending_minor,
            "debt_minor": summary.debt_minor,
            "next_release_at": summary.next_release_at,
            "connected_account": ConnectedAccountSerializer(account).data if account else None,
            "can_withdraw": summary.can_withdraw,
            "policy": {
                "deposit_min_minor": summary.deposit_min_minor,
                "deposit_max_minor": summary.deposit_max_minor,
                "payout_min_minor": summary.payout_min_minor,
                "payout_fee_fixed_minor": summary.payout_fee_fixed_minor,
                "payout_fee_bps": summary.payout_fee_bps,
                "proceeds_hold_window_s": summary.proceeds_hold_window_s,
            },
        }
        if not summary.is_enabled:
            body["disabled"] = {"code": "payments:usd-disabled", "message": DISABLED_MESSAGE}
        return Response(body)


class UsdHistoryView(APIView):
    @extend_schema(
        responses=UsdHistorySerializer,
        summary="My USD ledger postings, newest first",
        parameters=[
            OpenApiParameter("before", int, description="only postings with a smaller id"),
            OpenApiParameter("limit", int, description="1 to 200 (default 50)"),
        ],
    )
    def get(self, request: Request) -> Response:
        limit = _ascii_int(request.query_params.get("limit"))
        postings = selectors.list_usd_postings(
            user=request.user,
            before_id=_ascii_int(request.query_params.get("before")),
            limit=50 if limit is None else limit,
        )
        results = [
            {
                "id": p.pk,
                "at": p.transaction.created_at,
                "kind": p.transaction.kind,
                "memo": p.transaction.memo,
                "account": p.account.kind,
                "amount_minor": p.amount_minor,
                "amount": format_minor(p.amount_minor, p.currency),
            }
            for p in postings
        ]
        next_before = results[-1]["id"] if results else None
        return Response({"results": results, "next_before": next_before})


class DepositListView(APIView):
    @extend_schema(responses=DepositListSerializer, summary="My recent deposits")
    def get(self, request: Request) -> Response:
        require_usd()
        items = selectors.list_deposits(user=request.user)
        return Response({"results": DepositSerializer(items, many=True).data})

    @extend_schema(
        request=AmountSerializer,
        responses={201: DepositSerializer},
        summary="Start a deposit: returns a Stripe Checkout URL (credited by webhook only)",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        require_usd()
        data = AmountSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        success_url, cancel_url = return_urls.checkout_urls(request)
        deposit = deposits.create_deposit_session(
            user=request.user,
            amount_minor=data.validated_data["amount_minor"],
            success_url=success_url,
            cancel_url=cancel_url,
            idempotency_key=_key(request),
        )
        return Response(DepositSerializer(deposit).data, status=201)


class DepositRefundView(APIView):
    @extend_schema(
        request=RefundAmountSerializer,
        responses={201: DepositRefundSerializer},
        summary="Refund (part of) a deposit to the payment it came from",
    )
    @idempotent
    def post(self, request: Request, deposit_id: int) -> Response:
        require_usd()
        data = RefundAmountSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        refund = refunds.request_deposit_refund(
            user=request.user,
            deposit_id=deposit_id,
            amount_minor=data.validated_data.get("amount_minor"),
            idempotency_key=_key(request),
        )
        return Response(DepositRefundSerializer(refund).data, status=201)


class DepositRefundListView(APIView):
    @extend_schema(responses=DepositRefundListSerializer, summary="My recent refunds")
    def get(self, request: Request) -> Response:
        require_usd()
        items = selectors.list_deposit_refunds(user=request.user)
        return Response({"results": DepositRefundSerializer(items, many=True).data})


class WithdrawalListView(APIView):
    @extend_schema(responses=WithdrawalListSerializer, summary="My recent withdrawals")
    def get(self, request: Request) -> Response:
        require_usd()
        items = selectors.list_withdrawals(user=request.user)
        return Response({"results": WithdrawalSerializer(items, many=True).data})

    @extend_schema(
        request=AmountSerializer,
        responses={201: WithdrawalSerializer},
        summary="Withdraw available USD to my Stripe account (funds held until Stripe confirms)",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        require_usd()
        data = AmountSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        withdrawal = withdrawals.request_withdrawal(
            user=request.user,
            amount_minor=data.validated_data["amount_minor"],
            idempotency_key=_key(request),
        )
        return Response(WithdrawalSerializer(withdrawal).data, status=201)


class ConnectView(APIView):
    @extend_schema(
        responses=ConnectStatusSerializer, summary="My Stripe connected account, re-read"
    )
    def get(self, request: Request) -> Response:
        require_usd()
        account = connect.refresh_connected_account(user=request.user)
        return Response(
            {"connected_account": ConnectedAccountSerializer(account).data if account else None}
        )


class ConnectOnboardingView(APIView):
    @extend_schema(
        request=None,
        responses={201: OnboardingLinkSerializer},
        summary="A single-use Stripe onboarding link (creates my connected account if needed)",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        require_usd()
        # Our own return URLs only: a client-chosen one would make Stripe redirect anywhere.
        refresh_url, return_url = return_urls.connect_urls(request)
        url = connect.start_connect_onboarding(
            user=request.user, refresh_url=refresh_url, return_url=return_url
        )
        return Response({"url": url}, status=201)
