"""The typed client: every method is one (or a few) REST calls with the caller's token."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from formalmarket_client.errors import AuthenticationError, NotFound, VerdictTimeout
from formalmarket_client.http import Transport
from formalmarket_client.models import (
    Balance,
    Book,
    Event,
    EventPage,
    Order,
    Page,
    Problem,
    Solution,
    Trade,
    Verdict,
)
from formalmarket_client.money import Money, resolve_price, strict_quantity
from formalmarket_client.tokens import default_token_file, load_saved_token, save_token

ProblemRef = Problem | int | str
SolutionRef = Solution | int
OrderRef = Order | int
# How long one request asks the server to hold it for a verdict (the API allows 30 s; less,
# so that a proxy's idle timeout of 30 s does not cut it).
HELD_S = 25.0


def _id(ref: Any) -> int:
    value = getattr(ref, "id", ref)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"expected an object with an id, or a positive id; got {ref!r}")
    return value


class FormalMarketClient:
    """A FormalMarket API client. ``FormalMarketClient(base_url, token)``, or
    :meth:`login` with a username and password (reusing a saved token)."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout_s: float = 30.0,
        max_retries: int = 5,
        backoff_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.http = Transport(
            base_url,
            token,
            timeout_s=timeout_s,
            max_retries=max_retries,
            backoff_s=backoff_s,
            sleep=sleep,
        )
        self._sleep = sleep

    @property
    def base_url(self) -> str:
        return self.http.base_url

    @property
    def token(self) -> str | None:
        return self.http.token

    # --- authentication ---------------------------------------------------------------------

    @classmethod
    def login(
        cls,
        base_url: str,
        username: str,
        password: str,
        *,
        token_name: str = "formalmarket_client",  # noqa: S107  (a label, not a secret)
        token_file: Path | None = None,
        **kwargs: Any,
    ) -> FormalMarketClient:
        """A client for ``username``: the token saved in ``token_file`` if it still works,
        else a new one (created with the password, then saved with mode 0600)."""
        path = token_file or default_token_file()
        saved = load_saved_token(path, base_url, username)
        if saved:
            client = cls(base_url, saved, **kwargs)
            try:
                if client.me()["username"] == username:
                    return client
            except AuthenticationError:
                pass  # revoked or expired: make a new one
        client = cls(base_url, None, **kwargs)
        client.http.token = client.create_token(token_name, username=username, password=password)
        save_token(path, base_url, username, client.http.token)
        return client

    def create_token(
        self, name: str, *, username: str | None = None, password: str | None = None
    ) -> str:
        """Create an API token and return its key (shown once by the server)."""
        body: dict[str, Any] = {"name": name}
        if username is not None:
            body |= {"username": username, "password": password or ""}
        answer = self.http.request("POST", "/api/v1/tokens/", body, authenticated=username is None)
        return str(answer.body["key"])

    def me(self) -> dict[str, Any]:
        return dict(self.http.request("GET", "/api/v1/me/").body)

    # --- problems ---------------------------------------------------------------------------

    def problems(
        self,
        *,
        q: str | None = None,
        language: str | None = None,
        demo: bool | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page[Problem]:
        """One page of published problems (newest first), filtered by text ``q``, verifier
        language and demo, each with its best bid and ask. Iterate it like a list; pass its
        ``next_cursor`` as ``cursor`` for the next page (``has_more`` says whether there is
        one), or use :meth:`iter_problems` for all of them."""
        params: dict[str, Any] = {"limit": limit}
        if q:
            params["q"] = q
        if language:
            params["language"] = language
        if demo is not None:
            params["demo"] = "true" if demo else "false"
        if cursor:
            params["cursor"] = cursor
        body = self.http.request("GET", "/api/v1/problems/?" + urllib.parse.urlencode(params)).body
        return Page.from_api(body, Problem.from_api)

    def iter_problems(self, **filters: Any) -> Iterator[Problem]:
        """Every published problem matching ``filters`` (as :meth:`problems`), page by page."""
        cursor: str | None = None
        while True:
            page = self.problems(**filters, cursor=cursor)
            yield from page
            if not page.has_more or not page.next_cursor:
                return
            cursor = page.next_cursor

    def problem(self, ref: ProblemRef) -> Problem:
        """A problem with its statement, by id, slug or Problem."""
        if isinstance(ref, str) and not ref.isdigit():
            for page_problem in self._all_problems():
                if page_problem["slug"] == ref:
                    return self.problem(int(page_problem["id"]))
            raise NotFound(404, "not-found", f"no published problem with slug {ref!r}")
        problem_id = int(ref) if isinstance(ref, str) else _id(ref)
        return Problem.from_api(self.http.request("GET", f"/api/v1/problems/{problem_id}/").body)

    def _all_problems(self) -> list[dict[str, Any]]:
        url: str | None = "/api/v1/problems/?limit=200"
        rows: list[dict[str, Any]] = []
        while url and len(rows) < 10_000:
            body = self.http.request("GET", url).body
            rows += body["results"]
            url = body.get("next")
        return rows

    def book(self, problem: ProblemRef, *, depth: int = 10) -> Book:
        problem_id = self.problem(problem).id if isinstance(problem, str) else _id(problem)
        body = self.http.request("GET", f"/api/v1/problems/{problem_id}/book/?depth={depth}").body
        return Book.from_api(body)

    # --- solutions --------------------------------------------------------------------------

    def submit(
        self,
        problem: ProblemRef,
        text: str,
        *,
        verifier: int | None = None,
        wait_s: float = 0.0,
    ) -> Solution:
        """Submit ``text`` to the problem's verifier (the only one, or ``verifier``); judged
        asynchronously. With ``wait_s`` the server holds the answer until the verdict (up to
        25 s of it, ``?wait=``): one request, and the solution comes with its verdict, or still
        pending (a server without a free slot answers at once): then call :meth:`wait`.
        The same text again returns the same solution."""
        if not wait_s >= 0:
            raise ValueError(f"wait_s must be 0 or more seconds, not {wait_s!r}")
        if verifier is None:
            resolved = problem if isinstance(problem, Problem) else self.problem(problem)
            open_verifiers = [v for v in resolved.verifiers if v.version_id is not None]
            if len(open_verifiers) != 1:
                names = [f"{v.id} ({v.language})" for v in open_verifiers] or ["none"]
                raise ValueError(
                    f"problem {resolved.slug!r} has verifiers {', '.join(names)}: pass verifier="
                )
            verifier = open_verifiers[0].id
        body = {"verifier": verifier, "text": text}
        held_s = round(min(HELD_S, wait_s), 3)
        if held_s <= 0:
            return Solution.from_api(self.http.request("POST", "/api/v1/solutions/", body).body)
        # A retry after a timeout keeps the Idempotency-Key: a replay, which waits the same way.
        answer = self.http.request(
            "POST",
            f"/api/v1/solutions/?wait={held_s}",
            body,
            timeout_s=held_s + self.http.timeout_s,
        )
        return Solution.from_api(answer.body)

    def solution(self, solution: SolutionRef) -> Solution:
        return Solution.from_api(
            self.http.request("GET", f"/api/v1/solutions/{_id(solution)}/").body
        )

    def wait(
        self, solution: SolutionRef, timeout: float = 120.0, *, max_interval_s: float = 2.0
    ) -> Verdict:
        """Wait for the verdict. The server holds each request until the verdict (``?wait=``,
        up to 25 s at a time), so a verdict is known as soon as it is recorded, without
        polling. A server that answers at once instead (no free slot, or one older than
        ``?wait=``) is polled with If-None-Match (an unchanged answer is a bodiless 304),
        sleeping 0.25 s growing to ``max_interval_s``.
        Raises VerdictTimeout (with the pending reason) if not judged in time."""
        url = f"/api/v1/solutions/{_id(solution)}/status/"
        deadline = time.monotonic() + timeout
        etag: str | None = None
        status, reason, delay = "pending", "", 0.25
        while True:
            held_s = round(min(HELD_S, max(deadline - time.monotonic(), 0.0)), 3)
            headers = {"If-None-Match": etag} if etag else {}
            asked = time.monotonic()
            answer = self.http.request(
                "GET",
                f"{url}?wait={held_s}" if held_s > 0 else url,
                headers=headers,
                timeout_s=held_s + self.http.timeout_s,
            )
            if answer.status == 200:
                etag = answer.headers.get("ETag")
                status = answer.body["status"]
                reason = answer.body.get("pending_reason") or ""
                if status in ("accepted", "rejected") and answer.body.get("verdict"):
                    return Verdict.from_api(answer.body["verdict"])
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise VerdictTimeout(_id(solution), status, reason)
            if time.monotonic() - asked < held_s / 2:
                # Answered at once although asked to wait: poll, with a growing interval.
                self._sleep(min(delay, remaining))
                delay = min(delay * 1.6, max_interval_s)

    def my_solutions(
        self, *, problem: int | None = None, status: str | None = None, limit: int = 50
    ) -> list[Solution]:
        params: dict[str, Any] = {"limit": limit}
        if problem is not None:
            params["problem"] = problem
        if status:
            params["status"] = status
        body = self.http.request("GET", "/api/v1/solutions/?" + urllib.parse.urlencode(params)).body
        return [Solution.from_api(s) for s in body["results"]]

    # --- trading ----------------------------------------------------------------------------

    def list_ask(
        self,
        solution: SolutionRef,
        price_minor: Money | int | None = None,
        *,
        price: str | None = None,
        currency: str | None = None,
        quantity: int = 1,
        client_order_id: str | None = None,
    ) -> Order:
        """Offer ``quantity`` copies of your ACCEPTED solution, per copy at ``price_minor``
        (an int of minor units: 1000 is 10.00 DEMO; or a :class:`Money`) or at ``price`` (a
        decimal string in major units, ``"10.00"``, with ``currency``). Never both; a
        string, float or bool as ``price_minor`` is refused before anything is sent.
        A solution has one open ask at a time: while one is open the server refuses another
        with ``market:ask-already-open`` (cancel it to change its price or quantity). A
        solution is sold at most 100 times: an ask whose quantity plus the copies of the
        solution already sold exceeds 100 is refused with ``market:sales-limit`` (its message
        says how many more copies an ask may sell; another accepted solution is another
        count)."""
        solution_id = _id(solution)
        minor, currency = resolve_price(price_minor, price=price, currency=currency)
        quantity = strict_quantity(quantity)
        if currency is None:
            currency = self.problem(self.solution(solution_id).problem_id).currency
        body: dict[str, Any] = {
            "side": "ask",
            "solution": solution_id,
            "price_minor": minor,
            "currency": currency,
            "quantity": quantity,
        }
        if client_order_id:
            body["client_order_id"] = client_order_id
        return Order.from_api(self.http.request("POST", "/api/v1/orders/", body).body)

    def place_bid(
        self,
        problem: ProblemRef,
        price_minor: Money | int | None = None,
        *,
        price: str | None = None,
        currency: str | None = None,
        quantity: int = 1,
        client_order_id: str | None = None,
    ) -> Order:
        """Bid per copy ``price_minor`` (an int of minor units: 1000 is 10.00 DEMO; or a
        :class:`Money`) or ``price`` (a decimal string in major units with ``currency``) for
        up to ``quantity`` distinct solutions; price × quantity is held from your available
        balance until filled or cancelled. You have one open bid per problem at a time: while
        one is open the server refuses another with ``market:bid-already-open`` (cancel it to
        change its price or quantity); a bid at or above one of your own open asks on the
        problem is refused with ``market:self-trade`` (cancel the named ask first). A buyer
        holds at most 100 solutions of one problem: a bid whose quantity plus the solutions
        of the problem you already bought exceeds 100 is refused with
        ``market:solution-limit`` (its message says how many more a bid may buy)."""
        minor, currency = resolve_price(price_minor, price=price, currency=currency)
        quantity = strict_quantity(quantity)
        resolved = problem if isinstance(problem, Problem) else None
        if resolved is None and (isinstance(problem, str) or currency is None):
            resolved = self.problem(problem)
        problem_id = resolved.id if resolved else _id(problem)
        currency = currency or (resolved.currency if resolved else None)
        body: dict[str, Any] = {
            "side": "bid",
            "problem": problem_id,
            "price_minor": minor,
            "currency": currency,
            "quantity": quantity,
        }
        if client_order_id:
            body["client_order_id"] = client_order_id
        return Order.from_api(self.http.request("POST", "/api/v1/orders/", body).body)

    def cancel(self, order: OrderRef) -> Order:
        """Cancel an open order; a bid's remaining hold is released."""
        return Order.from_api(
            self.http.request("POST", f"/api/v1/orders/{_id(order)}/cancel/").body
        )

    def order(self, order: OrderRef) -> Order:
        return Order.from_api(self.http.request("GET", f"/api/v1/orders/{_id(order)}/").body)

    def orders(self, *, status: str | None = None, limit: int = 50) -> list[Order]:
        params: dict[str, Any] = {"limit": limit}
        if status:
            params["status"] = status
        body = self.http.request("GET", "/api/v1/orders/?" + urllib.parse.urlencode(params)).body
        return [Order.from_api(o) for o in body["results"]]

    def trades(self, *, limit: int = 50) -> list[Trade]:
        body = self.http.request("GET", f"/api/v1/trades/?limit={limit}").body
        return [Trade.from_api(t) for t in body["results"]]

    def balances(self) -> dict[str, Balance]:
        """Per currency: available, held (for open bids) and pending (USD proceeds)."""
        body = self.http.request("GET", "/api/v1/account/balances/").body
        return {b["currency"]: Balance.from_api(b) for b in body}

    # --- activity ---------------------------------------------------------------------------

    def events(self, since: str | int | None = None, *, limit: int = 50) -> EventPage:
        """My events after the cursor ``since`` (a previous page's ``cursor``, or 0 for the
        beginning), oldest first; without it, the newest ``limit``."""
        params: dict[str, Any] = {"limit": limit}
        if since is not None:
            params["after"] = str(since)
        body = self.http.request("GET", "/api/v1/activity/?" + urllib.parse.urlencode(params)).body
        return EventPage(
            events=tuple(Event.from_api(e) for e in body["results"]),
            cursor=body["cursor"],
            has_more=body["has_more"],
            unread_count=body["unread_count"],
        )

    def mark_read(self, up_to: int | None = None) -> int:
        body = {} if up_to is None else {"up_to": up_to}
        return int(self.http.request("POST", "/api/v1/activity/read/", body).body["last_read_id"])
