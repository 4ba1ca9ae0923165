"""States that must not mislead, in a real browser with a real worker: a solution sold to the
practice bot, a book where equal prices rest, a card and a book that agree and update live, a
buyer's purchase, money in plain words, the ledger in a user's terms, the price chart."""

from __future__ import annotations

import re

import pytest

from market.models import Problem, Solution
from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from market.services.orders import place_ask, place_bid
from tests.factories import UserFactory, accepted_solution

pytestmark = pytest.mark.e2e


def submit(page, text: str) -> None:
    page.get_by_label("Solution", exact=True).fill(text)
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()


def test_a_solution_sold_to_the_bot_says_so_and_card_and_book_agree_live(
    page, shots, demo, celery_worker
):
    from tests.e2e.conftest import sign_up

    sign_up(page, "seller")
    page.goto("/problems/demo-factor-391/")
    submit(page, "17 23")
    card = page.locator(".solution", has=page.locator(".verdict", has_text="ACCEPTED"))
    card.wait_for()
    assert card.locator(".best-bid").inner_text().startswith("Best bid now: 10.00 DEMO.")
    shots.both(page, "accepted")

    card.get_by_label("Price (DEMO)").fill("10.00")
    with page.expect_navigation():
        card.get_by_role("button", name="List for sale").click()
    page.locator("#trades tr.trade").first.wait_for()
    card = page.locator(".solution").first
    assert card.locator(".bot-bought").inner_text() == (
        "The practice bot bought a copy of this solution. It buys each solution once, so "
        "further copies can sell only to other buyers."
    )
    # The worker re-places the bot's bid after the fill; the card never offers it as a buyer.
    page.locator("#book .bids td.price", has_text="10.00 DEMO").wait_for()
    page.locator(".best-bid", has_text="No bid this solution can take right now").wait_for()
    shots.both(page, "sold-to-bot")

    # Listing again at the bot's price rests: the bid is marked and the book says why.
    card.get_by_label("Price (DEMO)").fill("10.00")
    with page.expect_navigation():
        card.get_by_role("button", name="List for sale").click()
    blocked = page.locator("#book .bids tr.blocked td.price")
    assert blocked.inner_text() == "10.00 DEMO"
    assert page.locator("#book .asks td.price").first.inner_text() == "10.00 DEMO"
    assert "each buyer gets a solution only once" in page.locator("#book-note").inner_text()
    shots.both(page, "equal-prices-rest")

    # Another buyer bids: the card and the book change together, without a reload.
    page.evaluate("window.__sameDocument = true")
    buyer = UserFactory()
    grant_demo_credits(user=buyer, amount_minor=50_000)
    place_bid(
        buyer=buyer,
        problem=Problem.objects.get(slug="demo-factor-391"),
        price=Money(700, Currency.DEMO),
        quantity=1,
    )
    page.locator(".best-bid", has_text="Best bid now: 7.00 DEMO.").wait_for()
    assert page.locator("#book .bids td.price", has_text="7.00 DEMO").count() == 1
    assert page.evaluate("window.__sameDocument") is True
    shots.both(page, "card-follows-book")

    # Best bid 10.00 at best ask 10.00: the list and home explain why they have not traded.
    for size in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        for path in ("/problems/", "/"):
            page.goto(path)
            card = page.locator('li[data-slug="demo-factor-391"]')
            assert "Best bid: 10.00 DEMO" in card.inner_text()
            note = card.locator(".crossed-note")
            assert note.is_visible()
            assert "each buyer gets a solution only once" in note.inner_text()


