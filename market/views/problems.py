"""Public pages: home, the problem list, a problem's page and its live fragments."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from market import selectors
from market.models import OrderStatus, Problem, Solution, SolutionStatus
from market.views.forms import PriceForm, ProblemFilterForm, SubmitSolutionForm
from verifiers.models import Language


def home(request: HttpRequest) -> HttpResponse:
    demos = selectors.list_problem_cards(is_demo=True)
    return render(request, "market/home.html", {"demo_problems": demos})


def problem_list(request: HttpRequest) -> HttpResponse:
    form = ProblemFilterForm(request.GET or None)
    filters: dict[str, object] = {}
    if form.is_valid():
        kind = form.cleaned_data["kind"]
        filters = {
            "q": form.cleaned_data["q"] or None,
            "language": form.cleaned_data["language"] or None,
            "is_demo": {"demo": True, "real": False}.get(kind),
        }
    problems = selectors.list_problem_cards(**filters)
    return render(request, "market/problem_list.html", {"form": form, "problems": problems})


def get_problem_or_404(slug: str) -> Problem:
    problem = selectors.get_public_problem_by_slug(slug=slug)
    if problem is None:
        raise Http404("no such problem")
    return problem


def problem_context(request: HttpRequest, problem: Problem, **overrides: Any) -> dict[str, Any]:
    """Everything the problem page shows; ``overrides`` carry bound forms with errors."""
    versions = selectors.list_active_versions(problem=problem)
    lean_status = None
    if any(v.language == Language.LEAN for v in versions):  # type: ignore[attr-defined]
        from verifiers.services.judging import lean_toolchain_status

        available, reason = lean_toolchain_status()
        lean_status = {"available": available, "reason": reason}
    context: dict[str, Any] = {
        "problem": problem,
        "versions": versions,
        "lean_status": lean_status,
        "book": selectors.get_order_book(problem=problem, depth=10),
        "trades": list(selectors.list_problem_trades(problem=problem)[:20]),
        "submit_form": SubmitSolutionForm(versions=versions),
        "bid_form": PriceForm(prefix="bid"),
        "sell_form_errors": None,
        "sell_solution_id": None,
    }
    if request.user.is_authenticated:
        context["my_solutions"] = _my_solutions(request, problem)
        context["poll_s"] = polling_interval_s(context["my_solutions"])
        context["sell_hint"] = sell_hint(problem)
        context["my_orders"] = list(
            selectors.list_user_orders(
                user=request.user, problem_id=problem.pk, status=OrderStatus.OPEN
            )
        )
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
            "sell_hint": sell_hint(problem),
            "sell_form_errors": None,
        },
    )


def book_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    """The order book and last trades, polled by htmx."""
    problem = get_problem_or_404(slug)
    return render(
        request,
        "market/_book.html",
        {
            "problem": problem,
            "book": selectors.get_order_book(problem=problem, depth=10),
            "trades": list(selectors.list_problem_trades(problem=problem)[:20]),
        },
    )


def _my_solutions(request: HttpRequest, problem: Problem) -> list[Solution]:
    return list(
        selectors.list_user_solutions(user=request.user, problem_id=problem.pk)  # type: ignore[arg-type]
        .select_related("verifier_version__verifier")
        .prefetch_related("asks")
    )


def sell_hint(problem: Problem) -> dict[str, Any]:
    """What the "List for sale" form tells a seller: the best bid now and the fee."""
    best_bid, _ = selectors.get_best_prices(problem=problem)
    return {"best_bid_minor": best_bid, "fee_percent": settings.MARKET_FEE_BPS / 100}


def polling_interval_s(solutions: list[Any]) -> int | None:
    """How often the solutions panel re-polls: fast while judging, slow while parked, never
    once every verdict is in."""
    outstanding = [s for s in solutions if s.status in (SolutionStatus.PENDING, "running")]
    if not outstanding:
        return None
    if all(s.status == SolutionStatus.PENDING and s.pending_reason for s in outstanding):
        return 10
    return 1
