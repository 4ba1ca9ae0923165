"""Page forms that write count in the same per-user bucket as the API's writes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

from market.api.throttling import page_write_decision
from market.views.errors import error_response


def write_rate_limited(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Refuse a POST over the user's write rate with the 429 page and ``Retry-After``.

    Apply below ``login_required`` and ``require_POST``: only accepted writes are counted.
    """

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            decision = page_write_decision(request)
            if not decision.is_allowed:
                response = error_response(
                    request,
                    429,
                    message="Too many changes in a short time. Wait a moment, then try again.",
                )
                response["Retry-After"] = str(decision.retry_after_s)
                return response
        return view(request, *args, **kwargs)

    return wrapper
