"""Browser tests: Playwright driving Debian's headless Chromium against a live server and a
real Celery worker on Redis (never eager mode). Each test saves a screenshot of every step
under artifacts/e2e/<test>/ and prints the folder."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.waiting import scaled

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
# between browser steps are ordinary synchronous ones.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE_WIDTH = 390
ARTIFACTS = Path(settings.BASE_DIR) / "artifacts" / "e2e"
SCREENSHOT_FOLDERS: list[str] = []


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        raise pytest.UsageError(
            f"{CHROMIUM} is missing: `apt-get install -y chromium` (make test installs it)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Shots:
    """Numbered full-page screenshots of one test."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def __call__(self, page: object, name: str) -> Path:
        self.count += 1
        path = self.folder / f"{self.count:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
        return path

    def both(self, page: object, name: str) -> None:
        """Desktop (1280 px) and phone (390 px) screenshots; at 390 px nothing may overflow
        the page sideways (a wide table or code block scrolls inside its own box)."""
        size = page.viewport_size  # type: ignore[attr-defined]
        self(page, f"{name}-desktop")
        page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})  # type: ignore[attr-defined]
        try:
            width = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
            self(page, f"{name}-phone")
            assert width <= PHONE_WIDTH, f"{name}: the page is {width} px wide at {PHONE_WIDTH} px"
        finally:
            page.set_viewport_size(size)  # type: ignore[attr-defined]


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Iterator[Shots]:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    folder = ARTIFACTS / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    recorder = Shots(folder)
    yield recorder
    message = f"{request.node.nodeid}: {recorder.count} screenshots in {folder}"
    print(message)
    SCREENSHOT_FOLDERS.append(message)


def pytest_terminal_summary(terminalreporter: object) -> None:
    """Print the screenshot folders at the end of the run, even without -s."""
    if SCREENSHOT_FOLDERS:
        terminalreporter.section("e2e screenshots")  # type: ignore[attr-defined]
        for line in SCREENSHOT_FOLDERS:
            terminalreporter.write_line(line)  # type: ignore[attr-defined]


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    context = browser.new_context(  # type: ignore[attr-defined]
        base_url=live_server.url, viewport={"width": 1280, "height": 900}
    )
    # Playwright's waits (locators, navigations) share the suite's one deadline factor.
    context.set_default_timeout(scaled(10) * 1000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def demo(transactional_db) -> None:
    from django.core.management import call_command

    call_command("load_demo", verbosity=0)


def sign_up(page: object, username: str, password: str = "e2e-pass-4711-long") -> None:
    page.goto("/")  # type: ignore[attr-defined]
    page.get_by_role("link", name="Sign up", exact=True).first.click()  # type: ignore[attr-defined]
    page.get_by_label("Username").fill(username)  # type: ignore[attr-defined]
    page.get_by_label("Password", exact=True).fill(password)  # type: ignore[attr-defined]
    page.get_by_label("Password confirmation").fill(password)  # type: ignore[attr-defined]
    page.get_by_role("button", name="Create account").click()  # type: ignore[attr-defined]
    page.wait_for_url("**/problems/")  # type: ignore[attr-defined]
