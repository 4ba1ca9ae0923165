"""Builders shared by the market tests: funded users, problems with one verifier version, and
sellers with ACCEPTED solutions."""

from __future__ import annotations

import os

import pytest
from django.db import connection
from hypothesis import Phase

from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from tests.factories import (
    ProblemFactory,
    SolutionFactory,
    UserFactory,
    VerifierVersionFactory,
    accepted_solution,
)


def demo(minor: int) -> Money:
    return Money(minor, Currency.DEMO)


def funded(minor: int = 10_000, **user_fields: object):
    user = UserFactory(**user_fields)
    grant_demo_credits(user=user, amount_minor=minor)
    return user


class Market:
    """One problem and its verifier version; makes solutions for it."""

    def __init__(self, **problem_fields: object) -> None:
        self.problem = ProblemFactory(**problem_fields)
        self.version = VerifierVersionFactory(verifier__problem=self.problem)

    def accepted(self, solver=None):
        kwargs = {"verifier_version": self.version}
        if solver is not None:
            kwargs["solver"] = solver
        return accepted_solution(**kwargs)

    def solution(self, status: str, solver=None):
        kwargs = {"verifier_version": self.version, "status": status}
        if solver is not None:
            kwargs["solver"] = solver
        return SolutionFactory(**kwargs)


@pytest.fixture
def market(db) -> Market:
    return Market()


@pytest.fixture
def problem(market):
    return market.problem


@pytest.fixture(autouse=True)
def market_settings(settings):
    """The figures the exact assertions are written for, whatever the environment says."""
    settings.MARKET_FEE_BPS = 500
    settings.MARKET_MAX_ORDER_QUANTITY = 1000
    settings.MARKET_MAX_PRICE_MINOR = 100_000_000
    # UserFactory hashes a password per user; PBKDF2 would dominate these tests' run time.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def legs(txn) -> set[tuple[object, str, int]]:
    """A ledger transaction's postings as {(owner id or None, kind, amount)}."""
    return {
        (p.account.owner_id, p.account.kind, p.amount_minor)
        for p in txn.postings.select_related("account")
    }


# Shrinking replays hundreds of database-backed runs (about 3 minutes for the state machine);
# a failure is reported unshrunk unless FM_HYPOTHESIS_SHRINK=1 asks for the minimal example.
# The explain phase stays off: on these database-backed runs it reported a spurious
# FlakyFailure once.
PHASES = [Phase.explicit, Phase.reuse, Phase.generate] + (
    [Phase.shrink] if os.environ.get("FM_HYPOTHESIS_SHRINK") == "1" else []
)


@pytest.fixture(params=["database", "python"])
def engine(request, monkeypatch):
    """Run a test against each engine: the database functions (the product's) and the Python
    reference model (tests/market/dev_engine), swapped in behind ``market.services.orders``."""
    from market.services import orders
    from tests.market.dev_engine import engine as reference

    if request.param == "python":
        monkeypatch.setattr(orders, "_engine_place", reference.place)
        monkeypatch.setattr(orders, "_cancel", reference.cancel)
    return request.param


@pytest.fixture
def nested_plans():
    """The plans of the statements run inside the engine's functions (auto_explain, ANALYZE).

    auto_explain logs each nested statement's executed plan at NOTICE, which the server
    sends to this client: the plans are those of the real call, not of a copy of its query.
    """
    plans: list[str] = []
    connection.ensure_connection()
    raw = connection.connection

    def handler(diag) -> None:
        plans.append(diag.message_primary or "")

    raw.add_notice_handler(handler)
    with connection.cursor() as cursor:
        cursor.execute("LOAD 'auto_explain'")
        for name, value in (
            ("log_min_duration", "0"),
            ("log_analyze", "on"),
            ("log_nested_statements", "on"),
            ("log_level", "notice"),
        ):
            cursor.execute(f"SET auto_explain.{name} = {value}")
    yield plans
    with connection.cursor() as cursor:
        cursor.execute("SET auto_explain.log_min_duration = -1")
    raw.remove_notice_handler(handler)
