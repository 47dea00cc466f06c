"""A Table operator closes a table from the admin in headless Chromium against a real casino: with a reason, at the
end of the round; the round is played out and settled, no new one opens, and the lobby drops the table live
(while another table stays), the table's own page says it is closed, and neither shows the operator's reason."""

from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from baccarat_site.roles import TABLE_OPERATORS
from tables.models import Round, Table
from tests.factories import make_table, make_user, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

REASON = "Dealer Anna's shift ends, call Bob"


def test_an_operator_closes_a_table_at_the_end_of_its_round_from_the_admin(casino_url, page):
    variant = make_variant("Closing rules")
    # A window long enough that the close always meets a round under way, however slow the machine (with 3 s the
    # round could end before the operator's click, and the table closed at once instead).
    closing = make_table("Closing table", variant, betting_seconds=30, deal_interval_ms=100, result_seconds=1)
    staying = make_table("Staying table", variant, betting_seconds=3, deal_interval_ms=100, result_seconds=1)
    operator = make_user("floorboss", "floor-pass-123", is_staff=True)
    operator.groups.add(Group.objects.get(name=TABLE_OPERATORS))

    lobby = page.context.new_page()
    lobby.goto(casino_url + "/")
    expect(lobby.locator("#lobby")).to_have_attribute("data-connected", "1", timeout=15_000)
    closing_tile = lobby.locator(f'.tile[data-table-id="{closing.id}"]')
    expect(closing_tile).to_have_attribute("data-round-state", "betting", timeout=20_000)
    watcher = page.context.new_page()  # a player watching the table itself
    watcher.goto(casino_url + f"/tables/{closing.id}/")
    expect(watcher.locator("#phase")).not_to_have_attribute("data-phase", "", timeout=15_000)

    page.goto(casino_url + "/admin/login/")
    page.fill("#id_username", "floorboss")
    page.fill("#id_password", "floor-pass-123")
    page.click('input[type="submit"]')
    page.goto(casino_url + f"/admin/tables/table/{closing.id}/change/")
    page.get_by_role("link", name="Close after round").click()
    page.fill('input[name="reason"]', REASON)
    page.click('input[type="submit"]')
    expect(page.locator(".messagelist")).to_contain_text("closes at the end of the current round")

    last = Round.objects.filter(table=closing).order_by("-id").first()
    # While the round is played out the tile says so, in the fixed public words.
    expect(closing_tile.locator('[data-field="reason"]')).to_have_text("Closing after this round")

    # The round ends; the table closes and leaves the lobby, live; the other table stays.
    expect(closing_tile).to_have_count(0, timeout=60_000)
    expect(lobby.locator(f'.tile[data-table-id="{staying.id}"]')).to_have_count(1)
    assert REASON not in lobby.content()
    expect(watcher.locator("#phase")).to_have_attribute("data-phase", "table_closed")
    expect(watcher.locator("#notice")).to_have_text("The table is closed.")
    assert REASON not in watcher.content()

    closing.refresh_from_db()
    assert (closing.status, closing.closed_by) == ("closed", "operator")
    rounds = list(Round.objects.filter(table=closing).order_by("id"))
    assert rounds[-1].pk == last.pk  # no round opened after the one under way
    assert rounds[-1].state == "settled"

    page.goto(casino_url + f"/admin/tables/table/{closing.id}/change/")
    expect(page.locator(".fieldBox.field-status")).to_contain_text("Closed")
    expect(page.locator(".fieldBox.field-status_reason")).to_contain_text(REASON)  # internal: the admin shows it
    expect(page.get_by_role("link", name="Reopen")).to_be_visible()
    entry = LogEntry.objects.get_for_object(Table.objects.get(pk=closing.id)).get(
        additional_data__action="table.close_after_round"
    )
    assert (entry.actor_id, entry.additional_data["reason"]) == (operator.pk, REASON)
