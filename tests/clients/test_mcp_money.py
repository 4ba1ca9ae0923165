"""Issue 30's money traps, through the MCP SDK's ClientSession over stdio against a live
server: price_minor is an int of minor units or an error that says so; price is a decimal
string with its currency; every tool's output carries what it promises."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.client.session import ClientSession

from market.models import Order
from market.services.accounts import grant_demo_credits
from market.services.bot import BID_PRICE_MINOR
from tests.clients.test_mcp_server import error_text, result_of, run
from tests.market.helpers import snapshot

HINT = "integer minor units; 10.00 DEMO is 1000"
TRAPS = ["10.00", "1000", 10.5, 1000.0, True]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_lean_toolchain")
def test_money_arguments_are_strict_and_never_ambiguous(live_server, demo_market, alice_token):
    before = snapshot()

    async def script(session: ClientSession) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        call = session.call_tool
        tools = {t.name: t for t in (await session.list_tools()).tools}
        seen["schemas"] = {n: tools[n].input_schema for n in ("list_ask", "place_bid")}
        seen["traps"] = {
            (tool, repr(value)): error_text(await call(tool, {**args, "price_minor": value}))
            for value in TRAPS
            for tool, args in (
                ("place_bid", {"problem": "demo-factor-391"}),
                ("list_ask", {"solution_id": 1}),
            )
        }
        seen["both"] = error_text(
            await call(
                "place_bid",
                {"problem": "demo-factor-391", "price_minor": 1000, "price": "10.00"},
            )
        )
        seen["no currency"] = error_text(
            await call("place_bid", {"problem": "demo-factor-391", "price": "10.00"})
        )
        seen["three decimals"] = error_text(
            await call(
                "place_bid", {"problem": "demo-factor-391", "price": "10.005", "currency": "DEMO"}
            )
        )
        seen["quantity"] = error_text(
            await call(
                "place_bid", {"problem": "demo-factor-391", "price_minor": 100, "quantity": "2.0"}
            )
        )
        seen["too high"] = error_text(
            await call("place_bid", {"problem": "demo-factor-391", "price_minor": 10**12})
        )
        return seen

    seen = run(live_server.url, alice_token, script)

    for name, schema in seen["schemas"].items():
        assert schema["properties"]["price_minor"]["type"] == "integer", name
        assert "10.00 DEMO is 1000" in schema["properties"]["price_minor"]["description"]
        assert schema["properties"]["price"]["anyOf"][0]["type"] == "string", name
    for (tool, value), text in seen["traps"].items():
        assert HINT in text and "price_minor" in text, (tool, value, text)
        assert "pydantic" not in text and "http" not in text, text
    assert "not both" in seen["both"]
    assert "needs its currency" in seen["no currency"]
    assert "at most 2 decimals" in seen["three decimals"]
    assert "quantity" in seen["quantity"] and "whole number" in seen["quantity"]
    # The limit is said with its decimals, never in raw minor units.
    assert "1,000,000.00 DEMO" in seen["too high"] and "100000000" not in seen["too high"]
    assert snapshot() == before
    assert not Order.objects.filter(owner__username="alice").exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_lean_toolchain")
def test_each_tool_serves_what_it_promises(live_server, demo_market, alice, alice_token):
    grant_demo_credits(user=alice, amount_minor=10_000)

    async def script(session: ClientSession) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        call = session.call_tool
        info = session.server_info
        seen["version"] = (info.name, info.version) if info else None
        seen["tools"] = {t.name: t.input_schema for t in (await session.list_tools()).tools}
        seen["page1"] = result_of(await call("search_problems", {"demo": True, "limit": 1}))
        seen["page2"] = result_of(
            await call(
                "search_problems",
                {"demo": True, "limit": 1, "cursor": seen["page1"]["next_cursor"]},
            )
        )
        seen["q"] = result_of(await call("search_problems", {"q": "391"}))
        seen["lean"] = result_of(await call("get_problem", {"problem": "demo-lean-two-plus-two"}))
        seen["bid"] = result_of(
            await call(
                "place_bid",
                {"problem": "demo-factor-391", "price": "1.50", "currency": "DEMO"},
            )
        )
        seen["balances"] = result_of(await call("get_balances", {}))
        return seen

    seen = run(live_server.url, alice_token, script)

    name, version = seen["version"]
    assert name == "formalmarket" and version and version[0].isdigit()

    assert "q" in seen["tools"]["search_problems"]["properties"]
    assert "query" not in seen["tools"]["search_problems"]["properties"]
    assert "cursor" in seen["tools"]["search_problems"]["properties"]
    first, second = seen["page1"], seen["page2"]
    assert len(first["problems"]) == 1 and first["has_more"] is True and first["next_cursor"]
    assert first["problems"][0]["id"] != second["problems"][0]["id"]
    [factor] = [p for p in seen["q"]["problems"] if p["slug"] == "demo-factor-391"]
    assert factor["best_bid"]["minor"] == BID_PRICE_MINOR
    assert factor["best_bid"]["formatted"].endswith(" DEMO")
    [lean_verifier] = seen["lean"]["verifiers"]
    assert lean_verifier["accepts_submissions"] is False
    assert "cannot judge Lean" in lean_verifier["judge_note"]
    assert (seen["bid"]["price"]["minor"], seen["bid"]["price"]["formatted"]) == (150, "1.50 DEMO")
    usd = {b["currency"]: b for b in seen["balances"]}["USD"]
    assert usd["enabled"] is False and "USD is disabled" in usd["note"]
