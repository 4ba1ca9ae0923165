"""The MCP server: tools and resources over the REST API, stdio or streamable HTTP.

stdio: ``FORMALMARKET_URL`` and ``FORMALMARKET_TOKEN`` from the environment, one user.
HTTP: ``formalmarket-mcp --http``; each request carries ``Authorization: Bearer <API token>``,
checked against ``GET /api/v1/me/`` (the SDK's bearer middleware), and every tool call uses
that caller's token.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from formalmarket_client import FormalMarketClient, FormalMarketError, Money
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from formalmarket_mcp import shapes
from formalmarket_mcp.arguments import (
    MinorUnits,
    Quantity,
    fail,
    price_argument,
    problem_ref,
    quantity_argument,
)

MONEY_RULES = (
    "Money rules: amounts are integers in minor units (cents): price_minor=1050 is 10.50; "
    "a string, float or bool as price_minor is refused. Or give price as a decimal string "
    'in major units with its currency (price="10.50", currency="DEMO"), never both. '
    "DEMO credits are not money: they cannot be bought, withdrawn or exchanged; demo problems "
    "trade in DEMO and a practice bot bids on them. USD is real money and exists only on "
    "servers configured with Stripe. A bid holds price_minor x quantity of your available "
    "balance until it fills or you cancel it; a trade happens at the resting order's price "
    "and the seller pays a platform fee."
)

INSTRUCTIONS = (
    "FormalMarket is a market for machine-checked solutions. Find a problem "
    "(search_problems, get_problem: read its solution format), submit a solution "
    "(submit_solution waits for the verdict: ACCEPTED or REJECTED with a reason, the "
    "detail you may see and the seed), then sell copies of an ACCEPTED solution "
    "(list_ask) or buy others' (place_bid). " + MONEY_RULES
)

ClientFactory = Callable[[], FormalMarketClient]


def _version() -> str:
    try:
        return importlib.metadata.version("formalmarket-client")
    except importlib.metadata.PackageNotFoundError:
        return "0.1.0"


def build_server(
    client_for_caller: ClientFactory,
    *,
    auth: AuthSettings | None = None,
    token_verifier: Any = None,
) -> MCPServer:
    """The server; ``client_for_caller()`` returns a client holding the caller's token."""
    server = MCPServer(
        "formalmarket",
        version=_version(),
        instructions=INSTRUCTIONS,
        auth=auth,
        token_verifier=token_verifier,
    )

    def call(fn: Callable[[FormalMarketClient], Any]) -> Any:
        try:
            return fn(client_for_caller())
        except ToolError:
            raise
        except (FormalMarketError, ValueError, TypeError, KeyError) as exc:
            raise fail(exc) from None

    @server.tool(
        description="Search published problems by words in the title or statement (q), "
        "optionally by verifier language (python or lean) and demo=true/false. Returns a "
        "page: problems (id, slug, title, currency, languages, best bid and ask in minor "
        "units and formatted, null for an empty side), next_cursor and has_more; pass "
        "next_cursor as cursor for the next page."
    )
    def search_problems(
        q: str = "",
        language: str = "",
        demo: bool | None = None,
        limit: int = 20,
        cursor: str = "",
    ) -> dict[str, Any]:
        if language and language not in ("python", "lean"):
            raise ToolError("language: python or lean (or empty for both)")
        if isinstance(limit, bool) or not 1 <= limit <= 200:
            raise ToolError("limit: 1 to 200")

        def run(c: FormalMarketClient) -> dict[str, Any]:
            page = c.problems(
                q=q or None,
                language=language or None,
                demo=demo,
                limit=limit,
                cursor=cursor.strip() or None,
            )
            return {
                "problems": [shapes.problem_summary(p) for p in page],
                "next_cursor": page.next_cursor,
                "has_more": page.has_more,
            }

        return call(run)

    @server.tool(
        description="Read one problem by id or slug: its statement (Markdown), each "
        "verifier's language, solution format and time/memory budget, and the order "
        "book (best bids and asks, in minor units). " + MONEY_RULES
    )
    def get_problem(problem: str) -> dict[str, Any]:
        def run(c: FormalMarketClient) -> dict[str, Any]:
            p = c.problem(problem_ref(problem))
            return {**shapes.problem_detail(p), "book": shapes.book(c.book(p.id))}

        return call(run)

    @server.tool(
        description="Submit a solution to a problem (id or slug) and wait up to "
        "wait_s seconds for its verdict. Returns the solution id, status and the "
        "verdict: ACCEPTED or REJECTED, the reason, the detail a solver may see and "
        "the seed. If still pending after wait_s, call get_solution later. Give "
        "verifier_id when the problem has several verifiers. Submitting the same text "
        "again returns the same solution."
    )
    def submit_solution(
        problem: str, text: str, verifier_id: int | None = None, wait_s: float = 60.0
    ) -> dict[str, Any]:
        if not text.strip():
            raise ToolError("text: the solution is empty")
        if not 0 <= wait_s <= 600:
            raise ToolError("wait_s: 0 to 600 seconds")

        def run(c: FormalMarketClient) -> dict[str, Any]:
            deadline = time.monotonic() + wait_s
            # Held by the server until the verdict: usually the only request.
            solution = c.submit(problem_ref(problem), text, verifier=verifier_id, wait_s=wait_s)
            remaining_s = deadline - time.monotonic()
            if solution.is_judged or remaining_s <= 0:
                return shapes.solution(solution)
            try:
                c.wait(solution, timeout=remaining_s)
            except FormalMarketError as exc:
                if type(exc).__name__ != "VerdictTimeout":
                    raise
            return shapes.solution(c.solution(solution.id))

        return call(run)

    @server.tool(
        description="Read one of my solutions (or one I bought): status, verdict "
        "with reason, detail and seed, and its text."
    )
    def get_solution(solution_id: int) -> dict[str, Any]:
        return call(lambda c: shapes.solution(c.solution(solution_id), include_text=True))

    @server.tool(
        description="List my solutions, newest first, optionally for one problem id "
        "and/or status (pending, running, accepted, rejected)."
    )
    def list_my_solutions(
        problem_id: int | None = None, status: str = "", limit: int = 50
    ) -> list[dict[str, Any]]:
        if status and status not in ("pending", "running", "accepted", "rejected"):
            raise ToolError("status: pending, running, accepted or rejected")
        return call(
            lambda c: [
                shapes.solution(s)
                for s in c.my_solutions(problem=problem_id, status=status or None, limit=limit)
            ]
        )

    @server.tool(
        description="Offer copies of one of my ACCEPTED solutions for sale, per copy at "
        "price_minor (integer minor units: 10.00 DEMO is 1000) or at price (a decimal "
        'string in major units, "10.00") with currency, in the problem\'s currency. If a '
        "bid at or above that price exists, it sells at once at the bid's price; a fee is "
        "taken from each sale. A solution has one open ask at a time (it sells any number "
        "of copies): to change its price or quantity, cancel_order the open ask first, else "
        "market:ask-already-open. An ask at or below my own open bid on the problem is "
        "refused (market:self-trade; cancel that bid first). A solution is sold at most 100 "
        "times: an ask whose quantity plus the copies already sold exceeds 100 is refused "
        "(market:sales-limit, which says how many more copies an ask may sell). " + MONEY_RULES
    )
    def list_ask(
        solution_id: int,
        price_minor: MinorUnits = None,
        price: str | None = None,
        currency: str | None = None,
        quantity: Quantity = 1,
    ) -> dict[str, Any]:
        minor, cur = price_argument(price_minor, price, currency)
        copies = quantity_argument(quantity)
        return call(
            lambda c: shapes.order(c.list_ask(solution_id, minor, currency=cur, quantity=copies))
        )

    @server.tool(
        description="Bid per copy price_minor (integer minor units: 10.00 DEMO is 1000) or "
        'price (a decimal string in major units, "10.00") with currency, in the problem\'s '
        "currency, for up to quantity distinct solutions of a problem (id or slug). The "
        "price x quantity is held from my available balance; it buys at once from asks at or "
        "below the price (at the ask's price). One open bid per problem at a time: to change "
        "its price or quantity, cancel_order it first, else market:bid-already-open; a bid at "
        "or above my own open ask on the problem is refused (market:self-trade; cancel that "
        "ask first). I may hold at most 100 solutions of one problem: a bid whose quantity "
        "plus those I already bought exceeds 100 is refused (market:solution-limit, which "
        "says how many more a bid may buy). " + MONEY_RULES
    )
    def place_bid(
        problem: str,
        price_minor: MinorUnits = None,
        price: str | None = None,
        currency: str | None = None,
        quantity: Quantity = 1,
    ) -> dict[str, Any]:
        minor, cur = price_argument(price_minor, price, currency)
        copies = quantity_argument(quantity)
        return call(
            lambda c: shapes.order(
                c.place_bid(problem_ref(problem), minor, currency=cur, quantity=copies)
            )
        )

    @server.tool(
        description="Cancel one of my open orders (a bid's remaining hold is "
        "released to my available balance)."
    )
    def cancel_order(order_id: int) -> dict[str, Any]:
        return call(lambda c: shapes.order(c.cancel(order_id)))

    @server.tool(
        description="My balances per currency: available, held for open bids, and "
        "pending sale proceeds, in minor units and formatted; enabled is false (with a "
        "note) for USD on a server without Stripe. " + MONEY_RULES
    )
    def get_balances() -> list[dict[str, Any]]:
        return call(lambda c: [shapes.balance(b) for b in c.balances().values()])

    @server.tool(
        description="My recent activity: verdicts, filled asks and bids, bids that "
        "arrived where I sell. Without cursor: the newest. Pass cursor=<cursor> from the "
        'last answer (or "0" for everything, oldest first) to get only newer events; '
        "has_more says whether more are waiting after this page."
    )
    def recent_activity(cursor: str = "", limit: int = 20) -> dict[str, Any]:
        if isinstance(limit, bool) or not 1 <= limit <= 200:
            raise ToolError("limit: 1 to 200")
        return call(lambda c: shapes.events(c.events(cursor.strip() or None, limit=limit)))

    def read_problem(problem: str) -> Any:
        try:
            return client_for_caller().problem(problem_ref(problem))
        except (FormalMarketError, ToolError, ValueError) as exc:
            raise ResourceError(f"problem {problem!r}: {exc}") from None

    @server.resource(
        "formalmarket://problems/{problem}/statement",
        mime_type="text/markdown",
        description="A problem's statement (Markdown), by id or slug.",
    )
    def problem_statement(problem: str) -> str:
        p = read_problem(problem)
        return f"# {p.title}\n\n{p.statement_md or ''}"

    @server.resource(
        "formalmarket://problems/{problem}/format",
        mime_type="text/plain",
        description="Each verifier's language, solution format and budget.",
    )
    def problem_format(problem: str) -> str:
        p = read_problem(problem)
        return "\n\n".join(shapes.format_text(v) for v in p.verifiers) or "no open verifier"

    return server


