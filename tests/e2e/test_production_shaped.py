"""The production-shaped test: the site as deployed (tests/production/stack.py: gunicorn
with DEBUG off, the default, judge-python and judge-lean workers, beat), driven in Chromium:
the solver loop and the author loop work, every static file loads, no Content-Security-Policy
violation is reported, and the security headers and cookie flags are present. It lives with
the browser tests to share their one Chromium (a second Playwright cannot start in the same
thread)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.e2e.conftest import Shots
from tests.production.stack import CollectedStatic, Stack, http_get, production_stack

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(settings.BASE_DIR) / "artifacts" / "production"
PROXY = {"X-Forwarded-Proto": "https"}  # what the TLS proxy adds to every request
HASHED_STATIC = re.compile(r"^/static/.+\.[0-9a-f]{12}\.(css|js)$")

VERIFIER = '''"""Solution format: the smallest prime larger than 100, as a decimal integer."""


def verify(solution, rng):
    return solution.strip() == "101"
'''
LEAN_ANSWER = "import Verifier\n\ntheorem answer : Spec := by decide\n"


@pytest.fixture(scope="module")
def stack(collected_static: CollectedStatic) -> Iterator[Stack]:
    with production_stack(ARTIFACTS / "stack", static=collected_static) as running:
        yield running


class Watch:
    """What the browser saw: console errors, CSP violations, static file answers."""

    def __init__(self) -> None:
        self.console_errors: list[str] = []
        self.static: dict[str, tuple[int, dict[str, str]]] = {}

    def on_console(self, message: object) -> None:
        if message.type in ("error", "warning"):  # type: ignore[attr-defined]
            self.console_errors.append(message.text)  # type: ignore[attr-defined]

    def on_response(self, response: object) -> None:
        path = response.url.split("://", 1)[1].split("/", 1)[1]  # type: ignore[attr-defined]
        if path.startswith("static/"):
            self.static["/" + path] = (response.status, response.all_headers())  # type: ignore[attr-defined]

    def assert_clean(self, page: object) -> None:
        violations = page.evaluate("window.__cspViolations || []")  # type: ignore[attr-defined]
        assert violations == []
        csp_errors = [e for e in self.console_errors if "Content Security Policy" in e]
        assert csp_errors == []
        assert self.console_errors == []
        assert self.static, "no static file was requested"
        for url, (status, headers) in self.static.items():
            assert status == 200, url
            if HASHED_STATIC.match(url.split("?")[0]):
                assert "immutable" in headers["cache-control"], url
                assert "max-age=315360000" in headers["cache-control"], url


CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def session(browser, stack, request) -> Iterator[tuple[object, Watch, Shots]]:
    context = browser.new_context(  # type: ignore[attr-defined]
        base_url=stack.base_url, extra_http_headers=PROXY, viewport={"width": 1280, "height": 900}
    )
    context.set_default_timeout(45_000)
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()
    watch = Watch()
    page.on("console", watch.on_console)
    page.on("pageerror", lambda error: watch.console_errors.append(f"pageerror: {error}"))
    page.on("response", watch.on_response)
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    yield page, watch, Shots(folder)
    context.close()
    stack.assert_running()


def _sign_up(page: object, username: str) -> None:
    from tests.e2e.conftest import sign_up

    sign_up(page, username)


def test_static_files_headers_and_error_answers_over_http(stack):
    status, headers, body = http_get(stack.base_url + "/", PROXY)
    assert status == 200
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "private, no-store"
    html = body.decode()
    for name in ("css/site", "js/htmx.min"):
        match = re.search(rf'"(/static/{name}\.[0-9a-f]{{12}}\.(?:css|js))"', html)
        assert match, f"{name}: no hashed static URL in the page"
        static_status, static_headers, static_body = http_get(
            stack.base_url + match.group(1), PROXY
        )
        assert static_status == 200
        assert static_body
        assert "immutable" in static_headers["Cache-Control"]
    # The plain-HTTP request (no proxy header) is sent to HTTPS.
    status, headers, _ = http_get(stack.base_url + "/problems/")
    assert status == 301
    assert (
        headers["Location"]
        == "https://127.0.0.1:" + stack.base_url.rsplit(":", 1)[1] + "/problems/"
    )
    # A bad Host header: JSON under /api/, a product page elsewhere, never Django's text.
    port = stack.base_url.rsplit(":", 1)[1]
    bad_host = {**PROXY, "Host": f"evil.example:{port}"}
    status, headers, body = http_get(stack.base_url + "/api/v1/problems/", bad_host)
    assert status == 400
    assert json.loads(body)["error"]["code"] == "api:bad-host"
    status, headers, body = http_get(stack.base_url + "/problems/", bad_host)
    assert status == 400
    assert "<h1>Bad request</h1>" in body.decode()
    status, _, body = http_get(stack.base_url + "/no-such-page/", PROXY)
    assert status == 404
    assert "<h1>Page not found</h1>" in body.decode()
    status, _, body = http_get(stack.base_url + "/api/v1/nothing-here/", PROXY)
    assert status == 404
    assert json.loads(body)["error"]["code"] == "not-found"


def test_the_web_server_keeps_its_database_connections(stack):
    """gunicorn's workers reuse their PostgreSQL connection between requests (CONN_MAX_AGE):
    20 API requests open at most a few sessions (a worker's first, a task's), not 20 (a new
    backend process per request, and the engine functions compiled again in each)."""

    def sessions() -> int:
        with psycopg.connect(stack.env["DATABASE_URL"], autocommit=True) as conn:
            row = conn.execute(
                "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
            ).fetchone()
            return int(row[0])

    for _ in range(4):  # each of the two workers may open its connection now
        assert http_get(stack.base_url + "/api/v1/problems/", PROXY)[0] == 200
    before = sessions()
    for _ in range(20):
        assert http_get(stack.base_url + "/api/v1/problems/", PROXY)[0] == 200
    # A session that ended is counted at once (its backend reports as it exits): with a
    # connection per request, the 20 requests would add about 20 here.
    assert sessions() - before < 10


def test_solver_loop_in_production(session, stack):
    page, watch, shots = session
    response = page.goto("/")
    assert response.headers["strict-transport-security"].startswith("max-age=31536000")
    _sign_up(page, "prodsolver")
    cookies = {c["name"]: c for c in page.context.cookies()}
    for name in ("sessionid", "csrftoken"):
        assert cookies[name]["secure"] is True, name
        assert cookies[name]["httpOnly"] is True, name
    shots(page, "signed-up")

    page.locator('a[href="/problems/demo-factor-391/"]').first.click()
    page.wait_for_url("**/problems/demo-factor-391/")
    page.get_by_label("Solution", exact=True).fill("1 391")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.evaluate("window.__sameDocument = true")
    page.locator(".solution .verdict", has_text="REJECTED").wait_for()
    assert page.evaluate("window.__sameDocument") is True  # a live update, no reload
    shots(page, "rejected-live")

    page.get_by_label("Solution", exact=True).fill("17 23")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.evaluate("window.__sameDocument = true")
    accepted = page.locator(".solution", has=page.locator(".verdict", has_text="ACCEPTED"))
    accepted.wait_for()
    assert page.evaluate("window.__sameDocument") is True
    shots(page, "accepted-live")

    accepted.get_by_label("Price (DEMO)").fill("9.00")
    with page.expect_navigation():
        accepted.get_by_role("button", name="List for sale").click()
    page.locator("#trades tr.trade").first.wait_for()  # sold to the practice bot's bid
    shots(page, "sold-to-the-bot")

    page.get_by_role("link", name="Account (prodsolver)").click()
    assert page.locator("#balance-DEMO-available").inner_text().endswith("DEMO")
    shots(page, "account")

    # Lean: the judge-lean worker has no toolchain here, so the solution stays pending.
    page.goto("/problems/demo-lean-two-plus-two/")
    page.locator("#lean-unavailable").wait_for()
    page.get_by_label("Solution", exact=True).fill(LEAN_ANSWER)
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.locator(".solution .pending-reason").wait_for()
    assert page.locator(".solution .verdict").first.inner_text() == "PENDING"
    shots(page, "lean-pending")
    watch.assert_clean(page)


def test_author_loop_in_production(session, stack):
    page, watch, shots = session
    _sign_up(page, "prodauthor")
    page.get_by_role("link", name="Author", exact=True).click()
    page.get_by_role("link", name="New problem").click()
    page.get_by_label("Title").fill("Next prime after 100")
    page.get_by_label("Statement (Markdown)").fill("Give the **smallest prime** larger than 100.")
    page.get_by_role("button", name="Create draft").click()
    page.get_by_label("Verifier source", exact=True).fill(VERIFIER)
    page.get_by_label("Time limit (s)").fill("5")
    page.get_by_label("Reference solutions (must be ACCEPTED)").fill("101")
    page.get_by_label("Wrong solutions (must be REJECTED)").fill("103\n---\n100")
    page.get_by_role("button", name="Save draft").click()
    page.get_by_role("button", name="Run dry run").click()
    page.locator("#dry-run-result", has_text="passed").wait_for()
    assert page.locator("#dry-run tbody").count() == 3  # one per sample, with its detail row
    shots(page, "dry-run-passed")

    page.get_by_role("button", name="Publish", exact=True).click()
    page.wait_for_url("**/problems/next-prime-after-100/")
    page.get_by_label("Solution", exact=True).fill("101")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.locator(".solution .verdict", has_text="ACCEPTED").wait_for()
    shots(page, "published-and-solved")
    watch.assert_clean(page)


def test_api_docs_work_under_the_content_security_policy(session, stack):
    page, watch, shots = session
    page.goto("/api/docs/")
    page.locator(".swagger-ui .info .title", has_text="FormalMarket API").wait_for()
    page.locator(".swagger-ui .opblock").first.wait_for()
    shots(page, "api-docs")
    watch.assert_clean(page)


def test_the_violation_watch_is_not_blind(session, stack):
    # The checks above pass on silence; prove that this browser reports a violation at all.
    page, watch, _ = session
    page.goto("/problems/")
    page.evaluate(
        "document.body.insertAdjacentHTML('beforeend', '<div style=\"color: red\">x</div>')"
    )
    page.wait_for_function("window.__cspViolations.length > 0")
    assert page.evaluate("window.__cspViolations")[0].startswith("style-src")
    assert any("Content Security Policy" in error for error in watch.console_errors)
