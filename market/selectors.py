"""Reads of the market: problems, order books, trades, orders, solutions, balances, ledger."""

from __future__ import annotations

import dataclasses

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Prefetch, Q, QuerySet, Sum, prefetch_related_objects

from market.models import (
    Account,
    AccountKind,
    Order,
    OrderSide,
    OrderStatus,
    Posting,
    Problem,
    ProblemStatus,
    Solution,
    Trade,
)
from market.money import Currency
from market.payments.stripe_client import usd_enabled
from verifiers.models import Verifier, VerifierStatus, VerifierVersion
from verifiers.selectors import author_verifiers_prefetch
from verifiers.services.publishing import publish_refusals

MAX_BOOK_DEPTH = 100


@dataclasses.dataclass(frozen=True, slots=True)
class BookLevel:
    price_minor: int
    quantity: int
    order_count: int


@dataclasses.dataclass(frozen=True, slots=True)
class OrderBook:
    problem_id: int
    currency: str
    sequence: int
    bids: list[BookLevel]
    asks: list[BookLevel]


@dataclasses.dataclass(frozen=True, slots=True)
class Balance:
    currency: str
    available_minor: int
    held_minor: int
    pending_minor: int


def list_problems(
    *,
    language: str | None = None,
    is_demo: bool | None = None,
    currency: str | None = None,
    status: str | None = None,
    q: str | None = None,
) -> QuerySet[Problem]:
    """Public problems (published by default, or retired), filtered; drafts never appear."""
    qs = Problem.objects.filter(status=status or ProblemStatus.PUBLISHED)
    if status == ProblemStatus.DRAFT:
        return qs.none()
    if language:
        qs = qs.filter(
            verifiers__language=language,
            verifiers__status__in=(VerifierStatus.PUBLISHED, VerifierStatus.RETIRED),
        )
    if is_demo is not None:
        qs = qs.filter(is_demo=is_demo)
    if currency:
        qs = qs.filter(currency=currency)
    if q:
        qs = qs.filter(Q(title__icontains=q) | Q(statement_md__icontains=q))
    return qs.distinct().prefetch_related(_public_verifiers())


def _public_verifiers() -> Prefetch[Verifier]:
    return Prefetch(
        "verifiers",
        queryset=Verifier.objects.exclude(status=VerifierStatus.DRAFT)
        .prefetch_related(
            Prefetch(
                "versions",
                queryset=VerifierVersion.objects.filter(is_active=True).order_by("-number"),
                to_attr="active_versions",
            )
        )
        .order_by("id"),
        to_attr="public_verifiers",
    )


def get_problem_with_verifiers(*, problem: Problem) -> Problem:
    """The problem with ``public_verifiers`` (each with ``active_versions``) prefetched."""
    return Problem.objects.prefetch_related(_public_verifiers()).get(pk=problem.pk)


def list_problems_with_best_prices(**filters: object) -> QuerySet[Problem]:
    """:func:`list_problems` with ``best_bid_minor`` and ``best_ask_minor`` (None for an
    empty side), for the API's list."""
    from django.db.models import OuterRef, Subquery

    open_orders = Order.objects.filter(problem=OuterRef("pk"), status=OrderStatus.OPEN)
    best_bid = open_orders.filter(side=OrderSide.BID).order_by("-price_minor")
    best_ask = open_orders.filter(side=OrderSide.ASK).order_by("price_minor")
    problems = list_problems(**filters)  # type: ignore[arg-type]
    return problems.annotate(
        best_bid_minor=Subquery(best_bid.values("price_minor")[:1]),
        best_ask_minor=Subquery(best_ask.values("price_minor")[:1]),
    )


def get_best_prices(*, problem: Problem) -> tuple[int | None, int | None]:
    """(best bid, best ask) in minor units, None for an empty side."""
    open_orders = Order.objects.filter(problem=problem, status=OrderStatus.OPEN)
    best_bid = (
        open_orders.filter(side=OrderSide.BID)
        .order_by("-price_minor")
        .values_list("price_minor", flat=True)
        .first()
    )
    best_ask = (
        open_orders.filter(side=OrderSide.ASK)
        .order_by("price_minor")
        .values_list("price_minor", flat=True)
        .first()
    )
    return best_bid, best_ask


