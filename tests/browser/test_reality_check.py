"""The reality check in headless Chromium: a player who asked for one every 15 minutes gets the dialog when their
session reaches 15 minutes, on whatever page they are; Escape does not dismiss it, and "Keep playing" records the
answer on the server (which holds their bets until then) before it closes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from baccarat_site.accounts.limits import play_limits_set, reality_check_state
from baccarat_site.accounts.models import RealityCheckAnswer, SignIn
from tests.browser.helpers import PASSWORD, log_in
from tests.factories import make_user
from wallets.services import wallet_open_player

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_reality_check_dialog_comes_when_the_session_reaches_the_interval(casino_url, page):
    rita = make_user("rita", PASSWORD)
    wallet_open_player(user=rita)
    play_limits_set(user=rita, changes={"reality_check_minutes": 15})
    log_in(page, casino_url, "rita")
    # The session began 15 minutes ago, less 3 seconds: the reminder is due in 3 seconds.
    SignIn.objects.filter(user=rita).update(at=timezone.now() - timedelta(minutes=15) + timedelta(seconds=3))

    page.goto(casino_url + "/accounts/profile/")
    dialog = page.locator("#reality-check")
    expect(dialog).to_be_hidden()
    expect(dialog).to_be_visible(timeout=15_000)
    expect(dialog).to_contain_text("You have been playing for 15 minutes.")
    expect(dialog.get_by_role("link", name="Bet record")).to_be_visible()
    assert reality_check_state(user_id=rita.pk, now=timezone.now()).due(timezone.now())  # bets are held

    for _press in range(3):  # Chromium closes a dialog on a second Escape without a click between: it comes back
        page.keyboard.press("Escape")
        page.wait_for_timeout(300)
        expect(dialog).to_be_visible()
    assert not RealityCheckAnswer.objects.filter(user=rita).exists()

    dialog.get_by_role("button", name="Keep playing").click()
    expect(dialog).to_be_hidden()
    assert RealityCheckAnswer.objects.filter(user=rita).count() == 1
    assert not reality_check_state(user_id=rita.pk, now=timezone.now()).due(timezone.now())
