"""formalmarket-mcp over streamable HTTP: a bearer API token is required, and each caller's
tools run with that caller's own token."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.error
import urllib.request

import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from market.api.tokens import create_api_token
from market.services.accounts import grant_demo_credits
from tests.clients.test_mcp_server import run_loop
from tests.factories import UserFactory
from tests.waiting import wait_until


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def mcp_http(live_server):
    port = free_port()
    process = subprocess.Popen(  # noqa: S603
        [
            sys.executable,
            "-m",
            "formalmarket_mcp.server",
            "--http",
            "--port",
            str(port),
            "--url",
            live_server.url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def listening() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            if process.poll() is not None:
                raise AssertionError("formalmarket-mcp --http exited") from None
            return False

    wait_until(listening, "formalmarket-mcp --http to listen", timeout=30)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(timeout=10)


async def balances_of(url: str, token: str) -> list:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                answer = await session.call_tool("get_balances", {})
                assert answer.is_error is False, answer.content
                return answer.structured_content["result"]


@pytest.mark.django_db(transaction=True)
def test_the_http_transport_needs_a_valid_token_and_acts_as_its_caller(mcp_http):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    grant_demo_credits(user=alice, amount_minor=12_345)
    grant_demo_credits(user=bob, amount_minor=500)
    alice_key = create_api_token(user=alice, name="mcp")[1]
    bob_key = create_api_token(user=bob, name="mcp")[1]

    for headers in ({}, {"Authorization": "Bearer fm_000000000000_" + "x" * 43}):
        request = urllib.request.Request(  # noqa: S310
            mcp_http,
            data=b"{}",
            method="POST",
            headers={"Content-Type": "application/json", **headers},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)  # noqa: S310
        assert refused.value.code == 401

    def demo(rows: list) -> int:
        [row] = [r for r in rows if r["currency"] == "DEMO"]
        return row["available"]["minor"]

    assert demo(run_loop(balances_of, mcp_http, alice_key)) == 12_345
    assert demo(run_loop(balances_of, mcp_http, bob_key)) == 500
