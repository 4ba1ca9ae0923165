"""Public pages: home, the problem list, a problem's page and its live fragments."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from market import page_selectors, selectors
from market.models import OrderStatus, Problem, Solution, SolutionStatus
from market.money import Currency
from market.services.bot import BID_PRICE_MINOR
from market.views.forms import PriceForm, ProblemFilterForm, SubmitSolutionForm
from verifiers.models import Language

# "Kind" in the problem list is what a problem trades in: DEMO credits (no money) or real money.
KIND_CURRENCY = {"demo": Currency.DEMO, "real": Currency.USD}


def lean_status() -> dict[str, Any]:
    """Whether this server can judge Lean solutions now, and if not why."""
    from verifiers.services.judging import lean_toolchain_status

    available, reason = lean_toolchain_status()
    return {"available": available, "reason": reason}


def _judge_notes(versions: list[Any]) -> list[dict[str, str]]:
    """ "The judge is starting" for each language of this problem whose judge pool is not
    warm yet (Lean without a toolchain has its own note)."""
    from market.judge_state import judge_states

    languages = sorted({v.language for v in versions})
    states = judge_states() if languages else {}
    return [
        {"language": lang}
        for lang in languages
        if states[lang].accepts_submissions and states[lang].note is not None
    ]


def _cards(**filters: object) -> list[Problem]:
    return page_selectors.attach_languages(selectors.list_problem_cards(**filters))


def home(request: HttpRequest) -> HttpResponse:
    context = {"demo_problems": _cards(is_demo=True), "lean_status": lean_status()}
    return render(request, "market/home.html", context)


def problem_list(request: HttpRequest) -> HttpResponse:
    form = ProblemFilterForm(request.GET or None)
    filters: dict[str, object] = {}
    if form.is_valid():
        filters = {
            "q": form.cleaned_data["q"] or None,
            "language": form.cleaned_data["language"] or None,
            "currency": KIND_CURRENCY.get(form.cleaned_data["kind"]),
        }
    context = {"form": form, "problems": _cards(**filters), "lean_status": lean_status()}
    return render(request, "market/problem_list.html", context)


def get_problem_or_404(slug: str) -> Problem:
    problem = selectors.get_public_problem_by_slug(slug=slug)
    if problem is None:
        raise Http404("no such problem")
    return problem


def problem_context(request: HttpRequest, problem: Problem, **overrides: Any) -> dict[str, Any]:
    """Everything the problem page shows; ``overrides`` carry bound forms with errors."""
    versions = selectors.list_active_versions(problem=problem)
    has_lean = any(v.language == Language.LEAN for v in versions)  # type: ignore[attr-defined]
    context: dict[str, Any] = {
        "problem": problem,
        "versions": versions,
        "lean_status": lean_status() if has_lean else None,
        "judge_notes": _judge_notes(versions),
        **book_context(request, problem),
        "submit_form": SubmitSolutionForm(versions=versions),
        "bid_form": PriceForm(prefix="bid", currency=problem.currency),
        "sell_form_errors": None,
        "sell_solution_id": None,
    }
    if request.user.is_authenticated:
        context["my_solutions"] = _my_solutions(request, problem)
        context["poll_s"] = polling_interval_s(context["my_solutions"])
        context["sell_hint"] = sell_hint(request, problem, context["my_solutions"])
        context["purchases"] = list(
            page_selectors.list_purchases(buyer=request.user, problem=problem)  # type: ignore[arg-type]
        )
        context["my_orders"] = _my_open_orders(request, problem)
        context["problem_path"] = reverse("problem-detail", kwargs={"slug": problem.slug})
    context.update(overrides)
    return context


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_problem_or_404(slug)
    return render(request, "market/problem_detail.html", problem_context(request, problem))


def my_solutions_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    """The "My solutions" panel, polled by htmx while a verdict is outstanding."""
    problem = get_problem_or_404(slug)
    solutions = []
    if request.user.is_authenticated:
        solutions = _my_solutions(request, problem)
    return render(
        request,
        "market/_my_solutions_body.html",
        {
            "problem": problem,
            "my_solutions": solutions,
            "poll_s": polling_interval_s(solutions),
            "sell_hint": sell_hint(request, problem, solutions),
            "sell_form_errors": None,
        },
    )


def _my_open_orders(request: HttpRequest, problem: Problem) -> list[Any]:
    return list(
        selectors.list_user_orders(
            user=request.user,  # type: ignore[arg-type]
            problem_id=problem.pk,
            status=OrderStatus.OPEN,
        )
    )


def book_context(request: HttpRequest, problem: Problem) -> dict[str, Any]:
    """The book, its blocked bid levels and the last trades, read together."""
    book = selectors.get_order_book(problem=problem, depth=10)
    blocked = page_selectors.list_blocked_bid_prices(problem=problem)
    best_ask = book.asks[0].price_minor if book.asks else None
    return {
        "book": book,
        "blocked_bid_prices": blocked,
        "is_book_locked": bool(book.bids and best_ask is not None)
        and book.bids[0].price_minor >= best_ask,  # type: ignore[operator]
        "trades": list(selectors.list_problem_trades(problem=problem)[:20]),
        # An empty bid side of a demo problem lasts only until the practice bot re-bids.
        "practice_bid_minor": BID_PRICE_MINOR if problem.is_demo else None,
    }


def book_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    """The order book and last trades, polled by htmx; for a signed-in seller, the "List for
    sale" hints of their accepted solutions ride along as out-of-band swaps, so the card and
    the book always show the same reading of the book."""
    problem = get_problem_or_404(slug)
    context: dict[str, Any] = {"problem": problem, **book_context(request, problem)}
    if request.user.is_authenticated:
        solutions = [
            s for s in _my_solutions(request, problem) if s.status == SolutionStatus.ACCEPTED
        ]
        context["oob_solutions"] = solutions
        context["sell_hint"] = sell_hint(request, problem, solutions)
        # "My open orders" follows the book: a filled order leaves it without a reload.
        context["my_orders"] = _my_open_orders(request, problem)
        context["problem_path"] = reverse("problem-detail", kwargs={"slug": problem.slug})
    return render(request, "market/_book_fragment.html", context)


# The problem page shows the newest solutions of the viewer; the account page pages them all.
MY_SOLUTIONS_SHOWN = 20


def _my_solutions(request: HttpRequest, problem: Problem) -> list[Solution]:
    return list(
        selectors.list_user_solutions(user=request.user, problem_id=problem.pk)  # type: ignore[arg-type]
        .select_related("verifier_version__verifier")
        .prefetch_related("asks")[: MY_SOLUTIONS_SHOWN + 1]
    )


def sell_hint(request: HttpRequest, problem: Problem, solutions: list[Solution]) -> dict[str, Any]:
    """What each "List for sale" card tells its seller: the best bid that solution can take
    now (not the book's best bid, which may be the seller's own or a buyer who owns a copy),
    who already bought it, and the fee."""
    states = page_selectors.list_sell_states(
        seller=request.user,  # type: ignore[arg-type]
        problem=problem,
        solutions=solutions,
    )
    return {"states": states, "fee_percent": settings.MARKET_FEE_BPS / 100}


def polling_interval_s(solutions: list[Any]) -> int | None:
    """How often the solutions panel re-polls: fast while judging, slow while parked, never
    once every verdict is in."""
    outstanding = [s for s in solutions if s.status in (SolutionStatus.PENDING, "running")]
    if not outstanding:
        return None
    if all(s.status == SolutionStatus.PENDING and s.pending_reason for s in outstanding):
        return 10
    return 1
