"""Sign up and the account page (balances, ledger history, open orders, solutions)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from market import selectors
from market.models import OrderStatus
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


@login_required
def account(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "market/account.html",
        {
            "balances": selectors.list_balances(user=request.user),
            "postings": selectors.list_ledger_entries(user=request.user)[:100],
            "orders": selectors.list_user_orders(
                user=request.user, status=OrderStatus.OPEN
            ).select_related("problem"),
            "solutions": selectors.list_user_solutions(user=request.user).select_related("problem")[
                :50
            ],
            "trades": selectors.list_user_trades(user=request.user).select_related(
                "problem", "solution"
            )[:50],
            **usd_panel_context(request),
        },
    )