def test_a_buyer_reads_what_they_bought_and_money_reads_in_plain_words(
    page, shots, demo, celery_worker
):
    from tests.e2e.conftest import sign_up

    problem = Problem.objects.get(slug="demo-factor-391")
    version = problem.verifiers.get().versions.get(is_active=True)
    sellers = [UserFactory(), UserFactory()]
    solutions = [
        accepted_solution(verifier_version=version, solver=sellers[0], text="17 23\n"),
        accepted_solution(verifier_version=version, solver=sellers[1], text="23 17\n"),
    ]
    place_ask(seller=sellers[0], solution=solutions[0], price=Money(2_000, "DEMO"), quantity=1)

    sign_up(page, "buyer")
    page.goto("/problems/demo-factor-391/")
    page.get_by_label("Price (DEMO)").fill("5000.00")
    page.get_by_label("Copies").fill("1")
    with page.expect_navigation():
        page.get_by_role("button", name="Place bid").click()
    errors = page.locator("#main .errorlist li")
    message = errors.first.inner_text()
    assert errors.count() == 1, "the refusal is shown once"
    assert re.search(r"5,000\.00 DEMO", message) or "500000" in message
    shots.both(page, "bid-refused-once")

    page.get_by_label("Price (DEMO)").fill("25.00")
    with page.expect_navigation():
        page.get_by_role("button", name="Place bid").click()
    said = page.locator(".messages").inner_text()
    assert (
        "Bought 1 right away at the seller's ask price (20.00 DEMO); you paid 20.00 DEMO." in said
    )
    assert "5.00 DEMO of your hold was released to your available balance." in said
    # The confirmation is on screen (no jump to #book), at the desktop and the phone size.
    assert page.evaluate("window.scrollY") == 0 and page.locator(".messages").is_visible()
    assert "#book" not in page.url
    bought = page.locator(f"#purchase-{solutions[0].pk}")
    assert bought.locator(".bought-text").inner_text().strip() == "17 23"
    assert "for 20.00 DEMO" in bought.inner_text()
    assert page.locator(f"#purchase-{solutions[1].pk}").count() == 0  # not bought: not shown
    shots.both(page, "purchase-on-problem-page")

    # A second trade gives the chart two points: axes, labels and a tooltip per trade.
    place_ask(seller=sellers[1], solution=solutions[1], price=Money(900, "DEMO"), quantity=1)
    page.reload()
    chart = page.locator("#book svg.chart")
    assert chart.locator("circle.point").count() == 2
    labels = chart.locator("text.label").all_text_contents()
    assert "10.00" in labels and "20.00" in labels and "DEMO" in labels
    chart.locator("circle.point").last.hover()
    page.locator(".chart-tip", has_text="10.00 DEMO").wait_for()
    assert chart.locator("circle.point title").first.text_content().endswith("20.00 DEMO")
    shots.both(page, "price-chart")

    page.get_by_role("link", name="Account (buyer)").click()
    history = page.locator("#ledger tbody tr")
    texts = [" | ".join(r.locator("td").all_inner_texts()) for r in history.all()]
    # The bid of 25.00 filled at once at the ask's 20.00: it paid 20.00 from available,
    # with nothing held for it and nothing to give back.
    assert any(
        "Bought a solution to Factor 391 for 20.00 DEMO" in t and "-20.00 DEMO" in t for t in texts
    )
    assert not any("Held for your bid" in t or "Price improvement" in t for t in texts)
    assert page.locator("#my-trades .badge.lang", has_text="Python").count() >= 1
    shots.both(page, "account-ledger")
    assert Solution.objects.count() == 2


def test_lists_show_languages_and_filters_mean_what_they_say(page, shots, demo):
    page.goto("/problems/")
    titles = page.locator(".problem-list h3").all_inner_texts()
    assert "Factor 391 Python" in titles and "Factor 391 Lean" in titles
    lean_items = page.locator(".problem-list li", has=page.locator(".badge.lang", has_text="Lean"))
    assert lean_items.count() == 4
    for i in range(4):
        assert lean_items.nth(i).locator(".badge.unjudged").count() == 1
    shots.both(page, "problem-list")
    page.get_by_label("Kind").select_option("real")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**kind=real**")
    assert page.locator(".problem-list li").count() == 0
    assert page.get_by_text("No problems match.").is_visible()
    shots.both(page, "filter-real-money")
    page.goto("/")
    assert page.locator(".problem-list .badge.unjudged").count() == 4
    assert page.get_by_role("link", name="API documentation").get_attribute("href") == "/api/docs/"
    shots.both(page, "home")
