"""Expectations in the browser tests wait up to ``EXPECT_TIMEOUT_MS`` (tests/browser/conftest.py), not Playwright's
5 s: a page that answers in 6 s, as a busy machine's casino may, still passes."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import EXPECT_TIMEOUT_MS


def test_an_expectation_outwaits_playwrights_five_seconds(browser) -> None:
    assert EXPECT_TIMEOUT_MS >= 10_000
    page = browser.new_page()
    try:
        page.set_content("<p id='late' hidden>answered</p>")
        page.evaluate("setTimeout(() => { document.getElementById('late').hidden = false; }, 6000)")
        expect(page.locator("#late")).to_be_visible()  # no timeout given: the suite's default
    finally:
        page.close()
