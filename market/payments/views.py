"""Pages of the payments app: the Stripe webhook, the forms of the account page's USD panel,
and the pages Stripe sends users back to. Each parses, calls one service, and redirects or
renders."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from market.exceptions import DomainError, PlatformError
from market.money import format_minor
from market.payments import return_urls
from market.payments.panel import earnings_context
from market.payments.services import connect, deposits, refunds, webhooks, withdrawals

logger = logging.getLogger(__name__)


def _error(error: DomainError) -> JsonResponse:
    body = {"error": {"code": error.code, "message": error.message, "fields": error.fields}}
    return JsonResponse(body, status=error.http_status)


@csrf_exempt
@require_POST
def stripe_webhook(request: HttpRequest) -> HttpResponse:
    """Stripe's endpoint: 200 once an event is recorded (first time or duplicate); 400 for a
    bad signature; other non-2xx (nothing recorded) make Stripe deliver it again later."""
    try:
        record, is_new = webhooks.handle_webhook(
            payload=request.body, signature_header=request.headers.get("Stripe-Signature", "")
        )
    except DomainError as error:
        if isinstance(error, PlatformError):
            logger.warning("stripe webhook deferred: %s", error.message)
        return _error(error)
    return JsonResponse(
        {"received": True, "duplicate": not is_new, "outcome": record.outcome}, status=200
    )


def _back(request: HttpRequest) -> HttpResponseRedirect:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/account/"
    return redirect(target)


def _amount_cents(request: HttpRequest) -> int | None:
    """The form's dollar amount ("12.34") as cents, or None."""
    raw = (request.POST.get("amount") or "").strip().replace(",", "")
    whole, _, cents = raw.partition(".")
    # ASCII digits only: str.isdigit() also accepts "²" (int() then raises) and other scripts.
    if (
        not raw.isascii()
        or not whole.isdigit()
        or len(cents) > 2
        or (cents and not cents.isdigit())
    ):
        return None
    return int(whole) * 100 + int((cents or "0").ljust(2, "0"))


@login_required
@require_POST
def deposit(request: HttpRequest) -> HttpResponse:
    amount = _amount_cents(request)
    if amount is None:
        messages.error(request, "Enter an amount in dollars, like 25 or 25.50.")
        return _back(request)
    success_url, cancel_url = return_urls.checkout_urls(request)
    try:
        created = deposits.create_deposit_session(
            user=request.user,
            amount_minor=amount,
            success_url=success_url,
            cancel_url=cancel_url,
            # The form's one-time token: a double submit opens the same Checkout Session.
            idempotency_key=request.POST.get("form_token") or None,
        )
    except DomainError as error:
        messages.error(request, error.message)
        return _back(request)
    if not created.checkout_url:
        messages.error(request, "Stripe refused this deposit; start a new one.")
        return _back(request)
    return redirect(created.checkout_url)


@login_required
@require_POST
def withdraw(request: HttpRequest) -> HttpResponse:
    amount = _amount_cents(request)
    if amount is None:
        messages.error(request, "Enter an amount in dollars, like 25 or 25.50.")
        return _back(request)
    try:
        withdrawal = withdrawals.request_withdrawal(
            user=request.user,
            amount_minor=amount,
            idempotency_key=request.POST.get("form_token") or None,
        )
    except DomainError as error:
        messages.error(request, error.message)
        return _back(request)
    messages.success(
        request,
        f"Withdrawal of {format_minor(withdrawal.amount_minor, 'USD')} requested: "
        f"{format_minor(withdrawal.net_minor, 'USD')} will be transferred to your Stripe "
        "account; the funds are held until Stripe confirms.",
    )
    return _back(request)


@login_required
@require_POST
def refund(request: HttpRequest) -> HttpResponse:
    """Refund (part of) one deposit to the card or account it came from."""
    raw_id = request.POST.get("deposit_id") or ""
    deposit_id = int(raw_id) if raw_id.isascii() and raw_id.isdigit() and len(raw_id) < 19 else 0
    amount = None
    if (request.POST.get("amount") or "").strip():
        amount = _amount_cents(request)
        if amount is None or amount <= 0:
            messages.error(request, "Enter an amount in dollars, like 25 or 25.50.")
            return _back(request)
    try:
        made = refunds.request_deposit_refund(
            user=request.user,
            deposit_id=deposit_id,
            amount_minor=amount,
            idempotency_key=request.POST.get("form_token") or None,
        )
    except DomainError as error:
        messages.error(request, error.message)
        return _back(request)
    messages.success(
        request,
        f"Refund of {format_minor(made.amount_minor, 'USD')} requested: Stripe returns it to "
        "the card or account you paid with (usually within 5 to 10 days).",
    )
    return _back(request)


@login_required
@require_POST
def connect_start(request: HttpRequest) -> HttpResponse:
    refresh_url, return_url = return_urls.connect_urls(request)
    try:
        url = connect.start_connect_onboarding(
            user=request.user, refresh_url=refresh_url, return_url=return_url
        )
    except DomainError as error:
        messages.error(request, error.message)
        return _back(request)
    return redirect(url)


@login_required
@require_GET
def connect_refresh(request: HttpRequest) -> HttpResponse:
    """Stripe's refresh_url: the link expired or was used; make a new one."""
    refresh_url, return_url = return_urls.connect_urls(request)
    try:
        url = connect.start_connect_onboarding(
            user=request.user, refresh_url=refresh_url, return_url=return_url
        )
    except DomainError as error:
        messages.error(request, error.message)
        return redirect("/account/")
    return redirect(url)


@login_required
@require_GET
def connect_return(request: HttpRequest) -> HttpResponse:
    try:
        account = connect.refresh_connected_account(user=request.user)
    except DomainError as error:
        messages.error(request, error.message)
        return redirect("/account/")
    if account is not None and account.payouts_enabled:
        messages.success(request, "Your Stripe account is ready to receive withdrawals.")
    else:
        messages.info(
            request, "Stripe still needs information before you can withdraw; continue below."
        )
    return redirect("/account/")


@login_required
@require_GET
def deposit_return(request: HttpRequest) -> HttpResponse:
    # Never credits anything: only the verified webhook does.
    return render(request, "payments/deposit_return.html", {"cancelled": False})


@login_required
@require_GET
def deposit_cancelled(request: HttpRequest) -> HttpResponse:
    return render(request, "payments/deposit_return.html", {"cancelled": True})


@login_required
@require_GET
def earnings(request: HttpRequest) -> HttpResponse:
    """The author's earnings: each USD sale, what became of its proceeds and, for a sale
    taken back, why; and whether the books last matched Stripe's."""
    return render(request, "payments/earnings.html", earnings_context(request))
