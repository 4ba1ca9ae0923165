"""Plain JSON shapes of the client's models for tool results (money both as minor units and
formatted, so an agent never has to guess the unit)."""

from __future__ import annotations

from typing import Any

from formalmarket_client import Balance, Book, EventPage, Order, Problem, Solution, VerifierInfo
from formalmarket_client.money import Money


def money(value: Money | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"minor": value.minor, "currency": value.currency, "formatted": str(value)}


def problem_summary(p: Problem) -> dict[str, Any]:
    return {
        "id": p.id,
        "slug": p.slug,
        "title": p.title,
        "currency": p.currency,
        "is_demo": p.is_demo,
        "languages": list(p.languages),
        "best_bid": money(p.best_bid),
        "best_ask": money(p.best_ask),
    }


def verifier(v: VerifierInfo) -> dict[str, Any]:
    return {
        "id": v.id,
        "name": v.name,
        "language": v.language,
        "accepts_submissions": v.accepts_submissions,
        "judge_note": v.judge_note,
        "solution_format": v.solution_format,
        "time_limit_s": v.time_limit_s,
        "memory_limit_mb": v.memory_limit_mb,
        "lean_project": v.lean_project or None,
    }


def format_text(v: VerifierInfo) -> str:
    budget = f"{v.time_limit_s} s, {v.memory_limit_mb} MB"
    return f"verifier {v.id} ({v.language}, budget {budget}):\n{v.solution_format}"


def problem_detail(p: Problem) -> dict[str, Any]:
    return {
        **problem_summary(p),
        "status": p.status,
        "statement_md": p.statement_md,
        "verifiers": [verifier(v) for v in p.verifiers],
    }


def book(b: Book) -> dict[str, Any]:
    def levels(rows: Any) -> list[dict[str, Any]]:
        return [
            {"price": money(r.price), "quantity": r.quantity, "orders": r.order_count} for r in rows
        ]

    return {"currency": b.currency, "bids": levels(b.bids), "asks": levels(b.asks)}


def solution(s: Solution, *, include_text: bool = False) -> dict[str, Any]:
    shape: dict[str, Any] = {
        "id": s.id,
        "problem_id": s.problem_id,
        "verifier_id": s.verifier_id,
        "status": s.status,
        "pending_reason": s.pending_reason or None,
        "verdict": None,
    }
    if s.verdict is not None:
        shape["verdict"] = {
            "verdict": s.verdict.verdict,
            "reason": s.verdict.reason,
            "detail": s.verdict.detail,
            "seed": s.verdict.seed,
        }
    if include_text:
        shape["text"] = s.text
    return shape


def order(o: Order) -> dict[str, Any]:
    return {
        "id": o.id,
        "problem_id": o.problem_id,
        "side": o.side,
        "price": money(o.price),
        "quantity": o.quantity,
        "remaining": o.remaining,
        "status": o.status,
        "solution_id": o.solution_id,
        "fills": [
            {"price": money(f.price), "fee": money(f.fee), "solution_id": f.solution_id}
            for f in o.fills
        ],
    }


def balance(b: Balance) -> dict[str, Any]:
    return {
        "currency": b.currency,
        "available": money(b.available),
        "held": money(b.held),
        "pending": money(b.pending),
        "is_real_money": b.currency != "DEMO",
        "enabled": b.enabled,
        "note": b.note,
    }


def events(page: EventPage) -> dict[str, Any]:
    return {
        "events": [
            {
                "id": e.event_id,
                "type": e.type,
                "at": e.created_at,
                "message": e.message,
                "data": e.data,
            }
            for e in page.events
        ],
        "cursor": page.cursor,
        "has_more": page.has_more,
        "unread_count": page.unread_count,
    }
