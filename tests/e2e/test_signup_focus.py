"""After a refused sign-up, the keyboard focus is on the field in error, not the first one."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_signup_error_focuses_the_bad_field(page, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto("/signup/")
    page.get_by_label("Username").fill(f"newcomer{size[0]}")
    page.get_by_label("Password", exact=True).fill("e2e-pass-4711-long")
    page.get_by_label("Password confirmation").fill("a-different-password-9")
    page.get_by_role("button", name="Create account").click()
    page.wait_for_load_state("load")
    assert "didn" in page.content() or "match" in page.content()
    focused = page.evaluate("document.activeElement && document.activeElement.id")
    assert focused == page.get_by_label("Password confirmation").get_attribute("id")
    assert page.get_by_label("Username").input_value() == f"newcomer{size[0]}"
