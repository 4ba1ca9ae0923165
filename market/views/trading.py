"""Writes from the problem page: submit a solution, list it for sale, bid, cancel."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from market import selectors
from market.access import access_own_solution
from market.exceptions import DomainError, InsufficientFunds, NotFound
from market.models import Order
from market.money import Money, format_minor
from market.services.orders import cancel_order, place_ask, place_bid
from market.services.solutions import submit_solution
from market.views.forms import PriceForm, SubmitSolutionForm
from market.views.problems import get_problem_or_404, lean_status, problem_context
from market.views.ratelimit import write_rate_limited
from verifiers.models import Language


def _problem_url(slug: str, anchor: str = "") -> str:
    return reverse("problem-detail", kwargs={"slug": slug}) + (f"#{anchor}" if anchor else "")


def _bid_text(order: Order) -> str:
    """What a bid did: each copy bought is paid at the resting ask's price, and the part of
    the hold above that price goes back to the available balance at once."""
    price = format_minor(order.price_minor, order.currency)
    text = f"Bid placed: {order.quantity} at {price}."
    paid = list(order.bid_fills.values_list("price_minor", flat=True))
    if not paid:
        return text
    spent = sum(paid)
    released = order.price_minor * len(paid) - spent
    prices = ", ".join(sorted({format_minor(p, order.currency) for p in paid}))
    text += (
        f" Bought {len(paid)} right away at the seller's ask price ({prices}); you paid "
        f"{format_minor(spent, order.currency)}."
    )
    if released:
        text += (
            f" {format_minor(released, order.currency)} of your hold was released to your "
            "available balance."
        )
    if order.remaining:
        text += f" The other {order.remaining} wait on the book."
    return text


def add_domain_error(form: object, error: DomainError, default_field: str | None) -> None:
    """Show a typed domain error on the form: on its fields when the form has them."""
    added = False
    for field, problems in error.fields.items():
        name = {"price_minor": "price", "text": "text"}.get(field, field)
        if name in form.fields:  # type: ignore[attr-defined]
            for message in problems:
                if message != error.message:
                    form.add_error(name, message)  # type: ignore[attr-defined]
            added = True
    form.add_error(None if added else default_field, error.message)  # type: ignore[attr-defined]


def add_order_error(form: object, error: DomainError) -> None:
    """Show an order's refusal once. A refusal for funds says it all in its message (its
    field text, "not enough available funds", would say it twice), so the price field is only
    marked invalid; other refusals name their fields' problems as usual."""
    if not isinstance(error, InsufficientFunds):
        add_domain_error(form, error, "price")
        return
    for field in error.fields:
        name = {"price_minor": "price"}.get(field, field)
        if name in form.fields:  # type: ignore[attr-defined]
            form.fields[name].widget.attrs["aria-invalid"] = "true"  # type: ignore[attr-defined]
    form.add_error(None, error.message)  # type: ignore[attr-defined]


@login_required
@require_POST
@write_rate_limited
def submit(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_problem_or_404(slug)
    versions = selectors.list_active_versions(problem=problem)
    form = SubmitSolutionForm(request.POST, request.FILES, versions=versions)
    if form.is_valid():
        version = next(v for v in versions if v.pk == form.cleaned_data["verifier_version"])
        try:
            submit_solution(
                solver=request.user,
                verifier=version.verifier,  # type: ignore[attr-defined]
                text=form.cleaned_data["solution_bytes"],
            )
        except DomainError as error:
            add_domain_error(form, error, "text")
        else:
            messages.success(request, _submitted_text(version))
            return redirect(_problem_url(slug, "my-solutions"))
    context = problem_context(request, problem, submit_form=form)
    return render(request, "market/problem_detail.html", context, status=400)


def _submitted_text(version: object) -> str:
    if version.language == Language.LEAN and not lean_status()["available"]:  # type: ignore[attr-defined]
        return (
            "Solution submitted. Lean judging is unavailable on this server, so it stays "
            "pending (it is not rejected for this) until a server with Lean judges it."
        )
    return "Solution submitted. Its verdict appears below."


@login_required
@require_POST
@write_rate_limited
def sell(request: HttpRequest, solution_id: int) -> HttpResponse:
    try:
        solution = access_own_solution(user=request.user, solution_id=solution_id)
    except NotFound:
        raise Http404("no such solution") from None
    problem = get_problem_or_404(solution.problem.slug)
    form = PriceForm(request.POST, prefix=f"sell-{solution.pk}", currency=problem.currency)
    if form.is_valid():
        try:
            order = place_ask(
                seller=request.user,
                solution=solution,
                price=Money(form.price_minor, problem.currency),  # type: ignore[arg-type]
                quantity=form.cleaned_data["quantity"],
            )
        except DomainError as error:
            add_order_error(form, error)
        else:
            sold = order.quantity - order.remaining
            text = f"Listed {order.quantity} at {format_minor(order.price_minor, order.currency)}."
            if sold:
                text += f" Sold {sold} right away (trades happen at the buyer's bid price)."
            if order.remaining:
                text += " The rest waits on the book for a buyer who does not own it yet."
            messages.success(request, text)
            # No #book anchor: the confirmation is at the top of the page, on screen.
            return redirect(_problem_url(problem.slug))
    context = problem_context(request, problem, sell_form_errors=form, sell_solution_id=solution.pk)
    return render(request, "market/problem_detail.html", context, status=400)


@login_required
@require_POST
@write_rate_limited
def bid(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_problem_or_404(slug)
    form = PriceForm(request.POST, prefix="bid", currency=problem.currency)
    if form.is_valid():
        try:
            order = place_bid(
                buyer=request.user,
                problem=problem,
                price=Money(form.price_minor, problem.currency),  # type: ignore[arg-type]
                quantity=form.cleaned_data["quantity"],
            )
        except DomainError as error:
            add_order_error(form, error)
        else:
            messages.success(request, _bid_text(order))
            # No #book anchor: the confirmation is at the top of the page, on screen.
            return redirect(_problem_url(slug))
    context = problem_context(request, problem, bid_form=form)
    return render(request, "market/problem_detail.html", context, status=400)


@login_required
@require_POST
@write_rate_limited
def cancel(request: HttpRequest, order_id: int) -> HttpResponse:
    next_url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = reverse("account")
    try:
        order = cancel_order(user=request.user, order_id=order_id)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Order {order.pk} cancelled.")
    return redirect(next_url)