# --- running ----------------------------------------------------------------------------------


class ApiTokenVerifier:
    """Accepts a bearer token exactly when the FormalMarket API accepts it."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    async def verify_token(self, token: str) -> AccessToken | None:
        import anyio.to_thread

        def check() -> str | None:
            try:
                me = FormalMarketClient(self.base_url, token, max_retries=1).me()
                return str(me["username"])
            except FormalMarketError:
                return None

        username = await anyio.to_thread.run_sync(check)
        if username is None:
            return None
        return AccessToken(token=token, client_id=username, scopes=[])


def http_server(base_url: str, public_url: str) -> MCPServer:
    def client_for_caller() -> FormalMarketClient:
        access = get_access_token()
        if access is None:
            raise ToolError("not authenticated: send Authorization: Bearer <your API token>")
        return FormalMarketClient(base_url, access.token)

    auth = AuthSettings(issuer_url=base_url, resource_server_url=public_url)
    return build_server(client_for_caller, auth=auth, token_verifier=ApiTokenVerifier(base_url))


def stdio_server(base_url: str, token: str) -> MCPServer:
    client = FormalMarketClient(base_url, token)
    return build_server(lambda: client)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="formalmarket-mcp", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--url", default=os.environ.get("FORMALMARKET_URL", "http://127.0.0.1:8000")
    )
    parser.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--public-url", help="this server's URL as clients see it")
    args = parser.parse_args(argv)
    if args.http:
        public = args.public_url or f"http://{args.host}:{args.port}/mcp"
        http_server(args.url, public).run("streamable-http", host=args.host, port=args.port)
        return 0
    token = os.environ.get("FORMALMARKET_TOKEN", "")
    if not token:
        print(
            "formalmarket-mcp: set FORMALMARKET_TOKEN to your API token "
            "(create one at <site>/account/tokens/)",
            file=sys.stderr,
        )
        return 2
    stdio_server(args.url, token).run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Money", "build_server", "main"]
