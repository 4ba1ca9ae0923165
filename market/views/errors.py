"""Error answers: a product page for pages, the JSON envelope under /api/, for every status.

These run when something already went wrong (a bad Host header, a dropped database), so each
one renders a template that needs no database and no user, and falls back to a fixed text
if even that fails: an error page never raises and never shows a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token

from market.api.errors import error_body

logger = logging.getLogger(__name__)

_TITLES = {
    400: "Bad request",
    403: "Not allowed",
    404: "Page not found",
    429: "Too many requests",
    500: "Server error",
    503: "Briefly unavailable",
}
_API_ERRORS = {
    400: ("api:bad-request", "bad request"),
    403: ("api:permission-denied", "you are not allowed to do this"),
    404: ("not-found", "not found"),
    429: ("api:throttled", "too many requests; try again later"),
    500: ("api:server-error", "internal error; it has been logged"),
    503: ("api:unavailable", "the service is briefly unavailable; try again in a few seconds"),
}


# The payments API is mounted at /payments/api/ too (market.payments.urls): its clients are
# programs as well, and a crash there was an HTML page.
API_PREFIXES = ("/api/", "/payments/api/")


def is_api_path(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIXES)


def error_response(
    request: HttpRequest, status: int, *, code: str | None = None, message: str | None = None
) -> HttpResponse:
    """The error answer for ``status``: JSON under /api/, else the product page."""
    if is_api_path(request):
        default_code, default_message = _API_ERRORS[status]
        return JsonResponse(
            error_body(code or default_code, message or default_message), status=status
        )
    try:
        context: dict[str, Any] = {"message": message} if message else {}
        html = loader.get_template(f"{status}.html").render(context)
    except Exception:  # the page itself failed: a fixed text, never a traceback
        logger.exception("rendering the %s page failed", status)
        html = f"<!doctype html><title>{_TITLES[status]}</title><h1>{_TITLES[status]}</h1>"
    return HttpResponse(html, status=status, content_type="text/html; charset=utf-8")


@requires_csrf_token
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, DisallowedHost):
        return error_response(request, 400, code="api:bad-host", message="unknown host")
    return error_response(request, 400)


@requires_csrf_token
def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 403)


@requires_csrf_token
def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 404)


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: the form was stale or came from another site."""
    return error_response(
        request,
        403,
        code="api:csrf-failed",
        message="This form has expired or came from another site. Reload the page and try again.",
    )
