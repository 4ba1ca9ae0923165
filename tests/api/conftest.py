"""Personas and a small market for the API tests.

anonymous · solver (owns an ACCEPTED solution with an open ask) · other_solver · buyer (bought
a copy of the solver's solution: holds an entitlement) · author (wrote the problem) ·
other_author. Each authenticated persona talks through its own API token.
"""

from __future__ import annotations

import dataclasses

import pytest
from django.core.cache import caches
from rest_framework.test import APIClient

from market.api.tokens import create_api_token
from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from market.services.orders import place_ask, place_bid
from tests.factories import (
    ProblemFactory,
    UserFactory,
    VerifierFactory,
    VerifierVersionFactory,
    accepted_solution,
)
from tests.verifiers.conftest import no_lean_toolchain  # noqa: F401  (a shared fixture)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # The personas' passwords are hashed at creation: PBKDF2 would dominate the run time.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _clean_throttles():
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        _, key = create_api_token(user=user, name="tests")
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@dataclasses.dataclass
class World:
    author: object
    other_author: object
    solver: object
    other_solver: object
    buyer: object
    problem: object
    verifier: object
    version: object
    solution: object
    ask: object
    clients: dict

    def client(self, persona: str) -> APIClient:
        return self.clients[persona]


@pytest.fixture
def world(db) -> World:
    author = UserFactory(username="author")
    other_author = UserFactory(username="other_author")
    solver = UserFactory(username="solver")
    other_solver = UserFactory(username="other_solver")
    buyer = UserFactory(username="buyer")
    for user in (solver, other_solver, buyer):
        grant_demo_credits(user=user, amount_minor=10_000)
    problem = ProblemFactory(author=author, title="Say yes", slug="say-yes")
    verifier = VerifierFactory(problem=problem)
    version = VerifierVersionFactory(verifier=verifier)
    solution = accepted_solution(verifier_version=version, solver=solver, text="yes")
    place_bid(buyer=buyer, problem=problem, price=Money(1_000, Currency.DEMO), quantity=1)
    ask = place_ask(seller=solver, solution=solution, price=Money(900, Currency.DEMO), quantity=5)
    clients = {
        "anonymous": APIClient(),
        "author": client_for(author),
        "other_author": client_for(other_author),
        "solver": client_for(solver),
        "other_solver": client_for(other_solver),
        "buyer": client_for(buyer),
    }
    return World(
        author,
        other_author,
        solver,
        other_solver,
        buyer,
        problem,
        verifier,
        version,
        solution,
        ask,
        clients,
    )


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["code"] == code, body
    return body["error"]
