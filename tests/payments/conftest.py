"""Payments tests: Stripe keys set, the fake transport at the seam, and no network."""

from __future__ import annotations

import socket

import pytest

from market.payments import stripe_client
from tests.payments.fakes import FakeStripeHTTP
from tests.payments.helpers import WEBHOOK_SECRET


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse any connection that is not to this machine (PostgreSQL, Redis stay reachable)."""
    real_connect = socket.socket.connect

    def guarded(sock: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else address
        if sock.family in (socket.AF_INET, socket.AF_INET6) and host not in (
            "127.0.0.1",
            "::1",
            "localhost",
        ):
            raise AssertionError(f"network access in a test: {address!r}")
        return real_connect(sock, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(autouse=True)
def stripe_settings(settings: object) -> object:
    settings.STRIPE_SECRET_KEY = "sk_test_formalmarket_fake"  # type: ignore[attr-defined]
    settings.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET  # type: ignore[attr-defined]
    settings.STRIPE_MAX_NETWORK_RETRIES = 0  # type: ignore[attr-defined]
    settings.PAYMENTS_PUBLIC_BASE_URL = "https://market.test"  # type: ignore[attr-defined]
    return settings


@pytest.fixture(autouse=True)
def fake_stripe(monkeypatch: pytest.MonkeyPatch) -> FakeStripeHTTP:
    fake = FakeStripeHTTP()
    monkeypatch.setattr(stripe_client, "build_http_client", lambda: fake)
    return fake
