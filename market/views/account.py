"""Sign up and the account page (balances, ledger history, open orders, solutions)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from market import page_selectors, selectors
from market.ledger_history import account_label, describe_postings
from market.models import AccountKind, OrderStatus
from market.money import format_minor
from market.payments.panel import usd_panel_context
from market.services.signup import sign_up
from market.views.forms import SignUpForm
from market.views.ratelimit import write_rate_limited


@write_rate_limited  # per address: anonymous
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = sign_up(
            username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request,
            f"Welcome! You received {format_minor(settings.DEMO_SIGNUP_GRANT_MINOR, 'DEMO')} "
            "to try the demo problems (DEMO credits are not money).",
        )
        return redirect("problem-list")
    return render(request, "registration/signup.html", {"form": form})


PAGE_SIZE = 25


def _page(request: HttpRequest, items: Any, param: str) -> Page[Any]:
    """One page of ``items`` by the ``param`` query parameter (bad or too high: the last)."""
    return Paginator(items, PAGE_SIZE).get_page(request.GET.get(param))


@login_required
def account(request: HttpRequest) -> HttpResponse:
    postings = _page(request, selectors.list_ledger_entries(user=request.user), "ledger")
    solutions = _page(
        request,
        selectors.list_user_solutions(user=request.user).select_related("problem"),
        "solutions",
    )
    trades = _page(
        request,
        selectors.list_user_trades(user=request.user).select_related("problem", "solution"),
        "trades",
    )
    orders = list(
        selectors.list_user_orders(user=request.user, status=OrderStatus.OPEN).select_related(
            "problem"
        )
    )
    page_selectors.attach_languages(
        [o.problem for o in orders]
        + [s.problem for s in solutions.object_list]
        + [t.problem for t in trades.object_list]
    )
    return render(
        request,
        "market/account.html",
        {
            "balances": selectors.list_balances(user=request.user),
            "account_labels": {kind: account_label(kind) for kind in AccountKind.values},
            "postings": postings,
            "history": describe_postings(user=request.user, postings=postings.object_list),
            "orders": orders,
            "solutions": solutions,
            "trades": trades,
            **usd_panel_context(request),
        },
    )
