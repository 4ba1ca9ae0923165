"""Sign up and the account page (balances, ledger history, open orders, solutions)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from market import page_selectors, selectors
from market.api.throttling import (
    clear_login_failures,
    client_address,
    login_locked_out,
    note_login_failure,
)
from market.ledger_history import account_label, describe_postings
from market.models import AccountKind, OrderStatus
from market.money import format_minor
from market.payments.panel import usd_panel_context
from market.services.signup import sign_up
from market.views.forms import SignUpForm


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


class LoginView(auth_views.LoginView):
    """Django's login page, refusing further guesses after too many failed passwords for one
    username (from any address) or from one address (``market.api.throttling``, shared with
    token creation by password). A refused attempt checks no password: 429 with the reason."""

    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        username = request.POST.get("username", "")
        if login_locked_out(username=username, address=client_address(request)):
            messages.error(request, "Too many failed attempts. Try again in 15 minutes.")
            form = self.get_form_class()(request)
            response = self.render_to_response(self.get_context_data(form=form))
            response.status_code = 429
            response["Retry-After"] = "900"
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        username = self.request.POST.get("username", "")
        if username and self.request.POST.get("password"):
            note_login_failure(username=username, address=client_address(self.request))
        return super().form_invalid(form)

    def form_valid(self, form: Any) -> HttpResponse:
        clear_login_failures(username=form.get_user().get_username())
        return super().form_valid(form)


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
