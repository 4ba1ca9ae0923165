"""The web pages through Django's test client: what they show and what their forms do."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from market.models import (
    AccountKind,
    LedgerTransaction,
    Order,
    OrderSide,
    OrderStatus,
    Solution,
    SolutionStatus,
    Trade,
)
from market.money import Currency
from market.services.bot import BID_PRICE_MINOR, BOT_USERNAME
from market.services.ledger import get_user_account
from market.services.orders import fee_for
from tests.factories import (
    ProblemFactory,
    SolutionFactory,
    UserFactory,
    VerifierVersionFactory,
    accepted_solution,
)

pytestmark = pytest.mark.django_db


def available(user) -> int:
    return get_user_account(
        user_id=user.pk, currency=Currency.DEMO, kind=AccountKind.AVAILABLE
    ).balance_minor


def logged_in(user=None) -> tuple[Client, object]:
    user = user or UserFactory()
    client = Client()
    client.force_login(user)
    return client, user


def active_version(problem):
    return problem.verifiers.get().versions.get(is_active=True)


def test_home_lists_the_demo_problems_and_says_no_money_is_involved(demo_problems):
    html = Client().get(reverse("home")).content.decode()
    for problem in demo_problems.values():
        assert reverse("problem-detail", args=[problem.slug]) in html
    assert "nothing there involves money" in html


def test_problem_list_filters_by_text_and_kind(demo_problems):
    # "Real" means real money: a problem trading in US dollars. An author's problem that
    # trades in DEMO credits is not real, whoever wrote it.
    real = ProblemFactory(title="A real one", statement_md="x", currency=Currency.USD)
    VerifierVersionFactory(verifier__problem=real)
    practice = ProblemFactory(title="A practice one", statement_md="x", currency=Currency.DEMO)
    VerifierVersionFactory(verifier__problem=practice)
    client = Client()
    html = client.get(reverse("problem-list"), {"q": "391"}).content.decode()
    assert "Factor 391" in html and "Petersen" not in html
    html = client.get(reverse("problem-list"), {"kind": "real"}).content.decode()
    assert "A real one" in html and "Factor 391" not in html
    assert "A practice one" not in html and 'data-slug="demo-' not in html
    html = client.get(reverse("problem-list"), {"kind": "demo", "language": "python"})
    assert "A real one" not in html.content.decode()
    assert "A practice one" in html.content.decode()


def test_problem_page_shows_statement_format_budget_book_and_demo_notice(factor_391):
    html = Client().get(reverse("problem-detail", args=[factor_391.slug])).content.decode()
    assert "391 is not prime" in html
    assert "Nothing on this page involves money." in html
    assert "Solution format: two integers a and b" in html  # the verifier's docstring
    assert "Budget: 5 s, 256 MB" in html
    assert "10.00 DEMO" in html  # the practice bot's standing bid in the book


def test_statement_markdown_is_rendered_without_scripts_or_handlers(db):
    problem = ProblemFactory(
        statement_md='**bold** <script>alert(1)</script> <img src=x onerror="alert(2)">'
        " [link](javascript:alert(3))"
    )
    VerifierVersionFactory(verifier__problem=problem)
    html = Client().get(reverse("problem-detail", args=[problem.slug])).content.decode()
    statement = html.split('id="statement-h"')[1].split("</section>")[0]
    assert "<strong>bold</strong>" in statement
    assert "<script" not in statement
    assert "onerror" not in statement
    assert "javascript:" not in statement


def test_signup_creates_the_user_logs_in_and_grants_demo_credits(db):
    client = Client()
    response = client.post(
        reverse("signup"),
        {"username": "newcomer", "password1": "a-long-pass-4711", "password2": "a-long-pass-4711"},
    )
    assert response.status_code == 302
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="newcomer")
    assert available(user) == settings.DEMO_SIGNUP_GRANT_MINOR
    assert LedgerTransaction.objects.filter(idempotency_key=f"signup-bonus-{user.pk}").count() == 1
    assert "newcomer" in client.get(reverse("account")).content.decode()


def test_signup_with_mismatched_passwords_creates_nothing(db):
    from django.contrib.auth import get_user_model

    response = Client().post(
        reverse("signup"),
        {"username": "newcomer", "password1": "a-long-pass-4711", "password2": "other-pass-4711"},
    )
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="newcomer").exists()
    assert LedgerTransaction.objects.count() == 0


def test_posts_without_a_csrf_token_are_refused(factor_391):
    user = UserFactory()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(
        reverse("problem-submit", args=[factor_391.slug]),
        {"verifier_version": active_version(factor_391).pk, "text": "17 23"},
    )
    assert response.status_code == 403
    assert Solution.objects.count() == 0


def test_submit_stores_a_pending_solution_and_the_panel_polls_until_judged(factor_391):
    client, user = logged_in()
    response = client.post(
        reverse("problem-submit", args=[factor_391.slug]),
        {"verifier_version": active_version(factor_391).pk, "text": "17 23\n"},
    )
    assert response.status_code == 302
    solution = Solution.objects.get(solver=user)
    assert (solution.text, solution.status) == ("17 23\n", SolutionStatus.PENDING)
    fragment = client.get(reverse("problem-my-solutions", args=[factor_391.slug]))
    assert 'hx-trigger="every 1s"' in fragment.content.decode()
    assert "PENDING" in fragment.content.decode()

    Solution.objects.filter(pk=solution.pk).update(status=SolutionStatus.ACCEPTED)
    fragment = client.get(reverse("problem-my-solutions", args=[factor_391.slug])).content
    assert b"hx-trigger" not in fragment  # every verdict is in: polling stops
    assert b"ACCEPTED" in fragment and b"List for sale" in fragment
    assert b"Best bid now: 10.00 DEMO." in fragment and b"keeps 5% of each sale" in fragment


def test_submit_by_file_upload(factor_391):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client, user = logged_in()
    client.post(
        reverse("problem-submit", args=[factor_391.slug]),
        {
            "verifier_version": active_version(factor_391).pk,
            "upload": SimpleUploadedFile("answer.txt", b"17 23\n"),
        },
    )
    assert Solution.objects.get(solver=user).text == "17 23\n"


def test_submit_without_text_is_a_form_error_and_stores_nothing(factor_391):
    client, _ = logged_in()
    response = client.post(
        reverse("problem-submit", args=[factor_391.slug]),
        {"verifier_version": active_version(factor_391).pk, "text": "  "},
    )
    assert response.status_code == 400
    assert "Paste a solution or upload a file." in response.content.decode()
    assert Solution.objects.count() == 0


def test_submit_over_64_kb_is_refused_with_the_reason(factor_391):
    client, _ = logged_in()
    response = client.post(
        reverse("problem-submit", args=[factor_391.slug]),
        {"verifier_version": active_version(factor_391).pk, "text": "1" * 70_000},
    )
    assert response.status_code == 400
    assert "the limit is 65536 bytes" in response.content.decode()
    assert Solution.objects.count() == 0


def test_listing_an_accepted_solution_at_the_bot_bid_sells_it_less_the_fee(factor_391):
    client, seller = logged_in()
    solution = accepted_solution(verifier_version=active_version(factor_391), solver=seller)
    before = available(seller)
    response = client.post(
        reverse("solution-sell", args=[solution.pk]),
        {f"sell-{solution.pk}-price": "9.50", f"sell-{solution.pk}-quantity": "1"},
    )
    assert response.status_code == 302
    trade = Trade.objects.get(seller=seller)
    # The ask met the bot's resting bid: it trades at the bid's (maker's) price.
    assert trade.price_minor == BID_PRICE_MINOR
    assert trade.buyer.username == BOT_USERNAME
    assert available(seller) - before == BID_PRICE_MINOR - fee_for(BID_PRICE_MINOR)
    page = client.get(reverse("problem-detail", args=[factor_391.slug])).content.decode()
    assert 'class="trade"' in page and "sold" in page


def test_listing_a_rejected_solution_is_a_form_error_and_changes_nothing(factor_391):
    client, seller = logged_in()
    solution = SolutionFactory(
        verifier_version=active_version(factor_391), solver=seller, status=SolutionStatus.REJECTED
    )
    orders_before = Order.objects.count()
    response = client.post(
        reverse("solution-sell", args=[solution.pk]),
        {f"sell-{solution.pk}-price": "5.00", f"sell-{solution.pk}-quantity": "1"},
    )
    assert response.status_code == 400
    assert "only an ACCEPTED solution can be offered for sale" in response.content.decode()
    assert Order.objects.count() == orders_before
    assert Trade.objects.count() == 0


def test_listing_someone_elses_solution_is_not_found(factor_391):
    client, _ = logged_in()
    other = accepted_solution(verifier_version=active_version(factor_391))
    response = client.post(
        reverse("solution-sell", args=[other.pk]),
        {f"sell-{other.pk}-price": "5.00", f"sell-{other.pk}-quantity": "1"},
    )
    assert response.status_code == 404
    assert not Order.objects.filter(side=OrderSide.ASK).exists()


def test_bid_holds_funds_and_cancel_releases_them(factor_391):
    client, buyer = logged_in()
    from market.services.accounts import grant_demo_credits

    grant_demo_credits(user=buyer, amount_minor=5_000)
    response = client.post(
        reverse("problem-bid", args=[factor_391.slug]), {"bid-price": "12.00", "bid-quantity": "2"}
    )
    assert response.status_code == 302
    order = Order.objects.get(owner=buyer)
    assert (order.price_minor, order.quantity, order.status) == (1200, 2, OrderStatus.OPEN)
    assert available(buyer) == 5_000 - 2_400
    client.post(reverse("order-cancel", args=[order.pk]), {"next": "/account/"})
    order.refresh_from_db()
    assert order.status == OrderStatus.CANCELLED
    assert available(buyer) == 5_000


def test_bid_without_funds_is_a_form_error_and_holds_nothing(factor_391):
    client, buyer = logged_in()
    response = client.post(
        reverse("problem-bid", args=[factor_391.slug]), {"bid-price": "1.00", "bid-quantity": "1"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "This bid needs 1.00 DEMO; you have 0.00 DEMO available." in page
    assert not Order.objects.filter(owner=buyer).exists()


def test_pages_that_write_need_a_login(factor_391):
    response = Client().post(reverse("problem-bid", args=[factor_391.slug]), {})
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert Client().get(reverse("account")).status_code == 302


def test_account_page_shows_balances_and_ledger_history(db):
    from market.services.accounts import grant_signup_bonus

    client, user = logged_in()
    grant_signup_bonus(user=user)
    html = client.get(reverse("account")).content.decode()
    assert 'id="balance-DEMO-available">1,000.00 DEMO<' in html
    assert re.search(r"DEMO credits received.*Available.*\+1,000.00 DEMO", html, re.S)


def test_lean_problem_without_toolchain_says_so_and_shows_the_pending_reason(db, monkeypatch):
    for var in ("JUDGE_LEAN_LAKE", "JUDGE_LEAN_LEAN", "JUDGE_LEAN_TOOLCHAIN_DIR"):
        monkeypatch.delenv(var, raising=False)
    version = VerifierVersionFactory(
        verifier__language="lean",
        verifier__lean_project="core",
        verifier__draft_source="abbrev Spec : Prop := 2 + 2 = 4\n",
        solution_format="abbrev Spec : Prop := 2 + 2 = 4",
    )
    client, user = logged_in()
    SolutionFactory(
        verifier_version=version,
        solver=user,
        text="theorem answer : Spec := by decide",
        pending_reason="Lean judging is unavailable: no Lean toolchain on this server",
    )
    problem = version.verifier.problem
    html = client.get(reverse("problem-detail", args=[problem.slug])).content.decode()
    assert "Lean judging is unavailable on this server." in html
    assert "Pending: Lean judging is unavailable: no Lean toolchain on this server" in html
    fragment = client.get(reverse("problem-my-solutions", args=[problem.slug])).content.decode()
    assert 'hx-trigger="every 10s"' in fragment  # parked, so polled slowly


def test_the_book_shows_a_price_chart_of_recent_trades(factor_391):
    from market.money import Money
    from market.services.orders import place_ask

    version = active_version(factor_391)
    for _ in range(3):
        seller = UserFactory()
        solution = accepted_solution(verifier_version=version, solver=seller)
        place_ask(seller=seller, solution=solution, price=Money(100, Currency.DEMO), quantity=1)
        from market.services.bot import refresh_practice_bids

        refresh_practice_bids()
    html = Client().get(reverse("problem-book", args=[factor_391.slug])).content.decode()
    assert html.count('class="trade"') == 3
    chart = re.search(r'<svg class="chart".*?</svg>', html, re.S).group(0)
    assert chart.count("<circle") == 3
    assert 'points="8.0,' in chart


def test_a_retired_problem_says_so_and_offers_no_submit_or_bid_form(db):
    from market.models import ProblemStatus

    problem = ProblemFactory(status=ProblemStatus.RETIRED)
    VerifierVersionFactory(verifier__problem=problem, is_active=False)
    client, _ = logged_in()
    html = client.get(reverse("problem-detail", args=[problem.slug])).content.decode()
    assert "This problem is retired." in html
    assert reverse("problem-submit", args=[problem.slug]) not in html
    assert reverse("problem-bid", args=[problem.slug]) not in html


def test_account_page_says_usd_is_disabled_without_stripe_keys(db, settings):
    settings.STRIPE_SECRET_KEY = ""
    client, _ = logged_in()
    page = client.get("/account/").content.decode()
    assert 'id="usd-disabled"' in page
    assert "USD payments are disabled on this server" in page
    assert 'id="balance-DEMO-available"' in page
