"""The Persian sign-up page on a phone, in headless Chromium: no English, nothing wider than the screen, no console
errors, and the new player lands in the lobby with the starting money.

A module of its own: signing up makes an audit entry in the casino's own process (users are audited), which caches
content type ids, and pytest-django's flush after a module's earlier test makes the content types again under new
ids; a module's first test meets the ids the casino cached."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.test_signup_flow import PASSWORD, assert_fits, header_balance, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_persian_sign_up_on_a_phone_speaks_persian_and_fits_the_screen(casino_url, browser, page, console_errors):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": "fa", "url": casino_url}])
    phone = context.new_page()
    phone.set_default_timeout(20_000)
    console_errors.watch(phone)

    phone.goto(casino_url + "/accounts/signup/")
    expect(phone.locator("html")).to_have_attribute("dir", "rtl")
    labels = phone.locator("main label").all_inner_texts()
    assert len(labels) == 3
    assert not [label for label in labels if re.search("[A-Za-z]", label)], labels
    assert not re.search("[A-Za-z]", phone.locator("main").inner_text()), "English on the Persian sign-up page"
    assert "1,000.00" in phone.locator("main").inner_text()
    assert_fits(phone, "sign-up")

    sign_up(phone, casino_url, "dariush", PASSWORD, PASSWORD + "x")  # refused: the confirmation differs
    expect(phone.locator("#id_password2_errors")).to_be_visible()
    assert not re.search("[A-Za-z]", phone.locator("main").inner_text()), "English in the Persian errors"
    assert_fits(phone, "sign-up with errors")
    assert not get_user_model().objects.filter(username="dariush").exists()

    sign_up(phone, casino_url, "dariush")
    phone.wait_for_url(casino_url + "/")
    expect(header_balance(phone)).to_have_text("1,000.00")
    assert_fits(phone, "lobby")
    phone.goto(casino_url + "/accounts/profile/")
    expect(phone.locator("main select[name=language]")).to_have_value("fa")
    words = phone.locator(".profile-grid :is(h2, label, button, .note, a)").all_inner_texts()
    assert len(words) >= 8
    assert not [text for text in words if re.search("[A-Za-z]", text)], words  # language names stay native
    assert_fits(phone, "profile")
    context.close()
