"""formalmarket-mcp driven by the MCP SDK's own ClientSession over stdio, against a live
server with a real Celery worker: list the tools, call each, and the whole solver loop."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from market.models import Order, OrderStatus, Trade
from market.services.bot import BID_PRICE_MINOR
from market.services.orders import fee_for
from tests.clients.conftest import RIGHT, WRONG

TOOLS = {
    "search_problems",
    "get_problem",
    "submit_solution",
    "get_solution",
    "list_my_solutions",
    "list_ask",
    "place_bid",
    "cancel_order",
    "get_balances",
    "recent_activity",
}
MONEY_TOOLS = {"get_problem", "list_ask", "place_bid", "get_balances"}


def result_of(answer: Any) -> Any:
    assert answer.is_error is False, answer.content
    structured = answer.structured_content
    return structured["result"] if set(structured) == {"result"} else structured


def error_text(answer: Any) -> str:
    assert answer.is_error is True
    [content] = answer.content
    assert "Traceback" not in content.text
    return content.text


async def _session_run(url: str, token: str, script) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "formalmarket_mcp.server"],
        env={"FORMALMARKET_URL": url, "FORMALMARKET_TOKEN": token},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)


def run_loop(func: Any, *args: Any) -> Any:
    """``anyio.run`` in a thread of its own. The browser tests' sync Playwright keeps an
    asyncio loop running in the main thread for the rest of the session, and anyio refuses to
    start a second one there: run in the main thread, these tests failed whenever a browser
    test had run first (``pytest tests/e2e tests/clients``). The coroutines only talk to the
    servers; the ORM stays in the test's thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, func, *args).result()


def run(url: str, token: str, script) -> Any:
    return run_loop(_session_run, url, token, script)


