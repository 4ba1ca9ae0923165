"""The guard on every password check: django-axes, keyed by the normalised username.

Every path that checks a password calls ``django.contrib.auth.authenticate`` with the request:
the login page, the admin's login page and ``POST /api/v1/tokens/`` with a username and
password. ``LoginGuardBackend`` comes first in ``AUTHENTICATION_BACKENDS`` and refuses, before
any password is checked,

- a username with ``AXES_FAILURE_LIMIT`` failures in the cool-off window (from any address):
  axes counts them in the ``throttle`` cache under :func:`normalised_username`, the NFKC form
  case-folded (Django's login form applies NFKC, so ``ｄａｖｅ`` is ``dave``; case-folding
  makes ``Dave`` the same account for the count too);
- an address with ``MAX_LOGIN_FAILURES_PER_ADDRESS`` failures in the window (any usernames),
  counted by :func:`note_address_failure` with the atomic rate counter of
  ``market.api.throttling``.

A refused attempt is answered 429 with ``Retry-After`` (:func:`lockout_response` for pages,
the token view for the API). A call without a request is refused by axes (fail closed).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from market.api import throttling

MAX_LOGIN_FAILURES_PER_ADDRESS = 50
LOCKOUT_MESSAGE = "Too many failed attempts. Try again in 15 minutes."


def login_failure_window_s() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds())


def max_login_failures_per_username() -> int:
    return int(settings.AXES_FAILURE_LIMIT)


def normalise_username(username: object) -> str:
    """The key failures are counted under: NFKC, then case-folded, then stripped."""
    text = username if isinstance(username, str) else ""
    return unicodedata.normalize("NFKC", text).casefold().strip()


def normalised_username(request: Any, credentials: dict[str, Any] | None) -> str:
    """``AXES_USERNAME_CALLABLE``: the username of the attempt, normalised."""
    if credentials is not None:
        username = credentials.get("username")
    else:
        data = getattr(request, "data", None) or getattr(request, "POST", {})
        username = data.get("username")
    return normalise_username(username)


def client_address(request: Any) -> str:
    """``AXES_CLIENT_IP_CALLABLE``: the address the API throttles use."""
    return throttling.client_address(request)


def _address_key(address: str) -> str:
    return f"login-fail:addr:{address}"


def note_address_failure(*, request: Any) -> None:
    """Count one failed password check against the client's address."""
    if request is not None:
        throttling.hit(
            key=_address_key(client_address(request)),
            limit=MAX_LOGIN_FAILURES_PER_ADDRESS,
            window_s=login_failure_window_s(),
        )


def is_refused_unchecked(request: Any) -> bool:
    """Whether the guard refused this request's attempt without checking the password."""
    return bool(getattr(request, "login_refused_unchecked", False))


class LoginGuardBackend(AxesStandaloneBackend):
    """Axes' username lockout, and the per-address bound, before any password check."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is not None:
            address = client_address(request)
            if throttling.peek(key=_address_key(address)) >= MAX_LOGIN_FAILURES_PER_ADDRESS:
                request.login_refused_unchecked = True  # type: ignore[union-attr]
                request.axes_locked_out = True  # type: ignore[union-attr]
                raise AxesBackendPermissionDenied("too many failed attempts from this address")
        try:
            super().authenticate(request, username=username, password=password, **kwargs)  # type: ignore[arg-type]
        except AxesBackendPermissionDenied:
            if request is not None:
                request.login_refused_unchecked = True  # type: ignore[union-attr]
            raise


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: 429 for a refused attempt.

    The attempt that reaches the limit had its password checked: it keeps its own answer
    (the form with "wrong password"); the next ones are refused unchecked.
    """
    if not is_refused_unchecked(request) and original_response is not None:
        return original_response
    retry_after = str(login_failure_window_s())
    if request.path.startswith("/api/"):
        from market.api.errors import error_body

        response: HttpResponse = JsonResponse(
            error_body("api:throttled", "too many failed password attempts; try again later"),
            status=429,
        )
    elif request.path.startswith("/admin/"):
        response = render(request, "429.html", {"message": LOCKOUT_MESSAGE}, status=429)
    else:
        messages.error(request, LOCKOUT_MESSAGE)
        response = render(
            request, "registration/login.html", {"form": AuthenticationForm(request)}, status=429
        )
    response["Retry-After"] = retry_after
    return response
