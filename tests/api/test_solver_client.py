"""examples/solver_client.py against a live server, a real Celery worker and the real judge:
fetch a demo problem, submit (a wrong solution, then the right one), wait for the verdicts,
list an ask and watch it sell to the practice bot."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from django.conf import settings

from market.models import AccountKind, Solution, SolutionStatus, Trade
from market.services.bot import BID_PRICE_MINOR, get_or_create_bot, refresh_practice_bids
from market.services.orders import fee_for
from tests.factories import UserFactory
from tests.market.helpers import assert_ledger_invariants, balance
from verifiers.demo.loader import load_demo_problems

DEMO = Path(settings.BASE_DIR) / "verifiers" / "demo" / "python" / "factor-391"


def _load_client():
    path = Path(settings.BASE_DIR) / "examples" / "solver_client.py"
    spec = importlib.util.spec_from_file_location("solver_client", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.django_db(transaction=True)
def test_solver_client_solves_and_sells_a_demo_problem(live_server, celery_worker, capsys):
    load_demo_problems()
    refresh_practice_bids()
    UserFactory(username="alice", password="correct horse battery staple")
    client = _load_client()
    base = ["--base-url", live_server.url, "--problem", "demo-factor-391", "--timeout-s", "60"]
    login = ["--username", "alice", "--password", "correct horse battery staple"]

    wrong = (DEMO / "wrong_solution.txt").read_text()
    assert client.main([*base, *login, "--solution", wrong]) == 1
    out = capsys.readouterr().out
    assert "verdict: REJECTED" in out

    token = out.split("keep it): ")[1].split()[0]
    right = DEMO / "solution.txt"
    assert client.main([*base, "--token", token, "--solution-file", str(right)]) == 0
    out = capsys.readouterr().out
    assert "verdict: ACCEPTED" in out
    assert f"sold at {BID_PRICE_MINOR} (fee {fee_for(BID_PRICE_MINOR)})" in out

    alice_solutions = Solution.objects.filter(solver__username="alice").order_by("id")
    assert [s.status for s in alice_solutions] == [
        SolutionStatus.REJECTED,
        SolutionStatus.ACCEPTED,
    ]
    [trade] = Trade.objects.filter(seller__username="alice")
    assert trade.buyer == get_or_create_bot() and trade.price_minor == BID_PRICE_MINOR
    # alice started with nothing: her balance is the sale less the fee, held nothing.
    assert balance(trade.seller) == BID_PRICE_MINOR - fee_for(BID_PRICE_MINOR)
    assert balance(trade.seller, AccountKind.HELD) == 0
    assert_ledger_invariants()
