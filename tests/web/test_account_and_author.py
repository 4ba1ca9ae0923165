"""The account page in a user's terms (ledger descriptions, one label per account, pages), the
author's starting points, the guide, and pages that the Content-Security-Policy can serve."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from market.models import AccountKind, Posting
from market.money import Money
from market.services.accounts import grant_demo_credits
from market.services.orders import cancel_order, place_ask, place_bid
from market.templatetags.market_pages import site_links
from tests.factories import UserFactory, accepted_solution

pytestmark = pytest.mark.django_db


def logged_in(user=None):
    user = user or UserFactory()
    client = Client()
    client.force_login(user)
    return client, user


def ledger_rows(html: str) -> list[list[str]]:
    body = html.split('id="ledger"')[1].split("<tbody>")[1].split("</tbody>")[0]
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_the_ledger_reads_in_the_users_terms(factor_391):
    seller = UserFactory()
    version = factor_391.verifiers.get().versions.get(is_active=True)
    solution = accepted_solution(verifier_version=version, solver=seller)
    place_ask(seller=seller, solution=solution, price=Money(2_000, "DEMO"), quantity=1)
    client, buyer = logged_in()
    grant_demo_credits(user=buyer, amount_minor=10_000)
    place_bid(buyer=buyer, problem=factor_391, price=Money(2_500, "DEMO"), quantity=1)
    resting = place_bid(buyer=buyer, problem=factor_391, price=Money(300, "DEMO"), quantity=1)
    cancel_order(user=buyer, order_id=resting.pk)

    rows = [row[1:] for row in ledger_rows(client.get(reverse("account")).content.decode())]
    held, available = str(AccountKind.HELD.label), str(AccountKind.AVAILABLE.label)
    expected = [
        ["Released: your bid on Factor 391 was cancelled", available, "+3.00 DEMO"],
        ["Released: your bid on Factor 391 was cancelled", held, "-3.00 DEMO"],
        ["Held for your bid on Factor 391", held, "+3.00 DEMO"],
        ["Held for your bid on Factor 391", available, "-3.00 DEMO"],
        # The bid of 25.00 filled at once at the ask's 20.00: paid from available, no hold.
        ["Bought a solution to Factor 391 for 20.00 DEMO", available, "-20.00 DEMO"],
        ["DEMO credits received (not money)", available, "+100.00 DEMO"],
    ]
    # Newest transaction first; the two postings of one transaction in either order.
    assert sorted(rows) == sorted(expected) and len(rows) == len(expected)
    assert {tuple(r) for r in rows[:2]} == {tuple(r) for r in expected[:2]}
    assert rows[-1] == expected[-1]
    seller_html = Client()
    seller_html.force_login(seller)
    seller_rows = ledger_rows(seller_html.get(reverse("account")).content.decode())
    assert seller_rows[0][1:] == [
        "Sold a solution to Factor 391 for 20.00 DEMO (fee 1.00 DEMO)",
        available,
        "+19.00 DEMO",
    ]
    # The balances use the same account labels as the history.
    page = client.get(reverse("account")).content.decode()
    assert f'<div class="muted">{held}</div>' in page


def test_the_ledger_is_paginated_and_other_tables_keep_their_page(db):
    client, user = logged_in()
    for n in range(30):
        grant_demo_credits(user=user, amount_minor=100 + n, idempotency_key=f"grant-{n}")
    assert Posting.objects.filter(account__owner=user).count() == 30
    first = client.get(reverse("account")).content.decode()
    assert len(ledger_rows(first)) == 25
    assert "Page 1 of 2 (30 in all)" in first
    assert 'href="?ledger=2#ledger-h"' in first
    second = client.get(reverse("account"), {"ledger": "2", "trades": "3"}).content.decode()
    amounts = [row[3] for row in ledger_rows(second)]
    assert amounts == [f"+{(100 + n) / 100:.2f} DEMO" for n in range(4, -1, -1)]
    assert 'href="?ledger=1&amp;trades=3#ledger-h"' in second


def test_the_new_verifier_form_starts_with_a_defensive_python_starter(db):
    from market.starters import PYTHON_VERIFIER_STARTER
    from tests.factories import ProblemFactory

    client, author = logged_in()
    problem = ProblemFactory(author=author, status="draft")
    html = client.get(reverse("author-verifier-new", args=[problem.pk])).content.decode()
    source = re.search(r'<textarea name="source"[^>]*>(.*?)</textarea>', html, re.S)
    assert source is not None
    assert 'wrap="off"' in source.group(0) and 'class="code"' in source.group(0)
    assert "def verify(solution, rng):" in source.group(1)
    assert "abbrev Spec : Prop" in html  # the Lean starter, for the language switch
    # The starter is a working verifier: it returns True for the answer and False, never an
    # exception, for bad input.
    namespace: dict[str, object] = {}
    exec(compile(PYTHON_VERIFIER_STARTER, "starter", "exec"), namespace)  # noqa: S102
    verify = namespace["verify"]
    assert verify("17 23", None) is True
    for bad in ("", "1 391", "23 17", "17 23 1", "x y", "１７ 23", None, "9" * 5000):
        assert verify(bad, None) is False


def test_usd_is_not_offered_to_authors_when_the_server_cannot_honour_it(db, settings):
    settings.STRIPE_SECRET_KEY = ""
    client, _ = logged_in()
    html = client.get(reverse("author-problem-new")).content.decode()
    select = re.search(r'<select name="currency".*?</select>', html, re.S).group(0)
    assert 'value="DEMO"' in select and 'value="USD"' not in select
    response = client.post(
        reverse("author-problem-new"), {"title": "Dollars", "statement_md": "", "currency": "USD"}
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()


def test_messages_naming_a_repository_path_link_to_the_guide_instead():
    html = str(site_links("parse it with the safe parser recipe (judge/python/safe_parse.py)"))
    assert "judge/python/safe_parse.py" not in html
    assert '<a href="/docs/verifiers/">the safe parser recipe</a>' in html
    assert str(site_links("<script>x</script>")) == "&lt;script&gt;x&lt;/script&gt;"


def test_the_guide_shows_the_contract_starters_and_the_verifier_library(db):
    html = Client().get(reverse("help-verifiers")).content.decode()
    assert "from formalmarket_verify import parse_math" in html
    assert reverse("docs-verifiers") in html
    assert "def verify(solution, rng):" in html and "abbrev Spec : Prop" in html
    assert reverse("api-docs") in html


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/problems/",
        "/problems/demo-factor-391/",
        "/problems/demo-lean-factor-391/",
        "/account/",
        "/author/problems/new/",
        "/help/verifiers/",
    ],
)
def test_pages_have_no_inline_script_style_or_handlers(demo_problems, url):
    client, _ = logged_in()
    html = client.get(url).content.decode()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>"
    assert not re.search(r"\sstyle=", html), "style= attribute"
    assert not re.search(r"\son[a-z]+=", html), "on*= handler"
    assert "hx-on" not in html


def test_the_ledgers_last_guard_refuses_in_plain_money_and_writes_nothing(db):
    from django.db import transaction

    from market.exceptions import InsufficientFunds
    from market.models import LedgerTransaction
    from market.services.ledger import (
        get_system_account,
        get_user_accounts,
        lock_accounts,
        record_transaction,
    )

    user = UserFactory()
    grant_demo_credits(user=user, amount_minor=100)
    before = LedgerTransaction.objects.count()
    with pytest.raises(InsufficientFunds) as refused, transaction.atomic():
        available = get_user_accounts(keys=[(user.pk, AccountKind.AVAILABLE)], currency="DEMO")[
            (user.pk, AccountKind.AVAILABLE)
        ]
        fees = get_system_account(currency="DEMO", kind=AccountKind.FEES)
        record_transaction(
            kind=LedgerTransaction.Kind.BID_HOLD,
            currency="DEMO",
            legs=[(available, -500), (fees, 500)],
            locked=lock_accounts([available]),
        )
    assert refused.value.message == "This needs 5.00 DEMO; you have 1.00 DEMO available."
    assert LedgerTransaction.objects.count() == before
