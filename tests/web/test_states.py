"""Page states that must not mislead: what a sold solution's card says, why equal prices rest in
the book, what a buyer owns, the language of every listed problem, Lean without a toolchain."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from market.models import Order, OrderSide, OrderStatus, Trade
from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from market.services.bot import BID_PRICE_MINOR, BOT_USERNAME, refresh_practice_bids
from market.services.orders import place_ask, place_bid
from tests.factories import ProblemFactory, UserFactory, VerifierVersionFactory, accepted_solution

pytestmark = pytest.mark.django_db


def logged_in(user=None):
    user = user or UserFactory()
    client = Client()
    client.force_login(user)
    return client, user


def active_version(problem):
    return problem.verifiers.get().versions.get(is_active=True)


def sell_to_bot(problem):
    """A seller whose accepted solution sold to the practice bot, which then bid again."""
    client, seller = logged_in()
    solution = accepted_solution(verifier_version=active_version(problem), solver=seller)
    client.post(
        reverse("solution-sell", args=[solution.pk]),
        {f"sell-{solution.pk}-price": "10.00", f"sell-{solution.pk}-quantity": "1"},
    )
    assert Trade.objects.get(solution=solution).buyer.username == BOT_USERNAME
    refresh_practice_bids()  # what the worker does right after the fill
    assert Order.objects.filter(
        problem=problem, side=OrderSide.BID, status=OrderStatus.OPEN, owner__username=BOT_USERNAME
    ).exists()
    return client, seller, solution


def test_after_a_sale_to_the_bot_the_card_says_the_bot_owns_a_copy_and_offers_no_false_bid(
    factor_391,
):
    client, _, solution = sell_to_bot(factor_391)
    html = client.get(reverse("problem-my-solutions", args=[factor_391.slug])).content.decode()
    card = html.split(f'id="solution-{solution.pk}"')[1]
    assert "The practice bot bought a copy of this solution." in card
    assert "further copies can sell only to other buyers" in card
    assert "Best bid now" not in card
    assert (
        "No bid this solution can take right now (the book's best bid, 10.00 DEMO, is yours or "
        "from a buyer who already owns this solution)" in card
    )


def test_the_card_shows_the_best_bid_this_solution_can_take_not_the_books_best(factor_391):
    client, seller, solution = sell_to_bot(factor_391)
    buyer = UserFactory()
    grant_demo_credits(user=buyer, amount_minor=10_000)
    place_bid(buyer=buyer, problem=factor_391, price=Money(700, Currency.DEMO), quantity=1)
    html = client.get(reverse("problem-my-solutions", args=[factor_391.slug])).content.decode()
    assert "Best bid now: 7.00 DEMO." in html  # the bot's 10.00 cannot buy this one again


def test_the_book_marks_a_bid_that_cannot_take_the_equal_ask_and_explains_why(factor_391):
    client, seller, solution = sell_to_bot(factor_391)
    place_ask(seller=seller, solution=solution, price=Money(BID_PRICE_MINOR, "DEMO"), quantity=1)
    html = client.get(reverse("problem-book", args=[factor_391.slug])).content.decode()
    bids = html.split('class="table-wrap bids"')[1].split("</table>")[0]
    assert re.search(r'<tr class="blocked"[^>]*><td class="num price">10.00 DEMO</td>', bids)
    note = re.search(r'<p class="book-note" id="book-note">(.*?)</p>', html, re.S).group(1)
    assert "each buyer gets a solution only once" in note
    assert "no one trades with themselves" in note


def test_a_book_whose_prices_do_not_meet_has_no_marks_and_no_note(factor_391):
    seller = UserFactory()
    other = accepted_solution(verifier_version=active_version(factor_391), solver=seller)
    place_ask(seller=seller, solution=other, price=Money(1_500, "DEMO"), quantity=1)
    html = Client().get(reverse("problem-book", args=[factor_391.slug])).content.decode()
    assert "15.00 DEMO" in html and "10.00 DEMO" in html
    assert 'class="blocked"' not in html and 'id="book-note"' not in html


def test_the_book_fragment_carries_the_sellers_card_hints_out_of_band(factor_391):
    client, _, solution = sell_to_bot(factor_391)
    html = client.get(reverse("problem-book", args=[factor_391.slug])).content.decode()
    hint = re.search(
        rf'<div class="sell-hint" id="sell-hint-{solution.pk}" hx-swap-oob="true" '
        r'aria-live="off">(.*?)</div>',
        html,
        re.S,
    )
    assert hint is not None
    assert "The practice bot bought a copy" in hint.group(1)
    # The page itself has the same element once, without the out-of-band marker.
    page = client.get(reverse("problem-detail", args=[factor_391.slug])).content.decode()
    assert page.count(f'id="sell-hint-{solution.pk}"') == 1
    assert "hx-swap-oob" not in page


def test_a_buyer_sees_the_solution_text_they_bought_on_the_problem_page(factor_391):
    seller = UserFactory()
    solution = accepted_solution(
        verifier_version=active_version(factor_391), solver=seller, text="17 23\n"
    )
    client, buyer = logged_in()
    grant_demo_credits(user=buyer, amount_minor=10_000)
    place_ask(seller=seller, solution=solution, price=Money(2_000, "DEMO"), quantity=1)
    place_bid(buyer=buyer, problem=factor_391, price=Money(2_500, "DEMO"), quantity=1)
    html = client.get(reverse("problem-detail", args=[factor_391.slug])).content.decode()
    purchase = html.split(f'id="purchase-{solution.pk}"')[1].split("</article>")[0]
    assert "for 20.00 DEMO" in purchase
    assert '<pre class="format solution-text bought-text">17 23\n</pre>' in purchase
    # Another user does not see it.
    other, _ = logged_in()
    assert (
        'id="purchases"'
        not in other.get(reverse("problem-detail", args=[factor_391.slug])).content.decode()
    )


def test_every_listed_problem_shows_its_language(demo_problems):
    html = Client().get(reverse("problem-list"), {"q": "Factor 391"}).content.decode()
    items = re.findall(r'<li data-slug="([^"]+)">\s*<h3>(.*?)</h3>', html, re.S)
    by_slug = {slug: h3 for slug, h3 in items}
    assert '<span class="badge lang">Python</span>' in by_slug["demo-factor-391"]
    lean = next(s for s in by_slug if s.startswith("demo-lean-"))
    assert '<span class="badge lang">Lean</span>' in by_slug[lean]
    home = Client().get(reverse("home")).content.decode()
    assert home.count('<span class="badge lang">Lean</span>') == 4


def test_lean_problems_are_marked_when_this_server_cannot_judge_them(demo_problems):
    for url in (reverse("home"), reverse("problem-list")):
        html = Client().get(url).content.decode()
        items = dict(re.findall(r'<li data-slug="([^"]+)">(.*?)</li>', html, re.S))
        marked = {slug for slug, item in items.items() if "Lean not judged on this server" in item}
        assert marked == {s for s in items if s.startswith("demo-lean-")}
        assert len(marked) == 4


def test_submitting_a_lean_solution_without_a_toolchain_says_it_stays_pending(demo_problems):
    problem = demo_problems["demo-lean-two-plus-two"]
    client, _ = logged_in()
    response = client.post(
        reverse("problem-submit", args=[problem.slug]),
        {
            "verifier_version": active_version(problem).pk,
            "text": "import Verifier\n\ntheorem answer : Spec := by decide\n",
        },
        follow=True,
    )
    html = response.content.decode()
    assert "Lean judging is unavailable on this server, so it stays pending" in html
    assert "Its verdict appears below" not in html


def test_each_lean_problem_shows_a_starter_solution_of_the_right_shape(demo_problems):
    prop = Client().get(reverse("problem-detail", args=["demo-lean-two-plus-two"])).content
    assert "import Verifier\n\ntheorem answer : Spec := by\n  sorry" in prop.decode()
    witness = Client().get(reverse("problem-detail", args=["demo-lean-factor-391"])).content
    assert "def answer : Spec := ⟨sorry, by decide⟩" in witness.decode()
    mathlib = Client().get(reverse("problem-detail", args=["demo-lean-prime-997"])).content
    assert "import Verifier\nimport Mathlib.Tactic.NormNum.Prime\n\ntheorem answer" in (
        mathlib.decode()
    )


def test_a_usd_problem_is_listed_under_real_money_only(demo_problems):
    usd = ProblemFactory(title="Dollars", currency=Currency.USD)
    VerifierVersionFactory(verifier__problem=usd)
    demo = Client().get(reverse("problem-list"), {"kind": "demo"}).content.decode()
    real = Client().get(reverse("problem-list"), {"kind": "real"}).content.decode()
    assert "Dollars" not in demo and "Dollars" in real
    assert re.findall(r'<li data-slug="([^"]+)"', real) == [usd.slug]


def test_a_refused_bid_says_why_once_and_holds_nothing(factor_391):
    client, buyer = logged_in()
    response = client.post(
        reverse("problem-bid", args=[factor_391.slug]),
        {"bid-price": "5000.00", "bid-quantity": "1"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    errors = re.findall(r"<ul class=\"errorlist[^\"]*\">(.*?)</ul>", html, re.S)
    assert len(errors) == 1 and errors[0].count("<li>") == 1
    assert "not enough available funds" not in html
    assert 'aria-invalid="true"' in html
    assert not Order.objects.filter(owner=buyer).exists()


def test_a_price_over_the_market_limit_is_refused_in_the_units_typed(factor_391, settings):
    settings.MARKET_MAX_PRICE_MINOR = 100_000
    client, buyer = logged_in()
    grant_demo_credits(user=buyer, amount_minor=10_000_000)
    response = client.post(
        reverse("problem-bid", args=[factor_391.slug]),
        {"bid-price": "1000.01", "bid-quantity": "1"},
    )
    assert response.status_code == 400
    assert "At most 1,000.00 DEMO per copy." in response.content.decode()
    assert not Order.objects.filter(owner=buyer).exists()


def test_the_problem_page_shows_the_20_newest_solutions_and_points_to_the_account(factor_391):
    client, solver = logged_in()
    version = active_version(factor_391)
    made = [accepted_solution(verifier_version=version, solver=solver) for _ in range(22)]
    html = client.get(reverse("problem-detail", args=[factor_391.slug])).content.decode()
    shown = [int(n) for n in re.findall(r'<article class="solution" id="solution-(\d+)"', html)]
    assert shown == [s.pk for s in reversed(made)][:20]
    assert 'id="more-solutions"' in html


def test_an_authors_problem_list_shows_each_problems_languages_drafts_included(db):
    from tests.factories import ProblemFactory, VerifierFactory

    client, author = logged_in()
    problem = ProblemFactory(author=author, status="draft", title="Draft one")
    VerifierFactory(problem=problem, language="lean", lean_project="core", status="draft")
    html = client.get(reverse("author-home")).content.decode()
    row = html.split('id="authored"')[1].split("</tr>")[1]
    assert "Draft one" in row and '<span class="badge lang">Lean</span>' in row


def test_an_empty_demo_book_says_the_practice_bot_re_bids_and_a_real_one_does_not(db):
    demo = ProblemFactory(is_demo=True)
    real = ProblemFactory(is_demo=False)

    demo_book = Client().get(reverse("problem-book", args=[demo.slug])).content.decode()
    real_book = Client().get(reverse("problem-book", args=[real.slug])).content.decode()

    assert (
        '<td colspan="2" class="muted" id="no-bids">No bids this moment: the practice bot '
        "re-bids 10.00 DEMO within seconds</td>"
    ) in demo_book
    assert '<td colspan="2" class="muted" id="no-bids">No bids</td>' in real_book
