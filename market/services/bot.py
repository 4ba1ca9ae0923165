"""The practice bot: a system user that keeps a standing DEMO bid on every demo problem.

It trades through :func:`market.services.orders.place_bid` like everyone else: its bids hold
its own DEMO funds, it never trades with itself, and it buys each distinct solution once
(the matching engine's one-copy-per-buyer rule). After a fill its bid is gone; the Celery beat
task :func:`market.tasks.refresh_practice_bids_task` places a fresh one (every few seconds).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from market.exceptions import BidAlreadyOpen, NotTradable, SolutionLimit
from market.models import (
    AccountKind,
    Order,
    OrderSide,
    OrderStatus,
    Problem,
    ProblemStatus,
    Trade,
)
from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from market.services.ledger import get_user_account
from market.services.order_checks import SOLUTION_LIMIT
from market.services.orders import place_bid

BOT_USERNAME = "practice-bot"
BID_PRICE_MINOR = 1_000  # 10.00 DEMO per copy
# Topped up (minted) whenever it falls below the floor: it buys at most one copy of each
# distinct ACCEPTED solution, so this lasts a long time.
FUNDING_MINOR = 10_000_000  # 100 000.00 DEMO
FUNDING_FLOOR_MINOR = 100_000
# Bounds the re-bid loop when a fresh bid fills at once against resting asks.
MAX_BIDS_PER_REFRESH = 20


def get_or_create_bot() -> AbstractBaseUser:
    """The bot's user: no password that can log in, not staff."""
    user_model = get_user_model()
    bot, created = user_model.objects.get_or_create(
        username=BOT_USERNAME, defaults={"email": "", "is_active": True}
    )
    if created:
        bot.set_unusable_password()
        bot.save(update_fields=["password"])
    return bot


def fund_bot(*, bot: AbstractBaseUser) -> int:
    """Mint DEMO credits to the bot when its available balance is below the floor.

    Idempotent per top-up: the n-th top-up has key ``practice-bot-funding-n``, so two
    concurrent callers mint once. Returns the amount minted (0 when none was needed).
    """
    available = get_user_account(user_id=bot.pk, currency=Currency.DEMO, kind=AccountKind.AVAILABLE)
    if available.balance_minor >= FUNDING_FLOOR_MINOR:
        return 0
    already = available.postings.filter(transaction__kind="demo_grant").count()
    grant_demo_credits(
        user=bot,
        amount_minor=FUNDING_MINOR,
        idempotency_key=f"practice-bot-funding-{already + 1}",
    )
    return FUNDING_MINOR


def ensure_practice_bid(*, bot: AbstractBaseUser, problem: Problem) -> Order | None:
    """Make sure the bot has one open bid on ``problem``; return it (None if not tradable).

    A new bid may fill at once against resting asks; then another is placed, up to
    MAX_BIDS_PER_REFRESH. Each bid has the client order id ``practice-<problem>-<n>`` (n counts
    the bot's bids on the problem), so two concurrent refreshers place one bid, not two; and
    the engine allows one open bid per buyer and problem, so a refresher that lost a race to
    another's bid (``market:bid-already-open``) reads that bid on its next turn. The bot
    never asks, so its bid is never a self-trade. Like every buyer it holds at most
    SOLUTION_LIMIT solutions of one problem: once it holds them it stops bidding there
    (None), rather than be refused (``market:solution-limit``).
    """
    for _ in range(MAX_BIDS_PER_REFRESH):
        open_bid = Order.objects.filter(
            problem=problem, owner_id=bot.pk, side=OrderSide.BID, status=OrderStatus.OPEN
        ).first()
        if open_bid is not None:
            return open_bid
        held = Trade.objects.filter(buyer_id=bot.pk, problem=problem)[:SOLUTION_LIMIT].count()
        if held >= SOLUTION_LIMIT:
            return None  # its bid of one would pass the limit
        placed = Order.objects.filter(problem=problem, owner_id=bot.pk, side=OrderSide.BID)
        try:
            place_bid(
                buyer=bot,
                problem=problem,
                price=Money(BID_PRICE_MINOR, Currency.DEMO),
                quantity=1,
                client_order_id=f"practice-{problem.pk}-{placed.count() + 1}",
            )
        except NotTradable:
            return None
        except BidAlreadyOpen:
            continue  # another refresher's bid rests: read it above
        except SolutionLimit:
            return None  # another refresher's bid filled up to the limit meanwhile
    return None


def refresh_practice_bids() -> int:
    """Fund the bot if needed and keep a standing bid on every published demo problem.

    Returns how many demo problems have an open bot bid afterwards.
    """
    bot = get_or_create_bot()
    fund_bot(bot=bot)
    problems = Problem.objects.filter(is_demo=True, status=ProblemStatus.PUBLISHED).order_by("pk")
    count = 0
    for problem in problems:
        if ensure_practice_bid(bot=bot, problem=problem) is not None:
            count += 1
    return count


def refresh_practice_bid(*, problem_id: int) -> bool:
    """Keep the bot's standing bid on one published demo problem; True if it has one."""
    problem = Problem.objects.filter(
        pk=problem_id, is_demo=True, status=ProblemStatus.PUBLISHED
    ).first()
    if problem is None:
        return False
    bot = get_or_create_bot()
    fund_bot(bot=bot)
    return ensure_practice_bid(bot=bot, problem=problem) is not None
