"""Pages: the activity feed, the header badge fragment, and API tokens + webhooks."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from activity import selectors
from activity.services.events import mark_read
from activity.services.webhooks import create_webhook_endpoint, remove_webhook_endpoint
from market.api.tokens import create_api_token, list_api_tokens, revoke_api_token
from market.exceptions import DomainError


def badge_poll_s() -> int:
    """How often the header badge asks for the unread count (htmx polling; no inline script)."""
    return int(getattr(settings, "ACTIVITY_BADGE_POLL_S", 15))


@login_required
def activity_page(request: HttpRequest) -> HttpResponse:
    last_read = selectors.get_last_read_id(user_id=request.user.pk)
    page = Paginator(selectors.list_recent_events(user_id=request.user.pk), 50).get_page(
        request.GET.get("page")
    )
    rows = [
        {"event": e, "message": selectors.describe_event(e), "is_unread": e.pk > last_read}
        for e in page.object_list
    ]
    # Seeing the events is reading them: the newest page marks what it shows read (they keep
    # their "new" mark for this visit). Older pages are read by visiting them or the button.
    newly_read = sum(1 for row in rows if row["is_unread"])
    if newly_read:
        mark_read(user_id=request.user.pk, up_to_id=max(row["event"].pk for row in rows))
    return render(
        request,
        "activity/activity.html",
        {
            "page": page,
            "rows": rows,
            "newly_read": newly_read,
            "unread": selectors.count_unread(user_id=request.user.pk),
        },
    )


@require_GET
def badge(request: HttpRequest) -> HttpResponse:
    """The header badge (polled by htmx); empty for anonymous visitors."""
    unread = 0
    if request.user.is_authenticated:
        unread = selectors.count_unread(user_id=request.user.pk)
    return render(
        request,
        "activity/_badge.html",
        {"activity_unread": unread, "activity_poll_s": badge_poll_s()},
    )


def _posted_id(raw: str) -> int | None:
    """A posted id of 1 to 18 ASCII digits, else None (``"²".isdigit()`` is true, but
    ``int("²")`` raises, and 10**30 overflows bigint: both were 500s)."""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


@login_required
@require_POST
def mark_all_read(request: HttpRequest) -> HttpResponse:
    up_to = request.POST.get("up_to", "")
    mark_read(user_id=request.user.pk, up_to_id=_posted_id(up_to))
    messages.success(request, "Marked as read.")
    return redirect("activity")


@login_required
def tokens_page(request: HttpRequest) -> HttpResponse:
    """API tokens (create, name, revoke; a new key shown once) and webhook endpoints."""
    new_key = new_secret = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "create-token":
                token, new_key = create_api_token(
                    user=request.user, name=request.POST.get("name", "")
                )
                messages.success(request, f"Token {token.name!r} created. Copy its key now.")
            elif action == "revoke-token" and (token_id := _posted_id(request.POST.get("id", ""))):
                token = revoke_api_token(user=request.user, token_id=token_id)
                messages.success(request, f"Token {token.name!r} revoked.")
            elif action == "create-webhook":
                endpoint = create_webhook_endpoint(
                    user=request.user,
                    url=request.POST.get("url", ""),
                    description=request.POST.get("description", ""),
                )
                new_secret = endpoint.secret
                messages.success(request, "Webhook endpoint added. Copy its signing secret now.")
            elif action == "remove-webhook" and (
                endpoint_id := _posted_id(request.POST.get("id", ""))
            ):
                remove_webhook_endpoint(user=request.user, endpoint_id=endpoint_id)
                messages.success(request, "Webhook endpoint removed.")
            else:
                messages.error(request, "Unknown action.")
        except DomainError as exc:
            messages.error(request, exc.message)
        if new_key is None and new_secret is None:
            return redirect("api-tokens")  # the key and the secret are rendered, never redirected
    endpoints = [
        {
            "endpoint": endpoint,
            "deliveries": list(selectors.list_endpoint_deliveries(endpoint=endpoint)[:10]),
        }
        for endpoint in selectors.list_user_endpoints(user_id=request.user.pk)
    ]
    return render(
        request,
        "activity/tokens.html",
        {
            "tokens": list_api_tokens(user=request.user)[:50],
            "new_key": new_key,
            "new_secret": new_secret,
            "endpoints": endpoints,
        },
    )
