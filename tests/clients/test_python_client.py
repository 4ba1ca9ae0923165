"""formalmarket_client against a live server, a real Celery worker and the real judge."""

from __future__ import annotations

from typing import Any

import pytest
from formalmarket_client import (
    AuthenticationError,
    Conflict,
    FormalMarketClient,
    InsufficientFunds,
    Money,
    NotFound,
)
from formalmarket_client.http import Response

from activity.models import EventKind
from market.api.models import ApiToken
from market.models import Order, Solution, SolutionStatus, Trade
from market.services.bot import BID_PRICE_MINOR, get_or_create_bot
from market.services.orders import fee_for
from tests.clients.conftest import PASSWORD, RIGHT, WRONG
from tests.market.helpers import assert_ledger_invariants
from tests.waiting import scaled


def _record_requests(fm: FormalMarketClient) -> list[tuple[str, str]]:
    """The (method, path) of each API call ``fm`` makes from now on (retries are one)."""
    sent: list[tuple[str, str]] = []
    request = fm.http.request

    def recorded(method: str, path: str, *args: Any, **kwargs: Any) -> Response:
        sent.append((method, path))
        return request(method, path, *args, **kwargs)

    fm.http.request = recorded  # type: ignore[method-assign]
    return sent


@pytest.mark.django_db(transaction=True)
def test_the_client_solves_lists_and_sells_a_demo_problem(
    live_server, celery_worker, demo_market, alice_token
):
    fm = FormalMarketClient(live_server.url, alice_token)
    listed = fm.problems(demo=True, language="python", limit=200)
    assert "demo-factor-391" in [p.slug for p in listed]
    problem = fm.problem("demo-factor-391")
    assert problem.currency == "DEMO" and problem.languages == ("python",)
    assert problem.verifiers[0].solution_format

    wrong = fm.submit(problem, WRONG)
    verdict = fm.wait(wrong, timeout=scaled(60))
    assert (verdict.verdict, verdict.is_accepted) == ("REJECTED", False)
    assert verdict.reason and verdict.seed is not None

    # Submitted and held until the verdict: one request (the worker is warm by now).
    sent = _record_requests(fm)
    right = fm.submit(problem, RIGHT, wait_s=scaled(60))
    assert sent == [("POST", "/api/v1/solutions/?wait=25.0")]
    assert (right.status, right.verdict and right.verdict.is_accepted) == ("accepted", True)
    assert fm.submit("demo-factor-391", RIGHT).id == right.id  # the same text: the same solution
    assert fm.wait(right, timeout=scaled(60)).is_accepted

    mine = fm.my_solutions(problem=problem.id)
    assert [(s.id, s.status) for s in mine] == [(right.id, "accepted"), (wrong.id, "rejected")]
    book = fm.book(problem)
    assert book.bids[0].price == Money(BID_PRICE_MINOR, "DEMO")

    ask = fm.list_ask(right, book.bids[0].price)
    assert ask.status == "filled"
    [fill] = ask.fills
    assert (fill.price, fill.fee) == (
        Money(BID_PRICE_MINOR, "DEMO"),
        Money(fee_for(BID_PRICE_MINOR), "DEMO"),
    )
    net = BID_PRICE_MINOR - fee_for(BID_PRICE_MINOR)
    balance = fm.balances()["DEMO"]
    assert balance.available == Money(net, "DEMO")
    assert str(balance.available) == f"{net // 100:,}.{net % 100:02d} DEMO"
    [trade] = fm.trades()
    assert (trade.role, trade.net) == ("seller", Money(net, "DEMO"))

    # A bid, then its cancellation: the hold comes back exactly.
    bid = fm.place_bid(problem, 100, quantity=2)
    assert (bid.status, bid.remaining) == ("open", 2)
    assert fm.balances()["DEMO"].held == Money(200, "DEMO")
    assert fm.cancel(bid).status == "cancelled"
    with pytest.raises(Conflict) as refused:
        fm.cancel(bid)
    assert refused.value.code == "market:order-not-open"
    assert fm.balances()["DEMO"] == balance
    with pytest.raises(InsufficientFunds) as poor:
        fm.place_bid(problem, net + 1)
    assert poor.value.code == "market:insufficient-funds"

    page = fm.events(since=0)
    kinds = [e.type for e in page.events]
    assert kinds.count(EventKind.SOLUTION_JUDGED) == 2 and EventKind.ASK_FILLED in kinds
    sold = next(e for e in page.events if e.type == EventKind.ASK_FILLED)
    assert sold.data["net_minor"] == net and "DEMO" in sold.message
    assert fm.events(since=page.cursor).events == ()

    alice_solutions = Solution.objects.filter(solver__username="alice").order_by("id")
    assert [s.status for s in alice_solutions] == [SolutionStatus.REJECTED, SolutionStatus.ACCEPTED]
    [db_trade] = Trade.objects.filter(seller__username="alice")
    assert db_trade.buyer == get_or_create_bot()
    assert_ledger_invariants()


@pytest.mark.django_db(transaction=True)
def test_login_reuses_a_saved_token_and_a_wrong_password_is_a_typed_error(
    live_server, alice, tmp_path
):
    token_file = tmp_path / "tokens.json"
    first = FormalMarketClient.login(live_server.url, "alice", PASSWORD, token_file=token_file)
    second = FormalMarketClient.login(live_server.url, "alice", PASSWORD, token_file=token_file)
    assert first.token == second.token
    assert ApiToken.objects.filter(user=alice).count() == 1
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"

    ApiToken.objects.filter(user=alice).update(revoked_at="2026-01-01T00:00:00Z")
    third = FormalMarketClient.login(live_server.url, "alice", PASSWORD, token_file=token_file)
    assert third.token != first.token and third.me()["username"] == "alice"
    assert ApiToken.objects.filter(user=alice, revoked_at__isnull=True).count() == 1

    with pytest.raises(AuthenticationError) as wrong:
        FormalMarketClient.login(live_server.url, "alice", "nope", token_file=tmp_path / "x")
    assert (wrong.value.status, wrong.value.code) == (401, "api:authentication-failed")
    with pytest.raises(NotFound) as missing:
        third.problem(999_999)
    assert missing.value.code == "not-found"


def test_money_prints_with_its_minor_units():
    assert str(Money(500_000, "DEMO")) == "5,000.00 DEMO"
    assert str(Money(-5, "USD")) == "-0.05 USD"
    with pytest.raises(TypeError):
        Money(1.5, "DEMO")  # type: ignore[arg-type]
    assert Order  # the models module is importable beside the client


def test_absolute_urls_from_answers_stay_on_the_configured_server():
    from formalmarket_client.http import Transport

    transport = Transport("https://fm.example/", "fm_token")
    assert transport._url("/api/v1/me/") == "https://fm.example/api/v1/me/"
    # A `next` link naming another host (a proxy's view) is followed on our host only.
    assert (
        transport._url("http://internal:8000/api/v1/problems/?cursor=abc")
        == "https://fm.example/api/v1/problems/?cursor=abc"
    )
    with pytest.raises(ValueError):
        transport._url("api/v1/me/")
    with pytest.raises(ValueError):
        Transport("ftp://fm.example")
