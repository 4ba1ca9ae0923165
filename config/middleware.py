"""Cross-cutting answers: private caching, and the product 404 page under DEBUG."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from market.views.errors import page_not_found


class PrivateCacheMiddleware:
    """Every answer the application itself makes is ``Cache-Control: private, no-store``.

    Dynamic answers carry solution texts, balances, ledgers, tokens and CSRF tokens; deciding
    page by page which ones are private is a deny-list waiting for its first miss. Static
    files never get here: WhiteNoise answers them first, with their own long cache headers.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response["Cache-Control"] = "private, no-store"
        return response


class DebugProductNotFoundMiddleware:
    """Under DEBUG (``make run``), a missing page is the product 404, not Django's URL list.

    Only active with DEBUG on; without DEBUG, ``handler404`` already answers. Put it after
    CommonMiddleware so that APPEND_SLASH still redirects ``/problems`` to ``/problems/``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        if not settings.DEBUG:
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            resolve(request.path_info, getattr(request, "urlconf", None))
        except Resolver404:
            return page_not_found(request)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404):
            return page_not_found(request, exception)
        return None
