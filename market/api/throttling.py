"""Per-user throttles (per client address for anonymous callers), reads and writes apart.

Counters live in the ``throttle`` cache (Redis when configured). A throttled call gets 429 with
``Retry-After`` (seconds).
"""

from __future__ import annotations

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
