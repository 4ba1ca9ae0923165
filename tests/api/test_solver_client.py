"""examples/solver_client.py against a live server, a real Celery worker and the real judge:
fetch a demo problem, submit (a wrong solution, then the right one), wait for the verdicts,
list an ask and watch it sell to the practice bot."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from django.conf import settings

from market.api.models import ApiToken
from market.demo.loader import load_demo_problems
from market.models import AccountKind, Solution, SolutionStatus, Trade
from market.money import format_minor
from market.services.bot import BID_PRICE_MINOR, get_or_create_bot, refresh_practice_bids
from market.services.orders import fee_for
from tests.factories import UserFactory
from tests.market.helpers import assert_ledger_invariants, balance

DEMO = Path(settings.BASE_DIR) / "market" / "demo" / "python" / "factor-391"


def _load_client():
    path = Path(settings.BASE_DIR) / "examples" / "solver_client.py"
    spec = importlib.util.spec_from_file_location("solver_client", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.django_db(transaction=True)
def test_solver_client_solves_and_sells_a_demo_problem(
    live_server, celery_worker, capsys, tmp_path
):
    load_demo_problems()
    refresh_practice_bids()
    UserFactory(username="alice", password="correct horse battery staple")
    client = _load_client()
    base = ["--base-url", live_server.url, "--problem", "demo-factor-391", "--timeout-s", "60"]
    login = ["--username", "alice", "--password", "correct horse battery staple"]
    login += ["--token-file", str(tmp_path / "tokens.json")]

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
    assert f"= {format_minor(BID_PRICE_MINOR, 'DEMO')} (fee " in out

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


@pytest.mark.django_db(transaction=True)
def test_solver_client_reuses_its_saved_token_and_explains_a_wrong_password(
    live_server, capsys, tmp_path
):
    load_demo_problems()
    alice = UserFactory(username="alice", password="correct horse battery staple")
    client = _load_client()
    tokens = tmp_path / "tokens.json"
    base = ["--base-url", live_server.url, "--problem", "demo-factor-391", "--timeout-s", "0"]
    base += ["--token-file", str(tokens), "--solution", "1 391"]
    login = ["--username", "alice", "--password", "correct horse battery staple"]

    for _ in range(3):
        with pytest.raises(SystemExit, match="no verdict within 0 s"):
            client.main([*base, *login])  # no worker here: the solution stays pending
    out = capsys.readouterr().out
    assert out.count("created an API token") == 1
    assert out.count("using the API token saved in") == 2
    assert ApiToken.objects.filter(user=alice).count() == 1
    assert oct(tokens.stat().st_mode & 0o777) == "0o600"

    wrong = ["--username", "alice", "--password", "not it", "--token-file", str(tmp_path / "x")]
    assert client.main([*base[:-2], "--solution", "1 391", *wrong]) == 2
    err = capsys.readouterr().err
    assert "error: cannot log in as 'alice': wrong username or password" in err
    assert "api:authentication-failed" in err and "Traceback" not in err
    assert ApiToken.objects.filter(user=alice).count() == 1


@pytest.mark.django_db(transaction=True)
def test_solver_client_submits_to_a_lean_demo_problem(
    live_server, celery_worker, capsys, tmp_path, no_lean_toolchain
):
    load_demo_problems()
    UserFactory(username="alice", password="correct horse battery staple")
    client = _load_client()
    lean = "import Verifier\ntheorem answer : Spec := by decide\n"
    argv = ["--base-url", live_server.url, "--problem", "demo-lean-two-plus-two"]
    argv += ["--username", "alice", "--password", "correct horse battery staple"]
    argv += ["--token-file", str(tmp_path / "t.json"), "--solution", lean, "--timeout-s", "5"]

    with pytest.raises(SystemExit, match="no verdict within 5 s"):
        client.main(argv)

    out = capsys.readouterr().out
    assert "(lean, DEMO)" in out and "submitted solution" in out
    [solution] = Solution.objects.filter(solver__username="alice")
    assert solution.problem.slug == "demo-lean-two-plus-two"
    assert solution.status == SolutionStatus.PENDING