def get_order_book(*, problem: Problem, depth: int = MAX_BOOK_DEPTH) -> OrderBook:
    """Depth by price level with the book's sequence number, consistent with each other.

    Every book change bumps ``Problem.book_sequence`` in the same transaction, so levels read
    between two equal readings of the sequence are exactly the book at that sequence.
    """
    depth = max(1, min(depth, MAX_BOOK_DEPTH))
    for _ in range(5):
        before = Problem.objects.values_list("book_sequence", flat=True).get(pk=problem.pk)
        bids = _levels(problem, OrderSide.BID, depth)
        asks = _levels(problem, OrderSide.ASK, depth)
        after = Problem.objects.values_list("book_sequence", flat=True).get(pk=problem.pk)
        if before == after:
            break
    return OrderBook(problem.pk, problem.currency, after, bids, asks)


def _levels(problem: Problem, side: OrderSide, depth: int) -> list[BookLevel]:
    ordering = "-price_minor" if side == OrderSide.BID else "price_minor"
    rows = (
        Order.objects.filter(problem=problem, status=OrderStatus.OPEN, side=side)
        .values("price_minor")
        .annotate(quantity=Sum("remaining"), order_count=Count("id"))
        .order_by(ordering)[:depth]
    )
    return [BookLevel(r["price_minor"], r["quantity"], r["order_count"]) for r in rows]


def list_problem_trades(*, problem: Problem) -> QuerySet[Trade]:
    """A problem's trades, newest first (public: price, time, no identities)."""
    return Trade.objects.filter(problem=problem).order_by("-id")


def list_user_orders(
    *,
    user: AbstractBaseUser,
    problem_id: int | None = None,
    status: str | None = None,
    side: str | None = None,
) -> QuerySet[Order]:
    """The user's orders, newest first, with their fills (trades) prefetched."""
    qs = Order.objects.filter(owner_id=user.pk)
    if problem_id is not None:
        qs = qs.filter(problem_id=problem_id)
    if status:
        qs = qs.filter(status=status)
    if side:
        qs = qs.filter(side=side)
    return qs.prefetch_related(
        Prefetch("bid_fills", queryset=Trade.objects.order_by("id")),
        Prefetch("ask_fills", queryset=Trade.objects.order_by("id")),
    ).order_by("-id")


def get_user_order(*, user: AbstractBaseUser, order_id: int) -> Order:
    """One of the user's orders with its fills, in one query for an order nothing filled.

    A cancelled order keeps its ``remaining``, so ``remaining == quantity`` means no fill.
    """
    order = Order.objects.get(owner_id=user.pk, pk=order_id)
    if order.remaining < order.quantity:
        relation = "bid_fills" if order.side == OrderSide.BID else "ask_fills"
        prefetch_related_objects([order], Prefetch(relation, queryset=Trade.objects.order_by("id")))
    return order


def list_user_trades(*, user: AbstractBaseUser, problem_id: int | None = None) -> QuerySet[Trade]:
    """Trades where the user bought or sold, newest first."""
    qs = Trade.objects.filter(Q(buyer_id=user.pk) | Q(seller_id=user.pk))
    if problem_id is not None:
        qs = qs.filter(problem_id=problem_id)
    return qs.order_by("-id")


def list_user_solutions(
    *, user: AbstractBaseUser, problem_id: int | None = None, status: str | None = None
) -> QuerySet[Solution]:
    """The user's own solutions, newest first, with verdicts."""
    qs = Solution.objects.filter(solver_id=user.pk)
    if problem_id is not None:
        qs = qs.filter(problem_id=problem_id)
    if status:
        qs = qs.filter(status=status)
    return qs.select_related("verdict", "verifier_version").order_by("-id")


def list_balances(*, user: AbstractBaseUser) -> list[Balance]:
    """Available, held and pending balances per currency (every currency, zeros included)."""
    amounts: dict[tuple[str, str], int] = {
        (a.currency, a.kind): a.balance_minor for a in Account.objects.filter(owner_id=user.pk)
    }
    return [
        Balance(
            currency=currency,
            available_minor=amounts.get((currency, AccountKind.AVAILABLE), 0),
            held_minor=amounts.get((currency, AccountKind.HELD), 0),
            pending_minor=amounts.get((currency, AccountKind.PENDING), 0),
        )
        for currency in Currency.values
    ]


