"""The guard on every password check: django-axes, keyed by the normalised username, and
slots taken atomically *before* the password is checked.

Every path that checks a password calls ``django.contrib.auth.authenticate`` with the request:
the login page, the admin's login page and ``POST /api/v1/tokens/`` with a username and
password. ``LoginGuardBackend`` comes first in ``AUTHENTICATION_BACKENDS`` and does the
password check itself, after refusing

- a username with ``AXES_FAILURE_LIMIT`` failures (or checks in flight) in the cool-off window,
  from any address, counted under :func:`normalise_username` (NFKC, case-folded: Django's login
  form applies NFKC, so ``ｄａｖｅ`` is ``dave``; case-folding makes ``Dave`` the same account);
- an address with ``MAX_LOGIN_FAILURES_PER_ADDRESS`` failures (or checks in flight) in the
  window, any usernames.

Each attempt takes its slots with an atomic increment in the ``throttle`` cache (Redis INCR
when ``REDIS_URL`` is set) before the check, so parallel guesses cannot pass the limit between
a check and its count (issue 27: 100 parallel wrong passwords let 19 reach the check with a
limit of 10). A refused attempt is answered 429 with ``Retry-After`` (:func:`lockout_response`
for pages, the token view for the API). A call without a request is refused by axes (fail
closed)."""

from __future__ import annotations

import unicodedata
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.core.exceptions import PermissionDenied
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
    return f"login-slot:addr:{address}"


def _username_key(username: str) -> str:
    return f"login-slot:user:{username}"


def note_address_failure(*, request: Any) -> None:
    """Kept for the ``user_login_failed`` receiver (market.apps): a failure is already counted,
    because every attempt reserved its slot before its password was checked."""


def _reserve(key: str, limit: int) -> bool:
    """Take one slot under ``key`` atomically (Redis INCR, or the locked local cache); refuse,
    giving the slot back, when the window already has ``limit`` slots.

    A slot is an attempt whose password check failed or is still running: it is taken
    *before* the check, so N parallel wrong passwords let at most ``limit`` reach it (counting
    after the check, as axes' own handler does, let 19 of 100 through with a limit of 10).
    """
    cache = caches["throttle"]
    cache.add(key, 0, timeout=login_failure_window_s())
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 0, timeout=login_failure_window_s())
        count = cache.incr(key)
    if count > limit:
        _release(key)
        return False
    return True


def _release(key: str) -> None:
    try:
        caches["throttle"].decr(key)
    except ValueError:
        pass  # the window ended meanwhile: nothing to give back


def is_refused_unchecked(request: Any) -> bool:
    """Whether the guard refused this request's attempt without checking the password."""
    return bool(getattr(request, "login_refused_unchecked", False))


def _refuse(request: Any, why: str) -> None:
    request.login_refused_unchecked = True
    request.axes_locked_out = True
    raise AxesBackendPermissionDenied(why)


class LoginGuardBackend(AxesStandaloneBackend):
    """The password check itself, behind slots per username and per address taken before it.

    Order: axes' own lockout (refuses a call without a request, and a username it has
    locked), then a slot for the normalised username and one for the address, then
    ``ModelBackend``'s password check. A wrong password keeps both slots (they are the
    failures of the window) and stops the chain (PermissionDenied, so no later backend
    checks it again); a right one frees the address slot and resets the username's (as
    ``AXES_RESET_ON_SUCCESS`` does for axes' count).
    """

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        try:
            super().authenticate(request, username=username, password=password, **kwargs)  # type: ignore[arg-type]
        except AxesBackendPermissionDenied:
            if request is not None:
                request.login_refused_unchecked = True  # type: ignore[union-attr]
            raise
        if request is None or username is None or password is None:
            return None
        user_key = _username_key(normalise_username(username))
        address_key = _address_key(client_address(request))
        if not _reserve(address_key, MAX_LOGIN_FAILURES_PER_ADDRESS):
            _refuse(request, "too many failed attempts from this address")
        if not _reserve(user_key, max_login_failures_per_username()):
            _release(address_key)
            _refuse(request, "too many failed attempts for this username")
        user = ModelBackend().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            raise PermissionDenied("wrong username or password")
        caches["throttle"].delete(user_key)
        _release(address_key)
        return user


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
