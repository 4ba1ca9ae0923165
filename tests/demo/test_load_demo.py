"""`manage.py load_demo`: the demo problems, the practice bot, its funds and bids; idempotent."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from market.demo.loader import DEMO_DIR, find_demo_sources
from market.models import (
    AccountKind,
    LedgerTransaction,
    Order,
    OrderSide,
    OrderStatus,
    Posting,
    Problem,
    ProblemStatus,
    Trade,
)
from market.money import Currency, Money
from market.services import bot as bot_service
from market.services.ledger import get_user_account
from market.services.orders import fee_for, place_ask
from tests.factories import UserFactory, accepted_solution
from tests.waiting import wait_until
from verifiers.models import Language, VerifierVersion

pytestmark = pytest.mark.django_db


def snapshot() -> dict[str, object]:
    return {
        "problems": list(Problem.objects.order_by("pk").values_list("pk", "slug", "status")),
        "versions": list(
            VerifierVersion.objects.order_by("pk").values_list("pk", "sha256", "is_active")
        ),
        "orders": list(Order.objects.order_by("pk").values_list("pk", "status", "remaining")),
        "transactions": LedgerTransaction.objects.count(),
        "postings": Posting.objects.count(),
        "users": get_user_model().objects.count(),
    }


def open_bot_bids_on(problem: Problem):
    return Order.objects.filter(
        problem=problem,
        owner__username=bot_service.BOT_USERNAME,
        side=OrderSide.BID,
        status=OrderStatus.OPEN,
    )


def bot_open_bids() -> list[Order]:
    return list(
        Order.objects.filter(
            owner__username=bot_service.BOT_USERNAME, side=OrderSide.BID, status=OrderStatus.OPEN
        ).order_by("problem_id")
    )


def test_load_demo_creates_every_demo_problem_published_in_demo_credits():
    call_command("load_demo")
    sources = find_demo_sources()
    problems = Problem.objects.filter(is_demo=True)
    assert problems.count() == len(sources) >= 4
    for source in sources:
        problem = problems.get(slug=source.slug)
        assert (problem.status, problem.currency) == (ProblemStatus.PUBLISHED, Currency.DEMO)
        version = VerifierVersion.objects.get(verifier__problem=problem, is_active=True)
        assert version.source == source.verifier_source
        assert version.language == source.language
        assert version.solution_format  # the docstring, or the Lean Spec
        if source.language == Language.LEAN:
            assert version.lean_project in ("core", "mathlib")


def test_load_demo_twice_changes_nothing():
    call_command("load_demo")
    first = snapshot()
    call_command("load_demo")
    assert snapshot() == first


def test_the_bot_holds_one_standing_bid_per_demo_problem_with_its_own_funds():
    call_command("load_demo")
    bids = bot_open_bids()
    assert [b.problem_id for b in bids] == list(
        Problem.objects.filter(is_demo=True).order_by("pk").values_list("pk", flat=True)
    )
    assert {(b.price_minor, b.remaining, b.currency) for b in bids} == {
        (bot_service.BID_PRICE_MINOR, 1, Currency.DEMO)
    }
    bot = get_user_model().objects.get(username=bot_service.BOT_USERNAME)
    assert not bot.has_usable_password()
    held = get_user_account(user_id=bot.pk, currency=Currency.DEMO, kind=AccountKind.HELD)
    available = get_user_account(user_id=bot.pk, currency=Currency.DEMO, kind=AccountKind.AVAILABLE)
    # The bids went through place_bid: their funds are held, taken from what was minted.
    assert held.balance_minor == bot_service.BID_PRICE_MINOR * len(bids)
    assert available.balance_minor == bot_service.FUNDING_MINOR - held.balance_minor


def test_after_a_fill_the_refresh_places_a_new_bid_and_never_buys_a_copy_twice():
    call_command("load_demo")
    problem = Problem.objects.get(slug="demo-factor-391")
    version = VerifierVersion.objects.get(verifier__problem=problem, is_active=True)
    seller = UserFactory()
    solution = accepted_solution(verifier_version=version, solver=seller)

    place_ask(seller=seller, solution=solution, price=Money(500, Currency.DEMO), quantity=2)
    trade = Trade.objects.get()
    assert (trade.price_minor, trade.fee_minor) == (
        bot_service.BID_PRICE_MINOR,
        fee_for(bot_service.BID_PRICE_MINOR),
    )
    assert not [b for b in bot_open_bids() if b.problem_id == problem.pk]

    bot_service.refresh_practice_bids()
    # A fresh bid; it does not buy the same solution again (one copy per buyer), so the
    # seller's second copy stays on the book.
    assert len([b for b in bot_open_bids() if b.problem_id == problem.pk]) == 1
    assert Trade.objects.count() == 1
    before = snapshot()
    bot_service.refresh_practice_bids()
    assert snapshot() == before


def test_bot_is_topped_up_when_its_funds_run_low():
    call_command("load_demo")
    bot = get_user_model().objects.get(username=bot_service.BOT_USERNAME)
    available = get_user_account(user_id=bot.pk, currency=Currency.DEMO, kind=AccountKind.AVAILABLE)
    assert bot_service.fund_bot(bot=bot) == 0
    # Spend it down with a large bid on a demo problem, through the same services: its
    # standing bid there is cancelled first (one open bid per buyer and problem).
    from market.models import Order
    from market.services.orders import cancel_order, place_bid

    problem = Problem.objects.filter(is_demo=True).first()
    for standing in Order.objects.filter(problem=problem, owner=bot, status="open"):
        cancel_order(user=bot, order_id=standing.pk)
    available.refresh_from_db()
    place_bid(
        buyer=bot,
        problem=problem,
        price=Money(available.balance_minor - 50_000, Currency.DEMO),
        quantity=1,
    )
    assert bot_service.fund_bot(bot=bot) == bot_service.FUNDING_MINOR
    assert bot_service.fund_bot(bot=bot) == 0
    grants = LedgerTransaction.objects.filter(idempotency_key__startswith="practice-bot-funding-")
    assert grants.count() == 2


def test_the_demo_directory_has_the_python_demos():
    names = {p.name for p in (DEMO_DIR / "python").iterdir() if p.is_dir()}
    assert {"factor-391", "antiderivative", "cubic-root", "petersen-colouring"} <= names


@pytest.mark.django_db(transaction=True)
def test_the_bot_rebids_right_after_a_fill_without_waiting_for_beat(celery_worker):
    call_command("load_demo")
    problem = Problem.objects.get(slug="demo-factor-391")
    version = VerifierVersion.objects.get(verifier__problem=problem, is_active=True)
    seller = UserFactory()
    solution = accepted_solution(verifier_version=version, solver=seller)
    first_bid = open_bot_bids_on(problem).get()

    place_ask(seller=seller, solution=solution, price=Money(500, Currency.DEMO), quantity=1)

    assert Trade.objects.get().bid_id == first_bid.pk
    # The test worker runs no beat: only the fill can do it.
    wait_until(open_bot_bids_on(problem).exists, "the bot to re-bid after the fill", timeout=20)
    new_bid = open_bot_bids_on(problem).get()
    assert new_bid.pk != first_bid.pk and new_bid.price_minor == bot_service.BID_PRICE_MINOR
    assert Trade.objects.count() == 1