def list_ledger_entries(
    *, user: AbstractBaseUser, currency: str | None = None
) -> QuerySet[Posting]:
    """Postings to the user's accounts, newest first, with their transaction."""
    qs = Posting.objects.filter(account__owner_id=user.pk)
    if currency:
        qs = qs.filter(currency=currency)
    return qs.select_related("transaction", "account").order_by("-id")


# --- Reads for the web pages (market/views/) ------------------------------------------------


def list_problem_cards(**filters: object) -> QuerySet[Problem]:
    """:func:`list_problems` with the author and the best bid and ask, demo problems first."""
    from django.db.models import Case, F, Max, Min, When

    open_bid = Q(orders__side=OrderSide.BID, orders__status=OrderStatus.OPEN)
    open_ask = Q(orders__side=OrderSide.ASK, orders__status=OrderStatus.OPEN)
    return (
        list_problems(**filters)  # type: ignore[arg-type]
        .select_related("author")
        .annotate(
            best_bid_minor=Max("orders__price_minor", filter=open_bid),
            best_ask_minor=Min("orders__price_minor", filter=open_ask),
        )
        # Demo problems first, in the order they were loaded (Python before Lean, which a
        # server without Lean cannot judge); then the newest real problems.
        .order_by("-is_demo", Case(When(is_demo=True, then=F("pk")), default=-F("pk")))
    )


def get_public_problem_by_slug(*, slug: str) -> Problem | None:
    """A published or retired problem by slug (drafts are only on their author's pages)."""
    return (
        Problem.objects.filter(
            slug=slug, status__in=(ProblemStatus.PUBLISHED, ProblemStatus.RETIRED)
        )
        .select_related("author")
        .first()
    )


def list_active_versions(*, problem: Problem) -> list[VerifierVersion]:
    """The versions a solver can submit to now, in verifier order."""
    return list(
        VerifierVersion.objects.filter(verifier__problem=problem, is_active=True)
        .select_related("verifier")
        .order_by("verifier_id", "-number")
    )


# --- Reads for the author screens (API and pages alike) ---------------------------------------


def list_author_problems(*, author: AbstractBaseUser) -> QuerySet[Problem]:
    """Every problem of the author, drafts included, newest first, with their verifiers."""
    return (
        Problem.objects.filter(author_id=author.pk)
        .prefetch_related(author_verifiers_prefetch())
        .order_by("-created_at", "-pk")
    )


def get_author_problem(*, problem_id: int) -> Problem:
    """A problem with its verifiers, fresh from the database (after a write by its author).

    Not permission-checked: callers fetch through ``market.access.access_own_problem`` first.
    """
    return Problem.objects.prefetch_related(author_verifiers_prefetch()).get(pk=problem_id)


def get_problem_publish_refusals(*, problem: Problem) -> dict[str, list[str]]:
    """The problem's half of the publishing rule (``verifiers.services.publishing.
    PUBLISHING_RULE``): why its first verifier cannot list it now, by field."""
    refusals: dict[str, list[str]] = {}
    if problem.status == ProblemStatus.RETIRED:
        refusals["status"] = ["this problem is retired; its verifiers cannot be published"]
    elif problem.status == ProblemStatus.DRAFT:
        if not problem.statement_md.strip():
            refusals.setdefault("statement_md", []).append("the problem needs a statement")
        if problem.currency == Currency.USD and not usd_enabled():
            refusals.setdefault("currency", []).append("USD is not enabled on this server")
    return refusals


def get_publish_refusals(*, verifier: Verifier) -> dict[str, list[str]]:
    """Why publishing this verifier now would be refused, by field ({} when it would not):
    the problem's reasons and the verifier's (``publish_refusals``), as ``publish_verifier``
    would report them."""
    own = publish_refusals(verifier=verifier)
    if not own and verifier.status != VerifierStatus.DRAFT:
        return {}  # a published verifier whose draft is the live version: nothing to publish
    return {**get_problem_publish_refusals(problem=verifier.problem), **own}
