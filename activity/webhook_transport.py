"""The one seam for webhook HTTP: a signed POST to a checked address, no redirects.

SSRF: the host is resolved once, every address it resolves to must be global (an allowlist:
``ipaddress``'s ``is_global``), and the connection goes to that checked address (no second
lookup a rebinding DNS server could answer differently). Private, loopback, link-local and
reserved targets are refused unless ``WEBHOOK_ALLOW_PRIVATE_TARGETS`` is set (tests and
development, whose receivers run on loopback).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import socket
import ssl
import urllib.parse
from dataclasses import dataclass

from django.conf import settings

SIGNATURE_HEADER = "FormalMarket-Signature"


class TargetRefused(Exception):
    """The URL may not receive webhooks (bad scheme, unresolvable, or not a public address)."""


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str
    address: str


def sign(*, secret: str, timestamp: int, body: bytes) -> str:
    """The header value ``t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + body>``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def private_targets_allowed() -> bool:
    return bool(getattr(settings, "WEBHOOK_ALLOW_PRIVATE_TARGETS", False))


def check_target(url: str) -> Target:
    """Parse and resolve ``url``; raise :class:`TargetRefused` unless it may be called."""
    try:
        # urlsplit raises on a malformed bracketed host ("https://[zz]/"): a refusal, not a 500.
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        raise TargetRefused("the URL is malformed") from None
    allow_private = private_targets_allowed()
    allowed_schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed_schemes:
        raise TargetRefused(f"the URL must start with {' or '.join(allowed_schemes)}://")
    if not parts.hostname or parts.username or parts.password:
        raise TargetRefused("the URL needs a host and no user:password part")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise TargetRefused("the URL's port is not a number from 1 to 65535") from None
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise TargetRefused(f"the host {parts.hostname!r} does not resolve") from None
    addresses = [str(info[4][0]) for info in infos]
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if not ip.is_global and not allow_private:
            raise TargetRefused(
                f"the host {parts.hostname!r} resolves to {ip}, which is not a public address"
            )
    if not addresses:
        raise TargetRefused(f"the host {parts.hostname!r} does not resolve")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, parts.hostname, port, path, addresses[0])


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, verifying the certificate for the URL's host name."""

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
        self._address = target.address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(*, url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> int:
    """POST ``body`` to ``url`` (checked first); returns the status code. Redirects are not
    followed (a 3xx is a failed delivery), and the answer's body is never read (a receiver
    trickling bytes cannot hold the worker). Raises TargetRefused or OSError."""
    target = check_target(url)
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        connection = _PinnedHTTPSConnection(target, timeout_s)
    else:
        connection = http.client.HTTPConnection(target.address, target.port, timeout=timeout_s)
    host_header = target.host if target.port in (80, 443) else f"{target.host}:{target.port}"
    try:
        connection.request("POST", target.path, body=body, headers={**headers, "Host": host_header})
        return connection.getresponse().status
    finally:
        connection.close()
