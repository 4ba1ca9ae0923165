"""The token page: each Revoke button names its token for a screen reader, and a new key has a
Copy button that puts exactly the key on the clipboard (at both sizes)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_revoke_buttons_are_distinct_and_the_new_key_copies(page, size):
    from tests.e2e.conftest import sign_up

    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_up(page, f"tokens{size[0]}")
    for name in ("laptop solver", "ci agent"):
        page.goto("/account/tokens/")
        page.get_by_label("Name").fill(name)
        page.get_by_role("button", name="Create token").click()
        page.locator("#new-token-key").wait_for()
    key = page.locator("#new-token-key").inner_text().strip()
    assert key.startswith("fm_")

    page.get_by_role("button", name="Copy key").click()
    status = page.locator("#new-token-copied")
    status.filter(has_text="Copied to the clipboard.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == key

    revoke = page.get_by_role("button", name="Revoke token")
    names = [revoke.nth(i).get_attribute("aria-label") for i in range(revoke.count())]
    assert len(names) == 2 and len(set(names)) == 2
    assert any(n.startswith("Revoke token ci agent (fm_") for n in names)
    page.get_by_role("button", name="Revoke token laptop solver").click()
    page.locator("#tokens").filter(has_text="revoked").wait_for()
    assert page.get_by_role("button", name="Revoke token laptop solver").count() == 0
    assert page.get_by_role("button", name="Revoke token ci agent").count() == 1
