"""Orders, trades and entitlements.

A bid buys one copy each of up to ``quantity`` distinct solutions of a problem; an ask sells
``quantity`` copies of one ACCEPTED solution. Time priority is the order's id: ids are assigned
under the problem's row lock, so within one problem they follow arrival.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from market.models.ledger import LedgerTransaction
from market.models.problems import Problem, Solution
from market.money import Currency


class OrderSide(models.TextChoices):
    BID = "bid", "Bid"
    ASK = "ask", "Ask"


class OrderStatus(models.TextChoices):
    OPEN = "open", "Open"
    FILLED = "filled", "Filled"
    CANCELLED = "cancelled", "Cancelled"


class Order(models.Model):
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="orders")
    # No index of its own: order_owner_recent (owner, -id) leads with it (one index fewer to
    # write per placement, issue 14).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="orders", db_index=False
    )
    side = models.CharField(max_length=3, choices=OrderSide.choices)
    price_minor = models.BigIntegerField()
    currency = models.CharField(max_length=8, choices=Currency.choices)
    quantity = models.PositiveIntegerField()
    remaining = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=OrderStatus.choices, default=OrderStatus.OPEN)
    solution = models.ForeignKey(
        Solution, null=True, blank=True, on_delete=models.PROTECT, related_name="asks"
    )
    # NULL, not "": many orders have none, and the unique constraint skips NULLs.
    client_order_id = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(price_minor__gt=0), name="order_price_positive"),
            models.CheckConstraint(condition=Q(quantity__gt=0), name="order_quantity_positive"),
            models.CheckConstraint(
                condition=Q(remaining__gte=0, remaining__lte=F("quantity")),
                name="order_remaining_within_quantity",
            ),
            models.CheckConstraint(
                condition=Q(side=OrderSide.ASK, solution__isnull=False)
                | Q(side=OrderSide.BID, solution__isnull=True),
                name="order_ask_iff_solution",
            ),
            models.CheckConstraint(
                condition=~Q(status=OrderStatus.OPEN) | Q(remaining__gt=0),
                name="order_open_has_remaining",
            ),
            models.CheckConstraint(
                condition=~Q(status=OrderStatus.FILLED) | Q(remaining=0),
                name="order_filled_has_none_left",
            ),
            # One open ask per solution, and so per seller (an ask's owner is the solution's
            # solver): an ask sells any number of copies (docs/market.md, "Order semantics").
            models.UniqueConstraint(
                fields=["solution"],
                condition=Q(status=OrderStatus.OPEN, side=OrderSide.ASK),
                name="order_one_open_ask_per_solution",
            ),
            # One open bid per buyer and problem: a bid buys up to its quantity of distinct
            # solutions (docs/market.md, "Order semantics"). Also the engine's self-trade
            # probe for an incoming ask (the owner's one bid).
            models.UniqueConstraint(
                fields=["owner", "problem"],
                condition=Q(status=OrderStatus.OPEN, side=OrderSide.BID),
                name="order_one_open_bid_per_buyer",
            ),
            models.UniqueConstraint(
                fields=["owner", "client_order_id"],
                condition=Q(client_order_id__isnull=False),
                name="order_unique_client_order_id",
            ),
        ]
        indexes = [
            # Best bid: highest price, then oldest. Best ask: lowest price, then oldest.
            models.Index(
                F("problem"),
                F("price_minor").desc(),
                F("id"),
                condition=Q(status=OrderStatus.OPEN, side=OrderSide.BID),
                name="order_book_bids",
            ),
            models.Index(
                F("problem"),
                F("price_minor"),
                F("id"),
                condition=Q(status=OrderStatus.OPEN, side=OrderSide.ASK),
                name="order_book_asks",
            ),
            models.Index(fields=["owner", "-id"], name="order_owner_recent"),
            # The engine's self-trade probe for an incoming bid: the owner's cheapest open ask
            # on the problem.
            models.Index(
                F("owner"),
                F("problem"),
                F("price_minor"),
                F("id"),
                condition=Q(status=OrderStatus.OPEN, side=OrderSide.ASK),
                name="order_open_asks_by_owner",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.side} {self.remaining}/{self.quantity} @ {self.price_minor} {self.currency}"

    @property
    def is_open(self) -> bool:
        return self.status == OrderStatus.OPEN

    @property
    def held_minor(self) -> int:
        """What this order holds of its owner's funds: only open bids hold."""
        if self.side == OrderSide.BID and self.status == OrderStatus.OPEN:
            return self.price_minor * self.remaining
        return 0


class Trade(models.Model):
    # No index of their own: trade_problem_recent (problem, -id) and trade_one_copy_per_buyer
    # (buyer, solution) lead with them.
    problem = models.ForeignKey(
        Problem, on_delete=models.PROTECT, related_name="trades", db_index=False
    )
    bid = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="bid_fills")
    ask = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="ask_fills")
    buyer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="purchases", db_index=False
    )
    seller = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="sales"
    )
    # Its index (the foreign key's own, market_trade_solution_id_...) is how the engine counts
    # a solution's sales, up to the sales limit, before an ask (engine.place_order, FM018).
    solution = models.ForeignKey(Solution, on_delete=models.PROTECT, related_name="trades")
    price_minor = models.BigIntegerField()
    fee_minor = models.BigIntegerField()
    currency = models.CharField(max_length=8, choices=Currency.choices)
    maker_side = models.CharField(max_length=3, choices=OrderSide.choices)
    ledger_transaction = models.OneToOneField(
        LedgerTransaction, on_delete=models.PROTECT, related_name="trade"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(price_minor__gt=0), name="trade_price_positive"),
            models.CheckConstraint(
                condition=Q(fee_minor__gte=0, fee_minor__lte=F("price_minor")),
                name="trade_fee_within_price",
            ),
            models.CheckConstraint(condition=~Q(buyer=F("seller")), name="trade_no_self_trade"),
            models.UniqueConstraint(fields=["buyer", "solution"], name="trade_one_copy_per_buyer"),
        ]
        indexes = [
            models.Index(fields=["problem", "-id"], name="trade_problem_recent"),
            # The solutions a buyer holds of one problem (one trade each): the engine counts
            # them, up to the limit, before a bid (engine.place_order, FM017).
            models.Index(fields=["buyer", "problem"], name="trade_holdings_by_buyer"),
        ]

    def __str__(self) -> str:
        return f"trade {self.pk} @ {self.price_minor} {self.currency}"


class Entitlement(models.Model):
    """A buyer's right to read a solution's text, created in the trade's transaction."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="entitlements"
    )
    solution = models.ForeignKey(Solution, on_delete=models.PROTECT, related_name="entitlements")
    trade = models.OneToOneField(Trade, on_delete=models.PROTECT, related_name="entitlement")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "solution"], name="entitlement_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} may read solution {self.solution_id}"
