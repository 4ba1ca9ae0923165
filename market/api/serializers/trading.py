"""Output shapes of trading: orders with their fills, trades, the book, balances, the ledger.

Money is always an integer count of minor units plus a currency. Serializers read what the
selectors fetched: no queries of their own, no service calls."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from market.api.serializers.fields import datetime_text
from market.models import (
    Order,
    OrderSide,
    Posting,
    Trade,
)


class FillSerializer(serializers.ModelSerializer):
    class Meta:
        model = Trade
        fields = ["id", "price_minor", "fee_minor", "currency", "solution", "created_at"]


class OrderSerializer(serializers.ModelSerializer):
    fills = serializers.SerializerMethodField()
    problem = serializers.IntegerField(source="problem_id")
    solution = serializers.IntegerField(source="solution_id", allow_null=True)

    class Meta:
        model = Order
        fields = [
            "id",
            "problem",
            "side",
            "price_minor",
            "currency",
            "quantity",
            "remaining",
            "status",
            "solution",
            "client_order_id",
            "created_at",
            "closed_at",
            "fills",
        ]

    @extend_schema_field(FillSerializer(many=True))
    def get_fills(self, order: Order) -> list[dict[str, Any]]:
        if order.remaining == order.quantity:
            return []  # nothing filled (a cancel keeps ``remaining``): no query
        trades = order.bid_fills.all() if order.side == OrderSide.BID else order.ask_fills.all()
        return FillSerializer(trades, many=True).data  # type: ignore[return-value]

    def to_representation(self, instance: Order) -> dict[str, Any]:
        """The fields above, built directly rather than through DRF's generic path.

        Every order request is answered with this body, and the generic path (a ModelSerializer
        rebuilds its fields from the model for each instance) was most of its cost: 0.77 ms of
        a placement's ~5 ms of web CPU (issue 29). The declared fields still describe the
        schema; tests/api/test_order_body.py holds this equal to the generic path.
        """
        return {
            "id": instance.id,
            "problem": instance.problem_id,
            "side": str(instance.side),
            "price_minor": int(instance.price_minor),
            "currency": str(instance.currency),
            "quantity": int(instance.quantity),
            "remaining": int(instance.remaining),
            "status": str(instance.status),
            "solution": instance.solution_id,
            "client_order_id": instance.client_order_id,
            "created_at": datetime_text(instance.created_at),
            "closed_at": datetime_text(instance.closed_at),
            "fills": self.get_fills(instance),
        }


class MyTradeSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()
    net_minor = serializers.SerializerMethodField()
    problem = serializers.IntegerField(source="problem_id")
    solution = serializers.IntegerField(source="solution_id")
    order = serializers.SerializerMethodField()

    class Meta:
        model = Trade
        fields = [
            "id",
            "problem",
            "solution",
            "order",
            "role",
            "price_minor",
            "fee_minor",
            "net_minor",
            "currency",
            "created_at",
        ]

    def _is_buyer(self, trade: Trade) -> bool:
        return trade.buyer_id == self.context["request"].user.pk  # type: ignore[no-any-return]

    @extend_schema_field(serializers.ChoiceField(choices=["buyer", "seller"]))
    def get_role(self, trade: Trade) -> str:
        return "buyer" if self._is_buyer(trade) else "seller"

    def get_net_minor(self, trade: Trade) -> int:
        """What the trade moved for the caller: -price for the buyer, price - fee for the seller."""
        return -trade.price_minor if self._is_buyer(trade) else trade.price_minor - trade.fee_minor

    def get_order(self, trade: Trade) -> int:
        return trade.bid_id if self._is_buyer(trade) else trade.ask_id


class PublicTradeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Trade
        fields = ["id", "price_minor", "currency", "maker_side", "created_at"]


class BookLevelSerializer(serializers.Serializer):
    price_minor = serializers.IntegerField()
    quantity = serializers.IntegerField()
    order_count = serializers.IntegerField()


class OrderBookSerializer(serializers.Serializer):
    problem = serializers.IntegerField(source="problem_id")
    currency = serializers.CharField()
    sequence = serializers.IntegerField()
    bids = BookLevelSerializer(many=True)
    asks = BookLevelSerializer(many=True)


class BalanceSerializer(serializers.Serializer):
    currency = serializers.CharField()
    enabled = serializers.BooleanField(
        help_text="False for USD on a server without Stripe: it cannot be deposited or traded"
    )
    note = serializers.CharField(allow_null=True)
    available_minor = serializers.IntegerField()
    held_minor = serializers.IntegerField()
    pending_minor = serializers.IntegerField()


class LedgerEntrySerializer(serializers.ModelSerializer):
    transaction = serializers.IntegerField(source="transaction_id")
    kind = serializers.CharField(source="transaction.kind")
    memo = serializers.CharField(source="transaction.memo")
    account_kind = serializers.CharField(source="account.kind")
    created_at = serializers.DateTimeField(source="transaction.created_at")

    class Meta:
        model = Posting
        fields = [
            "id",
            "transaction",
            "kind",
            "account_kind",
            "currency",
            "amount_minor",
            "memo",
            "created_at",
        ]
