"""Typed views of the API's answers (frozen dataclasses built from the JSON)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload

from formalmarket_client.money import Money

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list: iterate it like a list. ``next_cursor`` (opaque) fetches the next
    page; ``has_more`` says whether there is one."""

    items: tuple[T, ...]
    next_cursor: str | None
    has_more: bool

    @classmethod
    def from_api(cls, body: dict[str, Any], build: Callable[[dict[str, Any]], T]) -> Page[T]:
        next_url = body.get("next")
        cursor = None
        if next_url:
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(next_url).query)
            cursor = (query.get("cursor") or [None])[0]
        return cls(tuple(build(row) for row in body["results"]), cursor, cursor is not None)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        return self.items[index]


@dataclass(frozen=True, slots=True)
class VerifierInfo:
    id: int
    name: str
    language: str  # "python" or "lean"
    status: str
    version_id: int | None
    solution_format: str
    time_limit_s: float | None
    memory_limit_mb: int | None
    lean_project: str
    accepts_submissions: bool = True
    judge_note: str | None = None  # e.g. "the judge is starting: ..."

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> VerifierInfo:
        active = data.get("active_version") or {}
        accepts = data.get("accepts_submissions")
        return cls(
            id=data["id"],
            name=data.get("name", ""),
            language=data["language"],
            status=data.get("status", ""),
            version_id=active.get("id"),
            solution_format=active.get("solution_format", ""),
            time_limit_s=active.get("time_limit_s"),
            memory_limit_mb=active.get("memory_limit_mb"),
            lean_project=active.get("lean_project") or "",
            accepts_submissions=bool(active) if accepts is None else bool(accepts),
            judge_note=data.get("judge_note"),
        )


@dataclass(frozen=True, slots=True)
class Problem:
    id: int
    slug: str
    title: str
    currency: str
    is_demo: bool
    status: str
    verifiers: tuple[VerifierInfo, ...]
    statement_md: str | None = None
    best_bid: Money | None = None
    best_ask: Money | None = None

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(v.language for v in self.verifiers)

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Problem:
        currency = data["currency"]

        def money(key: str) -> Money | None:
            value = data.get(key)
            return Money(value, currency) if value is not None else None

        return cls(
            id=data["id"],
            slug=data["slug"],
            title=data["title"],
            currency=currency,
            is_demo=bool(data.get("is_demo")),
            status=data.get("status", ""),
            verifiers=tuple(VerifierInfo.from_api(v) for v in data.get("verifiers", [])),
            statement_md=data.get("statement_md"),
            best_bid=money("best_bid_minor"),
            best_ask=money("best_ask_minor"),
        )


@dataclass(frozen=True, slots=True)
class Verdict:
    verdict: str  # ACCEPTED or REJECTED
    reason: str | None
    detail: str
    seed: int | None
    wall_time_s: float | None = None
    axioms: tuple[str, ...] | None = None

    @property
    def is_accepted(self) -> bool:
        return self.verdict == "ACCEPTED"

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Verdict:
        axioms = data.get("axioms")
        return cls(
            verdict=data["verdict"],
            reason=data.get("reason"),
            detail=data.get("detail", ""),
            seed=data.get("seed"),
            wall_time_s=data.get("wall_time_s"),
            axioms=tuple(axioms) if axioms is not None else None,
        )


@dataclass(frozen=True, slots=True)
class Solution:
    id: int
    problem_id: int
    verifier_id: int
    status: str  # pending, running, accepted, rejected
    pending_reason: str
    verdict: Verdict | None
    url: str = ""
    text: str | None = None

    @property
    def is_judged(self) -> bool:
        return self.status in ("accepted", "rejected")

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Solution:
        verdict = data.get("verdict")
        return cls(
            id=data["id"],
            problem_id=data.get("problem", 0),
            verifier_id=data.get("verifier", 0),
            status=data["status"],
            pending_reason=data.get("pending_reason") or "",
            verdict=Verdict.from_api(verdict) if verdict else None,
            url=data.get("url", ""),
            text=data.get("text"),
        )


@dataclass(frozen=True, slots=True)
class Fill:
    id: int
    price: Money
    fee: Money
    solution_id: int

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Fill:
        return cls(
            id=data["id"],
            price=Money(data["price_minor"], data["currency"]),
            fee=Money(data["fee_minor"], data["currency"]),
            solution_id=data["solution"],
        )


@dataclass(frozen=True, slots=True)
class Order:
    id: int
    problem_id: int
    side: str  # bid or ask
    price: Money
    quantity: int
    remaining: int
    status: str  # open, filled, cancelled
    solution_id: int | None
    client_order_id: str | None
    fills: tuple[Fill, ...] = field(default=())

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Order:
        return cls(
            id=data["id"],
            problem_id=data["problem"],
            side=data["side"],
            price=Money(data["price_minor"], data["currency"]),
            quantity=data["quantity"],
            remaining=data["remaining"],
            status=data["status"],
            solution_id=data.get("solution"),
            client_order_id=data.get("client_order_id"),
            fills=tuple(Fill.from_api(f) for f in data.get("fills", [])),
        )


@dataclass(frozen=True, slots=True)
class Trade:
    id: int
    problem_id: int
    solution_id: int
    order_id: int
    role: str  # buyer or seller
    price: Money
    fee: Money
    net: Money

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Trade:
        c = data["currency"]
        return cls(
            id=data["id"],
            problem_id=data["problem"],
            solution_id=data["solution"],
            order_id=data["order"],
            role=data["role"],
            price=Money(data["price_minor"], c),
            fee=Money(data["fee_minor"], c),
            net=Money(data["net_minor"], c),
        )


@dataclass(frozen=True, slots=True)
class Balance:
    currency: str
    available: Money
    held: Money
    pending: Money
    enabled: bool = True  # False: USD on a server without Stripe
    note: str | None = None

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Balance:
        c = data["currency"]
        return cls(
            currency=c,
            available=Money(data["available_minor"], c),
            held=Money(data["held_minor"], c),
            pending=Money(data["pending_minor"], c),
            enabled=bool(data.get("enabled", True)),
            note=data.get("note"),
        )


@dataclass(frozen=True, slots=True)
class BookLevel:
    price: Money
    quantity: int
    order_count: int


@dataclass(frozen=True, slots=True)
class Book:
    problem_id: int
    currency: str
    sequence: int
    bids: tuple[BookLevel, ...]
    asks: tuple[BookLevel, ...]

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Book:
        c = data["currency"]

        def levels(rows: list[dict[str, Any]]) -> tuple[BookLevel, ...]:
            return tuple(
                BookLevel(Money(r["price_minor"], c), r["quantity"], r["order_count"]) for r in rows
            )

        return cls(data["problem"], c, data["sequence"], levels(data["bids"]), levels(data["asks"]))


@dataclass(frozen=True, slots=True)
class Event:
    id: int  # for mark_read(up_to=...)
    event_id: str  # evt_<id>, as in webhook deliveries
    type: (
        str  # solution.judged, ask.filled, bid.filled, bid.arrived, sale.disputed/reversed/restored
    )
    created_at: str
    message: str
    is_read: bool
    data: dict[str, Any]

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Event:
        return cls(
            id=data["id"],
            event_id=data["event_id"],
            type=data["type"],
            created_at=data["created_at"],
            message=data["message"],
            is_read=bool(data.get("is_read")),
            data=dict(data.get("data") or {}),
        )


@dataclass(frozen=True, slots=True)
class EventPage:
    events: tuple[Event, ...]
    cursor: str  # opaque: pass as ``since`` next time
    has_more: bool
    unread_count: int
