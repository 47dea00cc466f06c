"""In Chromium against the live casino: two players at one table chat; a message typed in one page shows in the
other as text (markup never runs or renders); a delete removes it from both; a watcher reads but is told to log
in; hiding the panel is remembered across a reload. Screenshots at phone, laptop and desktop sizes."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tables.models import ChatMessage
from tables.services import chat
from tests.browser.helpers import in_own_thread, log_in
from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)

MARKUP = '<img src=x onerror="window.__chatXss=1"><b>bold?</b>'


def player(name: str):
    user = make_user(name)
    wallet_deposit(user=user, amount=Decimal("500.00"), reason="test funds")
    return user


def sit(page, base: str, table_id: int, username: str | None) -> None:
    if username is not None:
        log_in(page, base, username)
    page.goto(f"{base}/tables/{table_id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)


def test_two_players_chat_as_text_a_delete_removes_it_and_the_hidden_panel_is_remembered(
    casino_url, page, casino_layer
):
    player("amir")
    player("bea")
    moderator = make_user("mod", is_staff=True, is_superuser=True)
    table = make_table("Chat table", make_variant("Chat rules"), betting_seconds=8, result_seconds=2)
    sit(page, casino_url, table.pk, "amir")
    other = page.context.browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
    sit(other, casino_url, table.pk, "bea")
    watcher = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US").new_page()
    sit(watcher, casino_url, table.pk, None)

    page.fill("#chat-input", MARKUP)
    page.press("#chat-input", "Enter")

    for seen_by in (other, watcher, page):
        line = seen_by.locator("#chat-list li").last
        expect(line.locator(".chat-text")).to_have_text(MARKUP, timeout=10_000)
        expect(line.locator(".chat-author")).to_have_text("amir")
        assert line.locator("img, b").count() == 0  # shown as text: no element was made from it
        assert seen_by.evaluate("window.__chatXss") is None
    expect(page.locator("#chat-list li.mine")).to_have_count(1)
    expect(page.locator("#chat-input")).to_have_value("")

    # The watcher reads, and is told to log in to write.
    expect(watcher.locator(".chat-signin a")).to_have_text("Log in to chat")
    assert watcher.locator("#chat-input").count() == 0
    # On a phone the chat is the third of the side tabs (My bets, Shoe, Table chat): the watcher opens it.
    # The message came while another tab was chosen: the chat's tab counts it, and choosing the tab clears it.
    expect(watcher.locator("#chat")).to_be_hidden()
    expect(watcher.locator("#chat-tab-count")).to_have_text("1 new")
    expect(watcher.locator("#tab-chat")).to_have_accessible_name("Table chat 1 new")
    watcher.click("#tab-chat")
    expect(watcher.locator("#chat-tab-count")).to_be_hidden()
    expect(watcher.locator("#chat-list li .chat-text")).to_be_visible()
    for size, shot in ((page, "laptop"), (watcher, "phone")):
        size.locator("#chat").scroll_into_view_if_needed()
        size.screenshot(path=f"/tmp/chat-{shot}.png", full_page=False)

    # An empty message is refused in the panel, and nothing is sent.
    other.fill("#chat-input", "   ")
    other.press("#chat-input", "Enter")
    expect(other.locator("#chat-error")).to_have_text("Write something first.")

    # An operator deletes it: it leaves every open page.
    message = ChatMessage.objects.get()
    in_own_thread(chat.chat_delete, message_id=message.pk, actor=moderator, reason="test")
    for seen_by in (other, watcher, page):
        expect(seen_by.locator("#chat-list li")).to_have_count(0, timeout=10_000)

    # Hiding the panel is remembered across a reload; a new message while hidden is counted on the button.
    other.click("#chat-toggle")
    expect(other.locator("#chat-body")).to_be_hidden()
    other.reload()
    expect(other.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    expect(other.locator("#chat-body")).to_be_hidden()
    expect(other.locator("#chat-toggle")).to_have_attribute("aria-expanded", "false")
    page.fill("#chat-input", "are you there?")
    page.press("#chat-input", "Enter")
    expect(other.locator("#chat-toggle")).to_have_text("Show chat (1 new)", timeout=10_000)
    other.click("#chat-toggle")
    expect(other.locator("#chat-list li .chat-text")).to_have_text(["are you there?"])

    # A late joiner sees the recent message in the history.
    late = page.context.browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US").new_page()
    sit(late, casino_url, table.pk, None)
    expect(late.locator("#chat-list li .chat-text")).to_have_text(["are you there?"], timeout=10_000)
    late.locator("#chat").scroll_into_view_if_needed()
    late.screenshot(path="/tmp/chat-desktop.png")
    for extra in (other, watcher, late):
        extra.context.close()