@pytest.mark.django_db(transaction=True)
def test_an_agent_solves_and_trades_through_the_mcp_server(
    live_server, celery_worker, demo_market, alice_token
):
    async def script(session: ClientSession) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        tools = (await session.list_tools()).tools
        seen["tools"] = {t.name: t.description for t in tools}
        call = session.call_tool
        seen["search"] = result_of(await call("search_problems", {"demo": True, "limit": 200}))[
            "problems"
        ]
        seen["problem"] = result_of(await call("get_problem", {"problem": "demo-factor-391"}))
        seen["lean"] = result_of(await call("get_problem", {"problem": "demo-lean-two-plus-two"}))
        args = {"problem": "demo-factor-391", "wait_s": 60}
        seen["wrong"] = result_of(await call("submit_solution", {**args, "text": WRONG}))
        seen["right"] = result_of(await call("submit_solution", {**args, "text": RIGHT}))
        right_id = seen["right"]["id"]
        seen["solution"] = result_of(await call("get_solution", {"solution_id": right_id}))
        seen["mine"] = result_of(await call("list_my_solutions", {"status": "accepted"}))
        price = seen["problem"]["book"]["bids"][0]["price"]["minor"]
        seen["ask"] = result_of(
            await call("list_ask", {"solution_id": right_id, "price_minor": price})
        )
        seen["bid"] = result_of(
            await call("place_bid", {"problem": "demo-factor-391", "price_minor": 100})
        )
        seen["cancel"] = result_of(await call("cancel_order", {"order_id": seen["bid"]["id"]}))
        seen["balances"] = result_of(await call("get_balances", {}))
        seen["activity"] = result_of(await call("recent_activity", {"cursor": "0"}))
        statement = await session.read_resource("formalmarket://problems/demo-factor-391/statement")
        seen["statement"] = statement.contents[0].text
        format_ = await session.read_resource("formalmarket://problems/demo-factor-391/format")
        seen["format"] = format_.contents[0].text
        seen["errors"] = {
            "negative price": error_text(
                await call("place_bid", {"problem": "demo-factor-391", "price_minor": -5})
            ),
            "no such problem": error_text(await call("get_problem", {"problem": "no-such"})),
            "not a number": error_text(
                await call("list_ask", {"solution_id": right_id, "price_minor": "ten"})
            ),
            "bad language": error_text(await call("search_problems", {"language": "cobol"})),
            "empty solution": error_text(
                await call("submit_solution", {"problem": "demo-factor-391", "text": " "})
            ),
            "not open": error_text(await call("cancel_order", {"order_id": seen["bid"]["id"]})),
        }
        return seen

    seen = run(live_server.url, alice_token, script)

    assert set(seen["tools"]) == TOOLS
    for name in MONEY_TOOLS:
        assert "DEMO credits are not money" in seen["tools"][name], name
        assert "USD" in seen["tools"][name]
    slugs = {p["slug"]: p for p in seen["search"]}
    assert slugs["demo-lean-two-plus-two"]["languages"] == ["lean"]
    problem = seen["problem"]
    assert problem["statement_md"] and problem["verifiers"][0]["language"] == "python"
    assert problem["verifiers"][0]["solution_format"] and problem["verifiers"][0]["time_limit_s"]
    assert problem["book"]["bids"][0]["price"]["minor"] == BID_PRICE_MINOR
    assert seen["lean"]["verifiers"][0]["language"] == "lean"

    wrong = seen["wrong"]["verdict"]
    assert (seen["wrong"]["status"], wrong["verdict"]) == ("rejected", "REJECTED")
    assert wrong["reason"] and wrong["seed"] is not None and "detail" in wrong
    assert seen["right"]["verdict"]["verdict"] == "ACCEPTED"
    assert seen["solution"]["text"] == RIGHT
    assert [s["id"] for s in seen["mine"]] == [seen["right"]["id"]]

    ask = seen["ask"]
    assert ask["status"] == "filled"
    assert ask["fills"][0]["price"] == {
        "minor": BID_PRICE_MINOR,
        "currency": "DEMO",
        "formatted": f"{BID_PRICE_MINOR // 100}.{BID_PRICE_MINOR % 100:02d} DEMO",
    }
    assert (seen["bid"]["status"], seen["cancel"]["status"]) == ("open", "cancelled")
    [demo] = [b for b in seen["balances"] if b["currency"] == "DEMO"]
    net = BID_PRICE_MINOR - fee_for(BID_PRICE_MINOR)
    assert demo["available"]["minor"] == net and demo["held"]["minor"] == 0
    assert demo["is_real_money"] is False
    assert seen["activity"]["has_more"] is False
    types = [e["type"] for e in seen["activity"]["events"]]
    assert types.count("solution.judged") == 2 and "ask.filled" in types
    assert "Factor 391" in seen["statement"] or "391" in seen["statement"]
    assert "python" in seen["format"]

    errors = seen["errors"]
    assert "api:invalid" in errors["negative price"] and "price_minor" in errors["negative price"]
    assert "not-found" in errors["no such problem"]
    assert "price_minor" in errors["not a number"]
    assert "python or lean" in errors["bad language"]
    assert "empty" in errors["empty solution"]
    assert "market:order-not-open" in errors["not open"]
    # Nothing happened beyond the loop: one sale, one cancelled bid.
    assert Trade.objects.filter(seller__username="alice").count() == 1
    assert list(
        Order.objects.filter(owner__username="alice", side="bid").values_list("status", flat=True)
    ) == [OrderStatus.CANCELLED]


def test_the_stdio_server_refuses_to_start_without_a_token(tmp_path):
    import subprocess

    done = subprocess.run(  # noqa: S603
        [sys.executable, "-m", "formalmarket_mcp.server"],
        env={"PATH": "/usr/bin:/bin", "FORMALMARKET_URL": "http://127.0.0.1:9"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "set FORMALMARKET_TOKEN" in done.stderr and "Traceback" not in done.stderr
    assert json  # (the module keeps json for readers extending the script)
