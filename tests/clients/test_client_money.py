"""The typed client's money arguments and errors (issue 30)."""

from __future__ import annotations

import pytest
from formalmarket_client import FormalMarketClient, InvalidRequest, Money, MoneyArgumentError

from market.models import Order
from market.services.accounts import grant_demo_credits

HINT = "integer minor units; 10.00 DEMO is 1000"


@pytest.mark.parametrize("value", ["10.00", "1000", 10.5, 1000.0, True])
@pytest.mark.parametrize("method", ["list_ask", "place_bid"])
def test_a_price_minor_that_is_not_an_int_is_refused_before_anything_is_sent(method, value):
    # Port 9 (discard) on loopback: a request would be a TransportError after retries.
    fm = FormalMarketClient("http://127.0.0.1:9", "fm_x", max_retries=0)
    with pytest.raises(MoneyArgumentError) as caught:
        getattr(fm, method)(1, value, currency="DEMO")
    assert HINT in str(caught.value)
    assert caught.value.fields == {"price_minor": [caught.value.message]}


def test_price_and_price_minor_together_are_ambiguous():
    fm = FormalMarketClient("http://127.0.0.1:9", "fm_x", max_retries=0)
    with pytest.raises(MoneyArgumentError, match="not both"):
        fm.place_bid(1, 1000, price="10.00", currency="DEMO")
    with pytest.raises(MoneyArgumentError, match="needs its currency"):
        fm.place_bid(1, price="10.00")
    with pytest.raises(MoneyArgumentError, match="at most 2 decimals"):
        fm.place_bid(1, price="10.001", currency="DEMO")
    with pytest.raises(MoneyArgumentError, match="whole number of copies"):
        fm.place_bid(1, 1000, currency="DEMO", quantity=2.0)  # type: ignore[arg-type]
    assert Money.parse("10", "demo") == Money(1000, "DEMO")
    assert Money.parse("0.5", "USD") == Money(50, "USD")


@pytest.mark.django_db(transaction=True)
def test_a_decimal_price_and_the_apis_error_fields_reach_the_caller(
    live_server, demo_market, alice, alice_token
):
    grant_demo_credits(user=alice, amount_minor=10_000)
    fm = FormalMarketClient(live_server.url, alice_token)
    order = fm.place_bid("demo-factor-391", price="1.50", currency="DEMO")
    assert order.price == Money(150, "DEMO")
    with pytest.raises(InvalidRequest) as caught:
        fm.place_bid("demo-factor-391", 10**12)
    error = caught.value
    assert error.code == "market:invalid-order"
    assert error.fields == {"price_minor": ["at most 1,000,000.00 DEMO per copy"]}
    assert "at most 1,000,000.00 DEMO per copy" in str(error)  # not just "invalid order"
    assert Order.objects.filter(owner=alice).count() == 1


@pytest.mark.django_db(transaction=True)
def test_problems_page_with_cursors_and_best_prices(live_server, demo_market, alice_token):
    fm = FormalMarketClient(live_server.url, alice_token)
    first = fm.problems(demo=True, limit=1)
    assert len(first) == 1 and first.has_more and first.next_cursor
    second = fm.problems(demo=True, limit=1, cursor=first.next_cursor)
    assert second[0].id != first[0].id
    everything = list(fm.iter_problems(demo=True, limit=1))
    assert len(everything) == len({p.id for p in everything}) >= 2
    factor = next(p for p in fm.iter_problems(q="391") if p.slug == "demo-factor-391")
    assert factor.best_bid is not None and factor.best_bid.currency == "DEMO"
    assert fm.balances()["USD"].enabled is False
