"""A live table's supervisor call, answered from the live floor in headless Chromium against a real casino: the dealer
scans the first card and calls the supervisor; a supervisor signs in to the admin, opens the live floor, sees the
call at the top of the page (table, why, the dealer's reason, the round), resumes it with a reason, and the round
goes on from its scanned card; the call and the audit trail name the supervisor and the reason."""

from __future__ import annotations

import os

import pytest
from auditlog.models import LogEntry
from playwright.sync_api import expect

from baccarat_site import roles
from tables.models import Round, Shoe, SupervisorCall, Table
from tables.services import dealing
from tests.browser.helpers import PASSWORD, wait_until
from tests.factories import make_staff, make_table, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = os.environ.get("SCREENSHOTS", "")
DEALERS_REASON = "Card stuck in the shoe's mouth"
REASON = "Shoe re-seated, card read again: go on"


def test_a_supervisor_resumes_a_live_tables_call_from_the_floor(casino_url, page, casino_layer):
    dealer = make_staff("dana", roles.DEALERS, first_name="Dana")
    supervisor = make_staff("sam", roles.SUPERVISORS)
    table = make_table(
        "Live Baccarat 1",
        make_variant("Live rules"),
        dealing=Table.Dealing.LIVE,
        dealer=dealer,
        betting_seconds=2,
        deal_interval_ms=100,
        result_seconds=1,
    )
    # The casino's ticker puts a live shoe on the table; the dealer scans the burn card and burns; a round opens,
    # its window closes, the dealer scans Player 1 and calls the supervisor.
    wait_until(lambda: Shoe.objects.filter(table=table, finished_at__isnull=True).exists(), message="the live shoe")
    dealing.card_scan(table_id=table.pk, code="5H", actor=dealer)
    dealing.burn_confirm(table_id=table.pk, actor=dealer)
    round_ = wait_until(
        lambda: Round.objects.filter(table=table, state=Round.State.DEALING).first(),
        timeout=30,
        message="the round's window to close",
    )
    dealing.card_scan(table_id=table.pk, code="9S", actor=dealer)
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason=DEALERS_REASON)
    call = SupervisorCall.objects.get(table=table, resolved_at__isnull=True)

    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(casino_url + "/admin/login/")
    page.fill("input[name=username]", "sam")
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(casino_url + "/admin/")
    page.get_by_role("link", name="Live floor").first.click()

    calls = page.locator("#supervisor-calls")
    row = calls.locator(f'tr[data-call-id="{call.pk}"]')
    expect(calls.locator("h2")).to_contain_text("Supervisor calls: 1 open")
    expect(row).to_contain_text("Live Baccarat 1")
    expect(row).to_contain_text("Dealer called")
    expect(row).to_contain_text(DEALERS_REASON)
    expect(row).to_contain_text(f"round {round_.number} (Paused, 1 card)")
    resume = row.get_by_role("link", name="Resume")
    expect(resume).to_be_visible()
    expect(row.get_by_role("link", name="Void round (refund)")).to_be_visible()
    # Prominent: the calls come first, above the tables, and the buttons are in the first screen at 1366 × 768.
    calls_box, floor_box, button = (
        calls.bounding_box(),
        page.locator("#live-floor").bounding_box(),
        resume.bounding_box(),
    )
    assert calls_box is not None
    assert floor_box is not None
    assert button is not None
    assert calls_box["y"] + calls_box["height"] <= floor_box["y"]
    assert button["y"] + button["height"] <= 768
    assert button["x"] + button["width"] <= 1366
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/admin-floor-supervisor-call-1366.png")
    # The floor fits 1366 px without the page scrolling sideways, and no action button lies over another (a
    # "Close after round" used to break over three lines on top of "Pause"); on a phone the call's buttons are on
    # the screen, the tables scroll inside their boxes.
    page.goto(casino_url + "/admin/floor/?refresh=0")  # measured without the page reloading under us
    layout = """() => {
      const buttons = [...document.querySelectorAll("table.floor a.button")].map((b) => b.getBoundingClientRect());
      const crossed = buttons.some((a, i) => buttons.slice(i + 1).some((b) =>
        Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5));
      return {scroll: document.documentElement.scrollWidth, inner: innerWidth, buttons: buttons.length, crossed};
    }"""
    m = page.evaluate(layout)
    assert (m["scroll"], m["crossed"]) == (1366, False), m
    assert m["buttons"] >= 2
    page.set_viewport_size({"width": 390, "height": 844})
    box = resume.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 390
    assert page.evaluate(layout)["scroll"] <= 390
    page.set_viewport_size({"width": 1366, "height": 768})

    resume.click()
    expect(page.locator("#content-main")).to_contain_text(DEALERS_REASON)
    page.fill("input[name=reason]", REASON)
    page.click("input[name=apply]")

    expect(page.locator("ul.messagelist")).to_contain_text("Live Baccarat 1: resumed; the dealer goes on.")
    expect(page.locator("#supervisor-calls h2")).to_contain_text("Supervisor calls: 0 open")
    call.refresh_from_db()
    assert (call.resolution, call.resolved_by_id, call.note) == ("resumed", supervisor.pk, REASON)
    round_.refresh_from_db()
    assert round_.state == Round.State.DEALING
    assert [c["card"] for c in round_.cards] == ["9S"]  # goes on from its scanned card
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN
    entry = LogEntry.objects.get_for_object(table).get(additional_data__action="table.resume")
    assert (entry.actor_id, entry.additional_data["reason"]) == (supervisor.pk, REASON)
