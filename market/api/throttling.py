"""Per-user throttles (per client address for anonymous callers), reads and writes apart.

Counters live in the ``throttle`` cache (Redis when configured). A throttled call gets 429 with
``Retry-After`` (seconds).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import caches
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class _UserThrottle(SimpleRateThrottle):
    @property
    def cache(self) -> Any:  # type: ignore[override]
        return caches["throttle"]

    def applies_to(self, request: Request) -> bool:
        raise NotImplementedError

    def get_ident(self, request: Request) -> str:
        """The client's address: ``REMOTE_ADDR``, unless ``NUM_PROXIES`` says how many proxies
        in front of the server append to ``X-Forwarded-For``.

        DRF's default with ``NUM_PROXIES`` unset takes the whole ``X-Forwarded-For`` header,
        which the client writes: a new header value per request was a new bucket, so anonymous
        calls (token creation with a password: password guessing) were never throttled.
        """
        if api_settings.NUM_PROXIES:
            return super().get_ident(request)
        return str(request.META.get("REMOTE_ADDR") or "unknown")

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not self.applies_to(request):
            return None
        if request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:
            ident = f"anon-{self.get_ident(request)}"
        return f"throttle:{self.scope}:{ident}"


class ReadThrottle(_UserThrottle):
    scope = "read"

    def applies_to(self, request: Request) -> bool:
        return request.method in SAFE_METHODS


class WriteThrottle(_UserThrottle):
    scope = "write"

    def applies_to(self, request: Request) -> bool:
        return request.method not in SAFE_METHODS


# --- password guessing ------------------------------------------------------------------------
# The per-address throttle above bounds one client; these bound the guesses against one
# account from any number of addresses. Both password paths use them: the login page and
# POST /api/v1/tokens/ with a username and password.

LOGIN_FAILURE_WINDOW_S = 15 * 60
MAX_LOGIN_FAILURES_PER_USERNAME = 10
MAX_LOGIN_FAILURES_PER_ADDRESS = 50


def _login_keys(username: str, address: str) -> tuple[str, str]:
    name = hashlib.sha256(username.strip().lower().encode("utf-8", "replace")).hexdigest()
    return f"login-fail:user:{name}", f"login-fail:addr:{address}"


def client_address(request: Any) -> str:
    """The client's address for throttling: as :meth:`_UserThrottle.get_ident` decides."""
    return ReadThrottle().get_ident(request)  # reads only request.META: any request works


def login_locked_out(*, username: str, address: str) -> bool:
    """Whether password attempts for ``username`` or from ``address`` are refused for now."""
    by_user, by_address = _login_keys(username, address)
    cache = caches["throttle"]
    return (cache.get(by_user, 0) >= MAX_LOGIN_FAILURES_PER_USERNAME) or (
        cache.get(by_address, 0) >= MAX_LOGIN_FAILURES_PER_ADDRESS
    )


def note_login_failure(*, username: str, address: str) -> None:
    cache = caches["throttle"]
    for key in _login_keys(username, address):
        cache.add(key, 0, LOGIN_FAILURE_WINDOW_S)  # the window starts at the first failure
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, LOGIN_FAILURE_WINDOW_S)


def clear_login_failures(*, username: str) -> None:
    caches["throttle"].delete(_login_keys(username, "")[0])
