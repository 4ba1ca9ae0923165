"""The account page's USD section: a context helper for ``payments/_usd_panel.html``.

The account page (owned by market.views.account) adds ``**usd_panel_context(request)`` to its
context and writes ``{% include "payments/_usd_panel.html" %}`` where the section belongs.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest

from market.money import format_minor
from market.payments import selectors
from market.payments.stripe_client import usd_enabled


def usd_panel_context(request: HttpRequest) -> dict[str, Any]:
    if not usd_enabled():
        return {"usd": {"is_enabled": False}}
    summary = selectors.get_usd_summary(user=request.user)
    account = summary.connected_account

    def usd(minor: int) -> str:
        return format_minor(minor, "USD")

    return {
        "usd": {
            "is_enabled": True,
            "available": usd(summary.available_minor),
            "refundable": usd(summary.refundable_minor),
            "refundable_minor": summary.refundable_minor,
            "withdrawable": usd(summary.withdrawable_minor),
            "withdrawable_minor": summary.withdrawable_minor,
            "refundable_deposits": [
                {"id": d.pk, "paid_at": d.paid_at, "amount": usd(d.amount_minor), "room": usd(room)}
                for d, room in selectors.list_refundable_deposits(
                    user=request.user, refundable_minor=summary.refundable_minor
                )
            ],
            "held": usd(summary.held_minor),
            "pending": usd(summary.pending_minor),
            "pending_minor": summary.pending_minor,
            "debt": usd(-summary.debt_minor),
            "debt_minor": -summary.debt_minor,
            "next_release_at": summary.next_release_at,
            "hold_window_days": round(summary.proceeds_hold_window_s / 86400, 1),
            "deposit_min": usd(summary.deposit_min_minor),
            "deposit_max": usd(summary.deposit_max_minor),
            "payout_min": usd(summary.payout_min_minor),
            "payout_fee_fixed": usd(summary.payout_fee_fixed_minor),
            "payout_fee_bps": summary.payout_fee_bps,
            "connected_account": account,
            "can_withdraw": summary.can_withdraw,
            "movements": [
                {
                    "at": d.created_at,
                    "what": "Deposit",
                    "amount": usd(d.amount_minor),
                    "status": d.get_status_display()
                    + (f" (refunded {usd(d.refunded_minor)})" if d.refunded_minor else ""),
                }
                for d in selectors.list_deposits(user=request.user, limit=5)
            ]
            + [
                {
                    "at": w.created_at,
                    "what": "Withdrawal",
                    "amount": usd(w.amount_minor),
                    "status": w.get_status_display()
                    + (f": {w.failure_message}" if w.failure_message else ""),
                }
                for w in selectors.list_withdrawals(user=request.user, limit=5)
            ]
            + [
                {
                    "at": r.created_at,
                    "what": f"Refund of deposit {r.deposit_id}",
                    "amount": usd(r.amount_minor),
                    "status": r.get_status_display()
                    + (f": {r.failure_message}" if r.failure_message else ""),
                }
                for r in selectors.list_deposit_refunds(user=request.user, limit=5)
            ]
            + [
                {
                    "at": r.created_at,
                    "what": f"Sale of {r.trade.problem.title} (trade {r.trade_id})",
                    "amount": "−" + usd(r.seller_minor),
                    "status": f"{r.get_status_display()}: {r.reason}",
                }
                for r in selectors.list_sale_reversals(user=request.user, limit=5)
            ],
            "reversals": [
                {
                    "trade_id": r.trade_id,
                    "problem": r.trade.problem.title,
                    "amount": usd(r.seller_minor),
                    "status": r.get_status_display(),
                    "reason": r.reason,
                    "at": r.created_at,
                }
                for r in selectors.list_sale_reversals(user=request.user, limit=10)
            ],
            "reconciliation": _reconciliation(request),
            # One token per rendered form: a double submit is one deposit / withdrawal.
            "deposit_token": uuid.uuid4().hex,
            "withdraw_token": uuid.uuid4().hex,
            "refund_token": uuid.uuid4().hex,
        }
    }


def _reconciliation(request: HttpRequest) -> dict[str, Any] | None:
    """The last comparison of the ledger with Stripe's balance transactions, for staff (it is
    the platform's, not a user's)."""
    if not getattr(request.user, "is_staff", False):
        return None
    run = selectors.latest_reconciliation()
    if run is None:
        return {"ran": False}
    return {
        "ran": True,
        "at": run.started_at,
        "ledger": format_minor(run.ledger_minor, "USD"),
        "stripe": format_minor(run.stripe_minor, "USD"),
        "difference": format_minor(run.difference_minor, "USD"),
        "difference_minor": run.difference_minor,
        "differences": [
            {**d, "amount": format_minor(int(d["amount_minor"]), "USD")} for d in run.differences
        ],
    }


def earnings_context(request: HttpRequest) -> dict[str, Any]:
    """The earnings page (``payments/earnings.html``): sales, totals, reconciliation."""
    from market.payments.services.sale_notices import seller_message

    def usd(minor: int) -> str:
        return format_minor(minor, "USD")

    sales = selectors.list_usd_sales(user=request.user)
    rows = []
    for sale in sales:
        if sale.reversed_minor >= sale.proceeds_minor:
            state = "Reversed"
        elif sale.reversed_minor:
            state = "Reversed in part"
        elif any(r.status == "disputed" for r in sale.reversals):
            state = "On hold: disputed"
        elif sale.released_at is not None or sale.available_at is None:
            state = "Available"
        else:
            state = "Pending"
        rows.append(
            {
                "trade_id": sale.trade_id,
                "problem": sale.problem_title,
                "sold_at": sale.sold_at,
                "price": usd(sale.price_minor),
                "proceeds": usd(sale.proceeds_minor),
                "kept": usd(sale.proceeds_minor - sale.reversed_minor),
                "available_at": sale.available_at if state == "Pending" else None,
                "state": state,
                "reasons": [seller_message(r) for r in sale.reversals],
            }
        )
    return {
        "sales": rows,
        "earned": usd(sum(s.proceeds_minor - s.reversed_minor for s in sales)),
        "reversed": usd(sum(s.reversed_minor for s in sales)),
        "usd": _earnings_balances(request),
        "reconciliation": _earnings_reconciliation(request),
    }


def _earnings_balances(request: HttpRequest) -> dict[str, Any]:
    """The page's balance lines only (not the account page's whole USD panel)."""
    if not usd_enabled():
        return {"is_enabled": False}
    balances = selectors.get_usd_balances(user=request.user)
    return {
        "is_enabled": True,
        "pending": format_minor(balances.pending_minor, "USD"),
        "withdrawable": format_minor(balances.withdrawable_minor, "USD"),
    }


def _earnings_reconciliation(request: HttpRequest) -> dict[str, Any] | None:
    """Everyone sees whether the books last matched Stripe's (no platform figures); staff
    see the figures in cents, as on the account page."""
    run = selectors.latest_reconciliation()
    if run is None:
        return None
    if getattr(request.user, "is_staff", False):
        return _reconciliation(request)
    return {
        "ran": True,
        "at": run.started_at,
        "difference_minor": run.difference_minor,
        "differences": [],
        "count": len(run.differences),
        "public": True,
    }
