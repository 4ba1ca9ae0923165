"""An author's starting points in the browser: no USD choice on a server without Stripe, a
starter verifier that follows the language, a code editor that indents and does not wrap, the
guide that messages link to."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_new_verifier_form_has_a_starter_and_a_code_editor(page, shots, settings, transactional_db):
    from tests.e2e.conftest import sign_up

    settings.STRIPE_SECRET_KEY = ""  # USD disabled on this server
    sign_up(page, "author")
    page.goto("/author/problems/new/")
    currency = page.get_by_label("Trades in")
    assert currency.locator("option").all_inner_texts() == ["DEMO credits (fake, no money)"]
    shots.both(page, "new-problem-no-usd")
    page.get_by_label("Title").fill("Two squares")
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url("**/verifiers/new/")

    source = page.get_by_label("Verifier source", exact=True)
    text = source.input_value()
    assert text.startswith('"""Solution format:')
    assert "def verify(solution, rng):" in text and "return False" in text
    assert source.get_attribute("wrap") == "off"
    shots.both(page, "python-starter")

    # The untouched starter follows the language.
    page.get_by_label("Language").select_option("lean")
    assert "abbrev Spec : Prop :=" in source.input_value()
    page.get_by_label("Language").select_option("python")
    assert "def verify(solution, rng):" in source.input_value()

    # Tab indents, Enter keeps the indentation (one level more after a colon), no soft wrap.
    source.fill("")
    source.click()
    page.keyboard.type("def verify(solution, rng):")
    page.keyboard.press("Enter")
    page.keyboard.type("if not solution:")
    page.keyboard.press("Enter")
    page.keyboard.type("return False")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")
    page.keyboard.type("return " + "True and " * 30 + "True")
    assert source.input_value().split("\n") == [
        "def verify(solution, rng):",
        "    if not solution:",
        "        return False",
        "    return " + "True and " * 30 + "True",
    ]
    assert page.evaluate(
        "() => { const t = document.getElementById('id_source');"
        " return t.scrollWidth > t.clientWidth; }"
    ), "a long line scrolls sideways instead of wrapping"
    # An edited source is the author's: switching the language keeps it.
    page.get_by_label("Language").select_option("lean")
    assert source.input_value().startswith("def verify(solution, rng):")
    shots.both(page, "editor")


def test_the_guide_explains_the_safe_parser_that_messages_point_to(page, shots, transactional_db):
    page.goto("/")
    page.get_by_role("link", name="Guide", exact=True).click()
    page.wait_for_url("**/help/verifiers/")
    assert "formalmarket_verify" in page.locator("#safe-parser h2").inner_text()
    shots.both(page, "guide")
    page.locator("#safe-parser").get_by_role("link", name="the Python verifier reference").click()
    page.wait_for_url("**/docs/verifiers/")
    assert "parse_math" in page.content()
    shots.both(page, "reference")
