"""The operators' side of live dealer tables (issue 24): the table's live-dealer settings in the admin, the open
supervisor calls on the live floor with their two answers (Resume; Void round, with exact refunds), the read-only
list of calls, and the demo's live table and dealer."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse

from baccarat_site import roles
from tables.models import Round, Shoe, SupervisorCall, Table
from tables.services import dealing
from tests.factories import make_staff, make_table, make_user
from tests.tables.services.rounds_kit import Clock, balance_of, drive, drive_to_state, fast_table, make_player, place
from tests.tables.test_table_admin_lifecycle import change_form

pytestmark = pytest.mark.django_db

FLOOR = reverse("admin_floor:floor_live")
REASON = "Card dropped face up: re-seated the shoe, go on"


@pytest.fixture
def dealer():
    return make_staff("dana", roles.DEALERS, first_name="Dana")


@pytest.fixture
def supervisor(client):
    user = make_staff("sam", roles.SUPERVISORS)
    client.force_login(user)
    return user


def live_table(dealer, name: str = "Live 1", **fields: object) -> Table:
    return fast_table(name, dealing=Table.Dealing.LIVE, dealer=dealer, **fields)


def burned(table: Table, dealer, clock: Clock) -> None:
    """The ticker puts a live shoe on the table; the dealer scans the burn card (a 5: burn five) and confirms."""
    drive(table, clock, lambda: Shoe.objects.filter(table=table, finished_at__isnull=True).exists())
    dealing.card_scan(table_id=table.pk, code="5H", actor=dealer, now=clock.now)
    dealing.burn_confirm(table_id=table.pk, actor=dealer, now=clock.now)


def called_mid_deal(table: Table, dealer, clock: Clock, *bets: tuple[object, tuple[tuple[str, str], ...], str]):
    """A round with bets, its first card scanned, then the dealer calls the supervisor: the round is paused."""
    burned(table, dealer, clock)
    round_ = drive_to_state(table, clock, "betting")
    for player, stakes, mode in bets:
        place(player, round_.pk, *stakes, mode=mode)
    drive_to_state(table, clock, "dealing")
    dealing.card_scan(table_id=table.pk, code="9S", actor=dealer, now=clock.now)
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason="shoe jammed", now=clock.now)
    round_.refresh_from_db()
    assert round_.state == Round.State.PAUSED
    return round_, SupervisorCall.objects.get(table=table, resolved_at__isnull=True)


def answer_url(call: SupervisorCall, answer: str, *, floor: bool = True) -> str:
    return reverse(f"admin:tables_supervisorcall_{answer}", args=[call.pk]) + ("?next=floor" if floor else "")


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# ── the table's live-dealer settings ────────────────────────────────────────


@pytest.fixture
def operator(client):
    user = make_staff("floor", roles.TABLE_OPERATORS)
    client.force_login(user)
    return user


def test_the_table_form_has_a_live_dealer_fieldset_whose_dealers_are_active_staff_in_the_dealers_group(
    client, operator, dealer
):
    make_staff("gone", roles.DEALERS, is_active=False)
    make_user("not-staff").groups.add(Group.objects.get(name=roles.DEALERS))
    make_staff("sup", roles.SUPERVISORS)
    table = live_table(dealer)

    page = client.get(reverse("admin:tables_table_change", args=[table.pk]))

    assert page.status_code == 200
    html = page.content.decode()
    assert "<h2>Live dealer</h2>" in html or ">Live dealer</h2>" in html
    for field in ("dealing", "dealer", "video_url", "dealer_timeout_seconds"):
        assert f'name="{field}"' in html, field
    dealer_field = page.context["adminform"].form.fields["dealer"]
    assert [u.username for u in dealer_field.queryset] == ["dana"]
    assert "dana (Dana)" in html

    listing = client.get(reverse("admin:tables_table_changelist")).content.decode()
    assert 'class="field-dealing">Live dealer<' in listing
    assert 'class="field-dealer nowrap">dana<' in listing


def test_changing_how_an_open_table_is_dealt_is_refused_with_a_message_and_changes_nothing(client, operator, dealer):
    table = make_table("Open shoe")  # the default pace, which the form accepts
    entries = LogEntry.objects.count()

    for status in (Table.Status.OPEN, Table.Status.PAUSED):
        Table.objects.filter(pk=table.pk).update(status=status)
        response = client.post(
            reverse("admin:tables_table_change", args=[table.pk]),
            change_form(table, dealing="live", dealer=str(dealer.pk), dealer_timeout_seconds="60"),
        )
        assert response.status_code == 200, status  # the form again, with its error
        assert "Close the table first: how a table is dealt changes only while it is closed." in (
            response.content.decode()
        )
        table.refresh_from_db()
        assert (table.dealing, table.dealer_id) == ("shoe", None)
    assert LogEntry.objects.count() == entries  # nothing saved, nothing audited

    Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
    response = client.post(
        reverse("admin:tables_table_change", args=[table.pk]),
        change_form(table, dealing="live", dealer=str(dealer.pk), dealer_timeout_seconds="45"),
    )
    assert response.status_code == 302
    table.refresh_from_db()
    assert (table.dealing, table.dealer_id, table.dealer_timeout_seconds) == ("live", dealer.pk, 45)
    change = LogEntry.objects.get_for_object(table).latest("id")
    assert change.actor_id == operator.pk
    assert change.changes_dict["dealing"] == ["shoe", "live"]


def test_a_live_tables_dealer_must_be_an_active_staff_member_in_the_dealers_group(client, operator, dealer):
    table = make_table("Closed", status=Table.Status.CLOSED)
    supervisor = make_staff("sup", roles.SUPERVISORS)

    refused = client.post(
        reverse("admin:tables_table_change", args=[table.pk]),
        change_form(table, dealing="live", dealer=str(supervisor.pk), dealer_timeout_seconds="60"),
    )
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors["dealer"]
    table.refresh_from_db()
    assert (table.dealing, table.dealer_id) == ("shoe", None)

    # A dealer who left the group stays listed at the table they were on, and is refused as a live table's dealer.
    Table.objects.filter(pk=table.pk).update(dealer=dealer)
    dealer.groups.clear()
    table.refresh_from_db()
    refused = client.post(
        reverse("admin:tables_table_change", args=[table.pk]),
        change_form(table, dealing="live", dealer=str(dealer.pk), dealer_timeout_seconds="60"),
    )
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors["dealer"] == [
        "dana cannot deal: a live table's dealer must be an active staff member in the Dealers group."
    ]
    table.refresh_from_db()
    assert table.dealing == "shoe"

    # The dealer timeout keeps to its range.
    dealer.groups.add(Group.objects.get(name=roles.DEALERS))
    refused = client.post(
        reverse("admin:tables_table_change", args=[table.pk]),
        change_form(table, dealing="live", dealer=str(dealer.pk), dealer_timeout_seconds="5"),
    )
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors["dealer_timeout_seconds"]
    accepted = client.post(
        reverse("admin:tables_table_change", args=[table.pk]),
        change_form(
            table,
            dealing="live",
            dealer=str(dealer.pk),
            dealer_timeout_seconds="90",
            video_url="https://video.example/live1/index.m3u8",
        ),
    )
    assert accepted.status_code == 302
    table.refresh_from_db()
    assert (table.dealing, table.dealer_id, table.video_url) == (
        "live",
        dealer.pk,
        "https://video.example/live1/index.m3u8",
    )


# ── the floor's supervisor calls ────────────────────────────────────────────


def test_the_floor_shows_the_open_call_and_a_supervisor_resumes_it_with_a_reason(client, supervisor, dealer):
    table, clock = live_table(dealer), Clock()
    round_, call = called_mid_deal(table, dealer, clock)

    floor = client.get(FLOOR)
    html = floor.content.decode()
    assert "Supervisor calls: 1 open" in html
    assert f'data-call-id="{call.pk}" data-kind="called"' in html
    for text in ("Live 1", "Dealer called", "shoe jammed", "dealer: dana", f"round {round_.number} (Paused, 1 card)"):
        assert text in html, text
    assert answer_url(call, "resume") in html
    assert answer_url(call, "void") in html
    assert reverse("admin:tables_table_resume", args=[table.pk]) not in html  # answered from its call, not bare

    form = client.get(answer_url(call, "resume"))
    assert form.status_code == 200
    assert "shoe jammed" in form.content.decode()
    empty = client.post(answer_url(call, "resume"), {"reason": "", "apply": "Resume"})
    assert empty.status_code == 200
    assert empty.context["form"].errors["reason"]
    assert SupervisorCall.objects.get(pk=call.pk).is_open

    done = client.post(answer_url(call, "resume"), {"reason": REASON, "apply": "Resume"}, follow=True)

    assert done.redirect_chain[-1][0] == FLOOR
    assert "Live 1: resumed; the dealer goes on." in messages_of(done)
    call.refresh_from_db()
    assert (call.resolution, call.resolved_by_id, call.note) == ("resumed", supervisor.pk, REASON)
    table.refresh_from_db()
    round_.refresh_from_db()
    assert (table.status, round_.state, len(round_.cards)) == ("open", "dealing", 1)  # goes on from its cards
    assert "Supervisor calls: 0 open" in done.content.decode()
    # The audit trail: who resumed, and why.
    entry = LogEntry.objects.get_for_object(table).get(additional_data__action="table.resume")
    assert (entry.actor_id, entry.additional_data["reason"]) == (supervisor.pk, REASON)
    assert entry.additional_data["actor_name"] == "sam"

    again = client.post(answer_url(call, "resume"), {"reason": REASON, "apply": "Resume"}, follow=True)
    assert any("already answered by sam" in m for m in messages_of(again))
    assert LogEntry.objects.get_for_object(table).filter(additional_data__action="table.resume").count() == 1


def test_a_supervisor_voids_the_round_from_the_floor_and_every_stake_comes_back_exactly(client, supervisor, dealer):
    table, clock = live_table(dealer), Clock()
    alice, bob = make_player("alice", "1000.00"), make_player("bob", "250.55")
    round_, call = called_mid_deal(
        table,
        dealer,
        clock,
        (alice, (("player", "100.00"), ("tie", "12.50"), ("player_pair", "5.00")), "traditional"),
        (bob, (("banker", "99.99"),), "no_commission"),
        (bob, (("player_pair", "1.56"), ("perfect_pair", "1.00")), "traditional"),
    )
    assert (balance_of(alice), balance_of(bob)) == (Decimal("882.50"), Decimal("148.00"))

    done = client.post(
        answer_url(call, "void"), {"reason": "Two cards came out together", "apply": "Void"}, follow=True
    )

    assert "Live 1: round voided, 6 bet(s) refunded; the table goes on with its next round." in messages_of(done)
    assert (balance_of(alice), balance_of(bob)) == (Decimal("1000.00"), Decimal("250.55"))
    round_.refresh_from_db()
    table.refresh_from_db()
    call.refresh_from_db()
    assert round_.state == Round.State.CANCELLED
    assert table.status == Table.Status.OPEN
    assert (call.resolution, call.resolved_by_id) == ("cancelled", supervisor.pk)
    cancel = LogEntry.objects.get_for_object(round_).get(additional_data__action="round.cancel")
    assert cancel.actor_id == supervisor.pk
    assert cancel.additional_data["reason"] == "void: Two cards came out together"
    assert cancel.changes_dict["bets_refunded"] == [None, 6]


def test_a_call_made_before_dealing_offers_resume_only_its_round_refunded_at_the_pause(client, supervisor, dealer):
    table, clock = live_table(dealer), Clock()
    alice = make_player("alice", "300.00")
    burned(table, dealer, clock)
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("banker", "40.00"))
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason="camera down", now=clock.now)
    call = SupervisorCall.objects.get(table=table)
    assert balance_of(alice) == Decimal("300.00")

    html = client.get(FLOOR).content.decode()
    assert "cancelled and refunded when the table paused" in html
    assert answer_url(call, "resume") in html
    assert answer_url(call, "void") not in html

    # A void asked for all the same (an old page) names the call's round, already refunded: nothing more is done,
    # and the next round is never touched.
    refused = client.post(answer_url(call, "void"), {"reason": "old page", "apply": "Void"}, follow=True)
    assert f"Live 1: round {round_.number} was already cancelled and its bets refunded; nothing more was done." in (
        messages_of(refused)
    )
    assert SupervisorCall.objects.get(pk=call.pk).is_open
    assert balance_of(alice) == Decimal("300.00")


def test_staff_without_supervise_table_see_the_call_but_cannot_answer_it(client, dealer):
    table, clock = live_table(dealer), Clock()
    alice = make_player("alice", "500.00")
    _round, call = called_mid_deal(table, dealer, clock, (alice, (("player", "50.00"),), "traditional"))
    auditor = make_staff("audrey", roles.AUDITORS)
    client.force_login(auditor)

    html = client.get(FLOOR).content.decode()
    assert f'data-call-id="{call.pk}"' in html
    assert "shoe jammed" in html
    assert "/resume/" not in html
    assert "/void/" not in html
    assert "waiting for a supervisor" in html

    for who in (auditor, dealer, make_staff("cashier", roles.CASHIERS)):
        client.force_login(who)
        for answer in ("resume", "void"):
            assert client.get(answer_url(call, answer)).status_code == 403, (who, answer)
            posted = client.post(answer_url(call, answer), {"reason": "let me", "apply": "x"})
            assert posted.status_code == 403, (who, answer)
    call.refresh_from_db()
    assert call.is_open
    assert balance_of(alice) == Decimal("450.00")
    assert Table.objects.get(pk=table.pk).status == Table.Status.PAUSED


def test_the_calls_are_listed_read_only_for_operators_supervisors_and_auditors(client, dealer):
    table, clock = live_table(dealer), Clock()
    _round, call = called_mid_deal(table, dealer, clock)
    dealing.supervisor_resume(table_id=table.pk, actor=make_staff("sup", roles.SUPERVISORS), reason=REASON)
    listing = reverse("admin:tables_supervisorcall_changelist")

    for role in (roles.TABLE_OPERATORS, roles.SUPERVISORS, roles.AUDITORS):
        client.force_login(make_staff(role.lower().replace(" ", "-"), role))
        page = client.get(listing)
        assert page.status_code == 200, role
        html = page.content.decode()
        for text in ("Live 1", "Dealer called", "shoe jammed", "Resumed", REASON, "sup"):
            assert text in html, (role, text)
        assert client.get(listing + "?status=open").context["cl"].result_count == 0
        assert client.get(listing + "?status=resolved&kind=called").context["cl"].result_count == 1
        assert client.get(reverse("admin:tables_supervisorcall_change", args=[call.pk])).status_code == 200
        assert client.get(reverse("admin:tables_supervisorcall_add")).status_code == 403
        deleted = client.post(reverse("admin:tables_supervisorcall_delete", args=[call.pk]), {"post": "yes"})
        assert deleted.status_code == 403
    client.force_login(dealer)  # a dealer has no admin page
    assert client.get(listing).status_code == 403


# ── the demo ────────────────────────────────────────────────────────────────


def test_load_demo_adds_a_live_table_and_its_dealer_and_a_second_run_changes_nothing():
    out = StringIO()
    call_command("load_demo", stdout=out)

    live = Table.objects.select_related("dealer", "variant").get(name="Live Baccarat 1")
    assert (live.dealing, live.variant.name, live.betting_seconds, live.status) == ("live", "Baccarat", 20, "open")
    dealer = live.dealer
    assert dealer.username == "dealer"
    assert dealer.check_password("dealer-pass-123")
    assert (dealer.is_staff, dealer.is_superuser, dealer.is_active) == (True, False, True)
    assert list(dealer.groups.values_list("name", flat=True)) == [roles.DEALERS]
    assert dealing.may_deal(dealer)
    assert not dealing.may_supervise(dealer)
    assert "Live Baccarat 1" in out.getvalue()

    def snapshot() -> tuple:
        users = get_user_model().objects.order_by("id")
        return (
            list(Table.objects.order_by("id").values()),
            list(users.values("id", "username", "password", "is_staff", "is_superuser", "is_active")),
            [list(u.groups.values_list("name", flat=True)) for u in users],
        )

    before = snapshot()
    call_command("load_demo", stdout=StringIO())
    assert snapshot() == before


def test_a_plain_resume_of_a_table_waiting_for_its_supervisor_is_refused(client, supervisor, dealer):
    table, clock = live_table(dealer), Clock()
    _round, call = called_mid_deal(table, dealer, clock)

    done = client.post(reverse("admin:tables_table_resume", args=[table.pk]), {"reason": "just go on"}, follow=True)

    assert "Live 1: Not resumed: it waits for its supervisor. Answer the call on the live floor." in messages_of(done)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PAUSED
    assert SupervisorCall.objects.get(pk=call.pk).is_open
